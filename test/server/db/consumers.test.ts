import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import type { ChangeRecord } from '../../../server/db/change-log.js';

async function until(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A domain write through the one write path: one change per call. */
const touch = (t: TestApp, tenantId: string, n: number) =>
  t.changes.write(tenantId, async (w) => {
    await w.record({ entity: 'test', entityId: `e${n}`, kind: 'test.touched', payload: { n } });
  });

async function hitsTable(t: TestApp): Promise<void> {
  await sql`create table consumer_hits (op_id text not null, seq integer not null)`.execute(t.handle.db);
}

describe('change-log consumers (server/db/consumers.ts)', () => {
  it('handles every change once, in seq order, and keeps a per-tenant cursor', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    const seen = new Map<string, number[]>();
    t.app.consumers.register({
      name: 'test',
      batchSize: 3,
      handle: async (batch, ctx) => {
        const list = seen.get(ctx.tenantId) ?? [];
        list.push(...batch.map((c) => c.seq));
        seen.set(ctx.tenantId, list);
      },
    });
    for (let i = 0; i < 10; i++) await Promise.all([touch(t, a.id, i), touch(t, b.id, i)]);
    const [lastA, lastB] = [await t.changes.lastSeq(a.id), await t.changes.lastSeq(b.id)];
    await until(async () => (await t.app.consumers.position('test', a.id)) === lastA && (await t.app.consumers.position('test', b.id)) === lastB);
    await t.app.consumers.idle();
    // Seeding wrote changes before the consumer existed: a new consumer starts at the beginning.
    expect(seen.get(a.id)).toEqual(Array.from({ length: lastA }, (_, i) => i + 1));
    expect(seen.get(b.id)).toEqual(Array.from({ length: lastB }, (_, i) => i + 1));
  });

  it('a handler that fails mid-batch rolls back its effect and the cursor; the batch is handled again, once', async () => {
    const t = await createTestApp();
    await hitsTable(t);
    const a = await t.seedTenant();
    let failures = 0;
    t.app.consumers.register({
      name: 'flaky',
      handle: async (batch: ChangeRecord[], { trx }) => {
        for (const c of batch) await sql`insert into consumer_hits (op_id, seq) values (${c.op_id}, ${c.seq})`.execute(trx);
        if (batch.some((c) => c.kind === 'test.touched' && (c.payload as { n: number }).n === 3) && failures < 2) {
          failures += 1;
          throw new Error('simulated crash after writing part of the effect');
        }
      },
    });
    for (let i = 0; i < 6; i++) await touch(t, a.id, i);
    const last = await t.changes.lastSeq(a.id);
    await until(async () => (await t.app.consumers.position('flaky', a.id)) === last, 10_000);
    expect(failures).toBe(2);
    const rows = await sql<{ op_id: string; n: number }>`select op_id, count(*) as n from consumer_hits group by op_id`.execute(t.handle.db);
    expect(rows.rows).toHaveLength(last);
    expect(rows.rows.every((r) => Number(r.n) === 1)).toBe(true);
  });

  it('the sweep picks up changes no wake-up announced (e.g. committed by another node whose notice was lost)', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const seen: number[] = [];
    t.app.consumers.register({ name: 'quiet', handle: async (batch) => void seen.push(...batch.map((c) => c.seq)) });
    await until(async () => (await t.app.consumers.position('quiet', a.id)) === (await t.changes.lastSeq(a.id)));
    // Simulate a commit this node never heard of: append to the log without the 'committed' event.
    await t.handle.db.transaction().execute(async (trx) => {
      const { appendChange, lockTenant } = await import('../../../server/db/change-log.js');
      await lockTenant(trx, a.id);
      await appendChange(trx, a.id, 'elsewhere', new Date().toISOString(), { entity: 'test', entityId: 'x', kind: 'test.touched', payload: {} });
    });
    const last = await t.changes.lastSeq(a.id);
    await new Promise((r) => setTimeout(r, 50));
    expect(await t.app.consumers.position('quiet', a.id)).toBe(last - 1);
    await t.app.consumers.sweep();
    await until(async () => (await t.app.consumers.position('quiet', a.id)) === last);
    expect(seen.filter((s) => s === last)).toHaveLength(1);
  });

  it('a consumer name can only be registered once per node', async () => {
    const t = await createTestApp();
    t.app.consumers.register({ name: 'once', handle: async () => {} });
    expect(() => t.app.consumers.register({ name: 'once', handle: async () => {} })).toThrow(/already registered/);
  });
});
