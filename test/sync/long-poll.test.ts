import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChangeRecord } from '../../server/db/change-log.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { createTestApp } from '../helpers/app.js';
import { lane } from '../helpers/db.js';

/**
 * A long-poll ends as soon as its restaurant's change commits, whatever the interleaving of the
 * commit, its 'committed' notice and the poll's reads (sync/cloud.ts `pull`: the waiter is
 * registered before the first read; a notice raises the high-water mark before it wakes; a read's
 * `confirmed` never lowers the mark). Session 12 checked this for the cloud-capacity bench's
 * "undelivered" web order (bench/README.md "Cloud capacity, session 12"): these pass on the code
 * as it was; they keep the interleavings that would lose a wake-up covered.
 */
const V = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;
/** A long-poll's wait, as the SyncWorker asks; a lost wake-up would hold the answer this long. */
const WAIT = 20_000;
/** What "at once" means here, generous for a loaded machine: far below WAIT. */
const PROMPT_MS = 5_000;

async function cloud() {
  const t = await createTestApp({ env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } });
  const tenant = await t.seedTenant();
  const keys: string[] = [];
  for (let i = 0; i < 3; i++) keys.push((await t.services.sync.cloud.createDevice(tenant.id, `Kassa ${i + 1}`)).sync_key);
  const pull = (cursor: number, wait: number, key = keys[0]!) =>
    t.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&wait=${wait}`, headers: { authorization: `Bearer ${key}` } });
  const commit = (name: string) => t.services.tenants.patchSettings(tenant.id, { name });
  return { t, tenant, keys, pull, commit };
}

const kinds = (body: { changes: Array<{ kind: string }> }) => body.changes.map((c) => c.kind);

afterEach(() => {
  vi.restoreAllMocks();
});

describe(`a long-poll is woken by every commit (${lane})`, () => {
  it('a commit between the poll\'s first read and its wait: the read saw the log before it, the poll still answers at once', async () => {
    const { t, tenant, keys, commit } = await cloud();
    const cursor = await t.changes.lastSeq(tenant.id);
    // The pull's first read of the change log returns what it read before the commit; the commit
    // and its notice come after that read and before the poll looks at the result.
    const executor = t.handle.db.getExecutor();
    const original = executor.executeQuery.bind(executor);
    let once = true;
    vi.spyOn(executor, 'executeQuery').mockImplementation(async (...args: Parameters<typeof original>) => {
      const result = await original(...args);
      // The pull's page read (limit=37: a slice of limit + 1 rows), not a background reader's.
      if (once && /from "change_log"/.test(args[0].sql) && args[0].parameters[args[0].parameters.length - 1] === 38) {
        once = false;
        await commit('Tussen lezen en wachten');
      }
      return result;
    });
    const t0 = performance.now();
    const res = await t.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&wait=${WAIT}&limit=37`, headers: { authorization: `Bearer ${keys[0]!}` } });
    expect(res.statusCode).toBe(200);
    expect(once).toBe(false);
    expect(kinds(res.json())).toContain('settings.updated');
    expect(performance.now() - t0).toBeLessThan(PROMPT_MS);
  });

  it('a commit the node has not yet announced when the poll trusts its mark and skips the read: the late notice wakes it', async () => {
    const { t, tenant, pull, commit } = await cloud();
    const cursor = await t.changes.lastSeq(tenant.id);
    expect((await pull(cursor, 0)).json().changes).toEqual([]); // the mark is known: the next poll skips its read
    // Hold this node's 'committed' notices back (a commit whose notice has not been processed yet).
    const log = t.changes as unknown as { notifyCommitted(tenantId: string, records: ChangeRecord[]): void };
    const notify = log.notifyCommitted.bind(log);
    const held: Array<() => void> = [];
    vi.spyOn(log, 'notifyCommitted').mockImplementation((tenantId, records) => void held.push(() => notify(tenantId, records)));
    await commit('Nog niet aangekondigd');
    expect(held.length).toBeGreaterThan(0);
    const t0 = performance.now();
    const poll = pull(cursor, WAIT);
    await new Promise((r) => setTimeout(r, 200)); // the poll has skipped its read and waits
    for (const release of held.splice(0)) release();
    const res = (await poll).json();
    expect(kinds(res)).toContain('settings.updated');
    expect(performance.now() - t0).toBeLessThan(PROMPT_MS);
  });

  it('three appliances polling again at once after every answer each get every one of 20 commits that come at random moments, promptly', async () => {
    const { t, tenant, keys, pull, commit } = await cloud();
    const start = await t.changes.lastSeq(tenant.id);
    let running = true;
    const got = keys.map(() => new Map<number, number>()); // seq → when it arrived
    const pollers = keys.map(async (key, i) => {
      let cursor = start;
      while (running) {
        const res = await pull(cursor, WAIT, key);
        expect(res.statusCode).toBe(200);
        const body = res.json() as { changes: Array<{ seq: number }>; next_cursor: number };
        for (const c of body.changes) got[i]!.set(c.seq, performance.now());
        cursor = body.next_cursor;
      }
    });
    const committed = new Map<number, number>(); // seq → when its write returned
    for (let n = 0; n < 20; n++) {
      await new Promise((r) => setTimeout(r, Math.random() * 30));
      await commit(`Ronde ${n}`);
      committed.set(await t.changes.lastSeq(tenant.id), performance.now());
    }
    const deadline = performance.now() + PROMPT_MS;
    const missing = () => got.flatMap((g, i) => [...committed.keys()].filter((seq) => !g.has(seq)).map((seq) => `${i}:${seq}`));
    while (missing().length > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(missing()).toEqual([]);
    // Wake the polls to end them (one more commit), then stop.
    running = false;
    await commit('Klaar');
    await Promise.all(pollers);
  });
});
