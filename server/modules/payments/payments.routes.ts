import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../../plugins/auth.js';
import { notFound } from '../../shared/errors.js';
import { RATE_LIMIT_EXEMPT } from '../../shared/rate-limit.js';
import { ErrorResponse, errors, pageOf } from '../../shared/schemas.js';
import { BatchWebhookBody, ListPaymentsQuery, Payment, PaymentParams, RefundBody, RefundResult, WebhookAnswer, WebhookBody } from './payments.schemas.js';
import type { PaymentsService } from './payments.service.js';
import { checkoutPage } from './simulator.page.js';

/** `a=1&id=x&id=y` → `{ a: '1', id: ['x', 'y'] }` (a repeated field becomes a list). */
export function parseForm(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}

/** Mollie posts `application/x-www-form-urlencoded`; so does the simulator's checkout form. */
export function acceptForms(app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) return;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, parseForm(body as string)));
}

/**
 * Sends a provider-style callback (POST, form body `id=…`) to one of this server's own webhook URLs
 * through its HTTP stack (routing, parsing, rate-limit exemption), as the simulator's "provider".
 */
export function callbackSender(app: FastifyInstance, log: FastifyInstance['log']) {
  return async (webhookUrl: string, providerPaymentId: string): Promise<void> => {
    const url = new URL(webhookUrl);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const res = await app.inject({
        method: 'POST',
        url: url.pathname + url.search,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Betaalsimulator/1.0' },
        payload: `id=${encodeURIComponent(providerPaymentId)}`,
      });
      if (res.statusCode < 500) return;
      log.warn({ status: res.statusCode, attempt }, 'simulator callback not accepted, retrying');
    }
  };
}

const Html = z.string().meta({ description: 'text/html' });
/** The provider's callbacks and the simulator's form post arrive as a form; JSON is accepted too. */
const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'];

/**
 * Payment callbacks (never trusted: payments.service.ts looks every id up at the provider), the
 * admin's payments and refunds, and the simulator's checkout page.
 */
export const paymentsRoutes: FastifyPluginAsyncZod<{ payments: PaymentsService }> = async (app, { payments }) => {
  const tags = ['Betalingen'];
  acceptForms(app);
  const deliver = callbackSender(app, app.log);

  app.post(
    '/payments/webhook',
    {
      config: { access: 'public', ...RATE_LIMIT_EXEMPT },
      schema: {
        tags,
        summary: "Payment provider callback for an order payment (Mollie's form body id=tr_…). Never trusted: the payment is looked up at the provider. 503 when the provider cannot be asked (it retries).",
        consumes: FORM_OR_JSON,
        body: WebhookBody,
        response: { 200: WebhookAnswer, ...errors(400), 503: ErrorResponse },
      },
    },
    async (request) => ({ received: (await payments.handleCallback([request.body.id])).received }),
  );

  app.post(
    '/public/tafel-webhook',
    {
      config: { access: 'public', ...RATE_LIMIT_EXEMPT },
      schema: {
        tags,
        summary: 'Payment provider callback for pay-at-table payments: one id or a batch. Each id is looked up at the provider; unknown ids change nothing.',
        consumes: FORM_OR_JSON,
        body: BatchWebhookBody,
        response: { 200: WebhookAnswer, ...errors(400), 503: ErrorResponse },
      },
    },
    async (request) => {
      const b = request.body;
      const ids = 'ids' in b ? b.ids : Array.isArray(b.id) ? b.id : [b.id];
      return { received: (await payments.handleCallback(ids)).received };
    },
  );

  app.get(
    '/payments',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Payments, newest first (with refunds and notes staff must act on)', querystring: ListPaymentsQuery, response: { 200: pageOf(Payment), ...errors(400, 401, 403) } },
    },
    async (request) => {
      const { status, order_id, limit, offset } = request.query;
      return payments.list(sessionOf(request).tenantId, { status, order_id }, limit, offset);
    },
  );

  app.get(
    '/payments/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'One payment with its refunds', params: PaymentParams, response: { 200: Payment, ...errors(400, 401, 403, 404) } } },
    async (request) => payments.get(sessionOf(request).tenantId, request.params.id),
  );

  app.post(
    '/payments/:id/refund',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Refund a paid payment in whole (no amount) or in part, through its provider; recorded with its status',
        params: PaymentParams,
        body: RefundBody,
        response: { 201: RefundResult, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      const result = await payments.refund({ tenantId: s.tenantId, userId: s.userId }, request.params.id, request.body?.amount_cents);
      return reply.code(201).send(result);
    },
  );

  // The simulator's checkout (the default provider without MOLLIE_API_KEY): a page, not an API.
  const SimParams = z.object({ id: z.string().regex(/^sim_[A-Za-z0-9]{1,64}$/) });
  app.get(
    '/payments/simulator/:id',
    { config: { access: 'public' }, schema: { tags, summary: "The payment simulator's checkout page (HTML): choose 'betaald' or 'mislukt'", params: SimParams, 'x-media': { 200: ['text/html'] }, response: { 200: Html, ...errors(400, 404) } } },
    async (request, reply) => {
      const row = await payments.simulator.checkout(request.params.id);
      if (!row) throw notFound('Betaling');
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(checkoutPage(row));
    },
  );

  app.post(
    '/payments/simulator/:id',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "The simulator's checkout choice (form post): records it, sends the service's callback as a provider would, and sends the guest back",
        params: SimParams,
        consumes: FORM_OR_JSON,
        body: z.object({ uitkomst: z.enum(['betaald', 'mislukt']) }),
        response: { 303: z.null(), ...errors(400, 404, 429) },
      },
    },
    async (request, reply) => {
      const decided = await payments.simulator.decide(request.params.id, request.body.uitkomst === 'betaald' ? 'paid' : 'failed');
      if (!decided) throw notFound('Betaling');
      if (decided.changed) await deliver(decided.row.webhook_url, decided.row.id);
      return reply.redirect(decided.row.redirect_url, 303);
    },
  );
};
