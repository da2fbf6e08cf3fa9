import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|sim_[A-Za-z0-9]+|cap-\d+|bench(?=\/|$)/g;

export interface ServerTimes {
  /** Server-side time per endpoint (request received → answer finished), ms. */
  times: Record<string, number[]>;
  /** Event-loop delay beyond the histogram's own 10 ms timer, ms. */
  loop: { p50: number; p99: number; max: number };
  /** CPU time of this process as a share of one core since the last reset. */
  cpuShare: number;
  /** Requests of 20 ms or more: key, start (epoch ms, `performance.timeOrigin` + now, comparable across processes), ms. */
  slow: Array<{ key: string; at: number; ms: number }>;
  /** Event-loop stalls: a 5 ms timer that fired 15 ms or more late (start epoch ms, how late ms). */
  stalls: Array<{ at: number; ms: number }>;
}

/** Epoch ms with sub-ms precision, the same clock in every bench process. */
export const epochMs = () => performance.timeOrigin + performance.now();

/**
 * Bench child side: times every request of `server` on this process's clock (key: method and path,
 * ids replaced by :id), and the event loop's delay. IPC {type:'server-times', action:'reset'|'get'}
 * answers {type:'server-times', ...ServerTimes} on 'get'.
 */
export function recordServerTimes(server: Server): void {
  const times = new Map<string, number[]>();
  const slow: ServerTimes['slow'] = [];
  const stalls: ServerTimes['stalls'] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    res.once('finish', () => {
      const key = `${req.method} ${(req.url ?? '').split('?')[0]!.replace('/api/v1', '').replace(ID, ':id')}`;
      const l = times.get(key) ?? [];
      const ms = performance.now() - t0;
      l.push(ms);
      times.set(key, l);
      if (ms >= 20 && slow.length < 10_000) slow.push({ key, at: performance.timeOrigin + t0, ms });
    });
  });
  // Stalls with their time, to line a slow answer up with what held the loop (a synchronous commit
  // waiting on the disk, GC, a sync page applied).
  let tick = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - tick - 5;
    if (late >= 15 && stalls.length < 10_000) stalls.push({ at: performance.timeOrigin + tick + 5, ms: late });
    tick = now;
  }, 5).unref();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let cpu0 = process.cpuUsage();
  let at0 = performance.now();
  process.on('message', (m: { type?: string; action?: string }) => {
    if (m?.type !== 'server-times') return;
    if (m.action === 'reset') {
      times.clear();
      slow.length = 0;
      stalls.length = 0;
      loop.reset();
      cpu0 = process.cpuUsage();
      at0 = performance.now();
      return;
    }
    const cpu = process.cpuUsage(cpu0);
    const over = (ns: number) => Math.max(0, ns / 1e6 - 10);
    process.send!({
      type: 'server-times',
      times: Object.fromEntries(times),
      loop: { p50: over(loop.percentile(50)), p99: over(loop.percentile(99)), max: over(loop.max) },
      cpuShare: (cpu.user + cpu.system) / 1000 / (performance.now() - at0),
      slow,
      stalls,
    } satisfies ServerTimes & { type: string });
  });
}

/** Parent side: asks a bench child for its server times. */
export function serverTimes(child: import('node:child_process').ChildProcess): Promise<ServerTimes> {
  return new Promise((resolve) => {
    const on = (m: ServerTimes & { type?: string }) => {
      if (m?.type !== 'server-times') return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.send({ type: 'server-times', action: 'get' });
  });
}
