import { SyncTransient, type SyncEngine } from '../../sync/engine.js';

/**
 * The timed push of a catch-up, shared by both modes (bench/sync-catchup.bench.ts in-process,
 * bench/servers/appliance-catchup.ts compiled): `pushOnce` until the outbox is empty, every op applied.
 * The cloud's per-device budget (sync/cloud.ts DEVICE_BUDGET) answers 429 with Retry-After; the
 * engine's own loop waits it out, this timed loop does not: it says so instead of a bare stack.
 */
export async function pushAll(engine: SyncEngine): Promise<{ pushBatches: number; pushedOps: number }> {
  let pushBatches = 0;
  let pushedOps = 0;
  for (;;) {
    const r = await engine.pushOnce().catch((err: unknown) => {
      if (err instanceof SyncTransient && err.status === 429) throw new Error(`bench: the cloud refused the push with 429 after ${pushedOps} ops (device budget): ${err.message}`);
      throw err;
    });
    if (r.sent > 0) pushBatches += 1;
    pushedOps += r.sent;
    const bad = r.results.filter((x) => x.status !== 'applied');
    if (bad.length) throw new Error(`bench: ${bad.length} ops not applied, e.g. ${JSON.stringify(bad[0])}`);
    if (!r.more) return { pushBatches, pushedOps };
  }
}
