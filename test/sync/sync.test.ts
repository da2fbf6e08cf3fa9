import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SyncStopped } from '../../sync/engine.js';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { syncRegistry as registry } from '../../server/modules/sync-descriptors.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { createTestApp, cookieFrom } from '../helpers/app.js';
import { lane } from '../helpers/db.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { createAppliance, FakeTransport, replicatedState, twoNodes } from './harness.js';

const V = { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION };

describe('sync registry', () => {
  it('classifies every table of the real schema', async () => {
    const t = await createTestApp();
    const db = t.handle.db;
    const names =
      t.handle.dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows.map((r) => r.name)
        : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows.map((r) => r.name);
    expect(names).toContain('users');
    expect(names).toContain('sync_ops');
    const unclassified = names.filter((n) => !registry.classify(n));
    expect(unclassified, `tables without a sync classification: ${unclassified.join(', ')}`).toEqual([]);
    // Every replicated entity has an applier; tenants and users replicate.
    expect(registry.classify('users')).toMatchObject({ replicated: true, entity: 'user', merge: 'lww-fields' });
    expect(registry.classify('tenants')).toMatchObject({ replicated: true, entity: 'tenant' });
    expect(registry.classify('sessions')).toMatchObject({ replicated: false });
  });
});

describe('sync devices (cloud)', () => {
  it('an admin registers a device, sees it listed without secrets, and revokes it', async () => {
    const { cloud, tenant } = await twoNodes();
    const cookie = await tenant.adminCookie();
    const created = await cloud.req({ method: 'POST', url: '/api/v1/sync/devices', cookie, payload: { name: 'Kassa achter' } });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ name: 'Kassa achter', revoked_at: null, last_device_seq: 0 });
    expect(body.sync_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const list = await cloud.req({ method: 'GET', url: '/api/v1/sync/devices', cookie });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(body.sync_key);
    expect(list.body).not.toContain('key_hash');
    expect(list.json().data.map((d: { name: string }) => d.name)).toContain('Kassa achter');

    const hello = () => cloud.req({ method: 'GET', url: `/api/v1/sync/hello?protocol_version=${V.protocol_version}&schema_version=${V.schema_version}`, headers: { authorization: `Bearer ${body.sync_key}` } });
    expect((await hello()).statusCode).toBe(200);
    const del = await cloud.req({ method: 'DELETE', url: `/api/v1/sync/devices/${body.id}`, cookie });
    expect(del.statusCode).toBe(204);
    const refused = await hello();
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: expect.stringMatching(/synchronisatiesleutel/), code: 'UNAUTHORIZED' });
  });

  it('staff cannot manage devices; the appliance has no device registry; a bad key is 401', async () => {
    const { cloud, tenant } = await twoNodes();
    const staff = await cloud.req({ method: 'GET', url: '/api/v1/sync/devices', cookie: await tenant.staffCookie() });
    expect(staff.statusCode).toBe(403);
    const bad = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?protocol_version=1&schema_version=${SCHEMA_VERSION}`, headers: { authorization: 'Bearer nietgeldig-nietgeldig-nietgeldig' } });
    expect(bad.statusCode).toBe(401);
    const local = await createTestApp();
    const r = await local.seedTenant();
    const res = await local.req({ method: 'POST', url: '/api/v1/sync/devices', cookie: await r.adminCookie(), payload: { name: 'x' } });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
  });
});

describe('sync protocol', () => {
  it('bootstraps an empty appliance: staff log in offline with their PIN', async () => {
    const { cloud, tenant, device, transport, appliance } = await twoNodes();
    await cloud.services.tenants.patchSettings(tenant.id, { max_party_size: 12 });
    const r = await appliance.engine.syncOnce();
    expect(r.pulled).toBe(3); // the snapshot: the tenant (with its settings), admin, staff
    expect(appliance.changes.origin).toBe(device.id);
    transport.offline = true;
    const login = await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: tenant.staffPin } });
    expect(login.statusCode).toBe(200);
    const settings = await appliance.app.inject({
      method: 'GET',
      url: '/api/v1/settings',
      headers: { cookie: cookieFrom(await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: tenant.slug, email: tenant.adminEmail, password: tenant.adminPassword } })) },
    });
    expect(settings.json().max_party_size).toBe(12);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    // The snapshot is state, not ops: the appliance's change log starts after it, and changes pulled
    // from then on are in it with their cloud op ids and origin.
    expect(await appliance.handle.db.selectFrom('change_log').select('op_id').execute()).toEqual([]);
    transport.offline = false;
    await cloud.services.tenants.patchSettings(tenant.id, { max_party_size: 16 });
    await appliance.engine.syncOnce();
    const cloudOps = await cloud.handle.db.selectFrom('change_log').select(['op_id', 'origin']).where('tenant_id', '=', tenant.id).orderBy('seq', 'desc').limit(1).execute();
    const localOps = await appliance.handle.db.selectFrom('change_log').select(['op_id', 'origin']).orderBy('seq').execute();
    expect(localOps).toEqual(cloudOps);
  });

  it('pushes appliance changes; the cloud records them with the original op id, origin and its own seq', async () => {
    const { cloud, tenant, device, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const user = await appliance.services.users.create(tenant.id, { name: 'Joost', role: 'staff', pin: '4321' });
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 15 });
    expect(await appliance.engine.pendingCount()).toBe(2);
    const r = await appliance.engine.syncOnce();
    expect(r.pushed).toBe(2);
    expect(await appliance.engine.pendingCount()).toBe(0);
    const local = await appliance.handle.db.selectFrom('change_log').selectAll().where('origin', '=', device.id).orderBy('seq').execute();
    const remote = await cloud.handle.db.selectFrom('change_log').selectAll().where('origin', '=', device.id).orderBy('seq').execute();
    expect(remote.map((x) => x.op_id)).toEqual(local.map((x) => x.op_id));
    expect(remote.map((x) => x.created_at)).toEqual(local.map((x) => x.created_at));
    expect((await cloud.services.users.list(tenant.id)).map((u) => u.id)).toContain(user.id);
    expect((await cloud.services.tenants.getSettings(tenant.id)).slot_minutes).toBe(15);
    // The new staff member can log in on the cloud too (PIN hash replicated).
    const login = await cloud.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: '4321' } });
    expect(login.statusCode).toBe(200);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('is idempotent: the same push twice is applied once, and a lost response only causes a deduplicated resend', async () => {
    const { cloud, tenant, device, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    await appliance.services.users.create(tenant.id, { name: 'Joost', role: 'staff', pin: '4321' });
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 15 });
    const ops = (await appliance.handle.db.selectFrom('change_log').selectAll().where('origin', '=', device.id).orderBy('seq').execute()).map((r) => ({
      op_id: r.op_id, device_seq: Number(r.seq), entity: r.entity, entity_id: r.entity_id, kind: r.kind, payload: JSON.parse(r.payload), created_at: r.created_at,
    }));
    const push = () => cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { ...V, ops } });
    const first = await push();
    expect(first.statusCode).toBe(200);
    expect(first.json().results.map((x: { status: string; duplicate: boolean }) => [x.status, x.duplicate])).toEqual([['applied', false], ['applied', false]]);
    const second = await push();
    expect(second.json().results.map((x: { duplicate: boolean }) => x.duplicate)).toEqual([true, true]);
    expect(second.json().results.map((x: { server_seq: number }) => x.server_seq)).toEqual(first.json().results.map((x: { server_seq: number }) => x.server_seq));
    expect(second.json().acked_through).toBe(ops[1]!.device_seq);
    const count = await cloud.handle.db.selectFrom('change_log').select((eb) => eb.fn.countAll<number>().as('n')).where('origin', '=', device.id).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2);

    // Through the engine: the response is lost after the cloud applied; the resend is deduplicated.
    await appliance.services.users.create(tenant.id, { name: 'Fenna', role: 'staff', pin: '5555' });
    transport.faults.push('lose-response');
    await expect(appliance.engine.pushOnce()).rejects.toThrow(/verbinding/);
    expect(await appliance.engine.pendingCount()).toBe(3); // nothing acked locally
    await appliance.engine.syncOnce();
    expect(await appliance.engine.pendingCount()).toBe(0);
    const after = await cloud.handle.db.selectFrom('change_log').select((eb) => eb.fn.countAll<number>().as('n')).where('origin', '=', device.id).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(3);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a permanent error is recorded as rejected and does not block the queue', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const now = appliance.clock.now().toISOString();
    const ops = [
      { op_id: '01900000-0000-7000-8000-000000000001', device_seq: 101, entity: 'user', entity_id: 'x1', kind: 'user.created', payload: { id: 'wrong-id' }, created_at: now },
      { op_id: '01900000-0000-7000-8000-000000000002', device_seq: 102, entity: 'starship', entity_id: 'x2', kind: 'starship.launched', payload: {}, created_at: now },
      { op_id: '01900000-0000-7000-8000-000000000003', device_seq: 103, entity: 'tenant', entity_id: tenant.id, kind: 'settings.updated', payload: { fields: { max_party_size: 20 } }, created_at: now },
    ];
    const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { ...V, ops } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected', 'applied']);
    expect(body.results[0].reason).toMatch(/Ongeldige medewerkergegevens/);
    expect(body.results[1].reason).toMatch(/Onbekend soort gegevens 'starship'/);
    expect(body.acked_through).toBe(103);
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).toBe(20);
    const stored = await cloud.handle.db.selectFrom('sync_ops').select(['op_id', 'status']).orderBy('device_seq').execute();
    expect(stored.map((s) => s.status)).toEqual(['rejected', 'rejected', 'applied']);
    // A rejected op sent again answers the same, still without blocking.
    const again = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { ...V, ops } });
    expect(again.json().results.map((r: { status: string; duplicate: boolean }) => `${r.status}:${r.duplicate}`)).toEqual(['rejected:true', 'rejected:true', 'applied:true']);
  });

  it('a transient database failure in the cloud is a 503 with Retry-After: nothing acknowledged, and the retry applies the op once', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    await appliance.services.tenants.patchSettings(tenant.id, { max_party_size: 14 });
    const write = cloud.changes.write.bind(cloud.changes);
    // The database connection drops mid-push (PostgreSQL: 57P01 admin shutdown).
    cloud.changes.write = async () => {
      throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    };
    await expect(appliance.engine.pushOnce()).rejects.toThrow('De cloud is tijdelijk niet beschikbaar; de synchronisatie probeert het zo opnieuw.');
    const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { ...V, ops: [] } });
    expect(res.statusCode).toBe(200); // nothing to write, nothing to fail
    expect(await appliance.engine.pendingCount()).toBe(1);
    const last = transport.calls.at(-1)!;
    expect([last.path, last.status]).toEqual(['/api/v1/sync/push', 503]);
    cloud.changes.write = write;
    expect((await appliance.engine.pushOnce()).results.map((r) => r.status)).toEqual(['applied']);
    expect(await appliance.engine.pendingCount()).toBe(0);
    expect((await cloud.services.tenants.getSettings(tenant.id)).max_party_size).toBe(14);
    expect(await cloud.handle.db.selectFrom('sync_ops').select('op_id').execute()).toHaveLength(1);
  });

  it('the 503 of a cloud that cannot reach its database keeps its Dutch message and Retry-After', async () => {
    const { cloud, transport } = await twoNodes();
    const write = cloud.changes.write.bind(cloud.changes);
    cloud.changes.write = async () => {
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });
    };
    const now = new Date().toISOString();
    const ops = [{ op_id: '01900000-0000-7000-8000-000000000009', device_seq: 1, entity: 'tenant', entity_id: 'x', kind: 'settings.updated', payload: { fields: {} }, created_at: now }];
    const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { ...V, ops } });
    cloud.changes.write = write;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ error: 'De cloud is tijdelijk niet beschikbaar; de synchronisatie probeert het zo opnieuw.', code: 'INTERNAL' });
  });

  it('stores the pull cursor in the same transaction as the page: a crash before the cursor applies nothing', async () => {
    const { cloud, tenant, appliance } = await twoNodes({ pullLimit: 2 });
    await appliance.engine.syncOnce();
    for (const [i, name] of ['Aad', 'Bep', 'Cor'].entries()) await cloud.services.users.create(tenant.id, { name, role: 'staff', pin: `700${i}` });
    const before = await appliance.engine.readState();
    appliance.setFailpoint((name) => {
      if (name === 'pull.after_apply_before_cursor') throw new Error('crash');
    });
    await expect(appliance.engine.pullOnce()).rejects.toThrow('crash');
    expect((await appliance.engine.readState())!.pull_cursor).toBe(before!.pull_cursor);
    expect((await appliance.services.users.list(tenant.id)).map((u) => u.name)).not.toContain('Aad');
    appliance.setFailpoint(undefined);
    appliance.restart();
    const first = await appliance.engine.pullOnce();
    expect(first).toMatchObject({ applied: 2, more: true });
    const second = await appliance.engine.pullOnce();
    expect(second).toMatchObject({ applied: 1, more: false });
    expect((await appliance.engine.readState())!.pull_cursor).toBe(await cloud.changes.lastSeq(tenant.id));
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    const local = await appliance.handle.db.selectFrom('change_log').select('op_id').execute();
    expect(new Set(local.map((l) => l.op_id)).size).toBe(local.length);
  });

  it('settings edited on both sides while offline merge per field, last writer in cloud order wins', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    transport.offline = true;
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 15, max_party_size: 6 });
    await cloud.services.tenants.patchSettings(tenant.id, { max_party_size: 10, seating_minutes: 120 });
    transport.offline = false;
    await appliance.engine.syncOnce();
    await appliance.engine.syncOnce();
    const s = await cloud.services.tenants.getSettings(tenant.id);
    // The appliance's op reached the cloud after the cloud's own edit: its max_party_size wins.
    expect(s).toMatchObject({ slot_minutes: 15, max_party_size: 6, seating_minutes: 120 });
    expect(await appliance.services.tenants.getSettings(tenant.id)).toEqual(s);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a PIN handed out on both sides while offline: the cloud keeps the first, the other is cleared and reported as a conflict', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    transport.offline = true;
    const local = await appliance.services.users.create(tenant.id, { name: 'Lokaal', role: 'staff', pin: '8888' });
    const remote = await cloud.services.users.create(tenant.id, { name: 'Online', role: 'staff', pin: '8888' });
    transport.offline = false;
    const r = await appliance.engine.pushOnce();
    expect(r.results[0]).toMatchObject({ status: 'conflict', reason: expect.stringMatching(/pincode van Lokaal/) });
    await appliance.engine.syncOnce();
    const users = await appliance.services.users.list(tenant.id);
    expect(users.find((u) => u.id === local.id)!.has_pin).toBe(false);
    expect(users.find((u) => u.id === remote.id)!.has_pin).toBe(true);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    const admin = cookieFrom(await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: tenant.slug, email: tenant.adminEmail, password: tenant.adminPassword } }));
    const status = await appliance.app.inject({ method: 'GET', url: '/api/v1/sync/status', headers: { cookie: admin } });
    expect(status.json()).toMatchObject({ conflicts: 1, rejected: 0, pending: 0 });
  });

  it('refuses an appliance outside the version window with a clear Dutch message, and the appliance stops', async () => {
    const { cloud, transport } = await twoNodes();
    const old = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION - 3}`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(old.statusCode).toBe(409);
    expect(old.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/te oud om met de cloud te synchroniseren.*Werk de app bij/), details: [{ field: 'schema_version' }] });
    const proto = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { protocol_version: 0, schema_version: SCHEMA_VERSION, ops: [] } });
    expect(proto.statusCode).toBe(409);
    expect(proto.json().details[0].field).toBe('protocol_version');
    const newer = await cloud.req({ method: 'GET', url: `/api/v1/sync/hello?protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION + 1}`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(newer.json().error).toMatch(/De cloud is ouder dan deze app/);

    // One version behind is inside the window and keeps syncing.
    const behind = await createAppliance(transport, { schemaVersion: SCHEMA_VERSION - 1 });
    await expect(behind.engine.syncOnce()).resolves.toMatchObject({ pulled: expect.any(Number) });
    const tooOld = await createAppliance(transport, { schemaVersion: SCHEMA_VERSION - 3 });
    await expect(tooOld.engine.syncOnce()).rejects.toBeInstanceOf(SyncStopped);
    await expect(tooOld.engine.syncOnce()).rejects.toThrow(/te oud/);
  });

  it(`sync traffic is exempt from the mutation rate limit (${lane})`, async () => {
    const { transport, appliance, cloud } = await twoNodes();
    void cloud;
    await appliance.engine.syncOnce();
    const c = new FakeTransport(() => cloud, transport.key);
    for (let i = 0; i < 70; i++) {
      const r = await c.send({ method: 'POST', path: '/api/v1/sync/push', body: { ...V, ops: [] } });
      expect(r.status).toBe(200);
    }
  });
});

