import type { Role } from '../../shared/role.js';
import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { conflict, invalidField, isAppError, notFound } from '../../shared/errors.js';
import { e164OrThrow } from '../../shared/phone.js';
import type { SyncService } from '../../../sync/service.js';
import type { MenuService } from '../menu/menu.service.js';
import type { Order } from '../orders/orders.schemas.js';
import type { Actor, OrdersService } from '../orders/orders.service.js';
import type { OrderPaymentClaim, PaymentsService } from '../payments/payments.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { publicRepository as repo, type PublicOrderRow } from './public.repository.js';
import type { Intake, IntakeStatus, PublicMenu, PublicOrderInput, PublicOrderView, PublicPaymentView, PublicTableBill } from './public.schemas.js';

/** The cloud counts the appliance as silent after this long without contact (its long-poll returns every ~20 s). */
export const SILENT_AFTER_MS = 90_000;

export const PAUSED_MESSAGE = 'Dit restaurant neemt op dit moment geen online bestellingen aan. Probeer het later opnieuw of bel het restaurant.';

/** What pay-at-table needs from the floor plan (server/modules/floor, issue 11). */
export interface TableBills {
  billForTable(tenantId: string, code: string, opts?: { byName?: boolean }): Promise<{ table: { id: string; name: string }; orders: Order[]; total_cents: number; paid_cents: number; open_cents: number; bill_id: string | null }>;
}

const TYPE_LABEL: Record<PublicOrderInput['type'], string> = { pickup: 'Afhalen', delivery: 'Bezorgen', table: 'Aan tafel' };

/**
 * The order's notes as the kitchen sees them: how it leaves the kitchen first, then the guest's note.
 * A table order names the table by its name (`tableName`), never by the code the guest sent.
 */
function kitchenNotes(input: PublicOrderInput, tableName: string | null): string {
  const head = input.type === 'delivery' ? `Bezorgen: ${input.delivery_address}` : input.type === 'table' ? `Aan tafel ${tableName}` : TYPE_LABEL.pickup;
  return input.notes ? `[${head}] ${input.notes}` : `[${head}]`;
}

/** A line's options for a guest: "Pepersaus", "2× Extra kaas". */
const optionLabels = (i: { modifiers: Array<{ name: string; quantity: number }> }) => i.modifiers.map((m) => (m.quantity > 1 ? `${m.quantity}× ${m.name}` : m.name));

