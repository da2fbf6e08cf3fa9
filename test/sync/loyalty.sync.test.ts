import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { newId } from '../../server/shared/ids.js';
import { earnId } from '../../server/modules/loyalty/loyalty.rules.js';
import { rebuildAccounts } from '../../server/modules/loyalty/loyalty.ledger.js';
import { loyaltySync } from '../../server/modules/loyalty/loyalty.sync.js';
import type { Runtime } from '../../server/runtime.js';
import { seedMenu, type SeededMenu } from '../helpers/factories.js';
import { findEverywhere } from '../server/modules/loyalty/helpers.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from './chunk.js';
import { createAppliance, FakeTransport, quiesce, replicatedState, twoNodes } from './harness.js';

/** Loyalty across the appliance and the cloud (issue 9, docs/loyalty.md): earning once, the escrow, merges, erasure. */
async function joined(opts: { allowance?: number } = {}) {
  const nodes = await twoNodes();
  const { cloud, tenant, appliance } = nodes;
  const menu = await seedMenu(cloud, tenant.id);
  if (opts.allowance !== undefined) await cloud.services.tenants.patchSettings(tenant.id, { loyalty_offline_allowance: opts.allowance });
  await appliance.engine.syncOnce(); // bootstrap: tenant, users, menu
  const actor = (via: 'pos' | 'web' = 'pos') => ({ tenantId: tenant.id, userId: null, via });
  return { ...nodes, menu, actor };
}
type Nodes = Awaited<ReturnType<typeof joined>>;

/** A paid order of `burgers` burgers (€ 14,50 each) with this phone on one side. */
async function paid(rt: Pick<Runtime, 'services'>, tenantId: string, menu: SeededMenu, phone: string, burgers = 1, name?: string) {
  const actor = { tenantId, userId: null, via: 'pos' as const };
  const { order } = await rt.services.orders.create(actor, { items: [{ product_id: menu.burger.id, quantity: burgers }], customer: { phone, ...(name ? { name } : {}) } });
  await rt.services.orders.markPaid(actor, order.id);
  return order;
}

const balance = async (rt: Pick<Runtime, 'services'>, tenantId: string, phone: string) => (await rt.services.loyalty.balanceByPhone(tenantId, phone)).balance;

/** Both sides: identical replicated tables, and the maintained accounts equal to the ledger's replay and to each other. */
async function expectConverged(n: Pick<Nodes, 'appliance' | 'cloud' | 'tenant'>) {
  expect(await replicatedState(n.appliance, n.tenant.id)).toEqual(await replicatedState(n.cloud, n.tenant.id));
  const accounts = async (rt: Runtime) => {
    const rows = await rt.handle.db.selectFrom('loyalty_accounts').select(['customer_id', 'holder', 'points']).where('tenant_id', '=', n.tenant.id).execute();
    const m: Record<string, number> = {};
    for (const r of rows) if (Number(r.points) !== 0) m[`${r.customer_id}/${r.holder}`] = Number(r.points);
    const rebuilt: Record<string, number> = {};
    for (const [c, hs] of await rebuildAccounts(rt.handle.db, n.tenant.id)) for (const [h, p] of hs) if (p !== 0) rebuilt[`${c}/${h}`] = p;
    expect(m).toEqual(rebuilt);
    return m;
  };
  const a = await accounts(n.appliance);
  expect(a).toEqual(await accounts(n.cloud));
  for (const [k, v] of Object.entries(a)) expect(v, k).toBeGreaterThanOrEqual(0);
}

describe('loyalty sync: points earned once per paid order', () => {
  it('a payment arriving through sync earns nothing more on the side that receives it', async () => {
    const n = await joined();
    const order = await paid(n.appliance, n.tenant.id, n.menu, '0612345678', 2); // 29 points on the appliance
    await quiesce(n.appliance);
    const earns = await n.cloud.handle.db.selectFrom('loyalty_transactions').selectAll().where('order_id', '=', order.id).execute();
    expect(earns).toHaveLength(1);
    expect(earns[0]).toMatchObject({ id: earnId(order.id), type: 'earn', points: 29, origin: n.device.id });
    expect(await balance(n.cloud, n.tenant.id, '+31612345678')).toBe(29);
    const cloudEvents = await n.cloud.handle.db.selectFrom('change_log').select(['kind', 'origin']).where('tenant_id', '=', n.tenant.id).where('kind', '=', 'loyalty.points_earned').execute();
    expect(cloudEvents).toEqual([{ kind: 'loyalty.points_earned', origin: n.device.id }]);
    await expectConverged(n);
  });

  it('both sides marking the same order paid during an outage (each creating the customer) keep one earn row, one customer and the right balance', async () => {
    const n = await joined();
    const { order } = await n.appliance.services.orders.create(n.actor(), { items: [{ product_id: n.menu.burger.id, quantity: 3 }], customer: { phone: '06 12345678', name: 'Bram' } });
    await quiesce(n.appliance);
    n.transport.offline = true;
    await n.appliance.services.orders.markPaid(n.actor(), order.id);
    await n.cloud.services.orders.markPaid(n.actor('web'), order.id);
    expect(await balance(n.appliance, n.tenant.id, '0612345678')).toBe(43);
    expect(await balance(n.cloud, n.tenant.id, '0612345678')).toBe(43);
    n.transport.offline = false;
    await quiesce(n.appliance);
    for (const rt of [n.cloud, n.appliance]) {
      const earns = await rt.handle.db.selectFrom('loyalty_transactions').selectAll().where('order_id', '=', order.id).execute();
      expect(earns).toHaveLength(1);
      expect(await balance(rt, n.tenant.id, '+31612345678')).toBe(43);
      const live = await rt.handle.db.selectFrom('loyalty_customers').selectAll().where('tenant_id', '=', n.tenant.id).where('merged_into', 'is', null).execute();
      expect(live).toHaveLength(1);
    }
    await expectConverged(n);
  });
});

