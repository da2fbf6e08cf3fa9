import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { markConsumerBatches } from './consumer-marker.js';

/**
 * Bench child side: where each traced request's time goes, inside the node (issue 28 point 14:
 * "what do the slow public orders wait on"). Per request of the traced routes: its time in the node
 * (request received → answer finished), the time its queries waited for a pool connection, each
 * statement's round trip (sent → answer handled, so a late event loop counts in it too), and the
 * GC pauses and event-loop stalls that overlapped it. Attribution is by AsyncLocalStorage, entered
 * in a preHandler hook (the body is parsed by then), so what runs before the handler (routing,
 * body parsing) is in the total and not in the statements.
 *
 * IPC {type:'request-trace', action:'reset'|'get'} answers {type:'request-trace', records, gc, stalls} on 'get'.
 */
export interface Statement {
  /** Class of the statement: begin, commit, rollback, lock (the tenant's change_seq row), or its verb and first table. */
  what: string;
  /** Start, ms after the request was received. */
  at: number;
  ms: number;
}
export interface RequestRecord {
  route: string;
  /** performance.now() of this process when received. */
  start: number;
  total: number;
  /** Received → the handler's preHandler (routing, body, validation, hooks). */
  before: number;
  poolWait: number;
  /** Time with at least one statement in flight and no connection awaited (the union: parallel statements count once). */
  inStatements: number;
  statements: Statement[];
  gcMs: number;
  stallMs: number;
  /** The slug or the device key's tenant is unknown here; the route's path without the query. */
  path: string;
  status: number;
  /** The first traced request to this path on this node (a restaurant's first web order here: its caches are cold). */
  first: boolean;
}
export interface TraceDump {
  type: 'request-trace';
  records: RequestRecord[];
  /** GC pauses and event-loop stalls over the whole step: count and ms. */
  gc: { n: number; ms: number; maxMs: number };
  stalls: { n: number; ms: number; maxMs: number };
  resetAt: number;
}

interface Ctx {
  route: string;
  path: string;
  start: number;
  handlerAt: number;
  /** Pool waits as [from, to] (several can overlap: parallel queries). */
  waits: Array<[number, number]>;
  statements: Statement[];
  done: boolean;
}

const als = new AsyncLocalStorage<Ctx>();
/** The change consumers run in the async context of the commit that woke them, in transactions of their own: not the request's. */
let inConsumer: AsyncLocalStorage<boolean> | undefined;
const ctxNow = (): Ctx | undefined => {
  const c = als.getStore();
  return c && !c.done && !inConsumer?.getStore() ? c : undefined;
};
/** Total length of the union of intervals. */
const unionMs = (xs: Array<[number, number]>): number => {
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of [...xs].sort((x, y) => x[0] - y[0])) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
};
const TRACED = /^(POST \/public\/order\/|POST \/sync\/push|POST \/payments\/)/;

export function classify(text: string): string {
  const s = text.trim().toLowerCase();
  if (s === 'begin' || s.startsWith('start transaction')) return 'begin';
  if (s === 'commit') return 'commit';
  if (s === 'rollback') return 'rollback';
  if (s.startsWith('insert into "change_seq"') && !s.includes('returning') && !s.includes('+')) return 'lock';
  if (s.startsWith('with') && s.includes('"change_seq"')) return 'change';
  const verb = s.split(/\s+/)[0]!;
  const table = /(?:from|into|update)\s+"?([a-z_]+)"?/.exec(s)?.[1] ?? '?';
  return `${verb} ${table}`;
}

/** Wraps `pool` (before any query) so every statement and connection wait is attributed to the request in whose async context it runs. */
export function tracePool(pool: pg.Pool): void {
  inConsumer ??= markConsumerBatches();
  const marked = new WeakSet<object>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as unknown as { connect: (...a: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    if (args.length > 0) return (connect as (...a: unknown[]) => unknown)(...args);
    const ctx = ctxNow();
    const t = performance.now();
    return connect().then((client) => {
      if (ctx) ctx.waits.push([t, performance.now()]);
      if (!marked.has(client)) {
        marked.add(client);
        const query = client.query.bind(client) as (...a: unknown[]) => unknown;
        (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...qa: unknown[]) => {
          const c = ctxNow();
          const r = query(...qa);
          if (!c || typeof qa[0] !== 'string' || !(r instanceof Promise)) return r;
          const t0 = performance.now();
          const at = t0 - c.start;
          const done = () => {
            if (!c.done) c.statements.push({ what: classify(qa[0] as string), at, ms: performance.now() - t0 });
          };
          r.then(done, done);
          return r;
        };
      }
      return client;
    });
  };
}

export function traceRequests(app: FastifyInstance, server: Server): void {
  const ctxOf = new WeakMap<IncomingMessage, Ctx>();
  const seenPaths = new Set<string>();
  let records: RequestRecord[] = [];
  let resetAt = performance.now();
  // GC pauses and loop stalls, kept with their times to overlap them with requests.
  const gcs: Array<[number, number]> = [];
  const stalls: Array<[number, number]> = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 15) stalls.push([last + 5, now]); // a 5 ms timer that came > 10 ms late
    last = now;
  }, 5).unref();
  const overlap = (xs: Array<[number, number]>, a: number, b: number) => xs.reduce((s, [x, y]) => s + Math.max(0, Math.min(b, y) - Math.max(a, x)), 0);
  const prune = () => {
    const keep = performance.now() - 120_000;
    for (const xs of [gcs, stalls]) while (xs.length > 0 && xs[0]![1] < keep && xs[0]![1] < resetAt) xs.shift();
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!.replace('/api/v1', '');
    const route = `${req.method} ${path}`;
    if (!TRACED.test(route)) return;
    const ctx: Ctx = { route, path, start: performance.now(), handlerAt: NaN, waits: [], statements: [], done: false };
    ctxOf.set(req, ctx);
    const first = !seenPaths.has(path);
    seenPaths.add(path);
    res.once('finish', () => {
      const end = performance.now();
      ctx.done = true; // what the request set off and did not wait for is not its time
      const poolWait = unionMs(ctx.waits.map(([a, b]) => [a, Math.min(b, end)]));
      // In statements: time inside a statement and not already waiting for a connection (parallel statements counted once).
      const busy = unionMs([...ctx.waits, ...ctx.statements.map((x): [number, number] => [ctx.start + x.at, ctx.start + x.at + x.ms])]);
      records.push({
        route: route.replace(/\/(cap-\d+|sim_[A-Za-z0-9]+|[0-9a-f-]{36})$/, '/:id'),
        path,
        start: ctx.start,
        total: end - ctx.start,
        before: (Number.isNaN(ctx.handlerAt) ? end : ctx.handlerAt) - ctx.start,
        poolWait,
        inStatements: busy - poolWait,
        statements: ctx.statements,
        gcMs: overlap(gcs, ctx.start, end),
        stallMs: overlap(stalls, ctx.start, end),
        status: res.statusCode,
        first,
      });
    });
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const ctx = ctxOf.get(request.raw);
    if (!ctx) return done();
    ctx.handlerAt = performance.now();
    als.run(ctx, done);
  });
  const sum = (xs: Array<[number, number]>) => {
    const inStep = xs.filter(([, b]) => b >= resetAt);
    return { n: inStep.length, ms: inStep.reduce((s, [a, b]) => s + b - a, 0), maxMs: inStep.reduce((m, [a, b]) => Math.max(m, b - a), 0) };
  };
  process.on('message', (m: { type?: string; action?: string }) => {
    if (m?.type !== 'request-trace') return;
    if (m.action === 'reset') {
      records = [];
      resetAt = performance.now();
      prune();
      return;
    }
    process.send!({ type: 'request-trace', records, gc: sum(gcs), stalls: sum(stalls), resetAt } satisfies TraceDump);
    prune();
  });
}

