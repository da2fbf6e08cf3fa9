import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';

async function until(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const touch = (t: TestApp, tenantId: string, kind: string, n: number) =>
  t.changes.write(tenantId, async (w) => {
    await w.record({ entity: 'test', entityId: `e${n}`, kind, payload: { n } });
  });

describe('change-log consumers: woken late by commits of changes they do not want (ChangeConsumer.wants)', () => {
  it('a commit of unwanted changes runs no batch at once but within about a second; a wanted one at once; every change once, in order', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const seen: number[] = [];
    let batches = 0;
    t.app.consumers.register({
      name: 'picky',
      wants: (c) => c.kind === 'test.wanted',
      handle: async (batch) => {
        batches += 1;
        seen.push(...batch.map((c) => c.seq));
      },
    });
    // Registering catches up on the seeding's changes.
    await until(async () => (await t.app.consumers.position('picky', a.id)) === (await t.changes.lastSeq(a.id)));
    await t.app.consumers.idle();
    const start = await t.changes.lastSeq(a.id);
    const before = batches;
    for (let n = 0; n < 3; n++) await touch(t, a.id, 'test.unwanted', n);
    await t.app.consumers.idle();
    expect(await t.app.consumers.position('picky', a.id)).toBe(start);
    // Late, and then all three in one batch.
    await until(async () => (await t.app.consumers.position('picky', a.id)) === start + 3, 5000);
    expect(batches).toBe(before + 1);
    // A wanted change takes the unwanted ones before it along, at once.
    await touch(t, a.id, 'test.unwanted', 3);
    await touch(t, a.id, 'test.wanted', 4);
    await until(async () => (await t.app.consumers.position('picky', a.id)) === start + 5, 800);
    await t.app.consumers.idle();
    const last = await t.changes.lastSeq(a.id);
    expect(seen).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  });

  it('a late wake-up set before another runner took the consumer over (forward) goes to that runner when it fires, and the consumer does not run here', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    let batches = 0;
    let taken = false;
    const forwarded: Array<{ tenantId: string; late: boolean }> = [];
    t.app.consumers.register({
      name: 'handed-over',
      wants: (c) => c.kind === 'test.wanted',
      // As the webhooks consumer while the sender thread listens: true = the other runner has it.
      forward: (tenantId, late) => {
        if (!taken) return false;
        forwarded.push({ tenantId, late });
        return true;
      },
      handle: async () => {
        batches += 1;
      },
    });
    await until(async () => (await t.app.consumers.position('handed-over', a.id)) === (await t.changes.lastSeq(a.id)));
    await t.app.consumers.idle();
    const start = await t.changes.lastSeq(a.id);
    const before = batches;
    // An unwanted commit while this node runs the consumer: a late wake-up is set (about a second).
    await touch(t, a.id, 'test.unwanted', 0);
    // Then the other runner takes over (the thread starts listening) before the wake-up fires.
    taken = true;
    await until(() => forwarded.length > 0, 5000);
    await t.app.consumers.idle();
    expect(forwarded).toEqual([{ tenantId: a.id, late: false }]);
    expect(batches).toBe(before);
    expect(await t.app.consumers.position('handed-over', a.id)).toBe(start);
  });
});
