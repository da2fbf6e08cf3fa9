import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../server/shared/clock.js';
import { newId } from '../../../../server/shared/ids.js';
import type { Runtime } from '../../../../server/runtime.js';
import { quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from '../../../sync/chunk.js';

/**
 * The journal across an outage (CONTRACT §19, docs/till.md "Sync"): each node appends to its own
 * chain; afterwards every entry is on both sides once and both sides verify both chains.
 */
const pay = (rt: Runtime, tenantId: string, cents: number) =>
  rt.changes.write(tenantId, (w) => rt.services.journal.append(w, { tenant_id: tenantId, kind: 'payment', ref_id: newId(), amount_cents: cents, method: 'pin' }));

describe('journal sync between an appliance and the cloud', () => {
  it('entries made on both sides during an outage arrive once; both sides verify both chains', async () => {
    const clock = new ManualClock('2026-11-20T17:00:00Z');
    const { cloud, tenant, transport, appliance, device } = await twoNodes({ clock });
    await appliance.engine.syncOnce();
    await pay(cloud, tenant.id, 1500);
    await quiesce(appliance);
    transport.offline = true;
    for (let i = 0; i < 4; i++) {
      clock.advance(10 * 60_000);
      await pay(appliance, tenant.id, 1000 + i);
    }
    await pay(cloud, tenant.id, 2500);
    await expect(appliance.engine.syncOnce()).rejects.toThrow();
    transport.offline = false;
    await quiesce(appliance);

    const rows = (rt: Runtime) => rt.handle.db.selectFrom('journal_entries').selectAll().where('tenant_id', '=', tenant.id).orderBy('id').execute();
    const a = await rows(appliance);
    expect(a).toHaveLength(6);
    expect((await replicatedState(appliance, tenant.id)).journal_entries).toEqual((await replicatedState(cloud, tenant.id)).journal_entries);
    for (const rt of [appliance, cloud]) {
      const v = await rt.services.journal.verify(tenant.id);
      expect(v.verified).toBe(true);
      expect(v.chains.map((c) => [c.origin, c.entries])).toEqual([
        ['cloud', 2],
        [device.id, 4],
      ]);
    }
  });
});

describe('journal entries in one push chunk (issue 29: the journal batch)', () => {
  it('a chunk of entries (one entry twice under another op id) ends as applying its ops one by one, in a few statements', async () => {
    const clock = new ManualClock('2026-11-20T17:00:00Z');
    const { cloud, tenant, transport, appliance, device } = await twoNodes({ clock });
    await appliance.engine.syncOnce();
    transport.offline = true;
    for (let i = 0; i < 6; i++) {
      clock.advance(5 * 60_000);
      await pay(appliance, tenant.id, 700 + i);
    }
    const made = (await ownOps(appliance, device.id)).filter((o) => o.entity === 'journal_entry');
    expect(made).toHaveLength(6);
    const ops = [...made, { ...made[2]!, op_id: '01900000-0000-7000-8000-00000000cd01', device_seq: made[made.length - 1]!.device_seq + 1 }];
    const reference = await opByOp(cloud, tenant.id, device.id, ops, ['journal_entries']);
    expect(reference.outcomes.map((o) => o.status)).toEqual(ops.map(() => 'applied'));
    const applies = watchBatches(['journal_entry']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, ops);
    expect(applies).toEqual({ batched: 7, unbatched: 0 });
    expect(pushed).toEqual(JSON.parse(JSON.stringify(reference.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, ['journal_entries'])).toEqual(reference.rows);
    expect(reference.rows.journal_entries).toHaveLength(6);
    transport.offline = false;
    await quiesce(appliance);
    for (const rt of [appliance, cloud]) expect((await rt.services.journal.verify(tenant.id)).verified).toBe(true);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a pushed entry at a position another entry of the chain holds is rejected, in a chunk as one by one', async () => {
    const clock = new ManualClock('2026-11-20T17:00:00Z');
    const { cloud, tenant, transport, appliance, device } = await twoNodes({ clock });
    await appliance.engine.syncOnce();
    transport.offline = true;
    for (let i = 0; i < 3; i++) await pay(appliance, tenant.id, 900 + i);
    const made = (await ownOps(appliance, device.id)).filter((o) => o.entity === 'journal_entry');
    const entry = (made[1]!.payload as { entry: Record<string, unknown> }).entry;
    const clash = { ...made[1]!, op_id: '01900000-0000-7000-8000-00000000cd02', entity_id: '01900000-0000-7000-8000-00000000cd03', payload: { entry: { ...entry, id: '01900000-0000-7000-8000-00000000cd03' } }, device_seq: made[2]!.device_seq + 1 };
    const ops = [...made, clash];
    const reference = await opByOp(cloud, tenant.id, device.id, ops, ['journal_entries']);
    expect(reference.outcomes.map((o) => o.status)).toEqual(['applied', 'applied', 'applied', 'rejected']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, ops);
    expect(pushed.map((o) => o.status)).toEqual(['applied', 'applied', 'applied', 'rejected']);
    expect(pushed[3]!.reason).toBe(reference.outcomes[3]!.reason);
    expect(await tableRows(cloud.handle.db, tenant.id, ['journal_entries'])).toEqual(reference.rows);
  });
});
