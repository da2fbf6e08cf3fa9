import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { migrateToLatest } from '../../server/db/connection.js';
import { migrations } from '../../server/db/migrations/index.js';
import { freshDb, lane } from '../helpers/db.js';
import { baseEnv, ROOT, tempDataDir } from '../helpers/process.js';
import { V8_MEMORY_FLAGS } from '../../app/shell.js';

const run = promisify(execFile);

/**
 * Issue 29 point 5: `npm start` runs compiled JavaScript (scripts/start.mjs: scripts/build-if-stale.mjs
 * bundles app/, server/ and sync/ into dist/ only when a source changed, then the server's bundle),
 * and the migrations check on a migrated database is one read.
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

  it('`npm start` runs node with the memory flags the desktop shell gives its window, and node honours them (issue 29 point 4)', async () => {
    if (lane !== 'sqlite') return; // processes, not the database
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start.split(/\s+/)).toEqual(['node', '--enable-source-maps', ...V8_MEMORY_FLAGS, 'scripts/start.mjs']);
    // Short-lived garbage: V8 grows its young generation up to its semi-space limit (default 16 MiB a semi-space).
    const probe = `let keep; for (let i = 0; i < 3e6; i++) keep = { i, s: 'x' + i }; const v8 = require('v8'); console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)`;
    const limit = Number(/--max-semi-space-size=(\d+)/.exec(V8_MEMORY_FLAGS.join(' '))![1]) * 2 ** 20;
    const flagged = Number((await run(process.execPath, [...V8_MEMORY_FLAGS, '-e', probe])).stdout);
    const plain = Number((await run(process.execPath, ['-e', probe])).stdout);
    expect(flagged).toBeLessThanOrEqual(2 * limit);
    expect(plain).toBeGreaterThan(2 * limit);
  });

  it('the build skips an up-to-date dist/; the server is one bundled file that migrates, serves its static folders and answers /health, and the sender thread runs from its bundle', async () => {
    if (lane !== 'sqlite') return; // a process on its own SQLite file: one lane is enough
    const script = path.join(ROOT, 'scripts', 'build-if-stale.mjs');
    await run(process.execPath, [script, '--quiet'], { cwd: ROOT });
    const again = await run(process.execPath, [script], { cwd: ROOT });
    expect(again.stderr).toMatch(/up to date/);
    // One file per entry: our own modules are inside it (no relative import left), packages are imports.
    const entry = path.join(ROOT, 'dist', 'server', 'main.js');
    const bundle = fs.readFileSync(entry, 'utf8');
    const ownImports = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']\.\.?\//m;
    expect(bundle).not.toMatch(ownImports);
    // The server's bundle holds fastify too; better-sqlite3 (a native addon) stays an import (build-if-stale.mjs SERVER_EXTERNAL).
    expect(bundle).not.toMatch(/from "fastify"/);
    expect(bundle).toMatch(/from "better-sqlite3"/);
    expect(fs.readFileSync(path.join(ROOT, 'dist', 'app', 'main.js'), 'utf8')).not.toMatch(ownImports);
    expect(fs.existsSync(path.join(ROOT, 'dist', 'server', 'app.js'))).toBe(false);
    expect(fs.existsSync(path.join(ROOT, 'dist', 'server', 'main.js.map'))).toBe(true);

    const dataDir = tempDataDir(); // empty: the bundle runs every migration
    // Which CommonJS files the process compiled (node's loader calls Module.prototype._compile for each,
    // also for packages imported from the ES bundle), one line each as they are compiled. (Not on a
    // signal: close-with-grace stops the server on SIGUSR2.)
    const compiledList = path.join(dataDir, 'compiled.txt');
    const preload = path.join(dataDir, 'count-compiled.cjs');
    fs.writeFileSync(
      preload,
      `const Module = require('node:module'); const fs = require('node:fs'); const out = ${JSON.stringify(compiledList)};
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) { fs.appendFileSync(out, filename + '\\n'); return compile.call(this, content, filename); };`,
    );
    const compiledSoFar = (): string[] => fs.readFileSync(compiledList, 'utf8').split('\n').filter(Boolean);
    const child = spawn(process.execPath, ['--enable-source-maps', '--require', preload, entry], {
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
    expect(await health.json()).toMatchObject({ status: 'ok', role: 'local', version: expect.any(String), schema_version: expect.any(Number) });
    // The OpenAPI document and Swagger UI are not loaded by a start (nor by /health): only at the
    // first request for them (server/plugins/openapi.ts), which then answers the whole document.
    const atStart = compiledSoFar();
    const docsPackages = /node_modules\/(@fastify\/swagger|@fastify\/swagger-ui|yaml|json-schema-resolver)\//;
    expect(atStart.filter((f) => docsPackages.test(f))).toEqual([]);
    const openapi = await fetch(`${url}api/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    const doc = (await openapi.json()) as { paths: Record<string, object> };
    expect(Object.keys(doc.paths).length).toBeGreaterThan(100);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/health', '/api/v1/orders', '/api/v1/sync/push']));
    expect(compiledSoFar().some((f) => /node_modules\/@fastify\/swagger\//.test(f))).toBe(true);
    // Folders found relative to the bundle: the staff app and guest pages (app/), Swagger UI's files
    // (node_modules), the front-end libraries (node_modules).
    for (const [page, type] of [
      ['app/', /text\/html/],
      ['g/vendor/htm.mjs', /javascript/],
      ['api/v1/docs/static/swagger-ui.css', /text\/css/],
    ] as const) {
      const res = await fetch(`${url}${page}`);
      expect(res.status, page).toBe(200);
      expect(res.headers.get('content-type'), page).toMatch(type);
    }
    expect(out).toMatch(/"startup":\{"imported_ms":\d+/);
    // Compiled JavaScript, not TypeScript through tsx.
    expect(process.execArgv.join(' ')).not.toContain('dist');
    const stopped = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await stopped;

    // The webhook sender thread's own bundle (where webhooks.thread.ts looks for it from the server's
    // bundle) loads in a worker, runs a pass on the migrated database and closes.
    const worker = new Worker(new URL('../../dist/server/webhooks.sender-thread.js', import.meta.url), {
      workerData: { connection: { sqliteFile: path.join(dataDir, 'restaurant.sqlite') }, allowPrivate: false, timeoutMs: 1000 },
    });
    onTestFinished(() => void worker.terminate());
    const messages: unknown[] = [];
    const closed = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: { type: string }) => {
        messages.push(m);
        if (m.type === 'ran') worker.postMessage({ type: 'close' });
        if (m.type === 'closed') resolve();
      });
      worker.on('error', reject);
    });
    worker.postMessage({ type: 'run', id: 1 });
    await closed;
    expect(messages).toEqual([{ type: 'ran', id: 1, attempts: 0 }, { type: 'closed' }]);
  }, 120_000);
});
