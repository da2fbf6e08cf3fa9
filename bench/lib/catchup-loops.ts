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

/** The timed pull of a catch-up: `pullOnce` until the cloud has nothing more. */
export async function pullAll(engine: SyncEngine): Promise<{ pullPages: number; pulledChanges: number }> {
  let pullPages = 0;
  let pulledChanges = 0;
  for (;;) {
    const r = await engine.pullOnce();
    pullPages += 1;
    pulledChanges += r.applied;
    if (!r.more) return { pullPages, pulledChanges };
  }
}

/** Wall time per key (BENCH_SQL_PROFILE): `timed(key, fn)` wraps an async method so each call adds to `into`. */
export function timedInto(into: Map<string, { n: number; ms: number }>) {
  return <A extends unknown[], R>(key: string, fn: (...a: A) => Promise<R>) =>
    async function (this: unknown, ...a: A): Promise<R> {
      const t0 = performance.now();
      try {
        return await fn.apply(this, a);
      } finally {
        const v = into.get(key) ?? { n: 0, ms: 0 };
        v.n++;
        v.ms += performance.now() - t0;
        into.set(key, v);
      }
    };
}

/** The pull's apply time per entity, slowest first, on stderr. */
export function printPullProfile(profile: Map<string, { n: number; ms: number }>): void {
  console.error('bench appliance pull profile (adopt, per entity):');
  for (const [k, v] of [...profile].sort((a, b) => b[1].ms - a[1].ms)) console.error(`${v.ms.toFixed(0).padStart(7)} ms ${String(v.n).padStart(7)} ${(v.ms / v.n).toFixed(3).padStart(7)}  ${k}`);
}
