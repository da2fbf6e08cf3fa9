import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_BODIES } from '../../../../server/modules/webhooks/webhooks.events.js';
import { WEBHOOK_EVENTS, type WebhookEventType } from '../../../../server/modules/webhooks/webhooks.schemas.js';
import { createTestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';
import { settle, startReceiver } from './receiver.js';

/**
 * What a partner's receiver gets is what the OpenAPI document's `webhooks` promise
 * (webhooks.events.ts): every one of the six events, delivered for real, fits its body schema
 * exactly (nothing missing, nothing the schema does not name), and the document lists them.
 */
describe('webhook bodies match the OpenAPI webhooks', () => {
  it('all six events, as delivered, parse to themselves under their documented schema', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const admin = await r.adminCookie();
    const staff = await r.staffCookie();
    const rx = await startReceiver();
    const hook = await t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: admin, payload: { url: rx.url, events: [...WEBHOOK_EVENTS] } });
    expect(hook.statusCode, hook.body).toBe(201);

    const order = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
    expect(order.statusCode, order.body).toBe(201);
    const id = order.json().id as string;
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${id}`, cookie: admin, payload: { status: 'accepted' } })).statusCode).toBe(200);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${id}`, cookie: admin, payload: { payment_status: 'paid' } })).statusCode).toBe(200);
    const zone = await t.services.floor.createZone(r.id, { name: 'Zaal' });
    await t.services.floor.createTable(r.id, { zone_id: zone.id, name: 'T1', seats: 4, x: 0, y: 0 });
    const booked = await t.req({ method: 'POST', url: `/api/v1/public/reservations/${r.slug}`, payload: { date: '2026-11-21', time: '18:00', party_size: 2, name: 'Jansen', phone: '0612345678', notes: 'Bij het raam' } });
    expect(booked.statusCode, booked.body).toBe(201);
    const customer = await t.req({ method: 'POST', url: '/api/v1/loyalty/customer', cookie: staff, payload: { phone: '06 87654321', name: 'De Vries' } });
    expect(customer.statusCode, customer.body).toBe(201);
    const temp = await t.req({ method: 'POST', url: '/api/v1/haccp/temperature', cookie: staff, payload: { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 12, target_max: 7 } });
    expect(temp.statusCode, temp.body).toBe(201);
    await settle(t);

    const seen = new Set<string>();
    for (const { body } of rx.requests) {
      const schema = WEBHOOK_EVENT_BODIES[body.type as WebhookEventType];
      expect(schema, body.type).toBeDefined();
      const parsed = schema.safeParse(body);
      expect(parsed.error?.issues ?? [], body.type).toEqual([]);
      // Parsing drops what a schema does not name: equal means the schema names everything sent.
      expect(parsed.data, body.type).toEqual(body);
      seen.add(body.type);
    }
    expect([...seen].sort()).toEqual([...WEBHOOK_EVENTS].sort());

    // The served document describes each event with that schema.
    const doc = (await t.req({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    for (const type of WEBHOOK_EVENTS) {
      const post = doc.webhooks[type].post;
      expect(post.requestBody.content['application/json'].schema, type).toEqual({ $ref: `#/components/schemas/${String(WEBHOOK_EVENT_BODIES[type].meta()?.id)}` });
      expect(doc.components.schemas[String(WEBHOOK_EVENT_BODIES[type].meta()?.id)].properties.type, type).toMatchObject({ const: type });
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual(['X-Service-Signature', 'X-Service-Delivery', 'X-Service-Event', 'X-Service-Attempt']);
    }
  });
});
