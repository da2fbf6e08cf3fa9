import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { openDb } from '../../../../server/db/connection.js';
import { syncRegistry } from '../../../../server/modules/sync-descriptors.js';
import { createRuntime, type Runtime } from '../../../../server/runtime.js';
import { ManualClock } from '../../../../server/shared/clock.js';
import { SyncEngine } from '../../../../sync/engine.js';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { seedMenu } from '../../../helpers/factories.js';
import { FakeTransport, quiesce, replicatedState, twoNodes as harnessNodes } from '../../../sync/harness.js';
import { settle, startReceiver, verifies } from './receiver.js';
import { MANAGED_IN_CLOUD } from '../../../../server/modules/apikeys/apikeys.service.js';

/**
 * One sender per event (docs/partners.md): the cloud sends the events born anywhere, an appliance
 * with a cloud sends none; API keys and webhooks replicate. A cloud (ROLE=cloud on the lane's
 * database) and an appliance (SQLite, with CLOUD_URL) joined by a transport the test controls.
 */
async function twoNodes() {
  const clock = new ManualClock();
  const cloud = await createTestApp({ clock, env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused', WEBHOOK_ALLOW_PRIVATE: '1' } });
  const tenant = await cloud.seedTenant();
  const menu = await seedMenu(cloud, tenant.id);
  const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Kassa');
  const transport = new FakeTransport(() => cloud, sync_key);
  // The appliance registers by the cloud's address rule (the cloud sends): the operator allows private addresses on both.
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/restaurant-test', CLOUD_URL: 'https://cloud.restaurant.test', SYNC_KEY: sync_key, WEBHOOK_ALLOW_PRIVATE: '1' });
  const appliance: Runtime = await createRuntime(config, { clock, handle: openDb({ sqliteFile: ':memory:' }) });
  onTestFinished(() => appliance.close());
  const engine = new SyncEngine({ db: appliance.handle.db, changes: appliance.changes, clock, transport, registry: syncRegistry });
  await engine.syncOnce();
  const adminCookie = async (rt: Runtime) => {
    const res = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: tenant.slug, email: tenant.adminEmail, password: tenant.adminPassword } });
    return `ck_token=${res.cookies.find((c) => c.name === 'ck_token')!.value}`;
  };
  /** Sync until both sides have nothing more to say, then let the cloud's consumer and worker finish. */
  const sync = async () => {
    await quiesce(engine);
    await settle(cloud);
    await settle(appliance);
  };
  return { clock, cloud, tenant, menu, transport, appliance, engine, sync, adminCookie };
}

const deliveriesOn = (rt: Runtime | TestApp) => rt.handle.db.selectFrom('webhook_deliveries').selectAll().execute();

