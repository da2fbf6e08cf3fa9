/**
 * Where a start's CPU goes (issue 29 point 5): the compiled server (`node dist/server/main.js`, what
 * `npm start` runs after its up-to-date check; the desktop shell's bundle holds the same server) started under
 * `--cpu-prof` on a SQLite data folder migrated by a first, untimed start, the appliance role. Each
 * run waits for the "restaurant service ready" line (its `startup` phases: in-process timings since
 * the process began), stops the server (SIGTERM) and reads the profile: CPU time (every sample but
 * `(idle)`; the profile ends with the short shutdown), by package (the nearest frame of a sample in
 * node_modules or in dist/, node's own module loader as `node:internal`), and the modules loaded.
 * Code in a bundle of scripts/build-if-stale.mjs (dist/server/main.js holds all our own modules and the
 * packages it does not leave external) is attributed to its source folder or package through the
 * bundle's source map (a function by where it begins).
 * CPU time is far less noisy than wall time on a shared machine.
 *
 *   npx tsx bench/start-profile.ts          # BENCH_START_RUNS=3 BENCH_START_TOP=25 BENCH_START_KEEP=<dir for the .cpuprofile files>
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Profile, ProfileNode } from './lib/cpuprofile.js';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 3);
const TOP = Number(process.env.BENCH_START_TOP ?? 25);
const KEEP = process.env.BENCH_START_KEEP;
const ROOT = process.cwd();
const ENTRY = path.join(ROOT, 'dist', 'server', 'main.js');

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A source map's mappings as, per generated line, [generated column, source index] in column order. */
function decodeMappings(mappings: string): Array<Array<[number, number]>> {
  const lines: Array<Array<[number, number]>> = [];
  let source = 0;
  for (const line of mappings.split(';')) {
    const segs: Array<[number, number]> = [];
    let col = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      col += fields[0]!;
      if (fields.length > 1) source += fields[1]!;
      segs.push([col, source]);
    }
    lines.push(segs);
  }
  return lines;
}

const maps = new Map<string, { sources: string[]; lines: Array<Array<[number, number]>> } | null>();
/** The source file (relative to the root) of a position in a bundle with a source map beside it. */
function sourceOf(url: string, line: number, column: number): string | null {
  const file = url.startsWith('file:') ? new URL(url).pathname : url;
  if (!maps.has(file)) {
    try {
      const map = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string };
      maps.set(file, { sources: map.sources.map((s) => path.relative(ROOT, path.resolve(path.dirname(file), s))), lines: decodeMappings(map.mappings) });
    } catch {
      maps.set(file, null);
    }
  }
  const map = maps.get(file);
  const segs = map?.lines[line];
  if (!map || !segs?.length) return null;
  let hit = segs[0]!;
  for (const seg of segs) {
    if (seg[0] > column) break;
    hit = seg;
  }
  return map.sources[hit[1]] ?? null;
}

/** The package of a path in node_modules (the innermost), or null. */
function packageIn(file: string): string | null {
  const nm = file.lastIndexOf('node_modules/');
  if (nm < 0) return null;
  const rest = file.slice(nm + 'node_modules/'.length).split('/');
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
}

function category(url: string, line = 0, column = 0): string | null {
  if (!url) return null;
  if (url.startsWith('node:')) return 'node:internal';
  const pkg = packageIn(url);
  if (pkg) return pkg;
  const dist = url.indexOf('/dist/');
  if (dist >= 0) {
    const source = sourceOf(url, line, column);
    // The server's bundle holds packages too (scripts/build-if-stale.mjs SERVER_EXTERNAL): by the package.
    const bundled = source ? packageIn(source) : null;
    if (bundled) return bundled;
    if (source && !source.startsWith('..')) return `own: ${source.split('/').slice(0, 2).join('/')}`;
    return `own: ${url.slice(dist + '/dist/'.length).split('/').slice(0, 2).join('/')}`;
  }
  return url;
}

