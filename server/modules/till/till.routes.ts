import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { Order } from '../orders/orders.schemas.js';
import { renderReceiptHtml } from './till.html.js';
import { CustomerBody, DiscountBody, DiscountResult, IdParams, OrderPaymentBody, OrderPaymentResult, Receipt, ReceiptQuery } from './till.schemas.js';
import type { TillService } from './till.service.js';

/** The till (CONTRACT §19, docs/till.md): payments on orders without a table, discounts, a guest by phone, receipts. */
export const tillRoutes: FastifyPluginAsyncZod<{ till: TillService; timezone: (tenantId: string) => Promise<string> }> = async (app, { till, timezone }) => {
  const tags = ['Kassa'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId, via: 'pos' as const, role: s.role };
  };
  const receiptDoc = {
    'x-media': { 200: ['application/json', 'text/html'] },
  };

  app.post(
    '/orders/:id/payments',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Take a payment at the till on an order without a table (method, cash with change, or exactly some lines); never more than is open (409). Paid in full: the order is paid.',
        params: IdParams,
        body: OrderPaymentBody,
        response: { 201: OrderPaymentResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await till.payOrder(actor(request), request.params.id, request.body)),
  );
  app.post(
    '/orders/:id/discounts',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Give a discount on the order or a line: percent, amount, comp or loyalty points; staff up to the restaurant’s limit (403 above it)',
        params: IdParams,
        body: DiscountBody,
        response: { 201: DiscountResult, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await till.addDiscount(actor(request), request.params.id, request.body)),
  );
  app.post(
    '/orders/:id/customer',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Attach a guest to the order by phone (any notation, 06… included): the loyalty customer is found or made; the order earns points and can pay with them',
        params: IdParams,
        body: CustomerBody,
        response: { 200: Order, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => till.attachCustomer(actor(request), request.params.id, request.body),
  );

  for (const [path, read] of [
    ['/orders/:id/receipt', (t: string, id: string) => till.orderReceipt(t, id)],
    ['/floorplan/bills/:id/receipt', (t: string, id: string) => till.billReceipt(t, id)],
  ] as const) {
    app.get(
      path,
      {
        config: { access: 'session' },
        schema: {
          tags,
          summary: 'The receipt: number (once paid in full), restaurant, lines, discounts, VAT per rate, payments; format=html is a printable 80 mm page',
          params: IdParams,
          querystring: ReceiptQuery,
          response: { 200: Receipt, ...errors(400, 401, 404) },
          ...receiptDoc,
        },
      },
      async (request, reply) => {
        const r = await read(sessionOf(request).tenantId, request.params.id);
        if (request.query.format !== 'html') return r;
        return reply.type('text/html; charset=utf-8').send(renderReceiptHtml(r, await timezone(sessionOf(request).tenantId)) as never);
      },
    );
    app.post(
      `${path}/print`,
      {
        config: { access: 'session' },
        schema: {
          tags,
          summary: 'Print the receipt on the restaurant’s receipt printer (a print job of kind receipt); 409 while none is set up',
          params: IdParams,
          response: { 202: z.object({ queued: z.boolean(), job_id: z.string() }), ...errors(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const a = actor(request);
        const receipt = await read(a.tenantId, request.params.id);
        return reply.code(202).send(await till.printReceipt(a, receipt, path.startsWith('/orders') ? request.params.id : null));
      },
    );
  }
};