describe('webhooks across sync: one sender per event', () => {
  it('an event made offline on the appliance is delivered once, by the cloud, after it synced (also when the push is repeated)', async () => {
    const n = await twoNodes();
    const rx = await startReceiver();
    const hook = await n.cloud.services.webhooks.create(n.tenant.id, { url: rx.url, events: ['order.created', 'order.status_changed', 'order.paid'] }, null);
    await n.sync();
    // The appliance knows the webhook (the same list as the cloud), but it is not the sender.
    const onAppliance = await n.appliance.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: { cookie: await n.adminCookie(n.appliance) } });
    expect(onAppliance.json().data.map((h: { id: string }) => h.id)).toEqual([hook.id]);
    expect(onAppliance.body).not.toContain(hook.secret);
    expect(n.appliance.services.webhooks.isSender).toBe(false);
    expect(n.appliance.app.consumers.names()).not.toContain('webhooks');

    n.transport.offline = true;
    const actor = { tenantId: n.tenant.id, userId: null, via: 'pos' as const };
    const bornAt = n.clock.now().toISOString();
    const { order } = await n.appliance.services.orders.create(actor, { items: [{ product_id: n.menu.friet.id, quantity: 3 }] });
    n.clock.advance(60_000);
    await n.appliance.services.orders.setStatus(actor, order.id, 'ready');
    await n.appliance.services.orders.markPaid(actor, order.id);
    await settle(n.appliance);
    expect(rx.requests).toHaveLength(0);
    expect(await deliveriesOn(n.appliance)).toEqual([]);
    await expect(n.engine.syncOnce()).rejects.toThrow();
    expect(rx.requests).toHaveLength(0);

    // Back online; the first push's answer is lost, so the appliance pushes the same ops again.
    n.transport.offline = false;
    n.transport.faults.push('lose-response');
    await expect(n.engine.pushOnce()).rejects.toThrow(/verbinding/);
    expect(await n.engine.pendingCount()).toBe(5); // three order ops, the payment's journal entry and the receipt: not acknowledged here ...
    expect((await n.cloud.services.orders.get(n.tenant.id, order.id)).payment_status).toBe('paid'); // ... but applied there
    await settle(n.cloud);
    expect(rx.requests).toHaveLength(3);
    await n.sync();
    expect(rx.requests.map((q) => [q.body.type, q.body.data.order.id])).toEqual([
      ['order.created', order.id],
      ['order.status_changed', order.id],
      ['order.paid', order.id],
    ]);
    const created = rx.requests[0]!;
    expect(created.body.created_at).toBe(bornAt); // when it happened, not when it synced
    expect(created.body.data.order).toMatchObject({ number: order.number, total_cents: 3 * 395 });
    expect(rx.requests[1]!.body.data).toMatchObject({ from: 'new', to: 'ready' });
    for (const q of rx.requests) expect(verifies(hook.secret, q.raw, q.headers['x-service-signature'])).toBe(true);
    expect(await deliveriesOn(n.cloud)).toHaveLength(3);
    expect(await deliveriesOn(n.appliance)).toEqual([]);

    // Later syncs (the appliance pulls the cloud's merged state back) send nothing more.
    await n.cloud.services.tenants.patchSettings(n.tenant.id, { max_party_size: 10 });
    await n.sync();
    await n.cloud.app.consumers.sweep();
    await settle(n.cloud);
    expect(rx.requests).toHaveLength(3);
  });

  it('the same change made on both sides of an outage (paid on both, completed on both) is one delivery', async () => {
    const n = await twoNodes();
    const rx = await startReceiver();
    await n.cloud.services.webhooks.create(n.tenant.id, { url: rx.url, events: ['order.status_changed', 'order.paid'] }, null);
    const actor = { tenantId: n.tenant.id, userId: null, via: 'pos' as const };
    const { order } = await n.cloud.services.orders.create(actor, { items: [{ product_id: n.menu.burger.id, quantity: 1 }] });
    await n.sync();
    n.transport.offline = true;
    await n.cloud.services.orders.setStatus(actor, order.id, 'completed');
    await n.cloud.services.orders.markPaid(actor, order.id);
    await n.appliance.services.orders.setStatus(actor, order.id, 'completed');
    await n.appliance.services.orders.markPaid(actor, order.id);
    await settle(n.cloud);
    expect(rx.requests.map((q) => q.body.type)).toEqual(['order.status_changed', 'order.paid']);
    n.transport.offline = false;
    await n.sync();
    // The appliance's two changes reached the cloud's log, but they are the same two events.
    expect(rx.requests.map((q) => q.body.type)).toEqual(['order.status_changed', 'order.paid']);
    expect(await deliveriesOn(n.cloud)).toHaveLength(2);
  });

  it('a status the cloud did not apply (the order already had another final status) sends nothing', async () => {
    const n = await twoNodes();
    const rx = await startReceiver();
    await n.cloud.services.webhooks.create(n.tenant.id, { url: rx.url, events: ['order.status_changed'] }, null);
    const actor = { tenantId: n.tenant.id, userId: null, via: 'pos' as const };
    const { order } = await n.cloud.services.orders.create(actor, { items: [{ product_id: n.menu.burger.id, quantity: 1 }] });
    await n.sync();
    n.transport.offline = true;
    await n.cloud.services.orders.setStatus(actor, order.id, 'cancelled');
    await n.appliance.services.orders.setStatus(actor, order.id, 'completed');
    n.transport.offline = false;
    await n.sync();
    expect(rx.requests.map((q) => q.body.data.to)).toEqual(['cancelled']);
    expect((await n.appliance.services.orders.get(n.tenant.id, order.id)).status).toBe('cancelled');
  });

  it('an appliance that syncs with a cloud registers no webhooks (a SYNC_KEY is not an admin: 409, and a pushed one is rejected); deleting a cloud webhook on the appliance stops the cloud', async () => {
    const n = await twoNodes();
    const rx = await startReceiver();
    n.transport.offline = true;
    await expect(n.appliance.services.webhooks.create(n.tenant.id, { url: rx.url, events: ['order.created'], description: 'Bonprinter' }, null)).rejects.toMatchObject({ code: 'CONFLICT', message: MANAGED_IN_CLOUD });
    n.transport.offline = false;
    // Registered in the cloud (by an admin), it reaches the appliance and the cloud sends to it.
    n.cloud.services.webhooks.net.allowPrivate = true;
    const hook = await n.cloud.services.webhooks.create(n.tenant.id, { url: rx.url, events: ['order.created'], description: 'Bonprinter' }, null);
    await n.sync();
    expect(await n.appliance.services.webhooks.list(n.tenant.id)).toEqual(await n.cloud.services.webhooks.list(n.tenant.id));
    const actor = { tenantId: n.tenant.id, userId: null, via: 'pos' as const };
    await n.appliance.services.orders.create(actor, { items: [{ product_id: n.menu.cola.id, quantity: 2 }] });
    await n.sync();
    await expect.poll(() => rx.requests.length, { timeout: 5000 }).toBe(1);
    expect(verifies(hook.secret, rx.requests[0]!.raw, rx.requests[0]!.headers['x-service-signature'])).toBe(true);

    // Deleting only takes access away: a device may do that.
    await n.appliance.services.webhooks.remove(n.tenant.id, hook.id);
    await n.sync();
    expect(await n.cloud.services.webhooks.list(n.tenant.id)).toEqual([]);
    await n.cloud.services.orders.create(actor, { items: [{ product_id: n.menu.cola.id, quantity: 1 }] });
    await n.sync();
    expect(rx.requests).toHaveLength(1);
  });

  it('a device pushing a webhook, a new secret or an API key is rejected in the cloud and nothing is stored; a revocation is applied', async () => {
    const n = await twoNodes();
    const { webhooksSync } = await import('../../../../server/modules/webhooks/webhooks.sync.js');
    const { apiKeysSync } = await import('../../../../server/modules/apikeys/apikeys.sync.js');
    const now = n.clock.now().toISOString();
    const ctx = { side: 'cloud' as const, mode: 'merge' as const, tenantId: n.tenant.id, now };
    const op = (entity: string, entity_id: string, kind: string, payload: unknown) => ({ op_id: '0190a0a0-0000-7000-8000-0000000000aa', tenant_id: n.tenant.id, origin: 'd', entity, entity_id, kind, created_at: now, payload });
    const hookId = '0190a0a0-0000-7000-8000-0000000000b1';
    const planted = { id: hookId, url: 'https://attacker.example/steal', events: ['order.created'], secret: `whsec_${'a'.repeat(64)}`, description: null, created_by: null, created_at: now, updated_at: now, deleted_at: null };
    const keyId = '0190a0a0-0000-7000-8000-0000000000c1';
    const mintedKey = { id: keyId, name: 'Achterdeur', key_hash: 'b'.repeat(64), key_prefix: 'svc_bbbbbbbb', scopes: ['admin'], created_by: null, created_at: now, updated_at: now, revoked_at: null };
    await n.cloud.handle.db.transaction().execute(async (trx) => {
      await expect(webhooksSync[0]!.apply(trx, op('webhook', hookId, 'webhook.created', planted), ctx)).rejects.toThrow(/alleen in de cloud/);
      await expect(apiKeysSync[0]!.apply(trx, op('api_key', keyId, 'api_key.created', mintedKey), ctx)).rejects.toThrow(/alleen in de cloud/);
    });
    expect(await n.cloud.handle.db.selectFrom('webhook_subscriptions').select('id').execute()).toEqual([]);
    expect(await n.cloud.handle.db.selectFrom('api_keys').select('id').execute()).toEqual([]);
    // A key the cloud made: the device may revoke it, not widen it.
    const made = await n.cloud.services.apiKeys.create(n.tenant.id, { name: 'Bonprinter', scopes: ['read'] }, null);
    const row = await n.cloud.handle.db.selectFrom('api_keys').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    const record = { id: row.id, name: row.name, key_hash: row.key_hash, key_prefix: row.key_prefix, scopes: JSON.parse(row.scopes), created_by: row.created_by, created_at: row.created_at, updated_at: now, revoked_at: null };
    await n.cloud.handle.db.transaction().execute(async (trx) => {
      await expect(apiKeysSync[0]!.apply(trx, op('api_key', made.id, 'api_key.updated', { ...record, scopes: ['admin'] }), ctx)).rejects.toThrow(/alleen in de cloud/);
      await apiKeysSync[0]!.apply(trx, op('api_key', made.id, 'api_key.revoked', { ...record, revoked_at: now }), ctx);
    });
    const after = await n.cloud.handle.db.selectFrom('api_keys').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    expect([after.scopes, after.revoked_at]).toEqual([JSON.stringify(['read']), now]);
  });

  it('an appliance bound to a cloud but started without CLOUD_URL still sends nothing: the cloud does', async () => {
    const { cloud, tenant, appliance } = await harnessNodes();
    const menu = await seedMenu(cloud, tenant.id);
    await appliance.engine.syncOnce();
    const rx = await startReceiver();
    expect(appliance.config.cloudUrl).toBeUndefined();
    await expect(appliance.services.webhooks.create(tenant.id, { url: rx.url, events: ['order.created'] }, null)).rejects.toMatchObject({ code: 'CONFLICT' });
    cloud.services.webhooks.net.allowPrivate = true; // the test's receiver listens on 127.0.0.1
    await cloud.services.webhooks.create(tenant.id, { url: rx.url, events: ['order.created'] }, null);
    await appliance.engine.syncOnce();
    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    await appliance.services.orders.create(actor, { items: [{ product_id: menu.friet.id, quantity: 1 }] });
    await settle(appliance);
    expect(rx.requests).toHaveLength(0);
    expect(await deliveriesOn(appliance)).toEqual([]);
    await appliance.engine.syncOnce();
    await settle(cloud);
    // The cloud sends it, once.
    expect((await deliveriesOn(cloud)).map((d) => d.event_type)).toEqual(['order.created']);
    await expect.poll(() => rx.requests.length, { timeout: 5000 }).toBe(1);
  });

  it('a secret is rotated in the cloud only (the appliance refuses: 409); a deletion on the appliance is sticky against a later rotation', async () => {
    const n = await twoNodes();
    const hook = await n.cloud.services.webhooks.create(n.tenant.id, { url: 'https://hooks.partner.example/h', events: ['order.paid'] }, null);
    await n.sync();
    n.transport.offline = true;
    const rotated = await n.cloud.services.webhooks.rotateSecret(n.tenant.id, hook.id);
    await expect(n.appliance.services.webhooks.rotateSecret(n.tenant.id, hook.id)).rejects.toMatchObject({ code: 'CONFLICT', message: MANAGED_IN_CLOUD });
    n.transport.offline = false;
    await n.sync();
    const secretOf = async (rt: Runtime | TestApp) => (await rt.handle.db.selectFrom('webhook_subscriptions').select('secret').where('id', '=', hook.id).executeTakeFirstOrThrow()).secret;
    expect(await secretOf(n.cloud)).toBe(rotated.secret);
    expect(await secretOf(n.appliance)).toBe(rotated.secret);

    n.transport.offline = true;
    await n.appliance.services.webhooks.remove(n.tenant.id, hook.id);
    n.clock.advance(1000);
    await n.cloud.services.webhooks.rotateSecret(n.tenant.id, hook.id);
    n.transport.offline = false;
    await n.sync();
    expect(await n.cloud.services.webhooks.list(n.tenant.id)).toEqual([]);
    expect(await n.appliance.services.webhooks.list(n.tenant.id)).toEqual([]);
    const state = async (rt: Runtime | TestApp) => {
      const s = await replicatedState(rt as Runtime, n.tenant.id);
      return { api_keys: s.api_keys, webhook_subscriptions: s.webhook_subscriptions };
    };
    expect(await state(n.appliance)).toEqual(await state(n.cloud));
  });
});

