/**
 * Fan-out: 50 socket.io clients of one tenant, N sequential POST /orders; for each order, the time
 * from the POST's answer arriving here until the last of the 50 clients has that order's
 * `order:created` event (p50/p99/max), plus the time from sending the POST.
 *
 * The appliance runs in a child process (bench/servers/appliance.ts, the same seeded SQLite file
 * with WAL + synchronous=FULL as orders.bench.ts). The 50 clients, the HTTP client and the clock
 * share this one process, so every timestamp comes from the same performance.now(); the server keeps
 * its own event loop (and, on a 2-core machine, effectively its own core), so decoding 50 client
 * frames here does not delay the server and the server's commit does not delay the clients.
 *
 * The server emits right after commit, before it writes the HTTP answer, so a client can have the
 * event before the POST's answer arrives: that order counts as 0 ms "after the answer" (the number
 * of such orders is printed).
 *
 *   npx tsx bench/fanout.bench.ts      # BENCH_FANOUT_CLIENTS=50 BENCH_FANOUT_ORDERS=200
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { io as connect, type Socket } from 'socket.io-client';
import { startServer } from './lib/child.js';
import { machine, ms, percentile, table } from './lib/format.js';
import { prepareTemplate } from './lib/seed.js';

export interface FanoutOptions {
  clients: number;
  orders: number;
  warmup: number;
}

export interface FanoutResult {
  clients: number;
  orders: number;
  /** POST answer → all clients have the event, clamped at 0 (ms). */
  afterAnswer: { p50: number; p99: number; max: number };
  /** POST sent → all clients have the event (ms). */
  afterSend: { p50: number; p99: number; max: number };
  /** POST sent → answer (ms). */
  post: { p50: number; p99: number; max: number };
  /** First client has the event → last client has it (ms): the fan-out itself. */
  spread: { p50: number; p99: number; max: number };
  eventsBeforeAnswer: number;
  timeouts: number;
}

export const defaultFanoutOptions = (): FanoutOptions => ({
  clients: Number(process.env.BENCH_FANOUT_CLIENTS ?? 50),
  orders: Number(process.env.BENCH_FANOUT_ORDERS ?? 200),
  warmup: Number(process.env.BENCH_FANOUT_WARMUP ?? 20),
});

interface Arrival {
  count: number;
  firstAt: number;
  lastAt: number;
  done?: (at: number) => void;
}

function post(agent: http.Agent, url: URL, cookie: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), cookie } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
};

export async function runFanoutBench(o: FanoutOptions = defaultFanoutOptions()): Promise<FanoutResult> {
  console.log(`fan-out bench: ${o.clients} socket.io clients, ${o.orders} sequential POST /orders after ${o.warmup} warm-up orders`);
  console.log(`machine: ${machine()}`);
  const template = await prepareTemplate();
  const server = await startServer('appliance', { env: template.env });
  const sockets: Socket[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const cookie = server.ready.cookie!;
    const body = JSON.stringify(server.ready.postBody);
    const arrivals = new Map<string, Arrival>();
    const onEvent = (e: { order: { id: string } }) => {
      const at = performance.now();
      let a = arrivals.get(e.order.id);
      if (!a) arrivals.set(e.order.id, (a = { count: 0, firstAt: at, lastAt: 0 }));
      if (a.count === 0) a.firstAt = at;
      a.count += 1;
      a.lastAt = at;
      if (a.count === o.clients) a.done?.(at);
    };
    await Promise.all(
      Array.from({ length: o.clients }, () => {
        const socket = connect(server.url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
        sockets.push(socket);
        socket.on('order:created', onEvent);
        return new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('fan-out: a client got no hello within 10 s')), 10_000);
          socket.once('hello', () => (clearTimeout(t), resolve()));
          socket.once('connect_error', (err) => (clearTimeout(t), reject(err)));
        });
      }),
    );

    const url = new URL('/api/v1/orders', server.url);
    const afterAnswer: number[] = [];
    const afterSend: number[] = [];
    const postMs: number[] = [];
    const spread: number[] = [];
    let before = 0;
    let timeouts = 0;
    for (let i = 0; i < o.warmup + o.orders; i++) {
      const sent = performance.now();
      const res = await post(agent, url, cookie, body);
      const answered = performance.now();
      if (res.status !== 201) throw new Error(`fan-out: POST /orders answered ${res.status}: ${res.text}`);
      const id = (JSON.parse(res.text) as { id: string }).id;
      let a = arrivals.get(id);
      if (!a) arrivals.set(id, (a = { count: 0, firstAt: 0, lastAt: 0 }));
      const all =
        a.count >= o.clients
          ? a.lastAt
          : await new Promise<number | null>((resolve) => {
              const t = setTimeout(() => resolve(null), 5_000);
              a.done = (at) => (clearTimeout(t), resolve(at));
            });
      arrivals.delete(id);
      if (i < o.warmup) continue;
      if (all === null) {
        timeouts += 1;
        continue;
      }
      if (all < answered) before += 1;
      spread.push(all - a.firstAt);
      afterAnswer.push(Math.max(0, all - answered));
      afterSend.push(all - sent);
      postMs.push(answered - sent);
    }
    const result: FanoutResult = {
      clients: o.clients,
      orders: o.orders,
      afterAnswer: stats(afterAnswer),
      afterSend: stats(afterSend),
      post: stats(postMs),
      spread: stats(spread),
      eventsBeforeAnswer: before,
      timeouts,
    };
    console.log('\n' + fanoutReport(result));
    return result;
  } finally {
    for (const s of sockets) s.close();
    agent.destroy();
    await server.stop();
    template.cleanup();
  }
}

export function fanoutReport(r: FanoutResult): string {
  const row = (name: string, s: { p50: number; p99: number; max: number }) => [name, ms(s.p50), ms(s.p99), ms(s.max)];
  return [
    table([
      ['fan-out (' + r.clients + ' clients, ' + r.orders + ' orders)', 'p50 ms', 'p99 ms', 'max ms'],
      row('POST answer -> all clients have the event', r.afterAnswer),
      row('POST sent -> all clients have the event', r.afterSend),
      row('first client -> last client has the event', r.spread),
      row('POST sent -> answer', r.post),
    ]),
    `events complete before the answer arrived: ${r.eventsBeforeAnswer}/${r.orders}; timeouts (5 s): ${r.timeouts}`,
    `target fan-out p99 < 5 ms: ${ms(r.afterAnswer.p99)} ms -> ${r.timeouts === 0 && r.afterAnswer.p99 < 5 ? 'MET' : 'MISSED'}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runFanoutBench();
}
