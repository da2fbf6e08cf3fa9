import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { migrateToLatest } from '../../server/db/connection.js';
import { migrations } from '../../server/db/migrations/index.js';
import { freshDb, lane } from '../helpers/db.js';
import { baseEnv, ROOT, tempDataDir } from '../helpers/process.js';

const run = promisify(execFile);

/**
 * Issue 29 point 5: `npm start` runs compiled JavaScript (its prestart, scripts/build-if-stale.mjs,
 * compiles app/, server/ and sync/ into dist/ only when a source changed), and the migrations check
 * on a migrated database is one read.
 */
describe(`the start (issue 29 point 5, ${lane})`, () => {
  it('migrateToLatest on a migrated database runs one statement (the applied names), and migrates one that is behind', async () => {
    const t = await freshDb();
    onTestFinished(() => t.drop());
    await migrateToLatest(t.handle.db, { pgSchema: t.handle.pgSchema });
    const executor = t.handle.db.getExecutor();
    const original = executor.executeQuery.bind(executor);
    const seen: string[] = [];
    const spy = vi.spyOn(executor, 'executeQuery').mockImplementation((...args: Parameters<typeof original>) => {
      seen.push(args[0].sql);
      return original(...args);
    });
    try {
      await migrateToLatest(t.handle.db, { pgSchema: t.handle.pgSchema });
    } finally {
      spy.mockRestore();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/select name from .*kysely_migration/);
    // A database that lacks one (a release behind): not the shortcut, the migrator runs (it tries to apply it).
    const last = Object.keys(migrations).sort().pop()!;
    const table = t.handle.pgSchema ? sql`${sql.id(t.handle.pgSchema, 'kysely_migration')}` : sql`kysely_migration`;
    await sql`delete from ${table} where name = ${last}`.execute(t.handle.db);
    const outcome = await migrateToLatest(t.handle.db, { pgSchema: t.handle.pgSchema }).then(
      () => 'ok',
      () => 'refused',
    );
    const back = (await sql<{ name: string }>`select name from ${table}`.execute(t.handle.db)).rows.some((r) => r.name === last);
    // Applied again, or refused because its changes are there already: either way not skipped silently.
    expect(outcome === 'refused' || back).toBe(true);
  });

  it('the prestart build skips an up-to-date dist/, and the compiled server answers /health', async () => {
    if (lane !== 'sqlite') return; // a process on its own SQLite file: one lane is enough
    const script = path.join(ROOT, 'scripts', 'build-if-stale.mjs');
    await run(process.execPath, [script, '--quiet'], { cwd: ROOT });
    const again = await run(process.execPath, [script], { cwd: ROOT });
    expect(again.stderr).toMatch(/up to date/);
    const dataDir = tempDataDir();
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'server', 'main.js')], {
      cwd: ROOT,
      env: baseEnv({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 'ready' line in 60 s: ${out}`)), 60_000);
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const health = await fetch(`${url}api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', role: 'local', version: expect.any(String) });
    // Compiled JavaScript, not TypeScript through tsx.
    expect(process.execArgv.join(' ')).not.toContain('dist');
    const stopped = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await stopped;
  }, 120_000);
});
