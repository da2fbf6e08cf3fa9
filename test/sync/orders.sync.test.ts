import { describe, expect, it } from 'vitest';
import { PUSH_TX_OPS } from '../../sync/cloud.js';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { ordersSync } from '../../server/modules/orders/orders.sync.js';
import { createAppliance, FakeTransport, quiesce, replicatedState, twoNodes } from './harness.js';

/** Menu and orders across the appliance and the cloud (issue 4, ARCHITECTURE §4). */
async function joined() {
  const nodes = await twoNodes();
  const { cloud, tenant, appliance } = nodes;
  const menu = await seedMenu(cloud, tenant.id);
  await appliance.engine.syncOnce(); // bootstrap: tenant, users, menu
  const actor = (via: 'pos' | 'web' | 'external' = 'pos') => ({ tenantId: tenant.id, userId: null, via });
  return { ...nodes, menu, actor };
}

describe('sync: menu and orders', () => {
  it('orders taken offline on the appliance and online in the cloud all end up on both sides, numbered apart', async () => {
    const { cloud, tenant, appliance, transport, menu, actor } = await joined();
    transport.offline = true;
    const local = [];
    for (let i = 0; i < 3; i++) local.push((await appliance.services.orders.create(actor(), orderBody(menu))).order);
    const web = [];
    for (let i = 0; i < 2; i++) web.push((await cloud.services.orders.create(actor('web'), orderBody(menu))).order);
    expect(local.map((o) => o.number)).toEqual(['K-001', 'K-002', 'K-003']);
    expect(web.map((o) => o.number)).toEqual(['W-001', 'W-002']);
    transport.offline = false;
    await quiesce(appliance);
    const onCloud = await cloud.services.orders.list(tenant.id, {}, 50, 0);
    const onAppliance = await appliance.services.orders.list(tenant.id, {}, 50, 0);
    expect(onCloud.total).toBe(5);
    expect(onAppliance.total).toBe(5);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('status only moves forward; the first final status the cloud accepted wins and the other is a visible conflict', async () => {
    const { cloud, tenant, appliance, transport, menu, actor } = await joined();
    const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
    await quiesce(appliance);
    transport.offline = true;
    // Kitchen completes it on the appliance; the cloud (a partner) cancels it meanwhile.
    await appliance.services.orders.setStatus(actor(), order.id, 'ready');
    await appliance.services.orders.setStatus(actor(), order.id, 'completed');
    await cloud.services.orders.setStatus(actor('external'), order.id, 'cancelled');
    transport.offline = false;
    await quiesce(appliance);
    expect((await cloud.services.orders.get(tenant.id, order.id)).status).toBe('cancelled');
    expect((await appliance.services.orders.get(tenant.id, order.id)).status).toBe('cancelled');
    const conflicts = await cloud.handle.db.selectFrom('sync_ops').selectAll().where('status', '=', 'conflict').execute();
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.result).toContain('cancelled');
    // Every status change is kept as history on both sides (a ledger: the union).
    const history = await cloud.services.orders.history(tenant.id, order.id);
    expect(history.map((h) => h.to_status).sort()).toEqual(['cancelled', 'completed', 'new', 'ready']);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a late, backward status from the appliance does not undo the cloud’s progress; paid never reverts', async () => {
    const { cloud, tenant, appliance, transport, menu, actor } = await joined();
    const { order } = await cloud.services.orders.create(actor('web'), orderBody(menu));
    await quiesce(appliance);
    transport.offline = true;
    await cloud.services.orders.setStatus(actor(), order.id, 'delivering');
    await cloud.services.orders.markPaid(actor(), order.id);
    await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const o = await side.services.orders.get(tenant.id, order.id);
      expect([o.status, o.payment_status]).toEqual(['delivering', 'paid']);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('menu edits of different fields on both sides both survive; archive is sticky', async () => {
    const { cloud, tenant, appliance, transport, menu } = await joined();
    transport.offline = true;
    await appliance.services.menu.updateProduct(tenant.id, menu.friet.id, { price_cents: 425 });
    await cloud.services.menu.updateProduct(tenant.id, menu.friet.id, { name: 'Verse friet' });
    await cloud.services.menu.archiveProduct(tenant.id, menu.cola.id);
    await appliance.services.menu.updateProduct(tenant.id, menu.cola.id, { price_cents: 350 });
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const friet = await side.services.menu.getProduct(tenant.id, menu.friet.id);
      expect([friet.name, friet.price_cents]).toEqual(['Verse friet', 425]);
      expect((await side.services.menu.getProduct(tenant.id, menu.cola.id)).archived_at).not.toBeNull();
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a cloud order reaches the appliance’s kitchen list and change log (so its tablets get it live)', async () => {
    const { cloud, tenant, appliance, menu, actor } = await joined();
    const { order } = await cloud.services.orders.create(actor('web'), orderBody(menu, { customer: { name: 'Web klant', phone: '0612345678' } }));
    await quiesce(appliance);
    expect((await appliance.services.orders.live(tenant.id)).map((o) => o.id)).toContain(order.id);
    const log = await appliance.changes.readSince(tenant.id, 0, 10_000);
    expect(log.filter((c) => c.entity_id === order.id).map((c) => c.kind)).toEqual(['order.created']);
  });

  it('a push larger than one transaction chunk, with an op that fails after writing, applies every other op once and undoes only that one', async () => {
    const { cloud, tenant, device, appliance, transport, menu, actor } = await joined();
    transport.offline = true;
    // Every other order also moves on: 1.5 ops per order, PUSH_TX_OPS + 12 ops in all (two chunks; within MAX_PUSH_OPS with the bad op).
    const n = Math.ceil(((PUSH_TX_OPS + 12) * 2) / 3);
    for (let i = 0; i < n; i++) {
      const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
      if (i % 2 === 0) await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    }
    const ops = (await appliance.handle.db.selectFrom('change_log').selectAll().where('origin', '=', device.id).orderBy('seq').execute()).map((r) => ({
      op_id: r.op_id, device_seq: Number(r.seq), entity: r.entity, entity_id: r.entity_id, kind: r.kind, payload: JSON.parse(r.payload) as Record<string, unknown>, created_at: r.created_at,
    }));
    expect(ops.length).toBeGreaterThan(PUSH_TX_OPS + 10);
    // A bad order in the middle of the first chunk: the orders row inserts, then an item without a
    // name violates NOT NULL (on PostgreSQL that aborts the transaction), so the op must be undone alone.
    const template = ops[0]!;
    const badId = '01900000-0000-7000-8000-0000000000bd';
    const order = template.payload.order as { id: string; number: string; items: Array<Record<string, unknown>> };
    const bad = {
      ...template,
      op_id: '01900000-0000-7000-8000-0000000000b0',
      device_seq: ops[40]!.device_seq,
      entity_id: badId,
      payload: { ...template.payload, order: { ...order, id: badId, number: 'K-999', items: order.items.map((i) => ({ ...i, id: `${String(i.id).slice(0, -4)}beef`, name: null })) } },
    };
    const body = [...ops.slice(0, 40), bad, ...ops.slice(40).map((o) => ({ ...o, device_seq: o.device_seq + 1 }))];
    const push = () => cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops: body } });
    const res = await push();
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Array<{ op_id: string; status: string; server_seq: number | null; duplicate: boolean }>;
    expect(results.map((r) => r.op_id)).toEqual(body.map((o) => o.op_id));
    expect(results.filter((r) => r.status !== 'applied').map((r) => [r.op_id, r.status])).toEqual([[bad.op_id, 'rejected']]);
    expect(res.json().complete).toBe(true);
    // Every applied op has its own server_seq, in device_seq order; nothing of the bad order remains.
    const seqs = results.filter((r) => r.status === 'applied').map((r) => r.server_seq!);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await cloud.handle.db.selectFrom('orders').select('id').where('id', '=', badId).execute()).toEqual([]);
    expect((await cloud.services.orders.list(tenant.id, {}, 500, 0)).total).toBe(n);
    const logged = await cloud.handle.db.selectFrom('change_log').select(['op_id', 'seq']).where('origin', '=', device.id).orderBy('seq').execute();
    expect(logged.map((l) => l.op_id)).toEqual(ops.map((o) => o.op_id));
    // Sent again: all duplicates with the same answers, nothing applied twice.
    const again = await push();
    expect((again.json().results as typeof results).every((r) => r.duplicate)).toBe(true);
    expect((again.json().results as typeof results).map((r) => r.server_seq)).toEqual(results.map((r) => r.server_seq));
    // The appliance's own sync then converges (its ops are deduplicated by op id).
    transport.offline = false;
    await quiesce(appliance);
    expect(await appliance.engine.pendingCount()).toBe(0);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  }, 120_000); // ≈ 490 ops made and pushed twice: slow on a loaded 2-core machine
  it('two appliances of one restaurant sharing a prefix: both K-001s are kept, the later renamed alike everywhere, and the key stays with the first', async () => {
    const { cloud, tenant, appliance: first, transport, menu, actor } = await joined();
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Terras');
    const second = await createAppliance(new FakeTransport(() => cloud, sync_key));
    await second.engine.syncOnce();
    transport.offline = true;
    // Both take their first order of the day offline, from a tablet that reused its draft key.
    const a = (await first.services.orders.create(actor(), orderBody(menu, { idempotency_key: 'tafel-4-concept-1' }))).order;
    const b = (await second.services.orders.create(actor(), orderBody(menu, { idempotency_key: 'tafel-4-concept-1' }))).order;
    await second.services.orders.setStatus(actor(), b.id, 'accepted');
    expect([a.number, b.number]).toEqual(['K-001', 'K-001']);
    await second.engine.syncOnce(); // the cloud sees the second appliance's order first
    transport.offline = false;
    for (let i = 0; i < 2; i++) for (const side of [first, second]) await quiesce(side);

    const renamed = `K-001-${a.id.slice(-4)}`;
    for (const side of [cloud, first, second]) {
      const [oa, ob] = [await side.services.orders.get(tenant.id, a.id), await side.services.orders.get(tenant.id, b.id)];
      expect([oa.number, ob.number, ob.status]).toEqual([renamed, 'K-001', 'accepted']);
    }
    const keys = await cloud.handle.db.selectFrom('orders').select(['id', 'idempotency_key']).where('tenant_id', '=', tenant.id).orderBy('id').execute();
    expect(keys.find((k) => k.id === b.id)!.idempotency_key).toBe('tafel-4-concept-1');
    expect(keys.find((k) => k.id === a.id)!.idempotency_key).toBeNull();
    const conflict = await cloud.handle.db.selectFrom('sync_ops').select('result').where('status', '=', 'conflict').execute();
    expect(conflict).toHaveLength(1);
    expect(conflict[0]!.result).toContain(renamed);
    const state = await replicatedState(cloud, tenant.id);
    expect(await replicatedState(first, tenant.id)).toEqual(state);
    expect(await replicatedState(second, tenant.id)).toEqual(state);
  });

  it('one push chunk with orders that clash on number and key, and their status moves: each order written once with its final state', async () => {
    const { cloud, tenant, device, appliance, transport, menu, actor } = await joined();
    transport.offline = true;
    const { order } = await appliance.services.orders.create(actor(), orderBody(menu, { idempotency_key: 'dubbel' }));
    await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    await appliance.services.orders.setStatus(actor(), order.id, 'ready');
    await appliance.services.orders.markPaid(actor(), order.id, { provider: 'pin' });
    const ops = (await appliance.handle.db.selectFrom('change_log').selectAll().where('origin', '=', device.id).where('entity', 'not in', ['journal_entry', 'receipt']).orderBy('seq').execute()).map((r) => ({
      op_id: r.op_id, device_seq: Number(r.seq), entity: r.entity, entity_id: r.entity_id, kind: r.kind, payload: JSON.parse(r.payload) as { order: { id: string; items: Array<{ id: string }> } }, created_at: r.created_at,
    }));
    // The order's own ops (markPaid also appends a journal entry and numbers a receipt, which are not about this clash).
    // A twin of the order (same number, same key, new ids) with its own moves, in the same push.
    const twinId = '01900000-0000-7000-8000-00000000cafe';
    const twin = ops.map((op, i) => ({
      ...op,
      op_id: `01900000-0000-7000-8000-0000000000${(10 + i).toString()}`,
      device_seq: op.device_seq + 100,
      entity_id: twinId,
      payload: {
        ...op.payload,
        order: { ...op.payload.order, id: twinId, items: op.payload.order.items.map((it, k) => ({ ...it, id: `01900000-0000-7000-8000-00000000f0${k}0` })) },
        ...('history' in op.payload ? { history: { ...(op.payload as { history: object }).history, id: `01900000-0000-7000-8000-00000000e0${i}0` } } : {}),
      },
    }));
    const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops: [...ops, ...twin] } });
    expect(res.statusCode).toBe(200);
    expect((res.json().results as Array<{ status: string }>).map((r) => r.status)).toEqual(['applied', 'applied', 'applied', 'applied', 'conflict', 'applied', 'applied', 'applied']);
    const rows = await cloud.handle.db.selectFrom('orders').select(['id', 'number', 'status', 'payment_status', 'idempotency_key']).where('tenant_id', '=', tenant.id).orderBy('id').execute();
    expect(rows.map((r) => [r.id, r.number, r.status, r.payment_status, r.idempotency_key])).toEqual([
      [order.id, 'K-001', 'ready', 'paid', 'dubbel'],
      [twinId, 'K-001-cafe', 'ready', 'paid', null],
    ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))));
    expect(await cloud.handle.db.selectFrom('order_items').select('id').where('order_id', '=', twinId).execute()).toHaveLength(order.items.length);
    expect(await cloud.handle.db.selectFrom('order_status_history').select('id').where('order_id', '=', twinId).execute()).toHaveLength(3);
    // The change log carries each op's merged state, so the appliance adopts the renamed twin.
    transport.offline = false;
    await quiesce(appliance);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
  it('an order snapshot applied twice, or over an older copy of the order, ends as the cloud’s order (idempotent adopt)', async () => {
    const { cloud, tenant, appliance, transport, menu, actor } = await joined();
    const { order } = await cloud.services.orders.create(actor('web'), orderBody(menu));
    await quiesce(appliance); // the appliance holds the order as 'new'
    transport.offline = true;
    await cloud.services.orders.setStatus(actor('web'), order.id, 'accepted');
    await cloud.services.orders.setStatus(actor('web'), order.id, 'ready');
    await cloud.services.orders.markPaid(actor('web'), order.id);
    const descriptor = ordersSync[0]!;
    const page = await descriptor.snapshot(cloud.handle.db, tenant.id, null, 10);
    expect(page.changes.map((c) => c.kind)).toEqual(['order.snapshot']);
    for (let i = 0; i < 2; i++) {
      await appliance.handle.db.transaction().execute(async (trx) => {
        for (const c of page.changes) await descriptor.apply(trx, { ...c, tenant_id: tenant.id, op_id: 'snapshot', origin: 'cloud' }, { side: 'appliance', mode: 'adopt', tenantId: tenant.id, now: new Date().toISOString() });
      });
    }
    const pick = async (t: typeof cloud | typeof appliance) => {
      const state = await replicatedState(t, tenant.id);
      return { orders: state.orders, order_items: state.order_items, order_status_history: state.order_status_history };
    };
    expect(await pick(appliance)).toEqual(await pick(cloud));
  });
});
