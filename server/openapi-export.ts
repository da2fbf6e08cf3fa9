/**
 * `npm run openapi [-- <file>]`: writes the OpenAPI document that a server serves at
 * /api/v1/openapi.json to a file (default `dist/openapi.json`; `-` for stdout), without a database
 * server: the app is built on an in-memory SQLite database (the routes and their schemas do not
 * depend on the database or the role) and asked for the document the way a client asks, then
 * closed. Nothing is read from the environment and nothing is written to a data directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './config.js';
import { createRuntime } from './runtime.js';

export const DEFAULT_OPENAPI_FILE = 'dist/openapi.json';

/** The served document, as a client would GET it. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: os.tmpdir() }, { sqliteFile: ':memory:' });
  const rt = await createRuntime(config);
  try {
    const res = await rt.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
    return res.json();
  } finally {
    await rt.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const target = argv[0] ?? DEFAULT_OPENAPI_FILE;
  const doc = await openApiDocument();
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (target === '-') {
    process.stdout.write(text);
    return;
  }
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  fs.writeFileSync(target, text);
  const operations = Object.values(doc.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0); // path items hold only methods here
  process.stderr.write(`OpenAPI ${String(doc.openapi)}: ${operations} operations written to ${target}\n`);
}

const isEntry = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('server/openapi-export.ts');
if (isEntry) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
