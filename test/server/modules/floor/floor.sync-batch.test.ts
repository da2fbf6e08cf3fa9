import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../../server/shared/ids.js';
import { SCHEMA_VERSION } from '../../../../server/db/migrations/index.js';
import { PROTOCOL_VERSION, type WireOp } from '../../../../sync/protocol.js';
import { PUSH_TX_OPS } from '../../../../sync/cloud.js';
import type { ApplyContext, SyncChange } from '../../../../sync/types.js';
import { floorSync, MERGED_NOTE } from '../../../../server/modules/floor/floor.sync.js';
import { seedMenu } from '../../../helpers/factories.js';
import { createAppliance, FakeTransport, quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { seedFloor } from './helpers.js';

/**
 * The floor's batch apply (FloorBatch in floor.sync.ts, docs/floor.md "Across sync"): a push chunk
 * holding whole table visits (a bill opened, its rounds, payments and close, the orders and status
 * announcements in between) and a bill for a table whose open bill a second device gave the cloud
 * first (the merge) ends exactly as the same ops applied one by one (the cloud's safe re-run).
 */

const billDescriptor = floorSync.find((d) => d.entity === 'bill')!;
afterEach(() => vi.restoreAllMocks());

/** One restaurant, two appliances; the first (A) offline does two table visits while the second (B) opens T1 in the cloud. */
async function scenario() {
  const nodes = await twoNodes();
  const { cloud, tenant, appliance: a, transport, device } = nodes;
  const menu = await seedMenu(cloud, tenant.id);
  const floor = await seedFloor(cloud, tenant.id);
  const second = await cloud.services.sync.cloud.createDevice(tenant.id, 'Terras');
  const b = await createAppliance(new FakeTransport(() => cloud, second.sync_key));
  await a.engine.syncOnce();
  await b.engine.syncOnce();
  const staff = { tenantId: tenant.id, userId: tenant.staffId, via: 'pos' as const };
  const burger = [{ product_id: menu.burger.id, quantity: 1 }];
  const cola = [{ product_id: menu.cola.id, quantity: 2 }];

  // B takes T1 first: the cloud knows its bill as T1's open bill.
  const bOrder = (await b.services.orders.create(staff, { items: burger, table_id: floor.t1.id })).order;
  await quiesce(b);
  const bBill = await cloud.services.floor.tableBill(tenant.id, floor.t1.id);

  transport.offline = true;
  // A, offline, at T1: two rounds, paid in two parts (the second closes A's bill).
  const x = (await a.services.orders.create(staff, { items: burger, table_id: floor.t1.id })).order;
  const y = (await a.services.orders.create(staff, { items: cola, table_id: floor.t1.id })).order;
  const aBill = await a.services.floor.tableBill(tenant.id, floor.t1.id);
  await a.services.floor.payBill(staff, aBill.id, { amount_cents: 1000, tip_cents: 100 });
  await a.services.floor.payBill(staff, aBill.id, { amount_cents: 1450 + 600 - 1000 });
  // At T2: an order paid on its own at the counter (a payment naming the order, which settles and
  // closes that bill), then the next guests: a new bill for the same table, paid at the table.
  const z = (await a.services.orders.create(staff, { items: burger, table_id: floor.t2.id })).order;
  const t2First = await a.services.floor.tableBill(tenant.id, floor.t2.id);
  await a.services.orders.markPaid(staff, z.id);
  const w = (await a.services.orders.create(staff, { items: cola, table_id: floor.t2.id })).order;
  const t2Bill = await a.services.floor.tableBill(tenant.id, floor.t2.id);
  await a.services.floor.payBill(staff, t2Bill.id, { amount_cents: 600 });

  const rows = await a.handle.db.selectFrom('change_log').selectAll().where('origin', '=', device.id).orderBy('seq').execute();
  const ops: WireOp[] = rows.map((r) => ({ op_id: r.op_id, device_seq: Number(r.seq), entity: r.entity, entity_id: r.entity_id, kind: r.kind, payload: JSON.parse(r.payload) as unknown, created_at: r.created_at }));
  const push = (body: WireOp[]) =>
    cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops: body } });
  // The ids of everything so far, in the order the cloud's log and the pushed ops name them: how two runs are compared.
  const labels = new Map<string, string>([[tenant.id, 'tenant'], [device.id, 'device A'], [second.device.id, 'device B']]);
  const before = await cloud.handle.db.selectFrom('change_log').select(['entity_id', 'payload']).where('tenant_id', '=', tenant.id).orderBy('seq').execute();
  for (const r of before) label(labels, `${r.entity_id} ${r.payload}`);
  for (const op of ops) label(labels, JSON.stringify(op));
  return { cloud, tenant, a, b, transport, device, floor, ops, push, labels, bBill, aBill, t2First, t2Bill, orders: { bOrder, x, y, z, w } };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
