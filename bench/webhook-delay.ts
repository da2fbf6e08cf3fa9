/**
 * The online delay of a webhook (issue 29 point 2, session 18): how long after a web order's POST is
 * answered the partner's receiver has its `order.created`, on an otherwise idle cloud.
 *
 * The cloud in its own process (bench/servers/cloud.ts, the sender thread as in production) and a
 * receiver in this process, so the POST's answer and the delivery's arrival share one clock. One order
 * every BENCH_WH_INTERVAL_MS (200), BENCH_WH_WARMUP (20) not counted, then BENCH_WH_ORDERS (200).
 * Prints the delays' percentiles and the sender thread's nice value (/proc).
 *
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/webhook-delay.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { cloudAdminCookie, sleep, startCloud, subscribeWebhook } from './lib/sync.js';

const ORDERS = Number(process.env.BENCH_WH_ORDERS ?? 200);
const WARMUP = Number(process.env.BENCH_WH_WARMUP ?? 20);
const INTERVAL_MS = Number(process.env.BENCH_WH_INTERVAL_MS ?? 200);

const arrived = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { order?: { id: string } } };
    if (body.type === 'order.created' && body.data.order) arrived.set(body.data.order.id, at);
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const { server, info } = await startCloud();
try {
  await subscribeWebhook(server, url, new Date());
  const cookie = await cloudAdminCookie(server.url);
  const answered = new Map<string, number>();
  for (let i = 0; i < WARMUP + ORDERS; i++) {
    const res = await fetch(`${server.url}/api/v1/orders`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ product_id: info.products[i % info.products.length]!.id, quantity: 1 }], customer: { name: `Web ${i}` } }),
    });
    const at = performance.now();
    if (res.status !== 201) throw new Error(`bench: POST /orders answered ${res.status}`);
    const { id } = (await res.json()) as { id: string };
    if (i >= WARMUP) answered.set(id, at);
    await sleep(INTERVAL_MS);
  }
  const deadline = performance.now() + 30_000;
  while ([...answered.keys()].some((id) => !arrived.has(id)) && performance.now() < deadline) await sleep(50);
  const delays = [...answered].map(([id, at]) => (arrived.get(id) ?? Number.NaN) - at).sort((a, b) => a - b);
  const missing = delays.filter((d) => Number.isNaN(d)).length;
  const got = delays.filter((d) => !Number.isNaN(d));
  const pct = (p: number) => got[Math.min(got.length - 1, Math.floor((p / 100) * got.length))]!.toFixed(1);
  // The sender thread: the cloud's thread with a nice value of its own (none when it runs at the process's).
  const pid = server.child.pid!;
  const nices = fs.readdirSync(`/proc/${pid}/task`).map((tid) => ({ tid, nice: os.getPriority(Number(tid)) }));
  console.log(
    `webhook delay, POST answered → order.created received (${got.length} orders, ${missing} missing, one every ${INTERVAL_MS} ms): ` +
      `p50 ${pct(50)} ms, p90 ${pct(90)} ms, p99 ${pct(99)} ms, max ${got.at(-1)!.toFixed(1)} ms, min ${got[0]!.toFixed(1)} ms; ` +
      `the cloud's threads at a nice value of their own: ${nices.filter((t) => t.nice !== os.getPriority(pid)).map((t) => `${t.tid} (nice ${t.nice})`).join(', ') || 'none'}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
} finally {
  await server.stop();
  receiver.close();
}
