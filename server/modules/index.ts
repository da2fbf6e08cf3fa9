import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paymentWarning, type Config } from '../config.js';
import type { ChangeLog } from '../db/change-log.js';
import type { DbHandle } from '../db/connection.js';
import type { Clock } from '../shared/clock.js';
import { authRoutes } from './auth/auth.routes.js';
import { ABSOLUTE_MS, createAuthService } from './auth/auth.service.js';
import { authJobs } from './auth/auth.jobs.js';
import { healthRoutes } from './health/health.routes.js';
import { menuRoutes, modifierGroupRoutes, staffMenuRoutes } from './menu/menu.routes.js';
import { createMenuService } from './menu/menu.service.js';
import { ordersRoutes } from './orders/orders.routes.js';
import { createOrdersService } from './orders/orders.service.js';
import { loyaltyRoutes } from './loyalty/loyalty.routes.js';
import { createLoyaltyService } from './loyalty/loyalty.service.js';
import { httpTransport } from '../../sync/transport.js';
import { stockAdminRoutes, stockRoutes } from './stock/stock.routes.js';
import { createStockService } from './stock/stock.service.js';
import { tenantsRoutes } from './tenants/tenants.routes.js';
import { createTenantsService, tenantKeys } from './tenants/tenants.service.js';
import { usersRoutes } from './users/users.routes.js';
import { syncRoutes } from '../../sync/routes.js';
import { createSyncService } from '../../sync/service.js';
import { createUsersService } from './users/users.service.js';
import { syncRegistry } from './sync-descriptors.js';
import { createGuestService } from './guest/guest.service.js';
import { guestRoutes } from './guest/guest.routes.js';
import { apiKeysRoutes } from './apikeys/apikeys.routes.js';
import { createApiKeysService } from './apikeys/apikeys.service.js';
import { externalRoutes } from './external/external.routes.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';
import { createWebhooksService } from './webhooks/webhooks.service.js';
import { analyticsRoutes } from './analytics/analytics.routes.js';
import { createAnalyticsService } from './analytics/analytics.service.js';
import { forecastRoutes } from './forecast/forecast.routes.js';
import { createForecastService } from './forecast/forecast.service.js';
import { shiftsRoutes } from './shifts/shifts.routes.js';
import { paymentsRoutes } from './payments/payments.routes.js';
import { createPaymentsService } from './payments/payments.service.js';
import { createPaymentProviders } from './payments/providers.js';
import { publicRoutes } from './public/public.routes.js';
import { createPublicOrdersService } from './public/public.service.js';
import { createShiftsService } from './shifts/shifts.service.js';
import { wasteRoutes } from './waste/waste.routes.js';
import { createWasteService } from './waste/waste.service.js';
import { floorRoutes } from './floor/floor.routes.js';
import { tillRoutes } from './till/till.routes.js';
import { createTillService } from './till/till.service.js';
import { createFloorService } from './floor/floor.service.js';
import { reservationsRoutes } from './reservations/reservations.routes.js';
import { createReservationsService } from './reservations/reservations.service.js';
import { haccpRoutes } from './haccp/haccp.routes.js';
import { journalRoutes } from './journal/journal.routes.js';
import { createJournalService } from './journal/journal.service.js';
import { createHaccpService } from './haccp/haccp.service.js';
import { chromiumPdfRenderer } from './haccp/haccp.pdf.js';
import { haccpJobs } from './haccp/haccp.jobs.js';
import { floorJobs } from './floor/floor.jobs.js';
import { tillJobs } from './till/till.jobs.js';
import { loyaltyJobs } from './loyalty/loyalty.jobs.js';
import { paymentsJobs } from './payments/payments.jobs.js';
import { webhooksJobs } from './webhooks/webhooks.jobs.js';
import { printingRoutes } from './printing/printing.routes.js';
import { createPrintingService } from './printing/printing.service.js';
import { printingJobs } from './printing/printing.jobs.js';
import { callbackSender } from './payments/payments.routes.js';
import { MODULE_LIVE_EVENTS } from './live-events.js';
import type { AuthPluginOptions } from '../plugins/auth.js';
import type { GuardsOptions } from '../plugins/guards.js';
import type { OpenApiPluginOptions } from '../plugins/openapi.js';
import { webhooksDocument } from './webhooks/webhooks.openapi.js';
import { apiKeyGuard } from './apikeys/apikeys.guard.js';
import { unauthorized } from '../shared/errors.js';
import type { LiveEvents } from '../plugins/realtime.js';
import type { JobSpec } from '../plugins/scheduler.js';