function label(labels: Map<string, string>, text: string): void {
  for (const id of text.match(UUID) ?? []) if (!labels.has(id)) labels.set(id, `#${labels.size}`);
}
/**
 * Rows with every id replaced by its label (the same in both runs), sorted; an order number renamed
 * after a clash (`K-001-<last 4 of its id>`) names the label of that id.
 */
function canon(labels: Map<string, string>, rows: unknown[]): unknown[] {
  const bySuffix = new Map([...labels].map(([id, l]) => [id.slice(-4), l]));
  const text = (r: unknown) =>
    JSON.stringify(r)
      .replace(UUID, (id) => labels.get(id) ?? 'unknown id')
      .replace(/(K-\d{3})-([0-9a-f]{4})\b/g, (_, n: string, four: string) => `${n}-<${bySuffix.get(four) ?? 'unknown id'}>`);
  return rows.map((r) => JSON.parse(text(r)) as unknown).sort((p, q) => JSON.stringify(p).localeCompare(JSON.stringify(q)));
}

/** What a push left in the cloud: the floor's rows, the orders' state, and what the cloud recorded for each pushed op. */
async function outcome(s: Awaited<ReturnType<typeof scenario>>) {
  const db = s.cloud.handle.db;
  const t = s.tenant.id;
  const opIds = s.ops.map((o) => o.op_id);
  return {
    bills: canon(s.labels, await db.selectFrom('bills').selectAll().where('tenant_id', '=', t).execute()),
    rounds: canon(s.labels, await db.selectFrom('bill_rounds').selectAll().where('tenant_id', '=', t).execute()),
    payments: canon(s.labels, await db.selectFrom('bill_payments').selectAll().where('tenant_id', '=', t).execute()),
    orders: canon(s.labels, await db.selectFrom('orders').select(['id', 'table_id', 'status', 'payment_status', 'total_cents']).where('tenant_id', '=', t).execute()),
    // (Journal entries hash their restaurant's id: they differ between the two runs by design.)
    log: canon(s.labels, (await db.selectFrom('change_log').select(['op_id', 'kind', 'payload']).where('op_id', 'in', opIds).where('entity', '!=', 'journal_entry').execute()).map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }))),
    results: canon(s.labels, await db.selectFrom('sync_ops').select(['op_id', 'status', 'result']).where('op_id', 'in', opIds).execute()).map((r) => {
      const { status, result, op_id } = r as { status: string; result: string; op_id: string };
      return { op_id, status, reason: (JSON.parse(result) as { reason: string | null }).reason };
    }),
  };
}

/** The cloud's applies of bill ops: op id and whether it ran inside a batch. */
function spyCloudApplies() {
  const calls: Array<{ op: string; batch: boolean }> = [];
  const original = billDescriptor.apply.bind(billDescriptor);
  vi.spyOn(billDescriptor, 'apply').mockImplementation((trx, change: SyncChange, ctx: ApplyContext) => {
    if (ctx.side === 'cloud') calls.push({ op: change.op_id, batch: ctx.batch !== undefined });
    return original(trx, change, ctx);
  });
  return calls;
}