/** Parent side. */
export function requestTrace(child: import('node:child_process').ChildProcess): Promise<TraceDump> {
  return new Promise((resolve) => {
    const on = (m: TraceDump) => {
      if (m?.type !== 'request-trace') return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.send({ type: 'request-trace', action: 'get' });
  });
}

const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');

/**
 * Where the slowest `share` of one route's requests spent their time, against the rest: the
 * in-node total, before the handler, waiting for a connection, in statements (by class: the lock,
 * commits, the rest), in the node between statements, GC and stalls overlapped; and how many of them
 * read what a warm cache would answer (`coldReads`: statement classes that only a cold path runs).
 */
export function attribute(records: RequestRecord[], route: string, share = 0.05, coldReads: string[] = []): string[] {
  const rs = records.filter((r) => r.route === route).sort((a, b) => b.total - a.total);
  if (rs.length === 0) return [];
  const k = Math.max(1, Math.ceil(rs.length * share));
  const groups: Array<[string, RequestRecord[]]> = [
    [`slowest ${k}`, rs.slice(0, k)],
    [`other ${rs.length - k}`, rs.slice(k)],
  ];
  const lines: string[] = [];
  for (const [name, g] of groups) {
    if (g.length === 0) continue;
    const st = (r: RequestRecord, pred: (w: string) => boolean) => r.statements.filter((s) => pred(s.what)).reduce((s, x) => s + x.ms, 0);
    const all = (r: RequestRecord) => r.inStatements;
    const cold = g.filter((r) => r.statements.some((s) => coldReads.includes(s.what))).length;
    const firsts = g.filter((r) => r.first).length;
    lines.push(
      `    ${route} ${name}: total ${f(avg(g.map((r) => r.total)))} ms = before handler ${f(avg(g.map((r) => r.before)))} + pool wait ${f(avg(g.map((r) => r.poolWait)))}` +
        ` + statements ${f(avg(g.map(all)))} (${f(avg(g.map((r) => r.statements.length)))} of them; lock ${f(avg(g.map((r) => st(r, (w) => w === 'lock'))))}, commit ${f(avg(g.map((r) => st(r, (w) => w === 'commit'))))})` +
        ` + node between ${f(avg(g.map((r) => r.total - r.before - r.poolWait - all(r))))}; GC overlap ${f(avg(g.map((r) => r.gcMs)))}, loop stalls ${f(avg(g.map((r) => r.stallMs)))}; cold reads in ${cold}/${g.length}, first to its path on this node ${firsts}/${g.length}`,
    );
  }
  const counts = new Map<number, number>();
  for (const r of rs) counts.set(r.statements.length, (counts.get(r.statements.length) ?? 0) + 1);
  lines.push(`      statements per request: ${[...counts].sort((a, b) => b[1] - a[1]).map(([n, c]) => `${n} in ${c}`).join(', ')}; first to its path on this node: ${rs.filter((r) => r.first).length} of ${rs.length}`);
  for (const r of rs.slice(0, Math.min(k, 5))) {
    const top = [...r.statements].sort((a, b) => b.ms - a.ms).slice(0, 4);
    lines.push(`      ${f(r.total)} ms at +${f(r.start / 1000)} s ${r.path}${r.first ? ' (first here)' : ''}: before ${f(r.before)}, pool ${f(r.poolWait)}, ${r.statements.length} statements ${f(r.statements.reduce((s, x) => s + x.ms, 0))} ms (slowest: ${top.map((s) => `${s.what} ${f(s.ms)}`).join(', ')}), GC ${f(r.gcMs)}, stalls ${f(r.stallMs)}`);
  }
  return lines;
}