describe('sync: snapshot bootstrap', () => {
  /** A cloud with some history: menu, web orders moved along, one paid, one cancelled, a settings edit. */
  async function busyCloud(opts: Parameters<typeof twoNodes>[0] = {}) {
    const nodes = await twoNodes({ snapshotLimit: 2, ...opts });
    const { cloud, tenant } = nodes;
    const menu = await seedMenu(cloud, tenant.id);
    const web = { tenantId: tenant.id, userId: null, via: 'web' as const };
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push((await cloud.services.orders.create(web, orderBody(menu, { idempotency_key: `web-${i}` }))).order);
    await cloud.services.orders.setStatus(web, orders[0]!.id, 'accepted');
    await cloud.services.orders.setStatus(web, orders[0]!.id, 'ready');
    await cloud.services.orders.markPaid(web, orders[0]!.id, { provider: 'mollie' });
    await cloud.services.orders.setStatus(web, orders[1]!.id, 'cancelled');
    await cloud.services.tenants.patchSettings(tenant.id, { max_party_size: 10 });
    return { ...nodes, menu, orders, web };
  }

  const snapshotCalls = (t: FakeTransport) => t.calls.filter((c) => c.path === '/api/v1/sync/snapshot');

  it('copies the current rows page by page (not the history of ops), and what the cloud writes meanwhile is pulled on top', async () => {
    const { cloud, tenant, transport, appliance, menu, orders, web } = await busyCloud();
    const writes = [
      () => cloud.services.orders.setStatus(web, orders[0]!.id, 'completed'), // an order copied or not yet: either way it ends completed
      () => cloud.services.orders.create(web, orderBody(menu)),
      () => cloud.services.menu.updateProduct(tenant.id, menu.friet.id, { price_cents: 425 }),
      () => cloud.services.tenants.patchSettings(tenant.id, { slot_minutes: 20 }),
      () => cloud.services.orders.setStatus(web, orders[2]!.id, 'accepted'),
    ];
    const perPage: number[] = [];
    for (;;) {
      perPage.push((await appliance.engine.pullOnce()).applied);
      if ((await appliance.engine.readState())!.snapshot_cursor === null) break;
      await writes[perPage.length % writes.length]!();
    }
    // Each entity once, at most 2 per page. Orders are copied last, by id (time-ordered), so the
    // ones created while copying are in it too.
    const count = async (table: 'users' | 'categories' | 'products' | 'orders' | 'journal_entries') => (await cloud.handle.db.selectFrom(table).select('id').where('tenant_id', '=', tenant.id).execute()).length;
    // The paid order's payment is a journal entry (CONTRACT §19), copied after the orders.
    const entities = 1 + (await count('users')) + (await count('categories')) + (await count('products')) + (await count('orders')) + (await count('journal_entries'));
    expect(await count('orders')).toBeGreaterThan(orders.length);
    expect(perPage.every((n) => n <= 2)).toBe(true);
    expect(perPage.reduce((a, b) => a + b, 0)).toBe(entities);
    await appliance.engine.syncOnce();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    expect((await appliance.services.orders.get(tenant.id, orders[0]!.id)).status).toBe('completed');
    // The history travelled as rows (status history included), not as the ops that made them.
    expect(await appliance.services.orders.history(tenant.id, orders[0]!.id)).toEqual(await cloud.services.orders.history(tenant.id, orders[0]!.id));
    const first = await cloud.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', tenant.id).orderBy('seq').limit(1).executeTakeFirstOrThrow();
    expect(await appliance.handle.db.selectFrom('change_log').select('op_id').where('op_id', '=', first.op_id).execute()).toEqual([]);
    expect(transport.calls.filter((c) => c.path === '/api/v1/sync/pull').every((c) => Number(c.query?.cursor) > 0)).toBe(true);
  });

  it('a restart mid-snapshot resumes at the stored cursor; a page whose answer was lost is fetched again and applied once', async () => {
    const { cloud, tenant, transport, appliance } = await busyCloud();
    await appliance.engine.pullOnce();
    await appliance.engine.pullOnce();
    const stored = (await appliance.engine.readState())!.snapshot_cursor;
    expect(stored).toMatch(/^[A-Za-z0-9_-]+$/);
    appliance.restart();
    await appliance.engine.ensureReady(); // the handshake of the restarted process
    transport.faults = ['lose-response'];
    await expect(appliance.engine.pullOnce()).rejects.toThrow('Geen verbinding met de cloud.');
    expect((await appliance.engine.readState())!.snapshot_cursor).toBe(stored);
    await appliance.engine.syncOnce();
    const calls = snapshotCalls(transport);
    expect(calls[2]!.query?.cursor).toBe(stored); // the first call after the restart
    expect(calls[3]!.query?.cursor).toBe(stored); // the same page again after the lost answer
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('against a cloud without snapshots (older release) the appliance replays the whole log instead', async () => {
    const { cloud, tenant, transport, appliance } = await busyCloud();
    const send = transport.send.bind(transport);
    transport.send = async (req) => (req.path === '/api/v1/sync/snapshot' ? { status: 404, body: { error: 'Deze pagina of functie bestaat niet.', code: 'NOT_FOUND' } } : send(req));
    await appliance.engine.syncOnce();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    const cloudOps = await cloud.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', tenant.id).orderBy('seq').execute();
    expect(await appliance.handle.db.selectFrom('change_log').select('op_id').orderBy('seq').execute()).toEqual(cloudOps);
  });

  it('refuses a cursor it did not make, in Dutch, naming the field', async () => {
    const { cloud, transport } = await twoNodes();
    for (const cursor of ['niet-van-ons', Buffer.from(JSON.stringify([1, 99, null])).toString('base64url')]) {
      const res = await cloud.req({ method: 'GET', url: `/api/v1/sync/snapshot?protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}&cursor=${cursor}`, headers: { authorization: `Bearer ${transport.key}` } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'cursor' }] });
      expect(res.json().error).toMatch(/^Ongeldige invoer: 'cursor' is geen cursor van een momentopname/);
    }
    const noKey = await cloud.req({ method: 'GET', url: `/api/v1/sync/snapshot?protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}` });
    expect(noKey.statusCode).toBe(401);
  });
});
