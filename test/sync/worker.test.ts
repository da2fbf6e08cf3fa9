import { syncRegistry } from '../../server/modules/sync-descriptors.js';
import { describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { LeaseLost, STATE_ID, SyncTransient } from '../../sync/engine.js';
import type { SyncStatus } from '../../sync/status.js';
import { holderIsDead, nextBackoff, SyncWorker } from '../../sync/worker.js';
import os from 'node:os';
import { cookieFrom } from '../helpers/app.js';
import { twoNodes, type Appliance, type FakeTransport } from './harness.js';

function worker(appliance: Appliance, transport: FakeTransport, extra: Partial<ConstructorParameters<typeof SyncWorker>[0]> = {}) {
  const w = new SyncWorker({
    db: appliance.handle.db,
    changes: appliance.changes,
    clock: appliance.clock,
    transport,
    registry: syncRegistry,
    board: appliance.services.sync.board,
    key: `test-${Math.random()}`,
    longPollMs: 5_000,
    minBackoffMs: 20,
    maxBackoffMs: 100,
    ...extra,
  });
  return w;
}

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 3_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('sync worker', () => {
  it('bootstraps, then a cloud change reaches the appliance within 2 s (long-poll) and a local change reaches the cloud at once', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    const w = worker(appliance, transport);
    expect(w.start()).toBe(true);
    await until(async () => (await appliance.services.users.list(tenant.id)).length === 2);

    const t0 = Date.now();
    const web = await cloud.services.users.create(tenant.id, { name: 'Web', role: 'staff', pin: '6060' });
    await until(async () => (await appliance.services.users.list(tenant.id)).some((u) => u.id === web.id), 2_000);
    expect(Date.now() - t0).toBeLessThan(2_000);

    const t1 = Date.now();
    await appliance.services.tenants.patchSettings(tenant.id, { max_party_size: 14 });
    await until(async () => (await cloud.services.tenants.getSettings(tenant.id)).max_party_size === 14, 2_000);
    expect(Date.now() - t1).toBeLessThan(2_000);
    await w.stop();
    const state = await appliance.handle.db.selectFrom('sync_state').selectAll().where('id', '=', STATE_ID).executeTakeFirstOrThrow();
    expect(state.lease_holder).toBeNull(); // released on stop
  });

  it('runs once per database: a second worker in the process is refused, another holder is kept out by the lease', async () => {
    const { transport, appliance } = await twoNodes();
    const a = worker(appliance, transport, { key: 'same-db' });
    const b = worker(appliance, transport, { key: 'same-db' });
    expect(a.start()).toBe(true);
    expect(b.start()).toBe(false);
    await until(async () => (await appliance.handle.db.selectFrom('sync_state').select('lease_holder').executeTakeFirst())?.lease_holder === a.holder);
    // Let the first worker finish its round (it then long-polls): its success report would otherwise
    // race the second one's refusal on the shared status board.
    await until(async () => appliance.services.sync.board.runtime.lastSuccessAt !== null);
    // Another process on the same database (different in-process key) cannot take the lease while it is held.
    const c = worker(appliance, transport, { key: 'other-process' });
    expect(c.start()).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    const holder = (await appliance.handle.db.selectFrom('sync_state').select('lease_holder').executeTakeFirstOrThrow()).lease_holder;
    expect(holder).toBe(a.holder);
    expect(appliance.services.sync.board.runtime.lastError).toMatch(/andere synchronisatie/);
    await c.stop();
    await a.stop();
  });

  it('takes over at once a lease left by a process on this machine that was killed (SIGKILL), not one of a live process or another host', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const deadPid = 4_194_305; // above Linux's pid_max: no such process
    const dead = `${os.hostname()}:${deadPid}:00000000-dead`;
    expect(holderIsDead(dead)).toBe(true);
    expect(holderIsDead(`${os.hostname()}:${process.pid}:x`)).toBe(false); // alive (this process)
    expect(holderIsDead(`another-host:${deadPid}:x`)).toBe(false); // cannot tell: wait for expiry
    expect(holderIsDead('0f4c9e2a-uuid-only')).toBe(false);
    const setHolder = (holder: string) =>
      appliance.handle.db
        .updateTable('sync_state')
        .set({ lease_holder: holder, lease_expires_at: new Date(appliance.clock.now().getTime() + 30_000).toISOString() })
        .where('id', '=', STATE_ID)
        .execute();

    // Another host's unexpired lease is respected...
    await setHolder(`another-host:${deadPid}:x`);
    const kept = worker(appliance, transport);
    kept.start();
    await until(async () => /andere synchronisatie/.test(appliance.services.sync.board.runtime.lastError ?? ''));
    await kept.stop();

    // ...but the lease of a killed local process is taken over, and pending work is pushed at once.
    await setHolder(dead);
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 25 });
    const w = worker(appliance, transport);
    w.start();
    await until(async () => (await cloud.services.tenants.getSettings(tenant.id)).slot_minutes === 25, 2_000);
    const holder = (await appliance.handle.db.selectFrom('sync_state').select('lease_holder').executeTakeFirstOrThrow()).lease_holder;
    expect(holder).toBe(w.holder);
    await w.stop();
  });

  it('keeps retrying with backoff while offline, shows pending work and a warning after 5 minutes, and recovers', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const events: SyncStatus[] = [];
    appliance.services.sync.board.on('status', (_t, s) => events.push(s));
    const w = worker(appliance, transport);
    transport.offline = true;
    w.start();
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 20 });
    await until(async () => events.some((e) => e.state === 'offline' && e.pending === 1));
    const admin = cookieFrom(await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: tenant.slug, email: tenant.adminEmail, password: tenant.adminPassword } }));
    appliance.clock.advanceMinutes(6);
    const status = (await appliance.app.inject({ method: 'GET', url: '/api/v1/sync/status', headers: { cookie: admin } })).json();
    expect(status).toMatchObject({ role: 'local', enabled: true, online: false, state: 'offline', pending: 1, warning: true, last_error: 'Geen verbinding met de cloud.' });
    expect(status.oldest_pending_age_seconds).toBeGreaterThanOrEqual(360);
    const calls = transport.calls.length;
    transport.offline = false;
    await until(async () => (await cloud.services.tenants.getSettings(tenant.id)).slot_minutes === 20);
    await until(async () => events.some((e) => e.state === 'online' && e.pending === 0));
    expect(transport.calls.length).toBeGreaterThan(calls);
    await w.stop();
  });

  it('backs off up to a minute when the cloud is busy, but retries a dead connection at least every 10 s', () => {
    const o = { min: 1_000, max: 60_000, maxOffline: 10_000 };
    const walk = (err: unknown) => {
      const out: number[] = [];
      for (let b = 0, i = 0; i < 8; i++) out.push((b = nextBackoff(b, err, o)));
      return out;
    };
    expect(walk(new SyncTransient('De cloud is tijdelijk niet beschikbaar.'))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(walk(new SyncTransient('Geen verbinding met de cloud.', { unreachable: true }))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000, 10_000]);
    expect(nextBackoff(60_000, new LeaseLost(), o)).toBe(15_000);
  });

  it('after a long outage the queue drains soon after the connection heals (the offline back-off stays short)', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const w = worker(appliance, transport, { maxBackoffMs: 60_000, maxOfflineBackoffMs: 100 });
    transport.offline = true;
    w.start();
    await appliance.services.tenants.patchSettings(tenant.id, { slot_minutes: 25 });
    await new Promise((r) => setTimeout(r, 1_500)); // with a 60 s cap the pause would have grown past 1 s by now
    transport.offline = false;
    const healed = Date.now();
    await until(async () => (await cloud.services.tenants.getSettings(tenant.id)).slot_minutes === 25, 5_000);
    expect(Date.now() - healed).toBeLessThan(1_500); // pauses of at most 125 ms, then one sync round (the policy itself: the test above)
    await w.stop();
  });

  it('stops syncing when the cloud refuses its version, and says why in /sync/status', async () => {
    const { tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const w = worker(appliance, transport, { schemaVersion: SCHEMA_VERSION - 3 });
    w.start();
    await until(async () => appliance.services.sync.board.runtime.stopped);
    const calls = transport.calls.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(transport.calls.length).toBe(calls); // no more attempts
    const staff = cookieFrom(await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: tenant.staffPin } }));
    const status = (await appliance.app.inject({ method: 'GET', url: '/api/v1/sync/status', headers: { cookie: staff } })).json();
    expect(status.state).toBe('stopped');
    expect(status.stopped_reason).toMatch(/te oud om met de cloud te synchroniseren/);
    await w.stop();
  });

  it('tells the staff app over socket.io when sync goes offline (sync:status)', async () => {
    const { tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    await appliance.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (appliance.app.server.address() as { port: number }).port;
    const staff = cookieFrom(await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: tenant.staffPin } }));
    const socket = connect(`http://127.0.0.1:${port}`, { extraHeaders: { cookie: staff }, transports: ['websocket'] });
    try {
      const got: SyncStatus[] = [];
      socket.on('sync:status' as never, (s: SyncStatus) => {
        got.push(s);
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('hello' as never, () => resolve());
        socket.once('connect_error', reject);
      });
      const w = worker(appliance, transport);
      transport.offline = true;
      w.start();
      await until(async () => got.some((s) => s.state === 'offline'));
      expect(got.find((s) => s.state === 'offline')).toMatchObject({ online: false, last_error: 'Geen verbinding met de cloud.' });
      await w.stop();
    } finally {
      socket.close();
    }
  });
});
