/**
 * Steady-state delay from a cloud order to the appliance (issue 4: p99 < 2 s while online).
 *
 * The real cloud (ROLE=cloud, PostgreSQL, child process, HTTP on 127.0.0.1) and a real appliance
 * (SQLite file, WAL + synchronous=FULL) in this process with CLOUD_URL/SYNC_KEY, so its own
 * SyncWorker runs exactly as in production: HTTP transport, 20 s long-poll. This process POSTs
 * orders to the cloud's /api/v1/orders at a steady rate and listens to the appliance's ChangeLog
 * 'committed' event; both timestamps come from one performance.now().
 *
 *   npx tsx bench/sync-delay.bench.ts      # BENCH_DELAY_ORDERS=200 BENCH_DELAY_INTERVAL_MS=250 BENCH_DELAY_WARMUP=10
 */
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../server/config.js';
import { createRuntime } from '../server/runtime.js';
import { machine, percentile, table } from './lib/format.js';
import { assertDurability } from './lib/seed.js';
import { compareOrders, sleep, startCloud } from './lib/sync.js';
import { benchConfig } from './lib/tmp.js';

export interface DelayResult {
  orders: number;
  intervalMs: number;
  /** 201 received → order committed on the appliance (0 when it was there before the answer). */
  fromAnswer: number[];
  /** POST sent → order committed on the appliance. */
  fromSend: number[];
  beforeAnswer: number;
  missing: number;
  converged: boolean;
}

export async function runSyncDelayBench(): Promise<DelayResult> {
  const N = Math.max(1, Math.min(2000, Number(process.env.BENCH_DELAY_ORDERS ?? 200)));
  const interval = Math.max(10, Number(process.env.BENCH_DELAY_INTERVAL_MS ?? 250));
  const warmup = Math.max(0, Number(process.env.BENCH_DELAY_WARMUP ?? 10));
  console.log(`sync delay: ${N} cloud orders, one every ${interval} ms (+${warmup} warm-up); ${machine()}`);
  const { server, info, cookie } = await startCloud();
  const tmp = benchConfig('sync-delay');
  const config = loadConfig({ ROLE: 'local', DATA_DIR: tmp.dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', CLOUD_URL: server.url, SYNC_KEY: info.syncKey });
  const rt = await createRuntime(config);
  const arrived = new Map<string, number>();
  rt.changes.on('committed', (_tenant, records) => {
    const at = performance.now();
    for (const r of records) if (r.kind === 'order.created' && !arrived.has(r.entity_id)) arrived.set(r.entity_id, at);
  });
  try {
    await assertDurability(rt);
    if (!rt.sync) throw new Error('bench: the appliance has no sync worker');
    rt.sync.start();
    // Bootstrapped: the menu is there.
    const until = Date.now() + 60_000;
    while ((await rt.handle.db.selectFrom('products').select('id').limit(1).execute()).length === 0) {
      if (Date.now() > until) throw new Error('bench: the appliance did not bootstrap within 60 s');
      await sleep(50);
    }
    await sleep(500); // the worker is now in its long-poll
    const P = info.products;
    const sent: Array<{ id: string; send: number; answer: number }> = [];
    const start = performance.now();
    for (let i = 0; i < warmup + N; i++) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/v1/orders`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ product_id: P[i % P.length]!.id, quantity: 1 }, { product_id: P[(i + 5) % P.length]!.id, quantity: 2 }], customer: { name: `Web ${i}` } }),
      });
      const t1 = performance.now();
      const body = (await res.json()) as { id?: string };
      if (res.status !== 201 || !body.id) throw new Error(`bench: POST /orders answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      if (i >= warmup) sent.push({ id: body.id, send: t0, answer: t1 });
    }
    const deadline = Date.now() + 15_000;
    while (sent.some((s) => !arrived.has(s.id)) && Date.now() < deadline) await sleep(20);
    const fromAnswer: number[] = [];
    const fromSend: number[] = [];
    let beforeAnswer = 0;
    let missing = 0;
    for (const s of sent) {
      const at = arrived.get(s.id);
      if (at === undefined) {
        missing += 1;
        continue;
      }
      if (at < s.answer) beforeAnswer += 1;
      fromAnswer.push(Math.max(0, at - s.answer));
      fromSend.push(at - s.send);
    }
    await rt.sync.stop();
    const verify = await compareOrders(rt, info);
    if (verify.problems.length) console.log(`  NOT CONVERGED: ${verify.problems.join('; ')}`);
    return { orders: N, intervalMs: interval, fromAnswer: fromAnswer.sort((a, b) => a - b), fromSend: fromSend.sort((a, b) => a - b), beforeAnswer, missing, converged: verify.problems.length === 0 };
  } finally {
    await rt.close();
    await server.stop();
    tmp.cleanup();
  }
}

export function delayReport(r: DelayResult): string {
  const row = (name: string, v: number[]) => [name, percentile(v, 50).toFixed(1), percentile(v, 99).toFixed(1), (v[v.length - 1] ?? NaN).toFixed(1)];
  return [
    table([['cloud order → on the appliance (ms)', 'p50', 'p99', 'max'], row("from the cloud's 201", r.fromAnswer), row('from the POST sent', r.fromSend)]),
    `${r.orders} orders, one every ${r.intervalMs} ms; ${r.beforeAnswer} were on the appliance before the 201 reached the client; missing after 15 s: ${r.missing}; converged: ${r.converged ? 'yes' : 'NO'}; target p99 < 2000 ms: ${percentile(r.fromAnswer, 99) < 2000 && r.missing === 0 ? 'met' : 'MISSED'}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  setTimeout(() => {
    console.error('bench: time box of 10 minutes exceeded, stopping');
    process.exit(3);
  }, 10 * 60_000).unref();
  const r = await runSyncDelayBench();
  console.log('');
  console.log(delayReport(r));
  process.exit(r.missing > 0 || !r.converged ? 1 : 0);
}
