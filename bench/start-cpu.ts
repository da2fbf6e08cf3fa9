/**
 * CPU of a start, side A against side B (issue 29 point 5): each side is a checkout (a worktree) with
 * its own migrated SQLite data folder, started alternately (A, B, A, B, ...) in the same minutes as
 * its `npm start` runs after npm: `node <the node options of its package.json start script>
 * scripts/start.mjs` (the up-to-date check of dist/, then the server's bundle), the appliance role.
 * At the "restaurant service ready" line the process's CPU time (utime + stime of all its threads,
 * /proc/<pid>/stat) is read, with the wall time and the ready line's `startup` phases; then SIGTERM.
 * CPU time is far less sensitive to a shared machine's load than wall time; the load average is
 * printed with the figures.
 *
 *   BENCH_START_A=/path/to/main BENCH_START_B=. npx tsx bench/start-cpu.ts
 *   # BENCH_START_ROUNDS=10; BENCH_START_A_ARGS / BENCH_START_B_ARGS: node options instead of the package.json's
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 10);
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);

interface Side {
  name: string;
  root: string;
  nodeArgs: string[];
  dataDir: string;
}

/** The node options of a checkout's `npm start` (`node <options> scripts/start.mjs`). */
function startArgs(root: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  if (words[0] !== 'node' || words[words.length - 1] !== 'scripts/start.mjs') throw new Error(`${root}: start script is not "node ... scripts/start.mjs": ${pkg.scripts.start}`);
  return words.slice(1, -1);
}

function side(name: string): Side {
  const root = path.resolve(process.env[`BENCH_START_${name}`] ?? '.');
  const override = process.env[`BENCH_START_${name}_ARGS`];
  return {
    name,
    root,
    nodeArgs: override !== undefined ? override.split(/\s+/).filter(Boolean) : startArgs(root),
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `start-cpu-${name}-`)),
  };
}

/** CPU ms (user + system, all threads) of a running process. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

interface Run {
  cpu: number;
  wall: number;
  startup: Record<string, number>;
}

async function once(s: Side): Promise<Run> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...s.nodeArgs, 'scripts/start.mjs'], {
    cwd: s.root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', PORT: '0', HOST: '127.0.0.1', DATA_DIR: s.dataDir, LOG_LEVEL: 'info', ROLE: 'local' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const run = await new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${s.name}: no ready line within 120 s: ${out}`)), 120_000);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n').find((l) => l.includes('restaurant service ready'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.removeAllListeners('data');
      resolve({ cpu: cpuMs(child.pid!), wall: performance.now() - t0, startup: (JSON.parse(line) as { startup: Record<string, number> }).startup });
    });
    child.on('exit', (code) => reject(new Error(`${s.name}: exited ${code}: ${out}`)));
  });
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return run;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

const sides = [side('A'), side('B')];
try {
  for (const s of sides) {
    await once(s); // builds dist/ if stale, migrates the data folder: not counted
    console.log(`${s.name}: ${s.root}, node ${s.nodeArgs.join(' ')} scripts/start.mjs`);
  }
  const runs = new Map<string, Run[]>(sides.map((s) => [s.name, []]));
  console.log(`${ROUNDS} rounds, alternating; load at the start ${load()}`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const run = await once(s);
      runs.get(s.name)!.push(run);
      const p = run.startup;
      console.log(
        `  round ${r + 1} ${s.name}: CPU ${run.cpu.toFixed(0)} ms, ready ${run.wall.toFixed(0)} ms wall, imported ${p.imported_ms} ms, app built (− services) ${p.app_built_ms! - p.services_ms!} ms, listening ${p.listening_ms} ms (load ${load()})`,
      );
    }
  }
  console.log(`\nload at the end ${load()}`);
  for (const s of sides) {
    const rs = runs.get(s.name)!;
    const cpus = rs.map((r) => r.cpu).sort((a, b) => a - b);
    console.log(
      `${s.name}: CPU until ready ${cpus.map((c) => c.toFixed(0)).join(' ')}; median ${median(cpus).toFixed(0)} ms; ` +
        `imported_ms median ${median(rs.map((r) => r.startup.imported_ms!))}; app built (− services) median ${median(rs.map((r) => r.startup.app_built_ms! - r.startup.services_ms!))}; ` +
        `ready (wall) median ${median(rs.map((r) => r.wall)).toFixed(0)} ms`,
    );
  }
} finally {
  for (const s of sides) fs.rmSync(s.dataDir, { recursive: true, force: true });
}
