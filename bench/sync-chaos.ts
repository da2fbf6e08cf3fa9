/**
 * Sync chaos run (sync/README.md, "Fail-points"): the end-to-end scenario of
 * test/e2e/sync.e2e.test.ts, many times, with real processes on 127.0.0.1 only: a cloud
 * (PostgreSQL, a fresh database dropped afterwards) and an appliance (SQLite in a temp dir). Each
 * round takes the cloud away while staff keep working, kills the appliance with SIGKILL (at each
 * named fail-point in turn, and at random moments), restarts everything and checks that both sides
 * converge with nothing lost or doubled and nothing pending within the heal bound.
 *
 *   npx tsx bench/sync-chaos.ts [--rounds 40] [--minutes 10] [--random-only] [--heal-bound-ms 15000] [--fresh-every 10]
 *
 * TEST_DATABASE_URL picks the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test).
 * Exits 1 on the first failure (the cluster is kept for nothing: everything is killed and dropped).
 */
import { parseArgs } from 'node:util';
import { Cluster, FAIL_POINT_NAMES, PG_ADMIN_URL, pgReachable, type Kill, type RoundReport } from '../test/e2e/cluster.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '40' },
    minutes: { type: 'string', default: '10' },
    'random-only': { type: 'boolean', default: false },
    'heal-bound-ms': { type: 'string', default: '15000' },
    'fresh-every': { type: 'string', default: '10' },
    'max-random-ms': { type: 'string', default: '2500' },
    verbose: { type: 'boolean', default: false },
  },
});
const rounds = Math.min(1000, Math.max(1, Number(values.rounds)));
const deadline = Date.now() + Math.min(120, Math.max(1, Number(values.minutes))) * 60_000;
const healBound = Number(values['heal-bound-ms']);
const freshEvery = Math.max(1, Number(values['fresh-every']));
const maxRandom = Number(values['max-random-ms']);

function pickKill(i: number): Kill {
  if (!values['random-only'] && i % 2 === 0) return { failpoint: FAIL_POINT_NAMES[(i / 2) % FAIL_POINT_NAMES.length]! };
  return { randomMs: Math.floor(Math.random() * maxRandom) };
}

async function main(): Promise<number> {
  if (!(await pgReachable())) {
    console.error(`PostgreSQL is not reachable at ${PG_ADMIN_URL}; set TEST_DATABASE_URL.`);
    return 2;
  }
  const reports: RoundReport[] = [];
  let cluster: Cluster | null = null;
  let failure: unknown = null;
  const t0 = Date.now();
  const stop = () => {
    void cluster?.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (let i = 0; i < rounds && Date.now() < deadline; i++) {
      if (!cluster || i % freshEvery === 0) {
        await cluster?.close();
        cluster = await Cluster.create({ log: values.verbose ? (m) => console.log(m) : undefined });
      }
      const r = await cluster.round(pickKill(i), { healBoundMs: healBound });
      reports.push(r);
      console.log(`round ${String(i + 1).padStart(3)}  ${r.kill.padEnd(34)} killed=${r.killed ? 'yes' : 'no '}  heal ${String(r.healMs).padStart(5)} ms  orders ${r.orders}  retried ${r.unknownRetried}`);
    }
  } catch (err) {
    failure = err;
  } finally {
    await cluster?.close();
  }
  const heals = reports.map((r) => r.healMs).sort((a, b) => a - b);
  const pct = (p: number) => (heals.length ? heals[Math.min(heals.length - 1, Math.floor((p / 100) * heals.length))] : 0);
  const byKill = new Map<string, number>();
  for (const r of reports) {
    const k = r.kill.startsWith('random') ? 'random' : r.kill;
    byKill.set(k, (byKill.get(k) ?? 0) + 1);
  }
  console.log('\nsync chaos summary');
  console.log(`  rounds passed      ${reports.length}${failure ? ' (then one FAILED)' : ''}`);
  console.log(`  appliance SIGKILLs ${reports.filter((r) => r.killed).length} landed (${[...byKill].map(([k, n]) => `${k}: ${n}`).join(', ')})`);
  console.log(`  retried POSTs      ${reports.reduce((s, r) => s + r.unknownRetried, 0)} without an answer, each answered once after the restart`);
  console.log(`  heal time          p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${heals.at(-1) ?? 0} ms (bound ${healBound} ms)`);
  console.log(`  wall time          ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (failure) {
    console.error(`\nFAILED: ${failure instanceof Error ? failure.message : String(failure)}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
