import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_BODIES } from '../../../../server/modules/webhooks/webhooks.events.js';
import { WEBHOOK_EVENTS, type WebhookEventType } from '../../../../server/modules/webhooks/webhooks.schemas.js';
import { createTestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';
import { settle, startReceiver } from './receiver.js';

/**
 * What a partner's receiver gets is what the OpenAPI document's `webhooks` promise
 * (webhooks.events.ts): every event, delivered for real, fits its body schema
 * exactly (nothing missing, nothing the schema does not name), and the document lists them.
 */
describe('webhook bodies match the OpenAPI webhooks', () => {
  it('every event, as delivered, parse to themselves under their documented schema', async () => {
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
    // A table's mains held as course 2, with a chosen sauce, then fired.
    const sauce = await t.services.menu.createGroup(r.id, { name: 'Saus', min_select: 1, max_select: 1, options: [{ name: 'Pepersaus', price_delta_cents: 150 }] });
    await t.services.menu.updateProduct(r.id, menu.burger.id, { modifier_group_ids: [sauce.id] });
    const held = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [{ product_id: menu.burger.id, quantity: 1, seat: 2, course: 2, modifiers: [{ option_id: sauce.options[0]!.id }] }] } });
    expect(held.statusCode, held.body).toBe(201);
    expect((await t.req({ method: 'POST', url: `/api/v1/orders/${held.json().id}/fire`, cookie: staff, payload: { course: 2 } })).statusCode).toBe(200);
    expect((await t.req({ method: 'POST', url: `/api/v1/orders/${held.json().id}/fire`, cookie: staff, payload: { course: 2 } })).statusCode).toBe(200); // again: a no-op, no second event
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
    // Options travel on the lines; the fire is one event with the course, who and when.
    const fired = rx.requests.filter(({ body }) => body.type === 'order.course_fired');
    expect(fired).toHaveLength(1);
    const data = fired[0]!.body.data as { order: { id: string; items: Array<{ held: boolean; seat: number; course: number; modifiers: Array<{ name: string }> }> }; fire: { course: number; user_id: string | null } };
    expect(data.order.id).toBe(held.json().id);
    expect(data.fire).toMatchObject({ course: 2, user_id: r.staffId });
    expect(data.order.items[0]).toMatchObject({ held: false, seat: 2, course: 2, modifiers: [{ name: 'Pepersaus' }] });
    const created = rx.requests.find(({ body }) => body.type === 'order.created' && (body.data as { order: { id: string } }).order.id === held.json().id)!;
    expect((created.body.data as { order: { items: Array<{ modifiers: Array<{ name: string; price_delta_cents: number }>; held: boolean }> } }).order.items[0]).toMatchObject({ held: true, modifiers: [{ name: 'Pepersaus', price_delta_cents: 150 }] });

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
