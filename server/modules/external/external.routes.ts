import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors, listOf, pageOf } from '../../shared/schemas.js';
import { apiKeyOf } from '../apikeys/apikeys.guard.js';
import { EXTERNAL_READS_PER_MINUTE } from '../apikeys/apikeys.schemas.js';
import { BalanceByPhone } from '../loyalty/loyalty.schemas.js';
import type { LoyaltyService } from '../loyalty/loyalty.service.js';
import { StaffMenu } from '../menu/menu.schemas.js';
import type { MenuService } from '../menu/menu.service.js';
import { Order } from '../orders/orders.schemas.js';
import type { OrdersService } from '../orders/orders.service.js';
import { Reservation } from '../reservations/reservations.schemas.js';
import type { ReservationsService } from '../reservations/reservations.service.js';
import { StockList } from '../stock/stock.schemas.js';
import type { StockService } from '../stock/stock.service.js';
import { ExternalLoyaltyParams, ExternalOrderParams, ExternalOrdersQuery, ExternalReservationsQuery, ExternalStatusBody } from './external.schemas.js';

export interface ExternalDeps {
  orders: OrdersService;
  menu: MenuService;
  stock: StockService;
  reservations: ReservationsService;
  loyalty: LoyaltyService;
}

/** OpenAPI tag of the partner API: everything a partner needs is under it. */
export const PARTNER_TAG = 'Partner-API';

const AUTH =
  'Send `Authorization: Bearer svc_…` (an API key an admin made under "API-sleutels"). A missing, unknown or revoked key is 401 UNAUTHORIZED; ' +
  'a key without the scope is 403 FORBIDDEN (scopes: read < write < admin). ';
const READ = `${AUTH}Scope \`read\`. At most ${EXTERNAL_READS_PER_MINUTE} reads per minute per key (over all read endpoints); more is 429 RATE_LIMITED with Retry-After.`;

/**
 * The partner API (spec §4.9, CONTRACT §12): bearer API keys, each endpoint one call into the service
 * of the area it reads or changes (the same rules as the staff API and sync).
 */
export const externalRoutes: FastifyPluginAsyncZod<ExternalDeps> = async (app, deps) => {
  const tags = [PARTNER_TAG];

  app.get(
    '/external/orders',
    {
      config: { access: { apiKey: 'read' } },
      schema: {
        tags,
        summary: 'Orders, newest first',
        description: `${READ} Filter by \`status\` (comma-separated); paginated with \`limit\` (default 50, max 200) and \`offset\`.`,
        querystring: ExternalOrdersQuery,
        response: { 200: pageOf(Order), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { status, limit, offset } = request.query;
      return deps.orders.list(apiKeyOf(request).tenantId, { statuses: status }, limit, offset);
    },
  );

  app.get(
    '/external/menu',
    {
      config: { access: { apiKey: 'read' } },
      schema: {
        tags,
        summary: 'The menu: categories in order, each with its products (price in cents, available or not)',
        description: `${READ} Products without a (live) category are listed last under "Overig" (id null). No costs.`,
        response: { 200: StaffMenu, ...errors(401, 403, 429) },
      },
    },
    async (request) => deps.menu.staffMenu(apiKeyOf(request).tenantId),
  );

  app.get(
    '/external/stock',
    {
      config: { access: { apiKey: 'read' } },
      schema: {
        tags,
        summary: 'Stock per product, in total and per location',
        description: `${READ} Quantities in the product's unit (stuk, kg, liter …); \`below_min\` marks what is on the purchase list.`,
        response: { 200: StockList, ...errors(401, 403, 429) },
      },
    },
    async (request) => deps.stock.list(apiKeyOf(request).tenantId),
  );

  app.get(
    '/external/reservations',
    {
      config: { access: { apiKey: 'read' } },
      schema: {
        tags,
        summary: 'The reservations of one date, by time',
        description: `${READ} \`date\` is a calendar date in the restaurant's time zone (YYYY-MM-DD); without it: today there.`,
        querystring: ExternalReservationsQuery,
        response: { 200: listOf(Reservation), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => ({ data: await deps.reservations.listByDate(apiKeyOf(request).tenantId, request.query.date) }),
  );

  app.get(
    '/external/loyalty/:phone',
    {
      config: { access: { apiKey: 'read' } },
      schema: {
        tags,
        summary: 'A loyalty customer’s points balance, by phone number',
        description:
          `${READ} The phone number in any usual notation (06 12345678, 0031612345678, +31 6 1234 5678: URL-encode the + and spaces); ` +
          'an unknown customer is 404, something that is not a phone number 400.',
        params: ExternalLoyaltyParams,
        response: { 200: BalanceByPhone, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => deps.loyalty.balanceByPhone(apiKeyOf(request).tenantId, request.params.phone),
  );

  app.post(
    '/external/orders/:id/status',
    {
      config: { access: { apiKey: 'write' } },
      schema: {
        tags,
        summary: 'Change an order’s status (emits the order.status_changed webhook with { order, from, to })',
        description:
          `${AUTH}Scope \`write\`. The order rules of the staff API apply (forward only, skipping allowed, cancelled from any active status). ` +
          'Setting the current status again changes nothing and answers 200 with the order. An order of another restaurant is 404. ' +
          'Counts against the mutation limit of 60 per minute per client address.',
        params: ExternalOrderParams,
        body: ExternalStatusBody,
        response: { 200: Order, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const key = apiKeyOf(request);
      const { order } = await deps.orders.setStatus({ tenantId: key.tenantId, userId: null, via: 'external' }, request.params.id, request.body.status);
      return order;
    },
  );
};
