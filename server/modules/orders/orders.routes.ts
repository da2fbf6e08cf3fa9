import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conflict } from '../../shared/errors.js';
import { errors, listOf, pageOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { AdvanceOrderBody, CloseUnfinishedBody, CreateOrderBody, LiveOrdersQuery, IdempotencyHeaders, ListOrdersQuery, Order, OrderParams, OrderStatus, UpdateOrderBody } from './orders.schemas.js';
import { CourseFire, FireCourseBody, ItemVoid, OrderItemParams, VoidItemBody } from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

const HistoryEntry = z
  .object({ id: z.string(), from_status: OrderStatus.nullable(), to_status: OrderStatus, user_id: z.string().nullable(), source: z.string(), created_at: z.string() })
  .meta({ id: 'OrderStatusChange' });

export const ordersRoutes: FastifyPluginAsyncZod<{ orders: OrdersService }> = async (app, { orders }) => {
  const tags = ['Bestellingen'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId, via: 'pos' as const };
  };

  app.get(
    '/orders',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Orders, newest first; status may be comma-separated', querystring: ListOrdersQuery, response: { 200: pageOf(Order), ...errors(400, 401, 403) } },
    },
    async (request) => {
      const { status, source, limit, offset } = request.query;
      return orders.list(sessionOf(request).tenantId, { statuses: status, source }, limit, offset);
    },
  );

  app.get(
    '/orders/live',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: "The kitchen board: the current business day's active orders (new … delivering), oldest first; ?station= keeps only that station's lines and leaves out orders without any",
        querystring: LiveOrdersQuery,
        response: { 200: listOf(Order), ...errors(400, 401) },
      },
    },
    async (request) => ({ data: await orders.live(sessionOf(request).tenantId, request.query.station) }),
  );

  app.get(
    '/orders/unfinished',
    {
      config: { access: 'session' },
      schema: { tags, summary: "Niet afgerond: active orders from before the current business day (never on the board), oldest first", response: { 200: listOf(Order), ...errors(401) } },
    },
    async (request) => ({ data: await orders.unfinished(sessionOf(request).tenantId) }),
  );

  app.post(
    '/orders/unfinished/close',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Clear the Niet afgerond list: its orders (or the listed ids among them) move to completed or cancelled, each a status change in the history and change log; a paid order completes',
        body: CloseUnfinishedBody,
        response: { 200: listOf(Order), ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await orders.closeUnfinished(actor(request), request.body.status, request.body.ids) }),
  );

  app.get(
    '/orders/:id',
    { config: { access: 'session' }, schema: { tags, summary: 'One order', params: OrderParams, response: { 200: Order, ...errors(400, 401, 404) } } },
    async (request) => orders.get(sessionOf(request).tenantId, request.params.id),
  );

  app.get(
    '/orders/:id/history',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Every status change of an order: who, when, from, to', params: OrderParams, response: { 200: listOf(HistoryEntry), ...errors(400, 401, 404) } },
    },
    async (request) => ({ data: (await orders.history(sessionOf(request).tenantId, request.params.id)).map(({ tenant_id: _t, order_id: _o, ...h }) => h) }),
  );

  app.post(
    '/orders',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Create an order; prices come from the menu. A repeated idempotency key (body or Idempotency-Key header) answers 200 with the original order.',
        headers: IdempotencyHeaders,
        body: CreateOrderBody,
        response: { 201: Order, 200: Order, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { order, created } = await orders.create(actor(request), request.body, request.headers['idempotency-key']);
      return reply.code(created ? 201 : 200).send(order);
    },
  );

  app.post(
    '/orders/:id/advance',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Kitchen board: move an order forward (any staff session). Same status again: no-op 200; backward or out of a final status: 409; cancelling stays with admins (403, use PATCH).',
        params: OrderParams,
        body: AdvanceOrderBody,
        response: { 200: Order, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => (await orders.advance(actor(request), request.params.id, request.body.status)).order,
  );

  app.post(
    '/orders/:id/fire',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Send a held course (2..5) to the kitchen; who and when are kept. Fired already: no-op 200; no such course or a final order: 409',
        params: OrderParams,
        body: FireCourseBody,
        response: { 200: Order, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => (await orders.fire(actor(request), request.params.id, request.body.course)).order,
  );

  app.post(
    '/orders/:id/items/:item_id/void',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Void units of a line with a reason; totals and stock leave them out. More than is left, or a completed, cancelled or paid order: 409',
        params: OrderItemParams,
        body: VoidItemBody,
        response: { 200: Order, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => orders.voidItem(actor(request), request.params.id, request.params.item_id, request.body),
  );

  app.get(
    '/orders/:id/courses',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Who fired which course when, and every void of the order (who, when, why)',
        params: OrderParams,
        response: { 200: z.object({ fires: z.array(CourseFire), voids: z.array(ItemVoid) }).meta({ id: 'OrderCourseLog' }), ...errors(400, 401, 404) },
      },
    },
    async (request) => orders.courseLog(sessionOf(request).tenantId, request.params.id),
  );

  app.patch(
    '/orders/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change the status (forward only, or cancelled) and/or mark paid',
        params: OrderParams,
        body: UpdateOrderBody,
        response: { 200: Order, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { status, payment_status } = request.body;
      if (status === 'cancelled' && payment_status === 'paid') throw conflict('Een bestelling kan niet tegelijk geannuleerd en betaald worden.');
      let order = payment_status ? (await orders.markPaid(actor(request), request.params.id)).order : undefined;
      if (status) order = (await orders.setStatus(actor(request), request.params.id, status)).order;
      return order!;
    },
  );
};
