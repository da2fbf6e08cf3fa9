import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../server/shared/clock.js';
import { newId } from '../../../../server/shared/ids.js';
import type { Runtime } from '../../../../server/runtime.js';
import { quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';

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