export interface CoreDeps {
  config: Config;
  handle: DbHandle;
  clock: Clock;
  changes: ChangeLog;
}

/** Composition root: every service built once, wired to the ones it may call. */
export function createServices(deps: CoreDeps) {
  const { handle, clock, changes } = deps;
  const db = handle.db;
  // Users and auth come before tenants (whose service is built on users): they get the tenant reads they need.
  const keys = tenantKeys(db);
  const users = createUsersService({ db, changes, tenants: keys });
  const tenants = createTenantsService({ db, changes, users });
  const auth = createAuthService({ db, clock, changes, tenants: keys, users: users.credentials });
  const sync = createSyncService({ ...deps, registry: syncRegistry });
  const menu = createMenuService({ db, changes, tables: handle.tables });
  // The till's journal (issue 25, docs/till.md): orders (voids, counter payments), the floor's bill
  // payments and online payments and refunds append to it in their own transactions.
  const journal = createJournalService({
    db, changes, clock, tenants, role: deps.config.role,
    syncState: async (tenantId) => sync.status(tenantId),
    hasAppliance: async (tenantId) => (await sync.cloud.listDevices(tenantId)).some((d) => d.revoked_at === null),
  });
  const orders = createOrdersService({ db, changes, menu, tenants, clock, journal });
  // Loyalty (issue 9, docs/loyalty.md): a paid order with a phone earns points in the order's own
  // transaction; an appliance with a cloud redeems beyond its lease online through its SYNC_KEY.
  const loyalty = createLoyaltyService({
    db, changes, tenants,
    cloudLink: deps.config.role === 'local' && deps.config.cloudUrl && deps.config.syncKey ? httpTransport(deps.config.cloudUrl, deps.config.syncKey, { timeoutMs: 5000 }) : undefined,
  });
  orders.on('paid', (w, actor, order) => loyalty.earnForOrder(w, actor, order).then(() => {}));
  const stock = createStockService({ db, changes, clock, menu, tenants, tables: handle.tables });
  // A dish's allergens include its recipe's ingredients' (CONTRACT §17): the menu reads recipes through stock.
  menu.useRecipes((exec, tenantId, ids) => stock.recipeIngredientIds(exec, tenantId, ids), (exec, tenantId) => stock.allRecipeIngredients(exec, tenantId));
  // A completed order books its recipes' consumption in the order's own transaction (docs/stock.md).
  orders.on('statusChanged', async (w, actor, order, _from, to) => {
    if (to === 'completed') await stock.consumeForOrder(w, actor.tenantId, order, actor.userId);
  });
  // Floor and reservations (issue 11, docs/floor.md): an order's table_id is checked and the order joins
  // its table's open bill in the order's own transaction; each status change is announced live.
  const floor = createFloorService({ db, changes, clock, orders, journal, hasAppliance: async (tenantId) => (await sync.cloud.listDevices(tenantId)).some((d) => d.revoked_at === null) });
  const reservations = createReservationsService({ db, changes, clock, tenants, floor });
  floor.useReservations(reservations.lookup);
  orders.on('creating', (w, actor, row) => floor.orderCreating(w, actor, row));
  orders.on('created', (w, actor, order) => floor.orderCreated(w, actor, order));
  orders.on('statusChanged', (w, actor, order) => floor.orderStatusChanged(w, actor, order));
  orders.on('paid', (w, actor, order) => floor.orderPaid(w, actor, order));
  const apiKeys = createApiKeysService({ db, changes, clock, role: deps.config.role });
  const webhooks = createWebhooksService({ db, dialect: handle.dialect, changes, clock, config: deps.config, connection: handle.connection });
  // Insights (issue 13): forecast and analytics read orders; shifts use the forecast for the roster.
  // Waste books its stock removal through stock (same transaction) and lowers dishes' margins in analytics.
  const forecast = createForecastService({ db, clock, tenants });
  // Waste photos: on the appliance's disk; in the cloud in the database, so every node reads them (issue 28 point 16).
  const waste = createWasteService({ db, changes, clock, tenants, menu, stock, dataDir: deps.config.dataDir, photoStore: deps.config.role === 'cloud' ? 'database' : 'disk' });
  const shifts = createShiftsService({ db, changes, tenants, forecast });
  // Revenue (issue 25): money from the till's journal (as the day close), labour from the shifts.
  const insights = createAnalyticsService({
    db, clock, tenants, menu,
    sales: (tenantId, from, to) => journal.sales(tenantId, from, to),
    labour: (tenantId, periods) => shifts.labour(tenantId, periods),
    wasteCosts: (tenantId, from, to, sold) => waste.costByDish(tenantId, from, to, sold),
    recipeCosts: async (tenantId, ids) => new Map(await Promise.all(ids.map(async (id) => [id, await stock.recipeCost(tenantId, id).catch(() => null)] as const))),
  });
  // Payments and public ordering (issue 12): Mollie with MOLLIE_API_KEY, else the built-in simulator.
  // Pay-at-table pays the floor plan's bills (floor.billForTable, floor.recordBillPayment).
  const payments = createPaymentsService({ db, changes, clock, orders, bills: floor, journal, providers: createPaymentProviders({ db, clock, config: deps.config }) });
  const publicOrders = createPublicOrdersService({ db, changes, clock, config: deps.config, tenants, menu, orders, payments, sync, tables: floor });
  // Food safety (issue 10, docs/haccp.md): on the cloud the overdue job leaves restaurants with an appliance to it.
  const haccp = createHaccpService({
    db, changes, clock, tenants, users,
    hasAppliance: async (tenantId) => (await sync.cloud.listDevices(tenantId)).some((d) => d.revoked_at === null),
  });
  const guest = createGuestService({ config: deps.config, tenants, floor });
  // Kitchen printers (issue 24, docs/kitchen.md): a ticket is a job written in the order change's own
  // transaction; the cloud never prints (no jobs, no connections); synced orders print through the
  // area's change-log consumer (printing.routes.ts registers it).
  const printing = createPrintingService({
    db, changes, clock, role: deps.config.role, tenants, users, orders, floor, tables: handle.tables,
    retryBaseMs: deps.config.printRetryBaseMs, retryCapMs: deps.config.printRetryCapMs, timeoutMs: deps.config.printTimeoutMs,
  });
  if (deps.config.role !== 'cloud') {
    orders.on('created', (w, actor, order) => printing.orderCreated(w, actor, order));
    orders.on('statusChanged', (w, actor, order, from, to) => printing.orderStatusChanged(w, actor, order, from, to));
    orders.on('courseFired', (w, actor, order, course) => printing.courseFired(w, actor, order, course));
    orders.on('itemVoided', (w, actor, order, v) => printing.itemVoided(w, actor, order, v));
  }
  // The till (issue 25, docs/till.md): receipts are numbered where the till is (an appliance; the cloud only for a restaurant without one).
  const till = createTillService({
    db, changes, clock, orders, floor, loyalty, tenants, journal,
    numbersReceipts: async (tenantId) => deps.config.role !== 'cloud' || !(await sync.cloud.listDevices(tenantId)).some((d) => d.revoked_at === null),
    numbersWhenPaid: deps.config.role !== 'cloud',
    printReceipt: (tenantId, input) => printing.enqueueReceipt(tenantId, input),
  });
  floor.onBillPaid((w, bill, total) => till.issueIn(w, bill.tenant_id, { bill_id: bill.id, total_cents: total }).then(() => {}));
  // An order without a table gets its own receipt when it is paid (at the till, online, or at the counter).
  orders.on('paid', (w, actor, order) => (order.table_id ? Promise.resolve() : till.issueIn(w, actor.tenantId, { order_id: order.id, total_cents: order.total_cents }).then(() => {})));
  return { printing, till, guest, journal, loyalty, haccp, users, tenants, auth, sync, menu, orders, stock, floor, reservations, apiKeys, webhooks, forecast, insights, shifts, waste, payments, publicOrders };
}

