import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChangeLog } from '../../server/db/change-log.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { HIGH_WATER_TRUST_MS, KEY_CACHE_MS } from '../../sync/cloud.js';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { lane } from '../helpers/db.js';

/**
 * What an idle long-poll costs the cloud (issue 28 point 14; sync/cloud.ts, sync/README.md "What a
 * pull costs"): once a device's key is cached and its tenant's high-water mark is known, a pull with
 * nothing new runs no SQL statement at all; contacts are written in batches; and none of it lets a
 * change or a revoked key slip: a commit (heard or not) still reaches the appliance, a revoked or
 * rotated key is refused at once.
 */
const V = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;

async function cloudWithDevice() {
  const t = await createTestApp({ env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } });
  const tenant = await t.seedTenant();
  const { device, sync_key } = await t.services.sync.cloud.createDevice(tenant.id, 'Kassa');
  const pull = (cursor: number, wait = 0, key = sync_key) =>
    t.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&wait=${wait}`, headers: { authorization: `Bearer ${key}` } });
  return { t, tenant, device, key: sync_key, pull };
}

/**
 * The SQL statements on the sync tables and the change log that the app's database handle runs
 * (outside transactions) while `fn` runs; background jobs' statements (the webhook sender) are left out.
 */
async function statements(t: TestApp, fn: () => Promise<unknown>): Promise<string[]> {
  const executor = t.handle.db.getExecutor();
  const original = executor.executeQuery.bind(executor);
  const seen: string[] = [];
  const spy = vi.spyOn(executor, 'executeQuery').mockImplementation((...args: Parameters<typeof original>) => {
    const text = args[0].sql.replace(/\s+/g, ' ');
    if (/sync_devices|change_log|change_seq|tenants/.test(text)) seen.push(text.slice(0, 120));
    return original(...args);
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe(`the cost of a sync pull (issue 28 point 14, ${lane})`, () => {
  it('an idle pull, once warm, runs no statement: the key is cached, the contact noted in memory, the page read skipped', async () => {
    const { t, tenant, pull } = await cloudWithDevice();
    const cursor = await t.changes.lastSeq(tenant.id);
    // Cold: the key lookup and the page read.
    const cold = await statements(t, async () => expect((await pull(cursor)).statusCode).toBe(200));
    expect(cold.length).toBeGreaterThanOrEqual(2);
    // Warm: nothing, also for a long-poll that times out (its revocation check uses the cache too).
    const warm = await statements(t, async () => {
      for (let i = 0; i < 5; i++) expect((await pull(cursor)).json()).toMatchObject({ changes: [], next_cursor: cursor, has_more: false });
      expect((await pull(cursor, 50)).json().changes).toEqual([]);
    });
    expect(warm).toEqual([]);
  });

  it('a commit on this node wakes the poll and is delivered; a cursor behind the mark reads the page', async () => {
    const { t, tenant, pull } = await cloudWithDevice();
    const cursor = await t.changes.lastSeq(tenant.id);
    await pull(cursor); // warm: the mark is known
    const poll = pull(cursor, 5000);
    await new Promise((r) => setTimeout(r, 100));
    await t.services.tenants.patchSettings(tenant.id, { name: 'Na het wachten' });
    const res = (await poll).json();
    expect(res.changes.map((c: { kind: string }) => c.kind)).toContain('settings.updated');
    expect(JSON.stringify(res.changes)).toContain('Na het wachten');
    // From the old cursor again (an appliance that lost its answer): read, not skipped.
    expect((await pull(cursor)).json().changes.length).toBe(res.changes.length);
    // From the new cursor: nothing, and no statement.
    expect(await statements(t, async () => expect((await pull(res.next_cursor)).json().changes).toEqual([]))).toEqual([]);
  });

  it('a commit this node did not hear of (another process) is read once the mark is older than HIGH_WATER_TRUST_MS', async () => {
    const { t, tenant, pull } = await cloudWithDevice();
    const cursor = await t.changes.lastSeq(tenant.id);
    await pull(cursor);
    // Another writer on the same database (the CLI, a node whose notice was lost): no event here.
    const elsewhere = new ChangeLog(t.handle.db, t.clock, 'elders');
    await elsewhere.write(tenant.id, (w) => w.record({ entity: 'tenant', entityId: tenant.id, kind: 'tenant.noted', payload: { note: 'ongehoord' } }));
    const now = performance.now();
    expect((await pull(cursor)).json().changes).toEqual([]); // within the trust window: skipped
    vi.spyOn(performance, 'now').mockReturnValue(now + HIGH_WATER_TRUST_MS + 1);
    const later = (await pull(cursor)).json();
    expect(later.changes.map((c: { kind: string }) => c.kind)).toEqual(['tenant.noted']);
  });

  it('a revoked or rotated key is refused at once although it was cached; an unknown key is never cached', async () => {
    const { t, tenant, device, key, pull } = await cloudWithDevice();
    const cursor = await t.changes.lastSeq(tenant.id);
    expect((await pull(cursor)).statusCode).toBe(200);
    const rotated = await t.services.sync.cloud.rotateDevice(tenant.id, device.id);
    expect((await pull(cursor)).statusCode).toBe(401);
    expect((await pull(cursor, 0, rotated.sync_key)).statusCode).toBe(200);
    await t.services.sync.cloud.revokeDevice(tenant.id, device.id);
    const refused = await pull(cursor, 0, rotated.sync_key);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: 'Ongeldige of ingetrokken synchronisatiesleutel (SYNC_KEY).', code: 'UNAUTHORIZED' });
    expect(key).not.toBe(rotated.sync_key);
    // A wrong key asks the database every time (nothing to cache), and stays 401.
    const bad = 'x'.repeat(43);
    for (let i = 0; i < 2; i++) expect((await statements(t, async () => expect((await pull(cursor, 0, bad)).statusCode).toBe(401))).length).toBe(1);
    expect(KEY_CACHE_MS).toBeLessThanOrEqual(60_000);
  });

  it('contacts: seen at once on this node, written in one statement per flush, never moved back', async () => {
    const { t, tenant, device, pull } = await cloudWithDevice();
    const second = await t.services.sync.cloud.createDevice(tenant.id, 'Keuken');
    const row = async (id: string) => (await t.handle.db.selectFrom('sync_devices').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow()).last_seen_at;
    const cursor = await t.changes.lastSeq(tenant.id);
    await pull(cursor);
    await pull(cursor, 0, second.sync_key);
    const at = t.clock.now().toISOString();
    // This node's readers (silent-appliance checks, the device list) see it before it is written.
    expect((await t.services.sync.cloud.listDevices(tenant.id)).map((d) => d.last_seen_at)).toEqual([at, at]);
    expect(await row(device.id)).toBeNull();
    const flush = await statements(t, () => t.services.sync.cloud.flushContacts());
    expect(flush).toHaveLength(1);
    expect(await row(device.id)).toBe(at);
    expect(await row(second.device.id)).toBe(at);
    // Another node wrote a later contact: an older one from here does not move it back.
    const later = new Date(t.clock.now().getTime() + 60_000).toISOString();
    await t.handle.db.updateTable('sync_devices').set({ last_seen_at: later }).where('id', '=', device.id).execute();
    await pull(cursor);
    await t.services.sync.cloud.flushContacts();
    expect(await row(device.id)).toBe(later);
    t.clock.advance(120_000);
    await pull(cursor);
    await t.services.sync.cloud.flushContacts();
    expect(await row(device.id)).toBe(t.clock.now().toISOString());
  });
});
