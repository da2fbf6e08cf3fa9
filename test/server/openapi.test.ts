import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { VERSION } from '../../server/version.js';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp } from '../helpers/app.js';
import { lane } from '../helpers/db.js';
import { baseEnv, runTs, tempDataDir } from '../helpers/process.js';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every registered route as "METHOD /path", from Fastify's own route tree (printRoutes). */
function registeredRoutes(app: FastifyInstance): Set<string> {
  const lines = app.printRoutes({ commonPrefix: false }).split('\n').filter((l) => l.includes('── '));
  const stack: string[] = [];
  const routes = new Set<string>();
  for (const line of lines) {
    const at = line.indexOf('── ');
    const depth = Math.round((at - 1) / 4);
    const m = /── (.*?)(?: \(([^)]*)\))?$/.exec(line)!;
    const path = (depth > 0 ? stack[depth - 1]! : '') + m[1];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[2] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) routes.add(`${method} ${path}`);
  }
  return routes;
}

function resolveRef(doc: Record<string, unknown>, ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe('OpenAPI description and docs page', () => {
  it('/api/v1/openapi.json is OpenAPI 3 JSON listing exactly the registered /api/v1 routes', async () => {
    const t = await createTestApp();
    const res = await t.req({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: VERSION });
    expect(typeof doc.paths).toBe('object');

    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses?: object }>>)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        documented.add(`${method.toUpperCase()} ${path}`);
        expect(Object.keys(op.responses ?? {}).length, `${method} ${path} has responses`).toBeGreaterThan(0);
      }
    }
    const registered = [...registeredRoutes(t.app)]
      .filter((r) => !r.startsWith('HEAD '))
      .filter((r) => / \/api\/v1\//.test(r))
      // The description itself and the docs page are infrastructure, hidden on purpose.
      .filter((r) => !/ \/api\/v1\/(openapi\.json|docs)/.test(r))
      .map((r) => r.replace(/:(\w+)/g, '{$1}'))
      // Routes of different methods that name the same path segment differently (GET /loyalty/customer/:phone,
      // DELETE /loyalty/customer/:id) share one node, printed as `{phone}|{id}`: each is the documented
      // route that one of the alternatives spells, or the one path OpenAPI needs for them, the parameter
      // named after both (`{phone_or_id}`, openapi-document.ts); none: kept as printed, so the comparison fails.
      .flatMap((r) => {
        if (!r.includes('|')) return [r];
        const esc = (x: string) => x.replace(/[.*+?^${}()[\]\\]/g, '\\$&');
        const pattern = r
          .split(/(\{\w+\}(?:\|\{\w+\})+)/)
          .map((part, i) => {
            if (i % 2 === 0) return esc(part);
            const names = part.split('|');
            return `(?:${[...names, `{${names.map((n) => n.slice(1, -1)).join('_or_')}}`].map(esc).join('|')})`;
          })
          .join('');
        const matches = [...documented].filter((d) => new RegExp(`^${pattern}$`).test(d));
        return matches.length ? matches : [r];
      });
    expect(registered.length).toBeGreaterThanOrEqual(10);
    expect(registered).toEqual(expect.arrayContaining(['GET /api/v1/health', 'POST /api/v1/auth/login', 'PATCH /api/v1/users/{id}', 'PATCH /api/v1/settings']));
    expect([...documented].sort()).toEqual([...new Set(registered)].sort());
  });

  it('request and response schemas come from the zod schemas, and every $ref resolves', async () => {
    const t = await createTestApp();
    const doc = (await t.req({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const login = doc.paths['/api/v1/auth/login'].post;
    const body = login.requestBody.content['application/json'].schema;
    expect(body.properties.slug).toMatchObject({ type: 'string' });
    expect(body.properties.pin).toMatchObject({ type: 'string', pattern: '^\\d{4,8}$' });
    expect(body.required).toEqual(expect.arrayContaining(['slug', 'pin']));
    expect(body.additionalProperties).toBe(false); // strict schemas say so
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));

    const createUser = doc.paths['/api/v1/users'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(createUser.properties)).toEqual(expect.arrayContaining(['name', 'role', 'pin', 'email', 'password', 'hourly_wage_cents', 'job']));
    expect(createUser.properties.role.enum).toEqual(['admin', 'staff']);
    const patchUser = doc.paths['/api/v1/users/{id}'].patch;
    expect(patchUser.parameters).toContainEqual(expect.objectContaining({ in: 'path', name: 'id', required: true }));
    const settings = doc.paths['/api/v1/settings'].patch.requestBody.content['application/json'].schema;
    expect(Object.keys(settings.properties)).toEqual(
      expect.arrayContaining(['name', 'timezone', 'haccp_margin', 'loyalty_points_per_euro', 'opening_hours', 'slot_minutes', 'max_party_size']),
    );

    // The error shape is one shared component.
    const errorRef = doc.paths['/api/v1/users'].post.responses['409'].content['application/json'].schema.$ref;
    const error = resolveRef(doc, errorRef) as { properties: Record<string, { enum?: string[] }>; required: string[] };
    expect(error.properties.code!.enum).toEqual(['VALIDATION', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'INTERNAL']);
    expect(error.required).toEqual(expect.arrayContaining(['error', 'code']));

    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolveRef(doc, ref), ref).toBeDefined();
  });

  // A process test (as test/server/cli.test.ts): once, on the sqlite lane; the export never opens the lane's database.
  it.runIf(lane === 'sqlite')('`npm run openapi` writes the served document to a file, with no database server and nothing from the environment', { timeout: 120_000 }, async () => {
    const t = await createTestApp();
    const served = (await t.req({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const dir = tempDataDir();
    const file = path.join(dir, 'out', 'openapi.json');
    // A DATABASE_URL that cannot be reached: the export must not try it (it builds on in-memory SQLite).
    const r = await runTs('server/openapi-export.ts', [file], baseEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', ROLE: 'cloud' }));
    expect(r.code, r.stderr).toBe(0);
    const operations = Object.values(served.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(r.stderr).toContain(`${operations} operations written to ${file}`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(served);
    expect(fs.readdirSync(dir)).toEqual(['out']);
  });

  it('/api/v1/docs serves an HTML page (following redirects)', async () => {
    const t = await createTestApp();
    let url = '/api/v1/docs';
    let res = await t.req({ method: 'GET', url });
    for (let hops = 0; hops < 5 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
      res = await t.req({ method: 'GET', url });
    }
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
    expect(res.body).toMatch(/swagger/i);
  });

  it('/api/v1/health answers status, role, version, schema version and the database', async () => {
    const t = await createTestApp();
    const res = await t.req({ method: 'GET', url: '/api/v1/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      role: 'local',
      version: VERSION,
      schema_version: SCHEMA_VERSION,
      database: { dialect: lane, reachable: true },
      payments: { provider: 'simulator', warning: null },
    });
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
    // Health needs no session.
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('/api/v1/health is 503 "degraded" when the database cannot be reached', async () => {
    const t = await createTestApp();
    t.handle.ping = async () => false; // the same handle the health route was given
    const res = await t.req({ method: 'GET', url: '/api/v1/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'degraded', database: { dialect: lane, reachable: false } });
  });
});
