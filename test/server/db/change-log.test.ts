import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ChangeRecord, Writer } from '../../../server/db/change-log.js';
import { newId } from '../../../server/shared/ids.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

/** A domain row (a tenant) plus its change, inside a write: what every service does. */
async function insertTenant(w: Writer, tenantId: string, slug: string): Promise<ChangeRecord> {
  await w.trx
    .insertInto('tenants')
    .values({ id: tenantId, slug, name: slug, settings: '{}', pin_salt: 'salt', created_at: w.now, updated_at: w.now, archived_at: null })
    .execute();
  return w.record({ entity: 'tenant', entityId: tenantId, kind: 'tenant.created', payload: { slug } });
}

const note = (w: Writer, tenantId: string, n: number) => w.record({ entity: 'note', entityId: newId(), kind: 'note.added', payload: { n } });

async function tenantCount(t: TestApp, id: string): Promise<number> {
  return (await t.handle.db.selectFrom('tenants').select('id').where('id', '=', id).execute()).length;
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`change log: the one write path (${lane})`, () => {
  it('a successful write commits the domain row and its change together', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const rec = await t.changes.write(tenantId, (w) => insertTenant(w, tenantId, 'de-gouden-lepel'));
    expect(rec).toMatchObject({ tenant_id: tenantId, seq: 1, entity: 'tenant', entity_id: tenantId, kind: 'tenant.created', origin: t.changes.origin });
    expect(rec.created_at).toBe(t.clock.now().toISOString());
    expect(await tenantCount(t, tenantId)).toBe(1);
    const log = await t.changes.readSince(tenantId, 0);
    expect(log).toEqual([{ ...rec, payload: { slug: 'de-gouden-lepel' } }]);
    expect(await t.changes.lastSeq(tenantId)).toBe(1);
  });

  it('a write that throws after inserting and recording leaves neither the row nor the log entry', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    await expect(
      t.changes.write(tenantId, async (w) => {
        await insertTenant(w, tenantId, 'mislukt');
        await note(w, tenantId, 1);
        throw new Error('business rule failed after the writes');
      }),
    ).rejects.toThrow('business rule failed');
    expect(await tenantCount(t, tenantId)).toBe(0);
    expect(await t.changes.readSince(tenantId, 0)).toEqual([]);
    expect(await t.changes.lastSeq(tenantId)).toBe(0);
    // The rolled-back write consumed no seq: the next one is 1, without a gap.
    const rec = await t.changes.write(tenantId, (w) => insertTenant(w, tenantId, 'gelukt'));
    expect(rec.seq).toBe(1);
  });

  it('a database error inside the write (a unique violation) rolls back everything written before it', async () => {
    const t = await createTestApp();
    const a = newId();
    await t.changes.write(a, (w) => insertTenant(w, a, 'bezet'));
    const b = newId();
    await expect(
      t.changes.write(b, async (w) => {
        await note(w, b, 1);
        await insertTenant(w, b, 'bezet'); // slug is unique
      }),
    ).rejects.toThrow();
    expect(await tenantCount(t, b)).toBe(0);
    expect(await t.changes.readSince(b, 0)).toEqual([]);
    expect(await t.changes.lastSeq(b)).toBe(0);
  });

  it('seq is per tenant, starts at 1 and is contiguous', async () => {
    const t = await createTestApp();
    const a = newId();
    const b = newId();
    for (let i = 0; i < 3; i++) await t.changes.write(a, (w) => note(w, a, i));
    await t.changes.write(b, async (w) => {
      await note(w, b, 0);
      await note(w, b, 1);
    });
    await t.changes.write(a, (w) => note(w, a, 3));
    expect((await t.changes.readSince(a, 0)).map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect((await t.changes.readSince(b, 0)).map((c) => c.seq)).toEqual([1, 2]);
    expect((await t.changes.readSince(a, 2)).map((c) => (c.payload as { n: number }).n)).toEqual([2, 3]);
    expect((await t.changes.readSince(a, 0, 2)).map((c) => c.seq)).toEqual([1, 2]);
    expect(await t.changes.lastSeq(a)).toBe(4);
    expect(await t.changes.lastSeq(b)).toBe(2);
    // op ids are unique UUIDs.
    const all = [...(await t.changes.readSince(a, 0)), ...(await t.changes.readSince(b, 0))];
    expect(new Set(all.map((c) => c.op_id)).size).toBe(all.length);
  });

  it('recordMany is record for each change in turn: consecutive seqs in order (also for a new tenant), one committed event, rolled back as a whole', async () => {
    const t = await createTestApp();
    const a = newId();
    const events: ChangeRecord[][] = [];
    t.changes.on('committed', (_tenant, changes) => events.push(changes));
    const many = (w: Writer, from: number, n: number) =>
      w.recordMany(Array.from({ length: n }, (_, i) => ({ entity: 'note', entityId: newId(), kind: 'note.added', payload: { n: from + i } })));
    const first = await t.changes.write(a, (w) => many(w, 0, 120)); // a tenant without a change_seq row yet; more than one insert statement
    expect(first.map((c) => c.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    await t.changes.write(a, async (w) => {
      await note(w, a, 120);
      await many(w, 121, 2);
      await note(w, a, 123);
      expect(await many(w, 0, 0)).toEqual([]);
    });
    const log = await t.changes.readSince(a, 0, 1000);
    expect(log.map((c) => c.seq)).toEqual(Array.from({ length: 124 }, (_, i) => i + 1));
    expect(log.map((c) => (c.payload as { n: number }).n)).toEqual(Array.from({ length: 124 }, (_, i) => i));
    expect(log.slice(0, 120)).toEqual(first);
    expect(await t.changes.lastSeq(a)).toBe(124);
    expect(events.map((e) => e.length)).toEqual([120, 4]);
    await expect(
      t.changes.write(a, async (w) => {
        await many(w, 200, 3);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await t.changes.lastSeq(a)).toBe(124);
    expect(events).toHaveLength(2);
  });

  it('the log stores each payload as exactly its JSON text, whatever it holds (objects, arrays, scalars, escapes, given payloadJson)', async () => {
    const t = await createTestApp();
    const a = newId();
    const payloads: unknown[] = [
      { a: 1, b: 'é "quoted" \\ back\nslash', c: [1.5, -0, 2e21, null, true], d: { e: {} } },
      ['x', { y: '\u0001 control' }],
      { lone: 'half \ud800 a pair', tab: '\t' },
      { literal: 'not an escape: \\u0041' },
      'a plain string',
      '{"looks":"like an object"}',
      42,
      null,
      [],
      { emoji: '🍕', nested: [[[['deep']]]] },
    ];
    const changes = payloads.map((payload, i) => ({ entity: 'note', entityId: newId(), kind: 'note.added', payload, ...(i === 0 ? { payloadJson: JSON.stringify(payload) } : {}) }));
    await t.changes.write(a, (w) => w.recordMany(changes));
    await t.changes.write(a, async (w) => {
      for (const c of changes) await w.record(c);
    });
    const stored = await t.handle.db.selectFrom('change_log').select(['seq', 'payload']).where('tenant_id', '=', a).orderBy('seq').execute();
    expect(stored.map((r) => r.payload)).toEqual([...payloads, ...payloads].map((p) => JSON.stringify(p ?? null)));
    // More changes than the PostgreSQL statement binds payloads for one by one (appendChangesLocked): the same rows.
    const b = newId();
    const many = Array.from({ length: 5_003 }, (_, i) => ({ entity: 'note', entityId: `n${i}`, kind: 'note.added', payload: payloads[i % payloads.length] }));
    await t.changes.write(b, (w) => w.recordMany(many));
    const all = await t.handle.db.selectFrom('change_log').select(['seq', 'entity_id', 'payload']).where('tenant_id', '=', b).orderBy('seq').execute();
    expect(all.map((r) => [Number(r.seq), r.entity_id, r.payload])).toEqual(many.map((c, i) => [i + 1, c.entityId, JSON.stringify(c.payload ?? null)]));
  });

  it('20 concurrent writers of one tenant get distinct, gap-free seqs, read back in order', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const other = newId();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.changes.write(i % 5 === 0 ? other : tenantId, async (w) => {
          const id = i % 5 === 0 ? other : tenantId;
          const first = await note(w, id, i);
          await sleep(1); // let the writers interleave where the engine allows it
          const second = await note(w, id, i);
          return [first.seq, second.seq];
        }),
      ),
    );
    const mine = results.filter((_, i) => i % 5 !== 0);
    // Each write's two changes are adjacent: no other writer of the tenant got a seq in between.
    for (const [first, second] of mine) expect(second).toBe(first! + 1);
    const seqs = mine.flat().sort((x, y) => x! - y!);
    expect(seqs).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    const log = await t.changes.readSince(tenantId, 0);
    expect(log.map((c) => c.seq)).toEqual(seqs);
    expect((await t.changes.readSince(other, 0)).map((c) => c.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('"committed" fires after commit, with the changes of that write, and never for a rolled-back write', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const events: Array<{ tenantId: string; seqs: number[]; visible: Promise<number[]> }> = [];
    t.changes.on('committed', (tid, changes) => {
      // Read through the pool (another connection on PostgreSQL): only committed rows are visible.
      events.push({ tenantId: tid, seqs: changes.map((c) => c.seq), visible: t.changes.readSince(tid, 0).then((r) => r.map((c) => c.seq)) });
    });
    await t.changes.write(tenantId, async (w) => {
      await note(w, tenantId, 1);
      await note(w, tenantId, 2);
      expect(events).toHaveLength(0); // not while the transaction is open
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.tenantId).toBe(tenantId);
    expect(events[0]!.seqs).toEqual([1, 2]);
    expect(await events[0]!.visible).toEqual([1, 2]);

    await expect(
      t.changes.write(tenantId, async (w) => {
        await note(w, tenantId, 3);
        throw new Error('nee');
      }),
    ).rejects.toThrow('nee');
    expect(events).toHaveLength(1);

    // A write that records nothing commits silently.
    await t.changes.write(tenantId, async () => 'niets');
    expect(events).toHaveLength(1);
  });

  it('a failing "committed" listener does not turn a committed write into an error, nor silence other listeners', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const seen: number[] = [];
    const reported: unknown[] = [];
    t.changes.onListenerError = (err) => reported.push(err);
    t.changes.on('committed', () => {
      throw new Error('socket fan-out crashed');
    });
    t.changes.on('committed', async () => {
      throw new Error('webhook queue crashed');
    });
    t.changes.on('committed', (_tid, changes) => seen.push(...changes.map((c) => c.seq)));
    let onceCalls = 0;
    t.changes.once('committed', () => onceCalls++);
    const rec = await t.changes.write(tenantId, (w) => note(w, tenantId, 1));
    expect(rec.seq).toBe(1);
    await t.changes.write(tenantId, (w) => note(w, tenantId, 2));
    expect(seen).toEqual([1, 2]);
    expect(onceCalls).toBe(1); // `once` keeps its meaning
    await sleep(0);
    expect(reported.map((e) => (e as Error).message).sort()).toEqual([
      'socket fan-out crashed',
      'socket fan-out crashed',
      'webhook queue crashed',
      'webhook queue crashed',
    ]);
    expect((await t.changes.readSince(tenantId, 0)).map((c) => c.seq)).toEqual([1, 2]);
  });

  it('overlapping writes of one tenant commit their seqs in order: the second waits for the first, so a cursor never skips', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const committedOrder: number[] = [];
    t.changes.on('committed', (_tid, changes) => committedOrder.push(...changes.map((c) => c.seq)));
    await t.changes.write(tenantId, (w) => note(w, tenantId, 0)); // seq 1, already read by a consumer
    let cursor = 1;

    const gate = deferred();
    const firstHasSeq = deferred<number>();
    const settled: string[] = [];
    const first = t.changes
      .write(tenantId, async (w) => {
        const rec = await note(w, tenantId, 1);
        firstHasSeq.resolve(rec.seq);
        await gate.promise; // hold the transaction open
        return rec.seq;
      })
      .then((seq) => (settled.push('first'), seq));
    const firstSeq = await firstHasSeq.promise;

    const second = t.changes
      .write(tenantId, async (w) => (await note(w, tenantId, 2)).seq)
      .then((seq) => (settled.push('second'), seq));

    await sleep(300);
    // The second writer is blocked behind the first (PostgreSQL: the tenant's change_seq row lock;
    // SQLite: the single writer) and has not committed.
    expect(settled).toEqual([]);
    if (lane === 'postgres') {
      // A reader on another connection sees nothing uncommitted, so its cursor stays put.
      // (SQLite has one connection: a reader simply waits for the writer, like the second write.)
      expect(await t.changes.readSince(tenantId, cursor)).toEqual([]);
    }

    gate.resolve();
    const [s1, s2] = await Promise.all([first, second]);
    expect(s1).toBe(firstSeq);
    expect(s2).toBeGreaterThan(s1);
    expect(s2).toBe(s1 + 1);
    expect(settled).toEqual(['first', 'second']);
    expect(committedOrder).toEqual([1, s1, s2]);
    const later = await t.changes.readSince(tenantId, cursor);
    expect(later.map((c) => c.seq)).toEqual([s1, s2]);
    cursor = later.at(-1)!.seq;
    expect(cursor).toBe(3);
  });

  // PostgreSQL only (SQLite has a single writer by construction); defined only in that lane.
  if (lane === 'postgres') it('PostgreSQL: a second writer really waits on the row lock while the first is open, and other tenants do not', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const otherTenant = newId();
    const gate = deferred();
    const firstHasSeq = deferred();
    const first = t.changes.write(tenantId, async (w) => {
      await note(w, tenantId, 1);
      firstHasSeq.resolve();
      await gate.promise;
    });
    await firstHasSeq.promise;
    let secondDone = false;
    const second = t.changes.write(tenantId, (w) => note(w, tenantId, 2)).then((r) => ((secondDone = true), r));
    // Another tenant's writer is not blocked by this tenant's open transaction.
    const otherRec = await t.changes.write(otherTenant, (w) => note(w, otherTenant, 1));
    expect(otherRec.seq).toBe(1);
    // The blocked backend is visible to PostgreSQL as waiting on a lock for our change_seq upsert.
    let waiting = 0;
    for (let i = 0; i < 20 && waiting === 0; i++) {
      await sleep(50);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and cardinality(pg_blocking_pids(pid)) > 0 and query ilike '%insert into "change_seq"%'`.execute(t.handle.db);
      waiting = rows[0]!.n;
    }
    expect(waiting).toBeGreaterThanOrEqual(1);
    expect(secondDone).toBe(false);
    gate.resolve();
    await first;
    const rec2 = await second;
    expect(rec2.seq).toBe(2);
  });
});
