import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf, pageOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { CreateWebhookBody, Delivery, DeliveryParams, ListDeliveriesQuery, Webhook, WebhookParams, WebhookWithSecret, WEBHOOK_EVENTS } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const SIGNING =
  'Every delivery is a POST of `{ id, type, created_at, tenant: { id, slug }, data }` (JSON) with the headers ' +
  '`X-Service-Signature: sha256=<hex>` (HMAC-SHA256 of the exact body bytes, keyed with the webhook secret as UTF-8 text) and ' +
  '`X-Service-Delivery: <uuid>` (the same on every attempt of one delivery and on a redelivery: deduplicate on it). ' +
  'Verify: `crypto.timingSafeEqual(Buffer.from(header), Buffer.from("sha256=" + crypto.createHmac("sha256", secret).update(rawBody).digest("hex")))` ' +
  'over the raw body as received, before parsing it. Answer 2xx within 10 s; anything else is retried after 1 s, 4 s and 16 s ' +
  '(four attempts), then the delivery is marked failed and an admin can send it again. More in docs/partners.md.';

/** Outgoing webhooks (CONTRACT §12): admin only. Also runs the delivery side on a sending node. */
export const webhooksRoutes: FastifyPluginAsyncZod<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  webhooks.log.error = (err, msg) => app.log.error({ err }, msg);
  if (webhooks.isSender) {
    // The change log feeds the queue (one node per tenant batch); the worker sends from the queue.
    app.consumers.register(webhooks.consumer);
    // Its jobs (delivery every 5 s, nightly prune) are in webhooks.jobs.ts.
    app.addHook('onListen', async () => webhooks.sender.start());
    app.addHook('onClose', async () => webhooks.close());
  }

  const tags = ['Webhooks'];

  app.get('/webhooks', { config: { access: 'admin' }, schema: { tags, summary: 'Webhooks of this restaurant (never the secret)', response: { 200: listOf(Webhook), ...errors(401, 403) } } }, async (request) => ({
    data: await webhooks.list(sessionOf(request).tenantId),
  }));

  app.post(
    '/webhooks',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Register a webhook: a URL and the events it receives; the secret is in this answer only',
        description: `Events: ${WEBHOOK_EVENTS.join(', ')}. ${SIGNING}`,
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      return reply.code(201).send(await webhooks.create(s.tenantId, request.body, s.userId));
    },
  );

  app.get('/webhooks/:id', { config: { access: 'admin' }, schema: { tags, summary: 'One webhook (never the secret)', params: WebhookParams, response: { 200: Webhook, ...errors(400, 401, 403, 404) } } }, async (request) =>
    webhooks.get(sessionOf(request).tenantId, request.params.id),
  );

  app.delete(
    '/webhooks/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Delete a webhook: nothing more is sent to it (also no retries)', params: WebhookParams, response: { 204: z.null(), ...errors(400, 401, 403, 404, 429) } } },
    async (request, reply) => {
      await webhooks.remove(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Give a webhook a new secret (shown once); every attempt from now on is signed with it',
        params: WebhookParams,
        response: { 200: WebhookWithSecret, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.rotateSecret(sessionOf(request).tenantId, request.params.id),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'What was sent to a webhook, newest first (status=failed: what needs attention)',
        description:
          'Deliveries live on the node that sends: the cloud, or a stand-alone appliance. On an appliance with a cloud this list is empty; look in the cloud.',
        params: WebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: pageOf(Delivery), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => webhooks.deliveries(sessionOf(request).tenantId, request.params.id, request.query),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Send a delivery again: same delivery id and body, four fresh attempts starting now',
        description: 'For a failed delivery (or one still being retried: it is tried now). A delivery the receiver accepted is 409.',
        params: DeliveryParams,
        response: { 200: Delivery, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => webhooks.redeliver(sessionOf(request).tenantId, request.params.id, request.params.deliveryId),
  );
};
