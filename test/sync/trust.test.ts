import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, MAX_OP_BYTES, MAX_FIELD_CHARS, MAX_PULL_BYTES, type WireOp } from '../../sync/protocol.js';
import { DEVICE_BUDGET } from '../../sync/cloud.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { hashPassword } from '../../server/shared/secrets.js';
import { newId } from '../../server/shared/ids.js';
import { cookieFrom, type TestApp, type SeededTenant } from '../helpers/app.js';
import { lane } from '../helpers/db.js';
import { seedMenu } from '../helpers/factories.js';
import { replicatedState, twoNodes } from './harness.js';

/**
 * Issue 17: the cloud trusts an appliance's SYNC_KEY no further than its restaurant's staff, and
 * validates every pushed op like an API request. One test per point of the issue (point 10 is
 * documentation: checked at the end).
 */

const V = { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION };
type Result = { op_id: string; status: 'applied' | 'conflict' | 'rejected'; reason: string | null; duplicate: boolean; server_seq: number | null };

let seq = 0;
function op(entity: string, entityId: string, kind: string, payload: unknown, extra: Partial<WireOp> = {}): WireOp {
  seq += 1;
  return { op_id: newId(), device_seq: seq, entity, entity_id: entityId, kind, payload, created_at: '2026-11-20T12:00:00.000Z', ...extra };
}