export type Services = ReturnType<typeof createServices>;

/**
 * Every area's cron jobs (`<area>.jobs.ts`), registered by server/plugins/scheduler.ts. A job calls
 * its service and holds no logic; its name is how tests run it (`app.scheduler.run(name)`).
 */
export function moduleJobs(app: FastifyInstance, deps: CoreDeps, services: Services): JobSpec[] {
  return [
    ...authJobs({ auth: services.auth }),
    ...floorJobs({ floor: services.floor }),
    ...loyaltyJobs({ loyalty: services.loyalty, role: deps.config.role }),
    ...paymentsJobs({ payments: services.payments, deliver: callbackSender(app, app.log) }),
    ...webhooksJobs({ webhooks: services.webhooks }),
    ...haccpJobs({ haccp: services.haccp }),
    ...(deps.config.role !== 'cloud' ? printingJobs({ printing: services.printing }) : []),
    // Where the till is (an appliance): a union of both sides' partial payments arrives there through sync.
    ...(deps.config.role !== 'cloud' ? tillJobs({ till: services.till }) : []),
  ];
}

type Device = Awaited<ReturnType<Services['sync']['cloud']['authenticate']>>;
/** The appliance of each request that passed the `syncKey` guard (one key lookup per request). */
const devices = new WeakMap<FastifyRequest, Device>();

