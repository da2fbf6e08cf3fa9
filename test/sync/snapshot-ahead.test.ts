import { describe, expect, it } from 'vitest';
import type { SyncRequest } from '../../sync/transport.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { replicatedState, twoNodes } from './harness.js';

/**
 * Issue 29 point 3: a joining appliance asks for the next snapshot page while it applies the one it
 * has (sync/engine.ts `snapshotAhead`), so the cloud's reads overlap the appliance's inserts. The
 * page asked ahead is only a read: it is used when the page before it committed, dropped when that
 * page failed, and a join interrupted anywhere resumes at the committed cursor, each row once.
 */

/** A cloud with menu and orders, and the cursors of the snapshot requests in the order they were sent. */
async function joining() {
  const nodes = await twoNodes({ snapshotLimit: 2 });
  const { cloud, tenant, transport } = nodes;
  const menu = await seedMenu(cloud, tenant.id);
  const web = { tenantId: tenant.id, userId: null, via: 'web' as const };
  for (let i = 0; i < 6; i++) {
    const { order } = await cloud.services.orders.create(web, orderBody(menu));
    if (i % 2 === 0) await cloud.services.orders.setStatus(web, order.id, 'accepted');
  }
  const asked: string[] = [];
  const send = transport.send.bind(transport);
  transport.send = (req: SyncRequest) => {
    if (req.path === '/api/v1/sync/snapshot') asked.push(String(req.query?.cursor ?? ''));
    return send(req);
  };
  return { ...nodes, asked };
}

const cursorOf = async (a: { engine: { readState(): Promise<{ snapshot_cursor: string | null } | undefined> } }) => (await a.engine.readState())!.snapshot_cursor;

describe('sync: snapshot pages asked one ahead', () => {
  it('the next page is asked for before the page before it is applied; each page is asked once, and the new appliance holds the cloud’s rows', async () => {
    const { cloud, tenant, appliance, asked } = await joining();
    let pages = 0;
    for (;;) {
      await appliance.engine.pullOnce();
      pages += 1;
      const next = await cursorOf(appliance);
      if (next === null) break;
      // Asked already (while this page was applied): the last request is the next page's.
      expect(asked.at(-1)).toBe(next);
      expect(asked).toHaveLength(pages + 1);
    }
    expect(pages).toBeGreaterThan(5);
    expect(asked).toHaveLength(pages);
    expect(new Set(asked).size).toBe(pages);
    await appliance.engine.syncOnce();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a page that fails inside its transaction rolls back with its cursor; the page asked ahead is dropped and the failed page asked again, by the same engine and after a restart', async () => {
    for (const restart of [false, true]) {
      const { cloud, tenant, appliance, asked } = await joining();
      let n = 0;
      appliance.setFailpoint((name) => {
        if (name === 'pull.after_apply_before_cursor' && ++n === 3) throw new Error('stroomuitval');
      });
      await appliance.engine.pullOnce();
      await appliance.engine.pullOnce();
      const stored = await cursorOf(appliance);
      await expect(appliance.engine.pullOnce()).rejects.toThrow('stroomuitval');
      expect(await cursorOf(appliance)).toBe(stored);
      // The failed page had asked for its next page already: that answer is not used.
      const before = asked.length;
      expect(asked[before - 1]).not.toBe(stored);
      if (restart) {
        appliance.restart();
        await appliance.engine.ensureReady();
      }
      await appliance.engine.syncOnce();
      expect(asked[before]).toBe(stored);
      expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    }
  });

  it('a page asked ahead whose answer was lost fails the next pull like any lost answer; that page is asked again and the join completes', async () => {
    const { cloud, tenant, transport, appliance, asked } = await joining();
    await appliance.engine.pullOnce(); // page 1, and page 2 asked ahead
    transport.faults = ['lose-response']; // the next request: page 3, asked while page 2 is applied
    await appliance.engine.pullOnce();
    const stored = await cursorOf(appliance);
    expect(asked.at(-1)).toBe(stored);
    await expect(appliance.engine.pullOnce()).rejects.toThrow('Geen verbinding met de cloud.');
    expect(await cursorOf(appliance)).toBe(stored);
    const before = asked.length;
    await appliance.engine.syncOnce();
    expect(asked[before]).toBe(stored);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});