describe('sync: a push chunk of whole table visits and a merged bill, applied as one batch', () => {
  it('ends as the same ops applied one by one: bills, rounds, payments, orders, answers and the state recorded for each op', async () => {
    // Run 1: the ops in one push, one chunk, applied as one batch.
    const one = await scenario();
    const billOps = one.ops.filter((o) => o.entity === 'bill');
    expect(billOps.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['bill.opened', 'bill.round_added', 'bill.payment_recorded', 'bill.closed']),
    );
    expect(one.ops.length).toBeLessThanOrEqual(PUSH_TX_OPS);
    let calls = spyCloudApplies();
    const res = await one.push(one.ops);
    expect(res.statusCode, res.body).toBe(200);
    // Each bill op applied once, inside the batch: no fall-back to the op-by-op re-run.
    expect(calls.map((c) => c.op)).toEqual(billOps.map((o) => o.op_id));
    expect(calls.every((c) => c.batch)).toBe(true);
    vi.restoreAllMocks();
    const batched = await outcome(one);

    // What it must be: A's T1 bill merged into B's (its rounds and payments count there), its close a
    // visible conflict that leaves B's bill open; A's T2 bill closed, paid.
    const floor = one.cloud.services.floor;
    expect(await floor.getBill(one.tenant.id, one.aBill.id)).toMatchObject({ status: 'merged', merged_into: one.bBill.id, conflict: MERGED_NOTE });
    const t1 = await floor.tableBill(one.tenant.id, one.floor.t1.id);
    expect(t1.id).toBe(one.bBill.id);
    expect(t1.merged_bills).toEqual([one.aBill.id]);
    expect(t1.orders.map((o) => o.id).sort()).toEqual([one.orders.bOrder.id, one.orders.x.id, one.orders.y.id].sort());
    expect(t1).toMatchObject({ total_cents: 1450 * 2 + 600, paid_cents: 2050, open_cents: 1450 });
    expect(one.t2Bill.id).not.toBe(one.t2First.id);
    expect(await floor.getBill(one.tenant.id, one.t2First.id)).toMatchObject({ status: 'closed', close_reason: 'paid', paid_cents: 1450, open_cents: 0 });
    expect(await floor.getBill(one.tenant.id, one.t2Bill.id)).toMatchObject({ status: 'closed', close_reason: 'paid', paid_cents: 600, open_cents: 0 });
    expect((await floor.getBill(one.tenant.id, one.t2First.id)).payments.map((p) => [p.source, p.order_id])).toEqual([['order', one.orders.z.id]]);
    const answers = res.json().results as Array<{ op_id: string; status: string; reason: string | null }>;
    const opOf = (id: string) => one.ops.find((o) => o.op_id === id)!;
    expect(answers.filter((r) => r.status === 'rejected')).toEqual([]);
    // (Besides these, A's first order is renamed: B's order took K-001 first, orders' own conflict.)
    const conflicts = answers.filter((r) => r.status !== 'applied' && opOf(r.op_id).entity === 'bill');
    expect(conflicts.map((r) => [opOf(r.op_id).kind, opOf(r.op_id).entity_id, r.status])).toEqual([
      ['bill.opened', one.aBill.id, 'conflict'],
      ['bill.closed', one.aBill.id, 'conflict'],
    ]);
    expect(conflicts[1]!.reason).toContain('samengevoegd');

    // Run 2: the same history in a second restaurant, pushed with one bad op that makes the cloud
    // apply the chunk again op by op (savepoints, no batch).
    const two = await scenario();
    calls = spyCloudApplies();
    const bill = newId();
    const bad: WireOp = {
      op_id: newId(),
      device_seq: two.ops.at(-1)!.device_seq + 1,
      entity: 'bill',
      entity_id: bill,
      kind: 'bill.round_added',
      payload: { round: { id: newId(), bill_id: bill, order_id: newId(), table_id: two.floor.t1.id, created_at: two.ops[0]!.created_at } },
      created_at: two.ops[0]!.created_at,
    };
    const res2 = await two.push([...two.ops, bad]);
    expect(res2.statusCode, res2.body).toBe(200);
    expect((res2.json().results as Array<{ status: string; reason: string }>).at(-1)).toMatchObject({ status: 'rejected', reason: 'Deze rekening bestaat niet bij dit restaurant.' });
    const secondRun = calls.filter((c) => !c.batch).map((c) => c.op);
    expect(secondRun).toEqual([...two.ops.filter((o) => o.entity === 'bill').map((o) => o.op_id), bad.op_id]);
    vi.restoreAllMocks();
    expect(await outcome(two)).toEqual(batched);
    expect(JSON.stringify(batched)).not.toContain('unknown id');

    // The appliances adopt it (their pull pages are batches too) and end equal to the cloud.
    for (const s of [one, two]) {
      s.transport.offline = false;
      await quiesce(s.a);
      await quiesce(s.b);
      await quiesce(s.a);
      const state = await replicatedState(s.cloud, s.tenant.id);
      expect(await replicatedState(s.a, s.tenant.id)).toEqual(state);
      expect(await replicatedState(s.b, s.tenant.id)).toEqual(state);
      expect((await s.a.services.floor.tableBill(s.tenant.id, s.floor.t1.id)).id).toBe(s.bBill.id);
    }
  });
});