/** The appliance whose SYNC_KEY a `syncKey` route's request carried (server/plugins/guards.ts checked it). */
export function deviceOf(request: FastifyRequest): Device {
  const device = devices.get(request);
  if (!device) throw unauthorized('Geen geldige synchronisatiesleutel.');
  return device;
}

/**
 * What the infrastructure gets from the areas, handed to the plugins as options by server/app.ts
 * (the plugins import no module): the session lookup and cookie lifetime (auth), the API-key and
 * SYNC_KEY checks behind `access: { apiKey }` and `access: 'syncKey'` (guards), the webhooks area's
 * events for the OpenAPI document (openapi), every area's change
 * kind → socket event (realtime) and every area's cron jobs (scheduler).
 */
export function infrastructureOptions(
  app: FastifyInstance,
  deps: CoreDeps,
  services: Services,
): { session: AuthPluginOptions; guards: Pick<GuardsOptions, 'apiKey' | 'syncKey'>; openapi: OpenApiPluginOptions; events: LiveEvents; jobs: JobSpec[] } {
  return {
    session: { lookup: services.auth.authenticate, maxAgeMs: ABSOLUTE_MS },
    guards: {
      apiKey: apiKeyGuard(app, services.apiKeys),
      syncKey: async (request) => {
        devices.set(request, await services.sync.cloud.authenticate(request.headers.authorization));
      },
    },
    openapi: { webhooks: webhooksDocument() },
    events: MODULE_LIVE_EVENTS,
    jobs: moduleJobs(app, deps, services),
  };
}

/** Registers every module's routes under /api/v1. */
export async function registerModules(app: FastifyInstance, deps: CoreDeps, services: Services): Promise<void> {
  await app.register(
    async (api) => {
      await api.register(healthRoutes, { db: deps.handle, role: deps.config.role, payments: { provider: deps.config.paymentProvider ?? 'simulator', warning: paymentWarning(deps.config) } });
      await api.register(authRoutes, { auth: services.auth });
      await api.register(tenantsRoutes, { tenants: services.tenants, role: deps.config.role });
      await api.register(usersRoutes, { users: services.users });
      await api.register(syncRoutes, { sync: services.sync, role: deps.config.role, deviceOf });
      await api.register(menuRoutes, { menu: services.menu });
      await api.register(staffMenuRoutes, { menu: services.menu });
      await api.register(modifierGroupRoutes, { menu: services.menu });
      await api.register(ordersRoutes, { orders: services.orders });
      await api.register(loyaltyRoutes, { loyalty: services.loyalty, role: deps.config.role, deviceOf });
      await api.register(floorRoutes, { floor: services.floor });
      await api.register(tillRoutes, { till: services.till, timezone: async (tenantId) => (await services.tenants.cachedSettings(tenantId)).timezone });
      await api.register(reservationsRoutes, { reservations: services.reservations });
      await api.register(stockAdminRoutes, { stock: services.stock });
      await api.register(stockRoutes, { stock: services.stock });
      await api.register(apiKeysRoutes, { apiKeys: services.apiKeys });
      await api.register(webhooksRoutes, { webhooks: services.webhooks });
      await api.register(externalRoutes, { orders: services.orders, menu: services.menu, stock: services.stock, reservations: services.reservations, loyalty: services.loyalty });
      await api.register(analyticsRoutes, { insights: services.insights });
      await api.register(forecastRoutes, { forecast: services.forecast });
      await api.register(shiftsRoutes, { shifts: services.shifts });
      await api.register(wasteRoutes, { waste: services.waste });
      await api.register(paymentsRoutes, { payments: services.payments });
      await api.register(publicRoutes, { publicOrders: services.publicOrders });
      await api.register(haccpRoutes, { haccp: services.haccp, pdf: chromiumPdfRenderer() });
      await api.register(guestRoutes, { guest: services.guest });
      await api.register(printingRoutes, { printing: services.printing, role: deps.config.role });
      await api.register(journalRoutes, { journal: services.journal });
    },
    { prefix: '/api/v1' },
  );
}