async function push(cloud: TestApp, key: string, ops: WireOp[]) {
  const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${key}` }, payload: { ...V, ops } });
  return res;
}
async function pushOk(cloud: TestApp, key: string, ops: WireOp[]): Promise<Result[]> {
  const res = await push(cloud, key, ops);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results as Result[];
}

/** A second restaurant in the same cloud, with its own device. */
async function otherTenant(cloud: TestApp) {
  const tenant = await cloud.seedTenant();
  const { sync_key, device } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Kassa B');
  return { tenant, key: sync_key, device };
}

const adminLogin = (t: TestApp, r: SeededTenant, password: string, email = r.adminEmail) =>
  t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email, password } });

async function userRow(t: TestApp, id: string) {
  return t.handle.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user op an appliance records (users.service.ts userChange), built from a row. */
function userPayload(row: NonNullable<Awaited<ReturnType<typeof userRow>>>, patch: Record<string, unknown> = {}) {
  const r = { ...row, ...patch } as typeof row & Record<string, unknown>;
  return {
    id: r.id, name: r.name, role: r.role, email: r.email, hourly_wage_cents: r.hourly_wage_cents, job: r.job, has_pin: r.pin_hash !== null,
    created_at: r.created_at, updated_at: '2026-11-20T12:30:00.000Z', archived_at: r.archived_at, tenant_id: r.tenant_id, pin_hash: r.pin_hash, password_hash: r.password_hash,
  };
}

const rejectedOps = (t: TestApp, tenantId: string) =>
  t.handle.db.selectFrom('sync_ops').select(['op_id', 'status', 'result']).where('tenant_id', '=', tenantId).where('status', '=', 'rejected').execute();

describe(`sync trust boundary (issue 17, ${lane})`, () => {
  it('1. a device cannot create an admin, promote staff, replace an admin\'s password, e-mail or archive them: each refused and recorded; staff and PIN changes still sync', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    const attackerHash = await hashPassword('aanvaller-wachtwoord');
    const admin = (await userRow(cloud, tenant.adminId))!;
    const staff = (await userRow(cloud, tenant.staffId))!;
    const newAdminId = newId();
    const ops = [
      op('user', newAdminId, 'user.created', {
        id: newAdminId, name: 'Indringer', role: 'admin', email: 'indringer@example.nl', hourly_wage_cents: null, job: null, has_pin: false,
        created_at: '2026-11-20T12:00:00.000Z', updated_at: '2026-11-20T12:00:00.000Z', archived_at: null, tenant_id: tenant.id, pin_hash: null, password_hash: attackerHash,
      }),
      op('user', staff.id, 'user.updated', userPayload(staff, { role: 'admin', email: 'sanne@example.nl', password_hash: attackerHash, pin_hash: null })),
      op('user', admin.id, 'user.updated', userPayload(admin, { password_hash: attackerHash })),
      op('user', admin.id, 'user.updated', userPayload(admin, { email: 'ander@example.nl' })),
      op('user', admin.id, 'user.archived', userPayload(admin, { archived_at: '2026-11-20T12:30:00.000Z', email: null })),
      op('user', admin.id, 'user.updated', userPayload(admin, { role: 'staff', pin_hash: staff.pin_hash })),
    ];
    const results = await pushOk(cloud, transport.key, ops);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    for (const r of results) expect(r.reason).toMatch(/alleen in de cloud|wachtwoord/);
    expect(results[0]!.reason).toBe('Beheerders en hun inloggegevens (rol, e-mailadres, wachtwoord) worden alleen in de cloud gewijzigd, niet via een apparaat.');
    // Recorded: the device sees them as rejected; resending answers the same.
    expect((await rejectedOps(cloud, tenant.id)).map((r) => r.op_id).sort()).toEqual(ops.map((o) => o.op_id).sort());
    expect((await pushOk(cloud, transport.key, ops)).every((r) => r.status === 'rejected' && r.duplicate)).toBe(true);
    // Nothing changed: no new admin, the staff member is staff, the admin keeps password, e-mail and account.
    expect(await userRow(cloud, newAdminId)).toBeUndefined();
    expect(await userRow(cloud, staff.id)).toEqual(staff);
    expect(await userRow(cloud, admin.id)).toEqual(admin);
    expect((await adminLogin(cloud, tenant, 'aanvaller-wachtwoord')).statusCode).toBe(401);
    expect((await adminLogin(cloud, tenant, 'aanvaller-wachtwoord', 'indringer@example.nl')).statusCode).toBe(401);
    expect((await adminLogin(cloud, tenant, tenant.adminPassword)).statusCode).toBe(200);

    // What an admin does on the appliance to staff (new staff, a new PIN, an archive) and to an
    // admin's name still syncs, through the real engine.
    await appliance.engine.syncOnce();
    const joost = await appliance.services.users.create(tenant.id, { name: 'Joost', role: 'staff', pin: '4321' });
    await appliance.services.users.update(tenant.id, joost.id, { pin: '6543', job: 'bar' });
    await appliance.services.users.update(tenant.id, tenant.adminId, { name: 'Baas', hourly_wage_cents: 2500 });
    await appliance.services.users.archive(tenant.id, tenant.staffId);
    const r = await appliance.engine.pushOnce();
    expect(r.results.map((x) => x.status)).toEqual(['applied', 'applied', 'applied', 'applied']);
    await appliance.engine.syncOnce();
    expect((await cloud.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: '6543' } })).statusCode).toBe(200);
    expect((await userRow(cloud, tenant.adminId))!).toMatchObject({ name: 'Baas', role: 'admin', password_hash: admin.password_hash, email: admin.email });
    expect((await userRow(cloud, tenant.staffId))!.archived_at).not.toBeNull();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('2. a pushed hash with a cost of its own (a planted slow hash) or in another format is refused; nothing is stored', async () => {
    const { cloud, tenant, transport } = await twoNodes();
    const slow = `scrypt$1048576$8$64$${Buffer.alloc(16, 1).toString('base64url')}$${Buffer.alloc(32, 2).toString('base64url')}`;
    const staff = (await userRow(cloud, tenant.staffId))!;
    const id = newId();
    const fresh = {
      id, name: 'Nieuw', role: 'staff', email: 'nieuw@example.nl', hourly_wage_cents: null, job: null, has_pin: true,
      created_at: '2026-11-20T12:00:00.000Z', updated_at: '2026-11-20T12:00:00.000Z', archived_at: null, tenant_id: tenant.id,
      pin_hash: staff.pin_hash!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), password_hash: null,
    };
    const results = await pushOk(cloud, transport.key, [
      op('user', id, 'user.created', { ...fresh, password_hash: slow }),
      op('user', staff.id, 'user.updated', userPayload(staff, { password_hash: slow })),
      op('user', id, 'user.created', { ...fresh, pin_hash: 'scrypt-pin$kort' }),
      op('user', id, 'user.created', { ...fresh, pin_hash: 'scrypt$16384$8$1$AAAA$BBBB' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(results[0]!.reason).toBe('Een wachtwoord wordt alleen in de cloud ingesteld, niet via een apparaat.');
    expect(results[2]!.reason).toBe("Ongeldige wijziging voor medewerker: 'pin_hash' is geen pincode-hash van deze server.");
    expect(await userRow(cloud, id)).toBeUndefined();
    expect(await userRow(cloud, staff.id)).toEqual(staff);
    // A hash in the server's own format from a device is taken: the same op with a well-formed PIN hash applies.
    expect((await pushOk(cloud, transport.key, [op('user', id, 'user.created', fresh)]))[0]!.status).toBe('applied');
  });

  it('3. an op over the size limits is refused without storing anything; a device has a push budget (429 with Retry-After)', async () => {
    const { cloud, tenant, device, appliance } = await twoNodes();
    // The test pushes through a device of its own (the appliance would take ops with its own origin for its own).
    const tester = await cloud.services.sync.cloud.createDevice(tenant.id, 'Test');
    const transport = { key: tester.sync_key };
    const before = await cloud.services.tenants.getSettings(tenant.id);
    const logBefore = await cloud.changes.lastSeq(tenant.id);
    const huge = 'x'.repeat(MAX_OP_BYTES + 10);
    const long = 'y'.repeat(MAX_FIELD_CHARS + 1);
    const results = await pushOk(cloud, transport.key, [
      op('tenant', tenant.id, 'settings.updated', { fields: { name: huge } }),
      op('tenant', tenant.id, 'settings.updated', { fields: { name: 'Nieuwe naam' }, extra: long }),
      op('tenant', tenant.id, 'settings.updated', { fields: { name: 'z'.repeat(121) } }),
      op('tenant', tenant.id, 'settings.updated', { fields: { opening_hours: { mon: [['09:00', '17:00']], xyz: 1 } } }),
      op('tenant', tenant.id, 'settings.updated', { fields: { max_party_size: 100_000 } }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    expect(results[0]!.reason).toMatch(new RegExp(`^Deze wijziging is te groot om te synchroniseren \\(\\d+ bytes; maximaal ${MAX_OP_BYTES}\\)\\.$`));
    expect(results[1]!.reason).toBe(`Ongeldige wijziging: 'extra' is te lang (maximaal ${MAX_FIELD_CHARS} tekens).`);
    expect(results[2]!.reason).toBe("Ongeldige wijziging voor de instellingen: 'name' mag maximaal 120 tekens lang zijn.");
    expect(results[4]!.reason).toMatch(/'max_party_size' mag maximaal 100 zijn/);
    expect(await cloud.services.tenants.getSettings(tenant.id)).toEqual(before);
    expect(await cloud.changes.lastSeq(tenant.id)).toBe(logBefore);
    const stored = await cloud.handle.db.selectFrom('sync_ops').select('result').where('tenant_id', '=', tenant.id).execute();
    expect(stored.every((s) => s.result.length < 2_000)).toBe(true); // only the answers, never the payloads

    // An appliance does not even send an op over the limit: a marker in its place, answered as rejected, and the queue moves on.
    await appliance.engine.syncOnce();
    await appliance.changes.write(tenant.id, (w) => w.record({ entity: 'tenant', entityId: tenant.id, kind: 'settings.updated', payload: { fields: { name: huge } } }));
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 20 });
    const sent = await appliance.engine.pushOnce();
    expect(sent.results.map((r) => r.status)).toEqual(['rejected', 'applied']);
    expect(sent.results[0]!.reason).toMatch(/te groot/);
    expect(await appliance.engine.pendingCount()).toBe(0);
    expect((await cloud.services.tenants.getSettings(tenant.id)).slot_minutes).toBe(20);

    // The budget: an empty bucket answers 429 with Retry-After and applies nothing; it refills with time.
    await cloud.handle.db.updateTable('sync_devices').set({ budget_ops: 0, budget_bytes: DEVICE_BUDGET.bytes, budget_at: cloud.clock.now().toISOString() }).where('id', '=', tester.device.id).execute();
    const hundred = Array.from({ length: 100 }, () => op('tenant', tenant.id, 'settings.updated', { fields: { max_party_size: 9 } }));
    const refused = await push(cloud, transport.key, hundred);
    expect(refused.statusCode).toBe(429);
    // 100 ops at DEVICE_BUDGET.opsPerHour (100,000 an hour): 3.6 s, said as 4 seconds.
    const wait = Math.ceil((100 / DEVICE_BUDGET.opsPerHour) * 3600);
    expect(wait).toBe(4);
    expect(refused.json()).toEqual({ code: 'RATE_LIMITED', error: `Dit apparaat heeft zijn synchronisatiebudget opgebruikt; de wijzigingen volgen over ${wait} seconden vanzelf.` });
    expect(refused.headers['retry-after']).toBe(String(wait));
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).not.toBe(9);
    cloud.clock.advance((wait + 1) * 1000);
    expect((await pushOk(cloud, transport.key, hundred)).every((r) => r.status === 'applied')).toBe(true);
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).toBe(9);
    // The bytes count too.
    for (const id of [tester.device.id, device.id]) {
      await cloud.handle.db.updateTable('sync_devices').set({ budget_ops: DEVICE_BUDGET.ops, budget_bytes: 10, budget_at: cloud.clock.now().toISOString() }).where('id', '=', id).execute();
    }
    expect((await push(cloud, transport.key, [op('tenant', tenant.id, 'settings.updated', { fields: { max_party_size: 10 } })])).statusCode).toBe(429);
    // The appliance takes a 429 as "later": nothing is lost, it is sent once the bucket has refilled.
    await appliance.services.tenants.patchSettings(tenant.id, { max_party_size: 11 });
    await expect(appliance.engine.pushOnce()).rejects.toThrow(/synchronisatiebudget/);
    expect(await appliance.engine.pendingCount()).toBe(1);
    cloud.clock.advance(60_000);
    await appliance.engine.syncOnce();
    expect(await appliance.engine.pendingCount()).toBe(0);
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).toBe(11);
  });

  it('3b. a pull page stops at its byte limit, so one tenant\'s big rows never make a page of hundreds of megabytes', async () => {
    const { cloud, tenant, transport } = await twoNodes();
    const big = 'b'.repeat(200_000);
    const n = Math.ceil((MAX_PULL_BYTES * 1.5) / big.length);
    const start = await cloud.changes.lastSeq(tenant.id);
    await cloud.changes.write(tenant.id, async (w) => {
      for (let i = 0; i < n; i++) await w.record({ entity: 'note', entityId: newId(), kind: 'note.added', payload: { text: big } });
    });
    const res = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?protocol_version=${V.protocol_version}&schema_version=${V.schema_version}&cursor=${start}&limit=1000`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page.has_more).toBe(true);
    expect(page.changes.length).toBeGreaterThan(1);
    expect(page.changes.length).toBeLessThan(n);
    expect(res.body.length).toBeLessThan(MAX_PULL_BYTES + 300_000);
    const rest = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?protocol_version=${V.protocol_version}&schema_version=${V.schema_version}&cursor=${page.next_cursor}&limit=1000`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(page.changes.length + rest.json().changes.length).toBe(n);
    expect(rest.json().has_more).toBe(false);
  });

  it('4. two restaurants\' devices pushing the same op id each get their own answer and both ops are applied', async () => {
    const { cloud, tenant, device, transport } = await twoNodes();
    const b = await otherTenant(cloud);
    const opId = newId();
    // Restaurant A: a staff member whose PIN is taken (the answer names A's staff).
    const id = newId();
    const staff = (await userRow(cloud, tenant.staffId))!;
    const a = op('user', id, 'user.created', {
      id, name: 'Kees', role: 'staff', email: null, hourly_wage_cents: null, job: null, has_pin: true,
      created_at: '2026-11-20T12:00:00.000Z', updated_at: '2026-11-20T12:00:00.000Z', archived_at: null, tenant_id: tenant.id, pin_hash: staff.pin_hash, password_hash: null,
    }, { op_id: opId });
    const ra = (await pushOk(cloud, transport.key, [a]))[0]!;
    expect(ra).toMatchObject({ status: 'conflict', reason: expect.stringContaining('Sanne'), duplicate: false });
    // Restaurant B: a settings change under the same op id.
    const bOp = op('tenant', b.tenant.id, 'settings.updated', { fields: { max_party_size: 22 } }, { op_id: opId });
    const rb = (await pushOk(cloud, b.key, [bOp]))[0]!;
    expect(rb).toMatchObject({ status: 'applied', reason: null, duplicate: false });
    expect((await cloud.services.tenants.getSettings(b.tenant.id)).max_party_size).toBe(22);
    expect(await cloud.handle.db.selectFrom('change_log').select(['tenant_id']).where('op_id', '=', opId).orderBy('tenant_id').execute()).toHaveLength(2);
    // Each resend gets its own restaurant's stored answer.
    expect((await pushOk(cloud, transport.key, [a]))[0]).toMatchObject({ status: 'conflict', reason: ra.reason, duplicate: true, server_seq: ra.server_seq });
    expect((await pushOk(cloud, b.key, [bOp]))[0]).toMatchObject({ status: 'applied', reason: null, duplicate: true, server_seq: rb.server_seq });
    // Another device of the same restaurant reusing an op id gets a rejection of its own, not the first device's answer.
    const second = await cloud.services.sync.cloud.createDevice(tenant.id, 'Terras');
    const r2 = (await pushOk(cloud, second.sync_key, [{ ...bOp, entity_id: tenant.id }]))[0]!;
    expect(r2).toMatchObject({ status: 'rejected', reason: 'Dit op-id is al gebruikt door een ander apparaat van dit restaurant.', duplicate: false });
    expect(r2.reason).not.toContain('Sanne');
    void device;
  });

  it('6. a long-poll opened before the key was revoked is answered 401, not with a change committed after the revocation', async () => {
    const { cloud, tenant, device, transport } = await twoNodes();
    const cursor = await cloud.changes.lastSeq(tenant.id);
    const poll = cloud.req({ method: 'GET', url: `/api/v1/sync/pull?protocol_version=${V.protocol_version}&schema_version=${V.schema_version}&cursor=${cursor}&wait=10000`, headers: { authorization: `Bearer ${transport.key}` } });
    await new Promise((r) => setTimeout(r, 300)); // the poll is waiting
    await cloud.services.sync.cloud.revokeDevice(tenant.id, device.id);
    await cloud.services.tenants.patchSettings(tenant.id, { name: 'Na de intrekking' });
    const res = await poll;
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Ongeldige of ingetrokken synchronisatiesleutel (SYNC_KEY).', code: 'UNAUTHORIZED' });
    expect(res.body).not.toContain('Na de intrekking');
  });

  it('6b. rotating a SYNC_KEY: the old key is refused at once, the appliance goes on with the new one and keeps its data', async () => {
    const { cloud, tenant, device, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    transport.offline = true;
    await appliance.services.tenants.patchSettings(tenant.id, { max_party_size: 13 });
    const cookie = await tenant.adminCookie();
    const staff = await cloud.req({ method: 'POST', url: `/api/v1/sync/devices/${device.id}/rotate`, cookie: await tenant.staffCookie() });
    expect(staff.statusCode).toBe(403);
    const rotated = await cloud.req({ method: 'POST', url: `/api/v1/sync/devices/${device.id}/rotate`, cookie });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json()).toMatchObject({ id: device.id, sync_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const old = transport.key;
    transport.offline = false;
    await expect(appliance.engine.pushOnce()).rejects.toThrow(/SYNC_KEY/);
    transport.key = rotated.json().sync_key;
    appliance.restart();
    await appliance.engine.syncOnce();
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).toBe(13);
    const hello = (key: string) => cloud.req({ method: 'GET', url: `/api/v1/sync/hello?protocol_version=${V.protocol_version}&schema_version=${V.schema_version}`, headers: { authorization: `Bearer ${key}` } });
    expect((await hello(old)).statusCode).toBe(401);
    expect((await hello(transport.key)).statusCode).toBe(200);
    // Another restaurant's admin cannot rotate this device.
    const b = await otherTenant(cloud);
    expect((await cloud.req({ method: 'POST', url: `/api/v1/sync/devices/${device.id}/rotate`, cookie: await b.tenant.adminCookie() })).statusCode).toBe(404);
  });

  describe('orders and references', () => {
    const day = '2026-11-20';
    const at = '2026-11-20T12:00:00.000Z';
    let numbers = 100;
    function orderOp(deviceId: string, productId: string, o: { id?: string; itemIds?: string[]; number?: string; patch?: Record<string, unknown>; item?: Record<string, unknown>; extra?: Record<string, unknown> } = {}) {
      const id = o.id ?? newId();
      const items = (o.itemIds ?? [newId()]).map((itemId) => ({ id: itemId, product_id: productId, name: 'Friet', quantity: 2, unit_price_cents: 395, total_cents: 790, notes: null, ...o.item }));
      const order = {
        id, number: o.number ?? `K-${++numbers}`, status: 'new', source: 'pos', table_id: null, customer: null, notes: null,
        items, total_cents: items.reduce((s, i) => s + (i.total_cents as number), 0), payment_status: 'open', created_at: at, updated_at: at, ...o.patch,
      };
      return op('order', id, 'order.created', {
        order, history: { id: newId(), tenant_id: 'x', order_id: id, from_status: null, to_status: 'new', user_id: null, source: 'pos', created_at: at },
        business_day: day, origin: deviceId, idempotency_key: null, request_hash: null, created_by: null, ...o.extra,
      });
    }

    it('7. an order whose line id exists already is rejected, not answered "applied" with its lines skipped (also twice in one push)', async () => {
      const { cloud, tenant, device, transport } = await twoNodes();
      const b = await otherTenant(cloud);
      const menuA = await seedMenu(cloud, tenant.id);
      const menuB = await seedMenu(cloud, b.tenant.id);
      const { order: theirs } = await cloud.services.orders.create({ tenantId: b.tenant.id, userId: null, via: 'web' }, { items: [{ product_id: menuB.friet.id, quantity: 1 }] });
      const theirItem = theirs.items[0]!.id;
      const shared = newId();
      const ops = [
        orderOp(device.id, menuA.friet.id, { itemIds: [theirItem] }), // another restaurant's line id
        orderOp(device.id, menuA.friet.id, { itemIds: [shared] }),
        orderOp(device.id, menuA.friet.id, { itemIds: [shared] }), // the same line id in the same push
        orderOp(device.id, menuA.friet.id, { itemIds: [newId()] }),
      ];
      const results = await pushOk(cloud, transport.key, ops);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'applied', 'rejected', 'applied']);
      expect(results[0]!.reason).toBe('Een bestelregel van deze bestelling bestaat al (hetzelfde id); de bestelling is niet overgenomen.');
      const rows = await cloud.handle.db.selectFrom('orders').select('id').where('tenant_id', '=', tenant.id).execute();
      expect(rows.map((r) => r.id).sort()).toEqual([ops[1]!.entity_id, ops[3]!.entity_id].sort());
      expect(await cloud.services.orders.get(b.tenant.id, theirs.id)).toEqual(theirs);
      // The same line twice within one order is refused by validation.
      const twice = orderOp(device.id, menuA.friet.id, { itemIds: [newId()] });
      const o = (twice.payload as { order: { items: unknown[] } }).order;
      o.items = [o.items[0], o.items[0]];
      (twice.payload as { order: { total_cents: number } }).order.total_cents = 1580;
      expect((await pushOk(cloud, transport.key, [twice]))[0]).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/regel-id twee keer/) });
    });

    it('8. invalid timestamps, non-UUID ids and references into another restaurant are rejected; nothing is stored', async () => {
      const { cloud, tenant, device, transport } = await twoNodes();
      const b = await otherTenant(cloud);
      const menuA = await seedMenu(cloud, tenant.id);
      const menuB = await seedMenu(cloud, b.tenant.id);
      const productId = newId();
      const product = (p: Record<string, unknown>) => ({
        id: productId, tenant_id: tenant.id, category_id: null, name: 'Bitterballen', description: null, price_cents: 650, cost_cents: null, vat_rate: 9, unit: null,
        min_level: null, available: 1, created_at: at, updated_at: at, archived_at: null, ...p,
      });
      const userId = newId();
      const ops = [
        op('product', productId, 'product.created', product({ created_at: 'not-a-date' })),
        op('product', productId, 'product.created', product({ category_id: menuB.categoryId })), // B's category
        op('product', 'abc', 'product.created', product({ id: 'abc' })),
        op('product', productId, 'product.created', product({ price_cents: -5 })),
        op('user', userId, 'user.created', { id: userId, name: 'Piet', role: 'staff', email: null, pin_hash: null, password_hash: null, created_at: at, updated_at: 'gisteren' }),
        orderOp(device.id, menuB.friet.id), // B's product in A's order
        orderOp(device.id, menuA.friet.id, { extra: { created_by: b.tenant.staffId } }), // B's staff member
        orderOp(device.id, menuA.friet.id, { item: { id: 'regel-1' } }),
        orderOp(device.id, menuA.friet.id, { patch: { created_at: '2026-13-45T99:00:00Z' } }),
        orderOp(device.id, menuA.friet.id, { patch: { total_cents: 1 } }),
        orderOp(device.id, menuA.friet.id, { patch: { status: 'completed', payment_status: 'paid' } }),
        orderOp(device.id, menuA.friet.id, { item: { quantity: 5000, total_cents: 5000 * 395 } }),
        orderOp(device.id, menuA.friet.id, { extra: { business_day: 'morgen' } }),
        op('order', newId(), 'order.created', { order: 'x' }, { created_at: 'not-a-date' }),
      ];
      const results = await pushOk(cloud, transport.key, ops);
      expect(results.map((r) => r.status)).toEqual(ops.map(() => 'rejected'));
      expect(results[0]!.reason).toBe("Ongeldige wijziging voor een product: 'created_at' moet een geldig tijdstip (ISO-8601, bijvoorbeeld 2026-05-01T18:30:00Z) zijn.");
      expect(results[1]!.reason).toBe('De categorie van dit product bestaat niet bij dit restaurant.');
      expect(results[5]!.reason).toBe('Een product van deze bestelling bestaat niet bij dit restaurant.');
      expect(results[6]!.reason).toBe('De medewerker van deze bestelling bestaat niet bij dit restaurant.');
      expect(results[13]!.reason).toBe("Ongeldige wijziging: 'created_at' is geen geldig tijdstip (ISO-8601).");
      expect(await cloud.handle.db.selectFrom('products').select('id').where('id', 'in', [productId, 'abc']).execute()).toEqual([]);
      expect(await userRow(cloud, userId)).toBeUndefined();
      expect(await cloud.handle.db.selectFrom('orders').select('id').where('tenant_id', '=', tenant.id).execute()).toEqual([]);
      // The same ops, made valid, apply: the rules refuse only what the API would refuse.
      const ok = await pushOk(cloud, transport.key, [op('product', productId, 'product.created', product({ category_id: menuA.categoryId })), orderOp(device.id, menuA.friet.id)]);
      expect(ok.map((r) => r.status)).toEqual(['applied', 'applied']);
    });
  });

  it('9. a NUL byte in an op id or a payload rejects that op only (the push is answered, the queue moves on)', async () => {
    const { cloud, tenant, transport } = await twoNodes();
    const ops = [
      op('tenant', tenant.id, 'settings.updated', { fields: { max_party_size: 7 } }, { op_id: `0190\u00000000-0000-7000-8000-000000000001` }),
      op('tenant', tenant.id, 'settings.updated', { fields: { name: 'Zaak\u0000' } }),
      op('tenant', tenant.id, 'settings.updated', { fields: { ['na\u0000me']: 'x' } }),
      op('tenant', tenant.id, 'settings.updated', { fields: { max_party_size: 12 } }),
    ];
    const res = await push(cloud, transport.key, ops);
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Result[];
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'applied']);
    expect(results[0]!.reason).toBe('Ongeldige wijziging: het op-id is geen geldige id.');
    expect(results[1]!.reason).toBe("Ongeldige wijziging: 'fields.name' bevat een ongeldig teken (een NUL-byte).");
    expect(res.json().acked_through).toBe(ops[3]!.device_seq);
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).toBe(12);
    expect((await cloud.services.tenants.getSettings(tenant.id)).name).not.toContain('\u0000');
    // Sent again: the same answers (the op id that cannot be stored is refused again, never applied).
    const again = (await pushOk(cloud, transport.key, ops)).map((r) => r.status);
    expect(again).toEqual(['rejected', 'rejected', 'rejected', 'applied']);
  });

  it('10. SECURITY.md says what each credential can do and how to rotate it, and warns about TRUST_PROXY', () => {
    const security = readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8');
    for (const word of ['SYNC_KEY', 'API key', 'session', 'TRUST_PROXY', 'load balancer', 'revoke', 'rotate']) expect(security.toLowerCase()).toContain(word.toLowerCase());
    expect(security).toMatch(/must be reachable only through the load balancer/);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toMatch(/TRUST_PROXY=1[\s\S]{0,120}load\s+balancer/);
    expect(readme).toContain('SECURITY.md');
  });

  it('5. an admin carries no PIN: a pushed admin with a PIN is refused', async () => {
    const { cloud, tenant, transport } = await twoNodes();
    const admin = (await userRow(cloud, tenant.adminId))!;
    const staff = (await userRow(cloud, tenant.staffId))!;
    const r = await pushOk(cloud, transport.key, [op('user', admin.id, 'user.updated', userPayload(admin, { pin_hash: staff.pin_hash!.replace(/^(.{12})./, '$1Q') }))]);
    expect(r[0]).toMatchObject({ status: 'rejected', reason: 'Een beheerder heeft geen pincode: beheerders loggen in met e-mail en wachtwoord.' });
    expect(await userRow(cloud, admin.id)).toEqual(admin);
    void cookieFrom;
  });
});