describe('loyalty sync: the escrow (offline redemptions spend only the lease, the cloud only balance minus leases)', () => {
  it('the cloud grants the appliance a lease through sync; each side spends only its part; sync renews the lease; never below zero', async () => {
    const n = await joined({ allowance: 100 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 21); // 304,50 → 304 points, earned in the cloud
    const grants = await n.cloud.handle.db.selectFrom('loyalty_leases').selectAll().where('tenant_id', '=', n.tenant.id).execute();
    expect(grants).toEqual([expect.objectContaining({ device_id: n.device.id, points: 100, origin: 'cloud' })]);
    await quiesce(n.appliance);
    const c = await n.appliance.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    expect((await n.appliance.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(100);
    expect((await n.cloud.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(204);

    n.transport.offline = true;
    const who = { tenantId: n.tenant.id, userId: null };
    await n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 80 });
    await expect(n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 30 })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Onvoldoende punten om zonder de cloud in te wisselen: op deze kassa beschikbaar 20, gevraagd 30 (saldo 224).',
    });
    await n.cloud.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 150 });
    await expect(n.cloud.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 60 })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Onvoldoende punten: saldo 154, waarvan 100 gereserveerd voor de kassa in het restaurant; gevraagd 60.',
    });
    n.transport.offline = false;
    await quiesce(n.appliance);
    // 304 − 80 − 150: both sides agree, and the appliance's lease is topped up again from what the pool had left.
    expect(await balance(n.cloud, n.tenant.id, '0612345678')).toBe(74);
    expect(await balance(n.appliance, n.tenant.id, '0612345678')).toBe(74);
    expect((await n.appliance.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(74);
    expect((await n.cloud.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(0);
    const leases = await n.cloud.handle.db.selectFrom('loyalty_leases').select(['points']).where('tenant_id', '=', n.tenant.id).orderBy('created_at').orderBy('id').execute();
    expect(leases.map((l) => Number(l.points))).toEqual([100, 54]);
    await expectConverged(n);
  });

  it('allowance 0: the appliance redeems only online, through the cloud; offline it is refused', async () => {
    const n = await joined({ allowance: 0 });
    n.appliance.services.loyalty.useCloudLink(n.transport);
    await paid(n.appliance, n.tenant.id, n.menu, '0612345678', 4); // 58
    await quiesce(n.appliance);
    expect(await n.cloud.handle.db.selectFrom('loyalty_leases').select('id').execute()).toHaveLength(0);
    const c = await n.appliance.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    const who = { tenantId: n.tenant.id, userId: n.tenant.staffId };
    const r = await n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 20 });
    expect(r).toMatchObject({ customer_id: c.customer_id, points_redeemed: 20, balance: 38, transaction: { type: 'redeem', points: -20 } });
    const row = await n.cloud.handle.db.selectFrom('loyalty_transactions').selectAll().where('id', '=', r.transaction.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ pool: 'pool', device_id: n.device.id, origin: 'cloud', user_id: n.tenant.staffId });
    n.transport.offline = true;
    await expect(n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 10 })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('op deze kassa beschikbaar 0') });
    n.transport.offline = false;
    await quiesce(n.appliance);
    expect(await balance(n.appliance, n.tenant.id, '0612345678')).toBe(38);
    await expect(n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 39 })).rejects.toMatchObject({ code: 'CONFLICT', message: 'Onvoldoende punten: saldo 38, gevraagd 39.' });
    await expectConverged(n);
  });

  it('online beyond the lease: the appliance returns its lease through sync and the cloud redeems the whole amount', async () => {
    const n = await joined({ allowance: 100 });
    n.appliance.services.loyalty.useCloudLink(n.transport);
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 21); // 304; lease 100, pool 204
    await quiesce(n.appliance);
    const c = await n.appliance.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    const r = await n.appliance.services.loyalty.redeem({ tenantId: n.tenant.id, userId: null }, { customer_id: c.customer_id, points: 250 });
    expect(r.balance).toBe(54);
    await quiesce(n.appliance);
    const leases = await n.cloud.handle.db.selectFrom('loyalty_leases').select(['points', 'origin']).where('tenant_id', '=', n.tenant.id).orderBy('created_at').orderBy('id').execute();
    expect(leases.map((l) => [Number(l.points), l.origin === 'cloud' ? 'cloud' : 'kassa'])).toEqual([
      [100, 'cloud'],
      [-100, 'kassa'],
      [54, 'cloud'],
    ]);
    expect(await balance(n.appliance, n.tenant.id, '0612345678')).toBe(54);
    expect((await n.appliance.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(54);
    await expectConverged(n);
  });

  it('a lost answer to an online redemption: the retry asks with the same id and the points are spent once', async () => {
    const n = await joined({ allowance: 0 });
    n.appliance.services.loyalty.useCloudLink(n.transport);
    await paid(n.appliance, n.tenant.id, n.menu, '0612345678', 7); // 101
    await quiesce(n.appliance);
    const c = await n.appliance.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    const who = { tenantId: n.tenant.id, userId: null };
    n.transport.faults.push('lose-response');
    await expect(n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 60 })).rejects.toMatchObject({ code: 'CONFLICT' });
    const retry = await n.appliance.services.loyalty.redeem(who, { customer_id: c.customer_id, points: 60 });
    expect(retry.balance).toBe(41);
    await quiesce(n.appliance);
    expect(await balance(n.cloud, n.tenant.id, '0612345678')).toBe(41);
    expect(await n.cloud.handle.db.selectFrom('loyalty_transactions').select('id').where('type', '=', 'redeem').execute()).toHaveLength(1);
    await expectConverged(n);
  });

  it('a lowered allowance: the appliance returns the excess through sync (its job), and the cloud can spend it', async () => {
    const n = await joined({ allowance: 100 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 7); // 101: lease 100, pool 1
    await quiesce(n.appliance);
    await n.cloud.services.tenants.patchSettings(n.tenant.id, { loyalty_offline_allowance: 20 });
    await quiesce(n.appliance);
    await n.appliance.app.scheduler.run('loyalty-lease-returns');
    await quiesce(n.appliance);
    const c = await n.cloud.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    expect((await n.cloud.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(81);
    await n.cloud.services.loyalty.redeem({ tenantId: n.tenant.id, userId: null }, { customer_id: c.customer_id, points: 81 });
    await quiesce(n.appliance);
    expect((await n.appliance.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(20);
    await expectConverged(n);
  });

  it('a raised allowance or a new appliance: the cloud job renews the leases', async () => {
    const n = await joined({ allowance: 0 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 7); // 101, no lease
    await n.cloud.services.tenants.patchSettings(n.tenant.id, { loyalty_offline_allowance: 50 });
    await n.cloud.app.scheduler.run('loyalty-lease-renewal');
    await quiesce(n.appliance);
    expect((await n.appliance.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(50);
    await expectConverged(n);
  });

  it('the cloud refuses a device that grants itself points, spends beyond its lease or spends the pool (rejected, nothing changed)', async () => {
    const n = await joined({ allowance: 10 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 7); // 101: lease 10
    await quiesce(n.appliance);
    const c = await n.cloud.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    const at = new Date().toISOString();
    const tx = (points: number, pool: 'lease' | 'pool') => ({ id: newId(), customer_id: c.customer_id, type: 'redeem', points, pool, device_id: pool === 'lease' ? n.device.id : null, order_id: null, note: null, user_id: null, origin: n.device.id, created_at: at });
    const ops = [
      { entity: 'loyalty_lease', kind: 'loyalty.lease_granted', payload: { lease: { id: newId(), customer_id: c.customer_id, device_id: n.device.id, points: 500, origin: n.device.id, created_at: at } } },
      { entity: 'loyalty_transaction', kind: 'loyalty.points_redeemed', payload: { transaction: tx(-11, 'lease') } },
      { entity: 'loyalty_transaction', kind: 'loyalty.points_redeemed', payload: { transaction: tx(-5, 'pool') } },
      { entity: 'loyalty_lease', kind: 'loyalty.lease_returned', payload: { lease: { id: newId(), customer_id: c.customer_id, device_id: n.device.id, points: -11, origin: n.device.id, created_at: at } } },
    ].map((o, i) => ({ op_id: newId(), device_seq: 10_000 + i, entity_id: (o.payload as { lease?: { id: string }; transaction?: { id: string } }).lease?.id ?? (o.payload as { transaction: { id: string } }).transaction.id, created_at: at, ...o }));
    const res = await n.cloud.app.inject({
      method: 'POST',
      url: '/api/v1/sync/push',
      headers: { authorization: `Bearer ${n.transport.key}` },
      payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(await balance(n.cloud, n.tenant.id, '0612345678')).toBe(101);
    expect((await n.cloud.services.loyalty.getByPhone(n.tenant.id, '+31612345678')).redeemable_here).toBe(91);
  });
});

describe('POST /sync/loyalty/redeem (an appliance online)', () => {
  it('needs a valid device key (401), redeems only customers of the device’s restaurant (404), validates the body (400), is no endpoint of the appliance (401: it knows no device key), and a refusal changes nothing', async () => {
    const n = await joined({ allowance: 0 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 2); // 29
    const c = await n.cloud.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    const post = (payload: unknown, key = n.transport.key, app = n.cloud.app) =>
      app.inject({ method: 'POST', url: '/api/v1/sync/loyalty/redeem', headers: { authorization: `Bearer ${key}` }, payload: payload as object });
    const body = { id: newId(), customer_id: c.customer_id, points: 10, returns: [] };
    expect((await post(body, 'x'.repeat(40))).statusCode).toBe(401);
    const other = await n.cloud.seedTenant();
    const otherMenu = await seedMenu(n.cloud, other.id);
    await paid(n.cloud, other.id, otherMenu, '0612345678', 2);
    const theirs = await n.cloud.services.loyalty.balanceByPhone(other.id, '0612345678');
    const foreign = await post({ ...body, customer_id: theirs.customer_id });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Klant niet gevonden.', code: 'NOT_FOUND' });
    const bad = await post({ ...body, points: 0 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('points');
    const forged = await post({ ...body, returns: [{ id: newId(), customer_id: c.customer_id, device_id: 'een-andere-kassa', points: -5, origin: 'x', created_at: new Date().toISOString() }] });
    expect(forged.statusCode).toBe(409);
    const tooMuch = await post({ ...body, points: 30 });
    expect(tooMuch.statusCode).toBe(200);
    expect(tooMuch.json()).toMatchObject({ ok: false, transaction: null, balance: 29, message: 'Onvoldoende punten: saldo 29, gevraagd 30.' });
    expect(await balance(n.cloud, n.tenant.id, '0612345678')).toBe(29);
    expect(await balance(n.cloud, other.id, '0612345678')).toBe(29);
    const ok = await post(body);
    expect(ok.json()).toMatchObject({ ok: true, balance: 19, transaction: { id: body.id, points: -10, pool: 'pool', device_id: n.device.id } });
    expect((await post(body)).json()).toMatchObject({ ok: true, balance: 19 }); // the same id again: the first outcome, nothing spent twice
    // Who is asking comes first (docs/adr/0008-module-frame.md): the appliance knows no device keys, so 401.
    expect((await post(body, n.transport.key, n.appliance.app)).statusCode).toBe(401);
  });
});

describe('loyalty sync: the same phone created on both sides during an outage', () => {
  it('merges after sync: one customer, ledgers joined under the survivor, the merge recorded as a conflict and kept on the merged record', async () => {
    const n = await joined();
    n.transport.offline = true;
    await n.cloud.services.loyalty.upsert({ tenantId: n.tenant.id, userId: null }, { phone: '+31612345678', name: 'Online Gast' });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 2); // 29 in the cloud
    await n.appliance.services.loyalty.upsert({ tenantId: n.tenant.id, userId: null }, { phone: '06 12345678', name: 'Kassa Gast', email: 'gast@example.nl' });
    await paid(n.appliance, n.tenant.id, n.menu, '0612345678', 1); // 14 on the appliance
    n.transport.offline = false;
    await quiesce(n.appliance);
    for (const rt of [n.cloud, n.appliance]) {
      const rows = await rt.handle.db.selectFrom('loyalty_customers').selectAll().where('tenant_id', '=', n.tenant.id).orderBy('created_at').execute();
      expect(rows).toHaveLength(2);
      const survivor = rows.find((r) => r.merged_into === null)!;
      const merged = rows.find((r) => r.merged_into !== null)!;
      expect(survivor).toMatchObject({ name: 'Online Gast', email: 'gast@example.nl', origin: 'cloud' });
      expect(merged).toMatchObject({ merged_into: survivor.id, merged_at: expect.any(String), origin: n.device.id });
      const view = await rt.services.loyalty.getByPhone(n.tenant.id, '+31612345678');
      expect(view).toMatchObject({ id: survivor.id, balance: 43 });
      expect(view.transactions.map((t) => t.points).sort()).toEqual([14, 29]);
    }
    const conflicts = await n.cloud.handle.db.selectFrom('sync_ops').select(['status', 'result']).where('status', '=', 'conflict').execute();
    expect(conflicts).toHaveLength(1);
    expect(JSON.parse(conflicts[0]!.result).reason).toMatch(/samengevoegd/);
    expect(await n.appliance.handle.db.selectFrom('sync_op_results').select('status').execute()).toEqual([{ status: 'conflict' }]);
    await expectConverged(n);
  });
});

describe('loyalty sync: erasure', () => {
  it('an erasure in the cloud reaches the appliance; an appliance that missed it does not bring the personal data back; totals unchanged', async () => {
    const n = await joined();
    const who = { tenantId: n.tenant.id, userId: null };
    await paid(n.appliance, n.tenant.id, n.menu, '06 24681357', 3, 'Vera Verborgen'); // 43
    await n.appliance.services.loyalty.upsert(who, { phone: '0624681357', email: 'vera@geheim.example' });
    await quiesce(n.appliance);
    n.transport.offline = true;
    const c = await n.cloud.services.loyalty.balanceByPhone(n.tenant.id, '0624681357');
    const before = await n.cloud.services.loyalty.exportCustomer(who, c.customer_id);
    expect(before.orders).toHaveLength(1);
    await n.cloud.services.loyalty.erase(who, c.customer_id);
    // Offline, the appliance still knows the guest: a name change and another paid order with the number.
    await n.appliance.services.loyalty.upsert(who, { phone: '+31 6 2468 1357', name: 'Vera V.', email: 'vera2@geheim.example' });
    await paid(n.appliance, n.tenant.id, n.menu, '0624681357', 1, 'Vera Verborgen'); // 14
    n.transport.offline = false;
    await quiesce(n.appliance);
    await n.cloud.services.loyalty.settled();
    await n.appliance.services.loyalty.settled();
    const needles = ['24681357', 'Vera', 'geheim.example'];
    expect(await findEverywhere(n.cloud.handle.db, n.cloud.handle.dialect, needles)).toEqual([]);
    expect(await findEverywhere(n.appliance.handle.db, 'sqlite', needles)).toEqual([]);
    for (const rt of [n.cloud, n.appliance]) {
      await expect(rt.services.loyalty.balanceByPhone(n.tenant.id, '0624681357')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const rows = await rt.handle.db.selectFrom('loyalty_customers').selectAll().where('id', '=', c.customer_id).execute();
      expect(rows).toEqual([expect.objectContaining({ phone: null, name: null, email: null, erased_at: expect.any(String) })]);
      const points = await rt.handle.db.selectFrom('loyalty_transactions').select('points').where('customer_id', '=', c.customer_id).execute();
      expect(points.reduce((s, p) => s + Number(p.points), 0)).toBe(57); // the history stays, anonymised
    }
    const refused = await n.cloud.handle.db.selectFrom('sync_ops').select('result').where('status', '=', 'conflict').execute();
    expect(refused.map((r) => JSON.parse(r.result).reason)).toEqual(['Deze klant is gewist; de gewijzigde gegevens zijn niet bewaard.']);
    await expectConverged(n);
  });

  it('an erasure on the appliance reaches the cloud, orders and change log included', async () => {
    const n = await joined();
    const who = { tenantId: n.tenant.id, userId: null };
    await paid(n.cloud, n.tenant.id, n.menu, '0613572468', 2, 'Wim Weg');
    await quiesce(n.appliance);
    const c = await n.appliance.services.loyalty.balanceByPhone(n.tenant.id, '0613572468');
    await n.appliance.services.loyalty.erase(who, c.customer_id);
    await quiesce(n.appliance);
    await n.cloud.services.loyalty.settled();
    for (const [rt, dialect] of [[n.cloud, n.cloud.handle.dialect], [n.appliance, 'sqlite']] as const) {
      expect(await findEverywhere(rt.handle.db, dialect, ['13572468', 'Wim Weg'])).toEqual([]);
    }
    expect(await n.cloud.handle.db.selectFrom('loyalty_privacy_log').select(['action', 'origin']).execute()).toEqual([{ action: 'erase', origin: n.device.id }]);
    await expectConverged(n);
  });
});

describe('loyalty sync: bootstrap', () => {
  it('a new appliance bootstrapped by snapshot holds the same customers, ledger, leases and accounts', async () => {
    const n = await joined({ allowance: 30 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 5);
    await paid(n.appliance, n.tenant.id, n.menu, '0687654321', 2);
    await quiesce(n.appliance);
    const { sync_key } = await n.cloud.services.sync.cloud.createDevice(n.tenant.id, 'Tweede kassa');
    const late = await createAppliance(new FakeTransport(() => n.cloud, sync_key), { snapshotLimit: 2 });
    await late.engine.syncOnce();
    expect(await replicatedState(late, n.tenant.id)).toEqual(await replicatedState(n.cloud, n.tenant.id));
    expect(await late.services.loyalty.balanceByPhone(n.tenant.id, '0612345678')).toMatchObject({ balance: 72 });
    expect((await late.services.loyalty.getByPhone(n.tenant.id, '+31687654321')).balance).toBe(29);
  });
});

/** Every call of the loyalty descriptors on one side: whether it ran inside a batch (ApplyContext.batch). */
function watchApplies() {
  const calls: Array<{ entity: string; side: string; mode: string; batch: boolean }> = [];
  vi.restoreAllMocks();
  for (const d of loyaltySync) {
    const apply = d.apply;
    vi.spyOn(d, 'apply').mockImplementation((trx, change, ctx) => {
      calls.push({ entity: d.entity, side: ctx.side, mode: ctx.mode, batch: ctx.batch !== undefined });
      return apply.call(d, trx, change, ctx);
    });
  }
  onTestFinished(() => {
    vi.restoreAllMocks();
  });
  return calls;
}

describe('loyalty sync: a push chunk and a pull page apply as one batch, with the outcome of op by op', () => {
  /**
   * One guest, one push: offline, the appliance creates its own record of a guest the cloud
   * registered meanwhile (merged by the cloud), earns on three orders, returns the lease above a
   * lowered allowance and redeems twice from the lease. `pushBatch` 1 pushes op by op (a chunk per op).
   */
  async function guestQueued(pushBatch?: number) {
    const nodes = await twoNodes(pushBatch ? { pushBatch } : {});
    const { cloud, tenant, appliance, transport } = nodes;
    const menu = await seedMenu(cloud, tenant.id);
    await cloud.services.tenants.patchSettings(tenant.id, { loyalty_offline_allowance: 100 });
    await appliance.engine.syncOnce();
    transport.offline = true;
    await paid(cloud, tenant.id, menu, '0612345678', 21); // 304 in the cloud; the appliance's lease of 100
    await paid(appliance, tenant.id, menu, '06 12345678', 1); // 14: the appliance's own record of the guest
    await cloud.services.tenants.patchSettings(tenant.id, { loyalty_offline_allowance: 10 });
    // A moment online, pulling only: the cloud's record, the lease and the allowance arrive; the appliance's ops stay queued.
    transport.offline = false;
    while ((await appliance.engine.pullOnce()).more);
    transport.offline = true;
    expect(await appliance.services.loyalty.returnExcess(tenant.id)).toBe(1); // 90 of the lease of 100 back
    await paid(appliance, tenant.id, menu, '0612345678', 2); // 29, earned by the cloud's record (the higher balance)
    await paid(appliance, tenant.id, menu, '0612345678', 3); // 43
    const guest = await appliance.services.loyalty.balanceByPhone(tenant.id, '0612345678');
    const who = { tenantId: tenant.id, userId: null };
    await appliance.services.loyalty.redeem(who, { customer_id: guest.customer_id, points: 8 });
    await appliance.services.loyalty.redeem(who, { customer_id: guest.customer_id, points: 2 });
    expect((await appliance.services.loyalty.getByPhone(tenant.id, '+31612345678')).redeemable_here).toBe(0);
    return { ...nodes, menu };
  }

  async function guestOffline(pushBatch?: number) {
    const nodes = await guestQueued(pushBatch);
    const { cloud, tenant, appliance, transport } = nodes;
    transport.offline = false;
    const pending = await appliance.engine.pendingCount();
    const calls = watchApplies();
    let pushes = 0;
    for (;;) {
      pushes += 1;
      if (!(await appliance.engine.pushOnce()).more) break;
    }
    const pushed = calls.filter((c) => c.side === 'cloud');
    await quiesce(appliance);
    await expectConverged(nodes);
    // What the cloud decided, without ids: each op's status, the accounts per record and holder, the leases, the balance.
    const ops = await cloud.handle.db.selectFrom('sync_ops').select(['status']).where('tenant_id', '=', tenant.id).orderBy('device_seq').execute();
    const customers = new Map((await cloud.handle.db.selectFrom('loyalty_customers').select(['id', 'origin']).where('tenant_id', '=', tenant.id).execute()).map((c) => [c.id, c.origin === 'cloud' ? 'cloud-record' : 'kassa-record']));
    const accounts: Record<string, number> = {};
    for (const rt of [cloud, appliance]) {
      for (const a of await rt.handle.db.selectFrom('loyalty_accounts').select(['customer_id', 'holder', 'points']).where('tenant_id', '=', tenant.id).execute()) {
        accounts[`${rt === cloud ? 'cloud' : 'kassa'}:${customers.get(a.customer_id)}/${a.holder === nodes.device.id ? 'lease' : a.holder}`] = Number(a.points);
      }
    }
    const leases = (await cloud.handle.db.selectFrom('loyalty_leases').select('points').where('tenant_id', '=', tenant.id).execute()).map((l) => Number(l.points)).sort((a, b) => a - b);
    return { ...nodes, pending, pushes, pushed, outcome: { statuses: ops.map((o) => o.status), accounts, leases, balance: await balance(cloud, tenant.id, '0612345678') } };
  }

  it('a customer created, earns, a lease return and lease redemptions of one guest in one chunk: the same balances, leases and answers as op by op', async () => {
    const batched = await guestOffline();
    expect(batched.pushes).toBe(1); // one request, one chunk (fewer than 100 ops)
    expect(batched.pending).toBeLessThan(100);
    // Every loyalty op applied once, inside the chunk's batch (no op-by-op re-run after a failure).
    expect(batched.pushed.length).toBe(7);
    expect(batched.pushed.every((c) => c.batch && c.mode === 'merge')).toBe(true);
    // 304 + 14 + 29 + 43 − 8 − 2; the lease 100 − 90, then topped up to the allowance of 10 after each redemption.
    expect(batched.outcome).toMatchObject({
      balance: 380,
      leases: [-90, 2, 8, 100],
      accounts: { 'cloud:cloud-record/pool': 370, 'cloud:cloud-record/lease': 10, 'kassa:cloud-record/pool': 370, 'kassa:cloud-record/lease': 10 },
    });
    expect(batched.outcome.statuses.filter((s) => s === 'conflict')).toHaveLength(1); // the merge of the two records
    expect(batched.outcome.statuses.filter((s) => s === 'rejected')).toHaveLength(0);

    const opByOp = await guestOffline(1);
    expect(opByOp.pushes).toBeGreaterThanOrEqual(opByOp.pending); // a chunk per op
    expect(opByOp.outcome).toEqual(batched.outcome);
  });

  it('the same chunk pushed as is and applied op by op without a batch (the safe re-run): the same answers, merged payloads and rows', async () => {
    const n = await guestQueued();
    const ops = await ownOps(n.appliance, n.device.id);
    expect(ops.filter((o) => o.entity.startsWith('loyalty_')).map((o) => o.kind)).toEqual([
      'loyalty.customer_created',
      'loyalty.points_earned',
      'loyalty.lease_returned',
      'loyalty.points_earned',
      'loyalty.points_earned',
      'loyalty.points_redeemed',
      'loyalty.points_redeemed',
    ]);
    const tables = ['loyalty_customers', 'loyalty_transactions', 'loyalty_leases'];
    // Grants get new ids on every apply: compared without them.
    const withoutIds = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x) => (k === 'grants' ? (x as Array<{ id: string }>).map(({ id: _i, ...g }) => g) : x)));
    const leases = (rows: Record<string, unknown[]>) => ({ ...rows, loyalty_leases: rows.loyalty_leases!.map((r) => JSON.stringify({ ...(r as object), id: undefined })).sort() });
    const reference = await opByOp(n.cloud, n.tenant.id, n.device.id, ops, tables);
    const counts = watchBatches(['loyalty_customer', 'loyalty_transaction', 'loyalty_lease']);
    const outcomes = await pushChunk(n.cloud, n.transport.key, n.tenant.id, ops);
    expect(counts).toEqual({ batched: 7, unbatched: 0 });
    expect(withoutIds(outcomes)).toEqual(withoutIds(reference.outcomes));
    expect(outcomes.filter((o) => o.status !== 'applied').map((o) => o.reason)).toEqual([expect.stringMatching(/samengevoegd/)]);
    expect(leases(await tableRows(n.cloud.handle.db, n.tenant.id, tables))).toEqual(leases(reference.rows));
    n.transport.offline = false;
    await quiesce(n.appliance);
    await expectConverged(n);
  });

  it('inside one chunk each spend sees the earlier ones and the top-ups they caused: never beyond the lease', async () => {
    const n = await joined({ allowance: 10 });
    await paid(n.cloud, n.tenant.id, n.menu, '0612345678', 1); // 14: lease 10, pool 4
    await quiesce(n.appliance);
    const c = await n.cloud.services.loyalty.balanceByPhone(n.tenant.id, '0612345678');
    const at = new Date().toISOString();
    const tx = (type: 'redeem' | 'adjust', points: number) => ({
      entity: 'loyalty_transaction',
      kind: type === 'redeem' ? 'loyalty.points_redeemed' : 'loyalty.points_adjusted',
      payload: { transaction: { id: newId(), customer_id: c.customer_id, type, points, pool: points < 0 ? 'lease' : 'pool', device_id: points < 0 ? n.device.id : null, order_id: null, note: null, user_id: null, origin: n.device.id, created_at: at } },
    });
    let seq = 20_000;
    const push = async (ops: Array<ReturnType<typeof tx>>) => {
      const res = await n.cloud.app.inject({
        method: 'POST',
        url: '/api/v1/sync/push',
        headers: { authorization: `Bearer ${n.transport.key}` },
        payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops: ops.map((o) => ({ op_id: newId(), device_seq: ++seq, entity_id: o.payload.transaction.id, created_at: at, ...o })) },
      });
      expect(res.statusCode).toBe(200);
      return res.json().results.map((r: { status: string }) => r.status);
    };
    const view = async () => {
      const acc = await n.cloud.services.loyalty.getByPhone(n.tenant.id, '+31612345678');
      return { balance: acc.balance, pool: acc.redeemable_here, lease: acc.balance - acc.redeemable_here };
    };
    const calls = watchApplies();
    // 10 from the lease (0 left, topped up with the pool's last 4); 5 more than the lease holds now.
    expect(await push([tx('redeem', -10), tx('redeem', -5)])).toEqual(['applied', 'rejected']);
    expect(await view()).toEqual({ balance: 4, pool: 0, lease: 4 });
    calls.length = 0;
    // +20 to the pool (lease topped up to 10), 10 spent (topped up again), 10 spent again: only with the top-ups of this chunk.
    expect(await push([tx('adjust', 20), tx('redeem', -10), tx('redeem', -10)])).toEqual(['applied', 'applied', 'applied']);
    expect(calls.filter((x) => x.side === 'cloud').map((x) => x.batch)).toEqual([true, true, true]);
    expect(await view()).toEqual({ balance: 4, pool: 0, lease: 4 });
    const grants = await n.cloud.handle.db.selectFrom('loyalty_leases').select('points').where('tenant_id', '=', n.tenant.id).orderBy('created_at').execute();
    expect(grants.map((g) => Number(g.points)).sort((a, b) => a - b)).toEqual([4, 4, 6, 10, 10]);
    await quiesce(n.appliance);
    await expectConverged(n);
  });

  it('a new appliance replaying the log (pull pages applied as batches) holds the same customers, ledger, leases and accounts', async () => {
    const world = await guestOffline();
    const { cloud, tenant } = world;
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Tweede kassa');
    const late = await createAppliance(new FakeTransport(() => cloud, sync_key), { bootstrap: 'replay', pullLimit: 7 });
    const calls = watchApplies();
    await late.engine.syncOnce();
    expect(calls.filter((c) => c.side === 'appliance').every((c) => c.batch)).toBe(true);
    expect(await replicatedState(late, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    const accounts = async (rt: Runtime) =>
      (await rt.handle.db.selectFrom('loyalty_accounts').select(['customer_id', 'holder', 'points']).where('tenant_id', '=', tenant.id).where('points', '!=', 0).orderBy('customer_id').orderBy('holder').execute()).map((a) => ({ ...a, points: Number(a.points) }));
    expect(await accounts(late)).toEqual(await accounts(cloud));
  });
});

describe('loyalty sync: an erasure inside a push chunk', () => {
  async function eraseBetweenEarns(pushBatch?: number) {
    const nodes = await twoNodes(pushBatch ? { pushBatch } : {});
    const { cloud, tenant, appliance, transport } = nodes;
    const menu = await seedMenu(cloud, tenant.id);
    await appliance.engine.syncOnce();
    transport.offline = true;
    const who = { tenantId: tenant.id, userId: null };
    const order = await paid(appliance, tenant.id, menu, '06 31415926', 2, 'Pi Pieters'); // 29, the customer created
    const first = await appliance.services.loyalty.balanceByPhone(tenant.id, '0631415926');
    await appliance.services.loyalty.erase(who, first.customer_id);
    await paid(appliance, tenant.id, menu, '06 31415926', 1, 'Pi Pieters'); // 14: a new customer (a new consent)
    transport.offline = false;
    const calls = watchApplies();
    await quiesce(appliance);
    const pushed = calls.filter((c) => c.side === 'cloud');
    await cloud.services.loyalty.settled();
    await appliance.services.loyalty.settled();
    await expectConverged(nodes);
    const rows = await cloud.handle.db.selectFrom('loyalty_customers').select(['id', 'erased_at']).where('tenant_id', '=', tenant.id).execute();
    const points = await cloud.handle.db.selectFrom('loyalty_transactions').select(['customer_id', 'points']).where('tenant_id', '=', tenant.id).execute();
    return {
      pushed: { ops: pushed.length, batched: pushed.filter((c) => c.batch).length },
      customers: rows.map((r) => (r.id === first.customer_id ? 'erased:' : 'live:') + (r.erased_at ? 'tombstone' : 'kept')).sort(),
      points: points.map((p) => `${p.customer_id === first.customer_id ? 'erased' : 'new'}:${Number(p.points)}`).sort(),
      balance: await balance(cloud, tenant.id, '0631415926'),
      // The erased guest's record and first order keep nothing personal; the change log copies of them neither.
      erasedRow: await cloud.handle.db.selectFrom('loyalty_customers').select(['phone', 'name', 'email']).where('id', '=', first.customer_id).executeTakeFirst(),
      firstOrder: await cloud.handle.db.selectFrom('orders').select(['customer_phone', 'customer_name']).where('id', '=', order.id).executeTakeFirst(),
      logged: (await cloud.handle.db.selectFrom('change_log').select('payload').where('tenant_id', '=', tenant.id).where((eb) => eb.or([eb('entity_id', '=', first.customer_id), eb('entity_id', '=', order.id)])).execute()).filter((c) => /31415926|Pi Pieters/.test(c.payload)).length,
    };
  }

  it('a customer created, an earn, the erasure and a new customer with an earn in one chunk: as op by op, the erased record and its order without the number', async () => {
    const batched = await eraseBetweenEarns();
    expect(batched).toEqual({
      pushed: { ops: 6, batched: 6 }, // two customers, two earns, the privacy log entry, the erasure: once each, in the chunk's batch
      customers: ['erased:tombstone', 'live:kept'],
      points: ['erased:29', 'new:14'],
      balance: 14,
      erasedRow: { phone: null, name: null, email: null },
      firstOrder: { customer_phone: null, customer_name: null },
      logged: 0,
    });
    expect(await eraseBetweenEarns(1)).toEqual({ ...batched, pushed: expect.anything() });
  });
});
