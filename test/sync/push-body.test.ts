import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MAX_OP_BYTES, OVERSIZED, PROTOCOL_VERSION } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { httpTransport, JsonText, type SyncRequest, type SyncTransport } from '../../sync/transport.js';
import { lane } from '../helpers/db.js';
import { seedMenu } from '../helpers/factories.js';
import { FakeTransport, twoNodes } from './harness.js';

/**
 * The push sends each op's payload as the change log stored it (issue 29 point 2: no parse and
 * re-serialization per op). What the cloud receives must be the same JSON as before: every pending
 * op with its fields and its payload as a value, an oversized one replaced by the marker.
 */
describe(`push body (${lane})`, () => {
  it('is JSON text with every pending op and its stored payload, an oversized op as the marker; the cloud applies it', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const menu = await seedMenu(cloud, tenant.id);
    await appliance.engine.syncOnce();
    const bodies: unknown[] = [];
    const capture: SyncTransport = {
      send: (req: SyncRequest) => {
        if (req.path === '/api/v1/sync/push') bodies.push(req.body);
        return transport.send(req);
      },
    };
    (appliance.engine as unknown as { o: { transport: SyncTransport } }).o.transport = capture;

    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    const notes = 'Crème brûlée 🍮 "zonder" \\ suiker\u2028– tafel 4';
    const { order } = await appliance.services.orders.create(actor, { items: [{ product_id: menu.friet.id, quantity: 2, notes }] });
    const huge = 'x'.repeat(MAX_OP_BYTES + 10);
    await appliance.changes.write(tenant.id, (w) => w.record({ entity: 'tenant', entityId: tenant.id, kind: 'settings.updated', payload: { fields: { name: huge } } }));

    const pending = await appliance.handle.db
      .selectFrom('change_log')
      .selectAll()
      .where('tenant_id', '=', tenant.id)
      .where('origin', '=', appliance.changes.origin)
      .where('seq', '>', (await appliance.engine.readState())!.acked_seq)
      .orderBy('seq')
      .execute();
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const r = await appliance.engine.pushOnce();
    expect(r.sent).toBe(pending.length);

    expect(bodies).toHaveLength(1);
    const body = bodies[0];
    expect(body).toBeInstanceOf(JsonText);
    const text = (body as JsonText).text;
    // The stored payload text is in the body as it is (not re-serialized).
    expect(text).toContain(pending[0]!.payload);
    const sent = JSON.parse(text) as unknown;
    expect(sent).toEqual({
      protocol_version: PROTOCOL_VERSION,
      schema_version: SCHEMA_VERSION,
      ops: pending.map((p) => ({
        op_id: p.op_id,
        device_seq: Number(p.seq),
        entity: p.entity,
        entity_id: p.entity_id,
        kind: p.kind,
        payload: Buffer.byteLength(p.payload) > MAX_OP_BYTES ? { [OVERSIZED]: Buffer.byteLength(p.payload) } : JSON.parse(p.payload),
        created_at: p.created_at,
      })),
    });
    expect(text).not.toContain(huge);
    // toJSON gives the same value to a transport that serializes bodies itself.
    expect(JSON.parse(JSON.stringify(body))).toEqual(sent);

    // The cloud applied the order with its notes intact and refused the oversized op.
    expect(r.results.filter((x) => x.status !== 'applied').map((x) => x.status)).toEqual(['rejected']);
    const item = await cloud.handle.db.selectFrom('order_items').select('notes').where('order_id', '=', order.id).executeTakeFirstOrThrow();
    expect(item.notes).toBe(notes);
    expect(transport).toBeInstanceOf(FakeTransport);
  });

  it('the HTTP transport sends a JsonText as it is and any other body as JSON', async () => {
    const received: Array<{ type: string | undefined; body: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ type: req.headers['content-type'], body });
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const t = httpTransport(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'sleutel');
    const text = '{"a":1,"ops":[{"payload":{"b":"é"}}]}';
    expect(await t.send({ method: 'POST', path: '/p', body: new JsonText(text) })).toEqual({ status: 200, body: { ok: true } });
    await t.send({ method: 'POST', path: '/p', body: { a: 1 } });
    expect(received).toEqual([
      { type: 'application/json', body: text },
      { type: 'application/json', body: '{"a":1}' },
    ]);
  });
});
