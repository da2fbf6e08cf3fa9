// What a sync bench counts on the appliance's side, in a module that imports nothing of the bench's
// own (no pg, no child processes): bench/servers/appliance-catchup.ts (the appliance of the catch-up
// in its own process, compiled into dist/bench/) uses it, and so does the in-process mode through
// bench/lib/sync.ts. Also the memory of a process from /proc, sampled per phase.
import fs from 'node:fs';
import { sourceOf, wrapStatements } from './sqlite-statements.js';
import { jsonBody, type SyncReply, type SyncRequest, type SyncTransport } from '../../sync/transport.js';

/** Per-path time spent waiting for the cloud's answer (HTTP + cloud work), for the phase split. */
export class TimedTransport implements SyncTransport {
  readonly stats = new Map<string, { calls: number; ms: number; bytesOut: number; bytesIn: number; maxIn: number }>();
  /** `countIn`: also measure each answer's size as JSON (BENCH_SYNC_BYTES=1; costs a stringify per answer, outside the timed wait). */
  constructor(
    private readonly inner: SyncTransport,
    private readonly countIn = process.env.BENCH_SYNC_BYTES === '1',
  ) {}
  async send(req: SyncRequest): Promise<SyncReply> {
    const t0 = performance.now();
    let reply: SyncReply | undefined;
    try {
      return (reply = await this.inner.send(req));
    } finally {
      const s = this.stats.get(req.path) ?? { calls: 0, ms: 0, bytesOut: 0, bytesIn: 0, maxIn: 0 };
      s.calls += 1;
      s.ms += performance.now() - t0;
      if (req.body !== undefined) s.bytesOut += jsonBody(req.body).length;
      if (this.countIn && reply) {
        const n = Buffer.byteLength(JSON.stringify(reply.body) ?? '');
        s.bytesIn += n;
        s.maxIn = Math.max(s.maxIn, n);
      }
      this.stats.set(req.path, s);
    }
  }
  reset(): void {
    this.stats.clear();
  }
  get(path: string): { calls: number; ms: number; bytesOut: number; bytesIn: number; maxIn: number } {
    return this.stats.get(path) ?? { calls: 0, ms: 0, bytesOut: 0, bytesIn: 0, maxIn: 0 };
  }
}

/**
 * Counts the SQLite statements this process executes (better-sqlite3's Statement run/all/get/iterate,
 * which Kysely's driver calls once per query) and the transactions among them (`begin`): the
 * appliance's deterministic cost of a phase, whatever the machine's load.
 */
export function sqliteCounter(): { reset(): void; get(): { statements: number; transactions: number } } {
  wrapStatements('counted', (stmt, call) => {
    sqliteCounts.statements += 1;
    let begin = isBegin.get(stmt);
    if (begin === undefined) isBegin.set(stmt, (begin = /^\s*begin/i.test(sourceOf(stmt))));
    if (begin) sqliteCounts.transactions += 1;
    return call();
  });
  return {
    reset() {
      sqliteCounts.statements = 0;
      sqliteCounts.transactions = 0;
    },
    get: () => ({ ...sqliteCounts }),
  };
}
const sqliteCounts = { statements: 0, transactions: 0 };

/**
 * BENCH_SQL_PROFILE on the appliance: the time of every SQLite statement this process runs, by its
 * SQL text (the first 110 characters; a multi-row insert's `(?, …), …` folded), so a phase says where
 * its database time went (inserts, reads, `commit` = the WAL write and its fsync).
 */
export function sqliteProfile(): { reset(): void; print(label: string): void } {
  wrapStatements('timed', (stmt, call) => {
    const t0 = performance.now();
    try {
      return call();
    } finally {
      const ms = performance.now() - t0;
      let key = sqlKeys.get(stmt);
      if (key === undefined) sqlKeys.set(stmt, (key = sourceOf(stmt).replace(/(\(\?(, \?)*\))(, \(\?(, \?)*\))+/g, '$1, …').replace(/\?(, \?)+/g, '?, …').slice(0, 110)));
      const e = sqlTimes.get(key) ?? { n: 0, ms: 0 };
      e.n += 1;
      e.ms += ms;
      sqlTimes.set(key, e);
    }
  });
  return {
    reset: () => sqlTimes.clear(),
    print(label) {
      let n = 0;
      let ms = 0;
      for (const e of sqlTimes.values()) {
        n += e.n;
        ms += e.ms;
      }
      console.error(`bench appliance SQLite profile (${label}): ${n} statements, ${ms.toFixed(0)} ms inside SQLite`);
      for (const [k, e] of [...sqlTimes].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30)) console.error(`${e.ms.toFixed(0).padStart(7)} ms ${String(e.n).padStart(7)} ${(e.ms / e.n).toFixed(3).padStart(7)}  ${k}`);
    },
  };
}
const sqlTimes = new Map<string, { n: number; ms: number }>();
const sqlKeys = new WeakMap<object, string>();
const isBegin = new WeakMap<object, boolean>();


/** A process's resident set now (VmRSS) and its high-water mark since it started (VmHWM), in bytes, from /proc; null when it is gone. */
export function procMemory(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** Per phase: the first and the peak VmRSS seen, the samples taken. */
export interface PhaseMemory {
  phase: string;
  first: number;
  peak: number;
  samples: number;
}

/**
 * Samples the VmRSS of each named process every `everyMs` (default 200 ms) and files each sample under
 * the phase set last (`phase('push')`), so a run reports its memory per phase (idle, push, pull, join)
 * for each process. `stop()` takes a last sample and reads each process's VmHWM (its peak since it started,
 * which also covers the moments between samples).
 */
export function phaseSampler(procs: Record<string, number>, everyMs = 200): {
  phase(name: string): void;
  /** The figures so far (a copy), sampling goes on. */
  snapshot(): Record<string, { phases: PhaseMemory[]; peak: number; hwm: number }>;
  stop(): Record<string, { phases: PhaseMemory[]; peak: number; hwm: number }>;
} {
  let current = 'idle';
  const out: Record<string, { phases: PhaseMemory[]; peak: number; hwm: number }> = {};
  for (const name of Object.keys(procs)) out[name] = { phases: [], peak: 0, hwm: 0 };
  const sample = () => {
    for (const [name, pid] of Object.entries(procs)) {
      const m = procMemory(pid);
      if (!m) continue;
      const o = out[name]!;
      o.hwm = Math.max(o.hwm, m.hwm);
      o.peak = Math.max(o.peak, m.rss);
      let p = o.phases.at(-1);
      if (!p || p.phase !== current) o.phases.push((p = { phase: current, first: m.rss, peak: 0, samples: 0 }));
      p.peak = Math.max(p.peak, m.rss);
      p.samples += 1;
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    phase(name) {
      sample();
      current = name;
      sample();
    },
    snapshot() {
      sample();
      return structuredClone(out);
    },
    stop() {
      clearInterval(timer);
      sample();
      return out;
    },
  };
}

/** "idle 163 → 170, push 171 → 240 MiB": each phase's first and peak VmRSS. */
export function phaseFigures(phases: PhaseMemory[]): string {
  return phases.map((p) => `${p.phase} ${Math.round(p.first / 2 ** 20)} → ${Math.round(p.peak / 2 ** 20)}`).join(', ') + ' MiB';
}
