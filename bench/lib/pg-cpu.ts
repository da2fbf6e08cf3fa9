import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';

/**
 * The CPU of the PostgreSQL backends serving one database (its connections' processes, from
 * /proc/<pid>/stat), for "where does the push's time go" on a shared machine: the cloud's own
 * process CPU (bench/servers/cloud.ts) leaves out the database's work, which runs in these
 * processes. Only where PostgreSQL runs on this machine (else 0). A backend that started between two
 * readings counts from its start; one that ended is lost (the cloud's pools keep theirs).
 */
const TICK_MS = 1000 / 100; // USER_HZ: 100 on Linux

/** utime + stime of a process, ms; null when it is gone or not readable. */
export function cpuMsOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** The fields after the command name of each thread's /proc stat line, by thread id (empty when the process is gone). */
function threadStats(pid: number): Map<number, string[]> {
  const out = new Map<number, string[]>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** utime + stime of each thread of a process by thread id, ms (empty when the process is gone). */
export function threadCpuMsOf(pid: number): Map<number, number> {
  return new Map([...threadStats(pid)].map(([tid, f]) => [tid, (Number(f[11]) + Number(f[12])) * TICK_MS]));
}

/** The nice value of each thread of a process by thread id (empty when the process is gone). */
export function threadNiceOf(pid: number): Map<number, number> {
  return new Map([...threadStats(pid)].map(([tid, f]) => [tid, Number(f[16])]));
}

/**
 * How long a thread has waited in the run queue so far, ms (the second field of
 * /proc/<pid>/task/<tid>/schedstat): the time it was ready to run and had no core. Null where it is not readable.
 */
export function runWaitMsOf(pid: number, tid = pid): number | null {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

/**
 * The whole machine's CPU so far (the first line of /proc/stat), ms summed over its cores: `busy`
 * (everything but idle and iowait) and `total`. Null where there is no /proc/stat. With two readings
 * it says how many of the cores' seconds a phase used, whoever used them.
 */
export function machineCpuMs(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [, ...values] = line.trim().split(/\s+/);
    const n = values.map(Number);
    const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (n[3] ?? 0) + (n[4] ?? 0);
    return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
  } catch {
    return null;
  }
}

export interface PgCpuReading {
  at: Map<number, number>;
}

/** The backends of the database in `url` (but the one asking) and their CPU so far. */
export async function readPgCpu(url: string): Promise<PgCpuReading> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    const at = new Map<number, number>();
    if (os.platform() !== 'linux') return { at };
    for (const { pid } of rows) {
      const ms = cpuMsOf(Number(pid));
      if (ms !== null) at.set(Number(pid), ms);
    }
    return { at };
  } finally {
    await client.end();
  }
}

/** CPU ms the database's backends used between two readings. */
export function pgCpuBetween(a: PgCpuReading, b: PgCpuReading): number {
  let ms = 0;
  for (const [pid, now] of b.at) ms += now - (a.at.get(pid) ?? 0);
  return ms;
}

/** The table's size on disk with its indexes and TOAST (bytes). */
export async function tableBytes(url: string, table: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('select pg_total_relation_size($1::regclass) as n', [table])).rows[0]!.n);
  } finally {
    await client.end();
  }
}
