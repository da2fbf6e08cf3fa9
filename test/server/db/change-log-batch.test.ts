import { describe, expect, it } from 'vitest';
import type { ChangeRecord, Writer } from '../../../server/db/change-log.js';
import { newId } from '../../../server/shared/ids.js';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

const note = (w: Writer, n: number) => w.record({ entity: 'note', entityId: `n${n}`, kind: 'note.added', payload: { n } });

/** Statements run on the write's transaction (Kysely's query log is not on; count what reaches the executor). */
function counting(w: Writer): { w: Writer; count: () => number } {
  let n = 0;
  const exec = w.trx.getExecutor();
  const original = exec.executeQuery.bind(exec);
  exec.executeQuery = ((...a: Parameters<typeof original>) => {
    n++;
    return original(...a);
  }) as typeof exec.executeQuery;
  return { w, count: () => n };
}

describe(`change log: a batch write (${lane})`, () => {
  it('writes the same log as one record at a time: same kinds, order, consecutive seqs, payloads; one committed event with the seqs', async () => {
    const t = await createTestApp();
    const one = newId();
    const many = newId();
    await t.changes.write(one, async (w) => {
      for (let n = 1; n <= 4; n++) await note(w, n);
    });
    const events: ChangeRecord[][] = [];
    t.changes.on('committed', (tid, changes) => {
      if (tid === many) events.push(changes);
    });
    let answered: ChangeRecord[] = [];
    await t.changes.write(
      many,
      async (w) => {
        for (let n = 1; n <= 4; n++) answered.push(await note(w, n));
      },
      { batch: true },
    );
    const strip = (rs: ChangeRecord[]) => rs.map(({ op_id: _o, tenant_id: _t, ...r }) => r);
    const a = await t.changes.readSince(one, 0);
    const b = await t.changes.readSince(many, 0);
    expect(strip(b)).toEqual(strip(a));
    expect(b.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    // The records `record` answered got their seqs when the batch was written, and are what listeners heard.
    expect(answered.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(events).toHaveLength(1);
    expect(events[0]!.map((r) => [r.seq, r.op_id])).toEqual(b.map((r) => [r.seq, r.op_id]));
    // A second batch continues the seqs.
    answered = [];
    await t.changes.write(many, async (w) => void (answered.push(await note(w, 5)), answered.push(await note(w, 6))), { batch: true });
    expect(answered.map((r) => r.seq)).toEqual([5, 6]);
    expect(await t.changes.lastSeq(many)).toBe(6);
  });

  it('costs two statements for any number of changes (one per change pair without it)', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    let recorded = 0;
    await t.changes.write(
      tenantId,
      async (w) => {
        const c = counting(w);
        for (let n = 1; n <= 5; n++) await note(c.w, n);
        recorded = c.count();
      },
      { batch: true },
    );
    // Nothing reached the database while recording (the batch is written after the function) ...
    expect(recorded).toBe(0);
    // ... where one record at a time runs two statements per change on SQLite (its seq, its row) and
    // one on PostgreSQL (both in one statement, appendChangesLocked).
    let single = 0;
    await t.changes.write(tenantId, async (w) => {
      const c = counting(w);
      for (let n = 6; n <= 10; n++) await note(c.w, n);
      single = c.count();
    });
    expect(single).toBe(lane === 'postgres' ? 5 : 10);
    expect((await t.changes.readSince(tenantId, 0)).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('recordMany writes what is waiting first, so the order is the order of the calls', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    await t.changes.write(
      tenantId,
      async (w) => {
        await note(w, 1);
        const many = await w.recordMany([2, 3].map((n) => ({ entity: 'note', entityId: `n${n}`, kind: 'note.added', payload: { n } })));
        expect(many.map((r) => r.seq)).toEqual([2, 3]);
        await note(w, 4);
      },
      { batch: true },
    );
    expect((await t.changes.readSince(tenantId, 0)).map((r) => [r.seq, (r.payload as { n: number }).n])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
  });

  it('a batch write that throws writes nothing and consumes no seq', async () => {
    const t = await createTestApp();
    const tenantId = newId();
    const events: unknown[] = [];
    t.changes.on('committed', (tid) => {
      if (tid === tenantId) events.push(tid);
    });
    await expect(
      t.changes.write(
        tenantId,
        async (w) => {
          await note(w, 1);
          throw new Error('refused after recording');
        },
        { batch: true },
      ),
    ).rejects.toThrow('refused after recording');
    expect(await t.changes.readSince(tenantId, 0)).toEqual([]);
    expect(events).toEqual([]);
    const rec = await t.changes.write(tenantId, (w) => note(w, 2));
    expect(rec.seq).toBe(1);
  });
});