export function createPublicOrdersService(deps: {
  db: Db;
  changes: ChangeLog;
  clock: Clock;
  /** Plain values from the composition root: where this node runs and where guests reach it (PUBLIC_BASE_URL). */
  config: { role: Role; publicBaseUrl?: string };
  tenants: TenantsService;
  menu: MenuService;
  orders: OrdersService;
  payments: PaymentsService;
  sync: SyncService;
  tables?: TableBills;
}) {
  const { db, changes, clock, config, tenants, menu, orders, payments, sync } = deps;
  let tables = deps.tables;

  /** Whether the restaurant still lets a table's name open its bill (setting `tafel_by_name`, default false). */
  const byName = async (tenantId: string) => ({ byName: (await tenants.cachedSettings(tenantId)).tafel_by_name });

  async function tenantBySlug(slug: string) {
    const t = await tenants.cachedBySlug(slug);
    if (!t) throw notFound('Restaurant');
    return t;
  }

  /**
   * The restaurant's appliance as the cloud sees it: its last contact (hello, push or pull) and
   * whether it is silent. Null on the appliance itself and for a tenant without a registered
   * appliance (a cloud-only restaurant: its kitchen uses the cloud directly).
   */
  async function appliance(tenantId: string): Promise<{ last_contact_at: string | null; silent_ms: number; silent: boolean } | null> {
    if (config.role !== 'cloud') return null;
    const devices = (await sync.cloud.listDevices(tenantId)).filter((d) => !d.revoked_at);
    if (devices.length === 0) return null;
    const contacts = devices.map((d) => d.last_seen_at ?? d.created_at).sort();
    const last = contacts[contacts.length - 1]!;
    const silentMs = Math.max(0, clock.now().getTime() - new Date(last).getTime());
    return { last_contact_at: devices.some((d) => d.last_seen_at) ? last : null, silent_ms: silentMs, silent: silentMs > SILENT_AFTER_MS };
  }

  async function intakeOf(tenantId: string): Promise<Intake & { silentSince: string | null; online: boolean }> {
    // Known from memory to have been heard from within SILENT_AFTER_MS (or to have no appliance):
    // what the read below would answer, without the read (bench/README.md "Fewer round trips").
    if (config.role === 'cloud' && (await sync.cloud.heardFromSince(tenantId, new Date(clock.now().getTime() - SILENT_AFTER_MS)))) {
      return { accepting: true, message: null, silentSince: null, online: true };
    }
    const a = await appliance(tenantId);
    if (!a?.silent) return { accepting: true, message: null, silentSince: null, online: true };
    const { pause_public_orders_after_minutes: pauseAfter } = await tenants.cachedSettings(tenantId);
    const paused = pauseAfter !== null && a.silent_ms >= pauseAfter * 60_000;
    return { accepting: !paused, message: paused ? PAUSED_MESSAGE : null, silentSince: a.last_contact_at ?? new Date(clock.now().getTime() - a.silent_ms).toISOString(), online: false };
  }

  /** Whether the restaurant's own system has (had the chance to) read this order: it made contact after the order was committed. */
  async function seenBy(tenantId: string, createdAt: string): Promise<boolean> {
    const a = await appliance(tenantId);
    if (!a) return true;
    return a.last_contact_at !== null && a.last_contact_at > createdAt;
  }

  const baseUrlOf = (requestOrigin: string) => config.publicBaseUrl ?? requestOrigin;

  return {
    /** The pay-at-table bills of the floor plan, once that module is wired (composition root). */
    useTables(t: TableBills): void {
      tables = t;
    },

    /**
     * Whether the cloud takes public orders for this restaurant now (the silent-appliance policy),
     * for other public intake such as reservations: `{ accepting, message, online }`.
     */
    async intake(tenantId: string): Promise<Intake & { online: boolean }> {
      const { accepting, message, online } = await intakeOf(tenantId);
      return { accepting, message, online };
    },

    /**
     * The guest's menu: available dishes with the options a guest can choose now. `exclude` (allergen
     * codes) leaves out every dish that contains one, and every option that does; a dish whose forced
     * choice (min_select) can no longer be made that way is left out too (docs/menu.md).
     */
    async menu(slug: string, exclude: readonly string[] = []): Promise<PublicMenu> {
      const t = await tenantBySlug(slug);
      const [staffMenu, intake, s] = await Promise.all([menu.staffMenu(t.id), intakeOf(t.id), tenants.cachedSettings(t.id)]);
      const excluded = new Set(exclude);
      const free = (allergens: readonly string[]) => !allergens.some((a) => excluded.has(a));
      const categories = staffMenu.categories
        .map((c) => ({
          id: c.id,
          name: c.name,
          products: c.products
            .filter((p) => p.available && free(p.allergens))
            .map(({ id, name, description, price_cents, allergens, dietary, modifier_groups }) => ({
              id,
              name,
              description,
              price_cents,
              allergens,
              dietary,
              modifier_groups: modifier_groups.map((g) => ({ ...g, options: g.options.filter((o) => o.available && free(o.allergens)) })),
            }))
            .filter((p) => p.modifier_groups.every((g) => g.options.length >= g.min_select)),
        }))
        .filter((c) => c.products.length > 0);
      // What a guest looks for first: where, when open, how to call (issue 26).
      const restaurant = { name: t.name, slug: t.slug, address: s.address, phone: s.phone, opening_hours: s.opening_hours as PublicMenu['restaurant']['opening_hours'], max_party_size: s.max_party_size };
      return { restaurant, ordering: { accepting: intake.accepting, message: intake.message }, categories };
    },

    /**
     * A guest's order (CONTRACT §11): prices from the menu (orders.create), source `web`, idempotent
     * by key (namespaced `web:` so a guest's key never meets a staff key), `order.created` from the
     * orders module. Pickup and delivery are paid online: a checkout is started (or the open one
     * found again on a repeat). In the cloud, while the restaurant's appliance is silent, the order
     * is accepted and marked; past the tenant's `pause_public_orders_after_minutes` it is refused.
     */
    async placeOrder(slug: string, input: PublicOrderInput, headerKey: string | undefined, requestOrigin: string) {
      const t = await tenantBySlug(slug);
      if (headerKey && input.idempotency_key && headerKey !== input.idempotency_key) {
        throw invalidField('idempotency_key', 'moet gelijk zijn aan de Idempotency-Key-header.');
      }
      const key = headerKey ?? input.idempotency_key;
      const intake = await intakeOf(t.id);
      if (!intake.accepting) throw conflict(PAUSED_MESSAGE);
      const phone = e164OrThrow(input.customer.phone, 'customer.phone');
      let table: { id: string; name: string } | null = null;
      if (input.type === 'table') {
        if (!tables) throw invalidField('type', "'table' is bij dit restaurant niet mogelijk.");
        try {
          // The table's public_code (from its QR code, CONTRACT §11): a name is as guessable here as on
          // the bill (anyone could put orders on any table), so it counts only while tafel_by_name is on.
          table = (await tables.billForTable(t.id, input.table!, await byName(t.id))).table;
        } catch (err) {
          if (isAppError(err) && err.code === 'NOT_FOUND') throw invalidField('table', 'is geen tafel van dit restaurant.');
          throw err;
        }
      }
      const actor: Actor & { via: 'web' } = { tenantId: t.id, userId: null, via: 'web' };
      const paymentRequired = input.type !== 'table';
      const rowOf = (o: Order): PublicOrderRow => ({
        id: o.id,
        tenant_id: t.id,
        type: input.type,
        customer_email: input.customer.email ?? null,
        table_name: table?.name ?? null,
        delivery_address: input.type === 'delivery' ? input.delivery_address! : null,
        payment_required: paymentRequired ? 1 : 0,
        appliance_silent_since: intake.silentSince,
        created_at: o.created_at,
      });
      const writeRow = async (w: Writer, row: PublicOrderRow) => {
        if (await repo.insertIfAbsent(w.trx, row)) await w.record({ entity: 'public_order', entityId: row.id, kind: 'public_order.created', payload: { public_order: row } });
      };
      // A new order's public row and its payment's claim commit in the order's own transaction
      // (order.created, public_order.created, payment.created: the same changes in the same order
      // as three transactions did, in one; bench/README.md "Cloud capacity").
      let claimed: OrderPaymentClaim | undefined;
      const { order, created } = await orders.create(
        actor,
        { items: input.items, notes: kitchenNotes(input, table?.name ?? null), customer: { name: input.customer.name, phone }, ...(table ? { table_id: table.id } : {}) },
        key ? `web:${key}` : undefined,
        async (w, o) => {
          await writeRow(w, rowOf(o));
          if (paymentRequired) claimed = await payments.claimOrderPaymentIn(w, t.id, o);
        },
      );
      // A repeat with the same key: written now if a crash came between (orders before this change
      // wrote the row in a transaction of its own); the payment is claimed (found again) below.
      if (!created) await changes.write(t.id, (w) => writeRow(w, rowOf(order)));
      const payment = paymentRequired
        ? await payments.startOrderPayment({ tenantId: t.id, orderId: order.id, baseUrl: baseUrlOf(requestOrigin), description: `Bestelling ${order.number} bij ${t.name}` }, claimed)
        : null;
      return {
        created,
        body: {
          order: payment?.status === 'paid' && order.payment_status !== 'paid' ? await orders.get(t.id, order.id) : order,
          payment_id: payment?.id ?? null,
          checkout_url: payment?.status === 'open' ? payment.checkout_url : null,
          restaurant_online: intake.online,
        },
      };
    },

    async orderView(slug: string, orderId: string): Promise<PublicOrderView> {
      const t = await tenantBySlug(slug);
      const meta = await repo.find(db, t.id, orderId);
      // Only guests' orders are visible here, never staff orders.
      if (!meta) throw notFound('Bestelling');
      const order = await orders.get(t.id, orderId);
      const pays = await payments.forOrder(t.id, orderId);
      const pay = pays.find((p) => p.status === 'paid') ?? pays.find((p) => p.status === 'open') ?? pays[pays.length - 1];
      return {
        id: order.id,
        number: order.number,
        status: order.status,
        payment_status: order.payment_status,
        type: meta.type,
        items: order.items.map((i) => ({ name: i.name, quantity: i.quantity, total_cents: i.total_cents, options: optionLabels(i) })),
        total_cents: order.total_cents,
        seen_by_restaurant: await seenBy(t.id, order.created_at),
        payment: pay ? { id: pay.id, status: pay.status, checkout_url: pay.status === 'open' ? pay.checkout_url : null } : null,
        created_at: order.created_at,
      };
    },

    /** The guest's return page after a checkout: the payment (and its order) as they are now. */
    async paymentView(paymentId: string): Promise<PublicPaymentView> {
      const p = await payments.findAnyTenant(paymentId);
      if (!p) throw notFound('Betaling');
      const t = await tenants.byId(p.tenant_id);
      if (!t) throw notFound('Betaling');
      const order = p.order_id ? await orders.get(p.tenant_id, p.order_id).catch(() => null) : null;
      return {
        id: p.id,
        status: p.status,
        purpose: p.purpose,
        amount_cents: p.amount_cents,
        tip_cents: p.tip_cents,
        table_name: p.table_name,
        restaurant: { name: t.name, slug: t.slug },
        order: order ? { id: order.id, number: order.number, status: order.status, payment_status: order.payment_status } : null,
      };
    },

    /** For admins in the cloud: how long the appliance has been silent, whether ordering is paused, and the public orders it has not seen yet. */
    async status(tenantId: string): Promise<IntakeStatus> {
      const [a, settings] = await Promise.all([appliance(tenantId), tenants.cachedSettings(tenantId)]);
      const pauseAfter = settings.pause_public_orders_after_minutes;
      const paused = !!a?.silent && pauseAfter !== null && a.silent_ms >= pauseAfter * 60_000;
      const unseen: IntakeStatus['unseen_orders'] = [];
      if (a) {
        // Only orders committed after the last contact can be unseen (their row is written just after the order's).
        const since = a.last_contact_at ?? '0000';
        for (const row of await repo.since(db, tenantId, since, 200)) {
          const order = await orders.get(tenantId, row.id).catch(() => null);
          if (!order || (a.last_contact_at !== null && a.last_contact_at > order.created_at)) continue;
          unseen.push({
            order_id: order.id,
            number: order.number,
            status: order.status,
            payment_status: order.payment_status,
            created_at: order.created_at,
            accepted_while_silent: row.appliance_silent_since !== null,
          });
        }
      }
      return {
        role: config.role,
        appliance: a ? { last_contact_at: a.last_contact_at, silent_seconds: Math.floor(a.silent_ms / 1000), silent: a.silent } : null,
        pause_after_minutes: pauseAfter,
        paused,
        unseen_orders: unseen,
      };
    },

    /**
     * Pay-at-table: the table's open bill as a guest may see it. `code` is the table's `public_code`
     * (CONTRACT §11); its name (guessable) opens nothing unless the restaurant set `tafel_by_name`.
     */
    async tableBill(slug: string, code: string): Promise<PublicTableBill> {
      const t = await tenantBySlug(slug);
      if (!tables) throw notFound('Tafel');
      const bill = await tables.billForTable(t.id, code, await byName(t.id));
      return {
        table: { name: bill.table.name },
        orders: bill.orders.map((o) => ({
          number: o.number,
          items: o.items.map((i) => ({ name: i.name, quantity: i.quantity, total_cents: i.total_cents, options: optionLabels(i) })),
          total_cents: o.total_cents,
          payment_status: o.payment_status,
        })),
        total_cents: bill.total_cents,
        paid_cents: bill.paid_cents,
        open_cents: bill.open_cents,
      };
    },

    /**
     * Pay-at-table: a payment of part or all of what is open (never more, counting payments still
     * open for the bill), plus an optional tip, through the active provider.
     */
    async payTable(slug: string, code: string, input: { amount_cents?: number; tip_cents?: number }, requestOrigin: string): Promise<{ payment_id: string; checkout_url: string | null }> {
      const t = await tenantBySlug(slug);
      if (!tables) throw notFound('Tafel');
      const opts = await byName(t.id);
      const bill = await tables.billForTable(t.id, code, opts);
      if (!bill.bill_id || bill.open_cents <= 0) throw conflict('Er staat voor deze tafel niets open om te betalen.');
      const billId = bill.bill_id;
      const amount = input.amount_cents ?? bill.open_cents;
      const payment = await payments.startTablePayment({
        tenantId: t.id,
        baseUrl: baseUrlOf(requestOrigin),
        description: `Tafel ${bill.table.name} bij ${t.name}`,
        tableName: bill.table.name,
        billId,
        amountCents: amount,
        tipCents: input.tip_cents ?? 0,
        openCents: bill.open_cents,
        recheckOpen: async () => {
          const now = await tables!.billForTable(t.id, code, opts);
          return now.bill_id === billId ? now.open_cents : 0;
        },
      });
      return { payment_id: payment.id, checkout_url: payment.checkout_url };
    },
  };
}

export type PublicOrdersService = ReturnType<typeof createPublicOrdersService>;
