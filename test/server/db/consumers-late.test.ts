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
});