describe('API keys across sync', () => {
  it('a key made in the cloud works on the appliance (also offline); revoked on the appliance, the cloud refuses it after sync', async () => {
    const n = await twoNodes();
    const made = await n.cloud.services.apiKeys.create(n.tenant.id, { name: 'Bonprinter', scopes: ['read'] }, null);
    const use = (rt: Runtime | TestApp) => rt.app.inject({ method: 'GET', url: '/api/v1/external/menu', headers: { authorization: `Bearer ${made.key}` } });
    expect((await use(n.appliance)).statusCode).toBe(401); // not synced yet
    await n.sync();
    n.transport.offline = true;
    expect((await use(n.appliance)).statusCode).toBe(200);
    await n.appliance.services.apiKeys.revoke(n.tenant.id, made.id);
    expect((await use(n.appliance)).statusCode).toBe(401);
    expect((await use(n.cloud)).statusCode).toBe(200);
    n.transport.offline = false;
    await n.sync();
    expect((await use(n.cloud)).statusCode).toBe(401);
    // last_used_at is each node's own; the key rows themselves are identical.
    const rows = async (rt: Runtime | TestApp) => (await replicatedState(rt as Runtime, n.tenant.id)).api_keys;
    expect(await rows(n.appliance)).toEqual(await rows(n.cloud));
    expect(await n.appliance.handle.db.selectFrom('api_key_usage').select('key_id').execute()).toEqual([{ key_id: made.id }]);
  });

  it('an appliance that syncs with a cloud makes no keys (409: keys are made in the cloud); a pushed key with a tampered payload is rejected', async () => {
    const n = await twoNodes();
    n.transport.offline = true;
    await expect(n.appliance.services.apiKeys.create(n.tenant.id, { name: 'Kassa', scopes: ['write'] }, null)).rejects.toMatchObject({ code: 'CONFLICT', message: MANAGED_IN_CLOUD });
    n.transport.offline = false;
    const made = await n.cloud.services.apiKeys.create(n.tenant.id, { name: 'Kassa', scopes: ['write'] }, null);
    await n.sync();
    const res = await n.cloud.app.inject({ method: 'POST', url: `/api/v1/external/orders/0190a0a0-0000-7000-8000-000000000000/status`, headers: { authorization: `Bearer ${made.key}` }, payload: { status: 'accepted' } });
    expect(res.statusCode).toBe(404); // authenticated with write scope; the order does not exist

    // A device pushing an api_key for another id than it names, or with a key in clear, is refused.
    const { apiKeysSync } = await import('../../../../server/modules/apikeys/apikeys.sync.js');
    const [descriptor] = apiKeysSync;
    const bad = { op_id: 'x', tenant_id: n.tenant.id, origin: 'd', entity: 'api_key', entity_id: made.id, kind: 'api_key.created', created_at: n.clock.now().toISOString() };
    await n.cloud.handle.db.transaction().execute(async (trx) => {
      await expect(descriptor!.apply(trx, { ...bad, payload: { id: made.id, name: 'X', key_hash: 'svc_abc', key_prefix: 'svc_12345678', scopes: ['admin'], created_by: null, created_at: bad.created_at, updated_at: bad.created_at, revoked_at: null } }, { side: 'cloud', mode: 'merge', tenantId: n.tenant.id, now: bad.created_at })).rejects.toThrow(/Ongeldige wijziging voor de API-sleutel/);
      await expect(descriptor!.apply(trx, { ...bad, payload: { id: made.id, name: 'X', key_hash: 'a'.repeat(64), key_prefix: 'svc_12345678', scopes: ['root'], created_by: null, created_at: bad.created_at, updated_at: bad.created_at, revoked_at: null } }, { side: 'cloud', mode: 'merge', tenantId: n.tenant.id, now: bad.created_at })).rejects.toThrow(/Ongeldige wijziging/);
    });
  });
});
