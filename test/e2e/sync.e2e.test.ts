import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Cluster, FAIL_POINT_NAMES, markedProcesses, type Kill } from './cluster.js';

/**
 * Issue 4, "Done when": sync end to end with real processes (`npm start` twice): the cloud
 * (ROLE=cloud on a fresh PostgreSQL database) and an appliance (SQLite in a temp DATA_DIR, with
 * CLOUD_URL and SYNC_KEY from `cli device create`), on free 127.0.0.1 ports. Each round: staff work
 * online; the cloud is killed while staff keep working (orders, status changes); the appliance is
 * SIGKILLed at a named fail-point (SYNC_FAILPOINT, sync/failpoint.ts) or at a random moment of the
 * heal, while staff and web orders keep coming; everything is restarted; clients retry what got no
 * answer (same idempotency key). Then, within the heal bound: nothing pending on the appliance,
 * the same orders on both sides (id, number, status, total, payment), none twice, every order a
 * client was told about present, every acknowledged status change kept. Rounds share one
 * restaurant, so every check covers everything done so far. Many more rounds: bench/sync-chaos.ts.
 */
const HEAL_BOUND_MS = 10_000;

describe('sync end to end: real processes, cloud outage, SIGKILLs', () => {
  let cluster: Cluster | null = null;
  // Every process any cluster of this file spawns carries it (the last test looks for them).
  const marker = `sync-e2e-${randomBytes(6).toString('hex')}`;
  const get = async () => (cluster ??= await Cluster.create({ marker }));

  afterEach(async (ctx) => {
    // A failed round leaves the ledger unreliable: start the next one on a fresh restaurant.
    if (ctx.task.result?.state === 'fail') {
      await cluster?.close();
      cluster = null;
    }
  });

  afterAll(async () => {
    await cluster?.close();
    cluster = null;
  });

  const rounds: Array<[string, Kill]> = [
    ...FAIL_POINT_NAMES.map((failpoint): [string, Kill] => [`at the fail-point ${failpoint}`, { failpoint }]),
    ['at a random moment of the heal', { randomMs: 200 + Math.floor(Math.random() * 1500) }],
  ];

  it.each(rounds)('the appliance killed %s: both converge, nothing lost or doubled, the queue drains in time', async (_name, kill) => {
    const c = await get();
    const report = await c.round(kill, { healBoundMs: HEAL_BOUND_MS, restartCloud: 'randomMs' in kill });
    expect(report.killed).toBe(true);
    expect(report.healMs).toBeLessThanOrEqual(HEAL_BOUND_MS);
    expect(c.confirmed.size).toBeGreaterThan(0);
    expect([...c.confirmed.values()]).toContain('cloud');
    expect(c.appliance.exits.some((e) => e.signal === 'SIGKILL')).toBe(true);
  });

  it('the appliance SIGKILLed in the middle of its bootstrap snapshot: restarted, it bootstraps completely and syncs', async () => {
    const c = await Cluster.create({ killDuringBootstrap: true, marker });
    try {
      expect(c.appliance.exits.map((e) => e.signal)).toEqual(['SIGKILL']);
      // Create already waited for staff to log in and the whole menu to be there; now both ways work.
      await c.placeOrder('cloud');
      await c.placeOrder('appliance');
      expect(await c.converge(HEAL_BOUND_MS)).toBeLessThanOrEqual(HEAL_BOUND_MS);
      expect(new Set(c.confirmed.values())).toEqual(new Set(['cloud', 'appliance']));
    } finally {
      await c.close();
    }
  });

  it('leaves no server process behind: none of the processes any cluster of this file started outlives its close', async () => {
    // Something to watch: the rounds' cluster (or a new one, when a failed round closed it).
    const c = await get();
    const running = [c.cloud.child?.pid, c.appliance.child?.pid];
    expect(running.every((pid) => typeof pid === 'number')).toBe(true);
    // The search finds running processes (so an empty answer below means they are gone) ...
    expect(markedProcesses(marker)).toEqual(expect.arrayContaining(running));
    await c.close();
    cluster = null;
    // ... and after the close nothing of this file's clusters is left: these two, the bootstrap test's, the CLI runs'.
    expect(markedProcesses(marker)).toEqual([]);
  });
});