/** CPU ms per category: a sample goes to the nearest frame with a package or own file (node's loader when only node frames). */
function analyse(profile: Profile): { cpuMs: number; by: Map<string, number>; special: Map<string, number> } {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const memo = new Map<number, string>();
  const catOf = (id: number): string => {
    const hit = memo.get(id);
    if (hit) return hit;
    let cur: number | undefined = id;
    let found: string | null = null;
    let nodeInternal = false;
    while (cur !== undefined) {
      const frame = byId.get(cur)!.callFrame;
      const c = category(frame.url, frame.lineNumber, frame.columnNumber);
      if (c === 'node:internal') nodeInternal = true;
      else if (c) {
        found = c;
        break;
      }
      cur = parent.get(cur);
    }
    const name = byId.get(id)!.callFrame.functionName;
    const result = found ?? (nodeInternal ? 'node:internal' : `(${name || 'root'})`);
    memo.set(id, result);
    return result;
  };
  const by = new Map<string, number>();
  const special = new Map<string, number>();
  let cpu = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!)!;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const fn = node.callFrame.functionName;
    if (fn === '(idle)') continue;
    cpu += ms;
    if (fn === '(program)' || fn === '(garbage collector)') special.set(fn, (special.get(fn) ?? 0) + ms);
    const c = fn === '(program)' || fn === '(garbage collector)' ? fn : catOf(node.id);
    by.set(c, (by.get(c) ?? 0) + ms);
  }
  return { cpuMs: cpu, by, special };
}

async function once(dataDir: string, profDir: string | null): Promise<{ startup: Record<string, number>; wallMs: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), ENTRY], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ROLE: 'local' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = await new Promise<{ startup: Record<string, number> }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 120 s: ${out}`)), 120_000);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      for (const line of out.split('\n')) {
        if (!line.includes('restaurant service ready')) continue;
        clearTimeout(timer);
        resolve(JSON.parse(line) as { startup: Record<string, number> });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const wallMs = performance.now() - t0;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { startup: ready.startup ?? {}, wallMs };
}

const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-if-stale.mjs'), '--quiet'], { stdio: 'inherit' });
if (build.status !== 0) throw new Error('build failed');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-profile-'));
try {
  await once(dataDir, null); // migrates the data folder
  const totals = new Map<string, number[]>();
  const cpus: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-prof-'));
    const { startup, wallMs } = await once(dataDir, profDir);
    const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!;
    const profile = JSON.parse(fs.readFileSync(path.join(profDir, file), 'utf8')) as Profile;
    const { cpuMs, by } = analyse(profile);
    cpus.push(cpuMs);
    for (const [k, v] of by) totals.set(k, [...(totals.get(k) ?? []), v]);
    const modules = new Set(profile.nodes.map((n) => n.callFrame.url).filter((u) => u.startsWith('file:')));
    console.log(
      `run ${r + 1}: ready after ${wallMs.toFixed(0)} ms wall; CPU ${cpuMs.toFixed(0)} ms; ` +
        `phases ${JSON.stringify(startup)}; ${modules.size} files with sampled code`,
    );
    if (KEEP) {
      fs.mkdirSync(KEEP, { recursive: true });
      fs.copyFileSync(path.join(profDir, file), path.join(KEEP, `start-${r + 1}.cpuprofile`));
    }
    fs.rmSync(profDir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nCPU of a start (profile, until the ready line and the shutdown): median ${median(cpus).toFixed(0)} ms of ${cpus.map((c) => c.toFixed(0)).join(', ')} (load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  console.log(`\nCPU ms by package (median over ${RUNS} runs), top ${TOP}:`);
  const rows = [...totals].map(([k, v]) => [k, median([...v, ...Array(RUNS - v.length).fill(0)])] as const).sort((a, b) => b[1] - a[1]);
  for (const [k, v] of rows.slice(0, TOP)) console.log(`${v.toFixed(0).padStart(7)}  ${k}`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
