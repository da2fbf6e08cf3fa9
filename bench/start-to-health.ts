/**
 * `npm start` → the first 200 from GET /api/v1/health (issue 29 point 5), as a new user's second
 * start would see it: the command as the README gives it, on a data folder migrated by a first start
 * (not timed), the appliance role, SQLite. Each run: spawn the command in its own process group, poll
 * /health every 20 ms, time the first 200, stop the group (SIGTERM, then SIGKILL).
 *
 *   npx tsx bench/start-to-health.ts          # BENCH_START_RUNS=5 BENCH_START_CMD="npm start" BENCH_START_PORT=46010
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const CMD = process.env.BENCH_START_CMD ?? 'npm start';
const PORT = Number(process.env.BENCH_START_PORT ?? 46010);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-to-health-'));

async function once(): Promise<number> {
  const t0 = performance.now();
  const child = spawn('sh', ['-c', `exec ${CMD}`], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ROLE: 'local', CLOUD_URL: '', SYNC_KEY: '', DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${CMD} exited before answering`);
      if (performance.now() - t0 > 120_000) throw new Error('no 200 within 120 s');
      try {
        const res = await fetch(`http://127.0.0.1:${PORT}/api/v1/health`);
        if (res.status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone
    }
    for (let i = 0; i < 100 && !exited; i++) await new Promise((r) => setTimeout(r, 50));
    if (!exited) process.kill(-child.pid!, 'SIGKILL');
  }
}

try {
  console.log(`first start (migrates ${dataDir}, not counted): ${(await once()).toFixed(0)} ms`);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`${CMD} → first 200 from /health, ${RUNS} runs: ${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s; median ${(sorted[Math.floor(RUNS / 2)]! / 1000).toFixed(2)} s (load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
