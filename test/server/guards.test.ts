import { describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * One guard style (issue 22 item 4, docs/adr/0008-module-frame.md): every operation of the served
 * OpenAPI document is walked with a valid-looking request (path parameters filled, required query
 * parameters and body properties with plausible values). Access is checked before the body is
 * read or validated, so:
 * - without credentials every operation that is not public answers 401 (never 400/404/500);
 * - with a staff session every admin-only operation answers 403;
 * - the public operations are exactly the ones listed here, and none of them answers 401.
 */

/**
 * The operations anyone may call: the health check, the logins, first-run setup, the guest pages'
 * API (menu, ordering, payment pages, table bills, bookings) and the payment providers' callbacks.
 */
const PUBLIC = [
  'GET /api/v1/health',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/admin-login',
  'GET /api/v1/setup',
  'POST /api/v1/setup',
  'GET /api/v1/public/menu/{slug}',
  'POST /api/v1/public/order/{slug}',
  'GET /api/v1/public/order/{slug}/{id}',
  'GET /api/v1/public/betaling/{id}/status',
  'GET /api/v1/public/betaling/{id}',
  'GET /api/v1/public/bestellen/{slug}',
  'GET /api/v1/public/tafel/{slug}/{tafel}',
  'POST /api/v1/public/tafel/{slug}/{tafel}/pay',
  'GET /api/v1/public/reservations/{slug}',
  'POST /api/v1/public/reservations/{slug}',
  'POST /api/v1/payments/webhook',
  'POST /api/v1/public/tafel-webhook',
  'GET /api/v1/payments/simulator/{id}',
  'POST /api/v1/payments/simulator/{id}',
];
/** Public operations whose own answer to wrong credentials is 401 (a login with a wrong PIN), not a guard's. */
const LOGINS = ['POST /api/v1/auth/login', 'POST /api/v1/auth/admin-login'];

type Json = Record<string, unknown>;
interface Operation {
  key: string;
  method: string;
  path: string;
  op: Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const ID = '0190d1a2-0000-7000-8000-000000000001';

function resolve(doc: Json, node: unknown): Json {
  let n = node as Json;
  for (let i = 0; i < 20 && n && typeof n.$ref === 'string'; i++) {
    n = (n.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((acc, key) => (acc as Json | undefined)?.[key], doc) as Json;
  }
  return n ?? {};
}

/** A plausible value for a JSON schema: what a well-behaved client would send (required properties only). */
function sample(doc: Json, node: unknown, name = '', depth = 0): unknown {
  const s = resolve(doc, node);
  if (depth > 8) return null;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((v) => v !== null) ?? s.enum[0];
  if ('default' in s && s.default !== undefined) return s.default;
  if ('example' in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const alts = s[key] as unknown[] | undefined;
    if (Array.isArray(alts) && alts.length) {
      const pick = alts.find((a) => resolve(doc, a).type !== 'null') ?? alts[0];
      return sample(doc, pick, name, depth + 1);
    }
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') as string) : (s.type as string | undefined);
  switch (type) {
    case 'object': {
      const out: Json = {};
      const props = (s.properties ?? {}) as Json;
      for (const key of (s.required ?? []) as string[]) out[key] = sample(doc, props[key], key, depth + 1);
      return out;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: Math.max(min, 1) }, () => sample(doc, s.items, name, depth + 1));
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string':
      return sampleString(s, name);
    default:
      return {};
  }
}

function sampleString(s: Json, name: string): string {
  const format = s.format as string | undefined;
  if (format === 'date-time') return '2030-01-15T12:00:00.000Z';
  if (format === 'date' || /date|day|from|to$/.test(name)) return '2030-01-15';
  if (format === 'email' || name.includes('email')) return 'iemand@example.com';
  if (format === 'uuid' || name === 'id' || name.endsWith('_id')) return ID;
  if (format === 'uri' || name.includes('url')) return 'https://example.com/hook';
  if (name.includes('phone')) return '+31612345678';
  if (name === 'pin') return '1234';
  if (name.includes('password')) return 'een-lang-wachtwoord-1';
  if (name === 'time' || name.endsWith('_time') || name === 'deadline') return '12:00';
  const min = typeof s.minLength === 'number' ? s.minLength : 1;
  return 'x'.repeat(Math.max(min, 1));
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) out.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op });
    }
  }
  return out;
}

/** The request a well-behaved client would send for this operation (without any credentials). */
function requestFor(doc: Json, { method, path, op }: Operation): InjectOptions {
  const params = ((op.parameters ?? []) as Json[]).map((p) => resolve(doc, p));
  let url = path;
  for (const p of params.filter((x) => x.in === 'path')) url = url.replace(`{${p.name as string}}`, encodeURIComponent(String(sample(doc, p.schema, p.name as string))));
  url = url.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'slug' ? 'restaurant' : ID));
  const query = new URLSearchParams();
  for (const p of params.filter((x) => x.in === 'query' && x.required)) query.set(p.name as string, String(sample(doc, p.schema, p.name as string)));
  const qs = query.toString();
  const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
  const json = content['application/json'];
  return {
    method: method as InjectOptions['method'],
    url: qs ? `${url}?${qs}` : url,
    ...(op.requestBody ? { payload: json ? (sample(doc, json.schema) as Json) : {} } : {}),
  };
}

async function walk(t: TestApp) {
  const res = await t.req({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json() as Json;
  const ops = operations(doc);
  expect(ops.length).toBeGreaterThan(100);
  return { doc, ops };
}

/** Whether the document says an operation needs an admin session (`x-access: admin`). */
const adminOnly = (op: Json) => op['x-access'] === 'admin';

describe.each(['local', 'cloud'] as const)('one guard style, checked before validation (%s)', (role) => {
  // Every operation once: more mutations than the per-IP limit allows in a minute (a 429 would hide the answer).
  const env = { RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000', ...(role === 'cloud' ? { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } : {}) };

  it('without credentials every operation that is not public answers 401; public ones never do', async () => {
    const t = await createTestApp({ env });
    const { doc, ops } = await walk(t);
    const wrong: string[] = [];
    for (const op of ops) {
      const isPublic = PUBLIC.includes(op.key);
      const valid = requestFor(doc, op);
      // The valid-looking body, and an empty one: neither may reach the validation first.
      for (const req of valid.payload === undefined ? [valid] : [valid, { ...valid, payload: {} }]) {
        const res = await t.req(req);
        const label = `${op.key}${req.payload && Object.keys(req.payload).length === 0 ? ' {}' : ''} → ${res.statusCode}`;
        if (isPublic ? res.statusCode === 401 && !LOGINS.includes(op.key) : res.statusCode !== 401) wrong.push(`${label}${isPublic ? ' (public)' : ''}`);
        else if (!isPublic) expect(res.json(), op.key).toMatchObject({ code: 'UNAUTHORIZED', error: expect.any(String) });
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the document declares every operation’s access and security; the public ones are exactly the listed ones', async () => {
    const t = await createTestApp({ env });
    const { ops } = await walk(t);
    const undeclared = ops.filter((o) => typeof o.op['x-access'] !== 'string' || !Array.isArray(o.op.security)).map((o) => o.key);
    expect(undeclared).toEqual([]);
    expect(ops.filter((o) => o.op['x-access'] === 'public').map((o) => o.key).sort()).toEqual([...PUBLIC].sort());
    for (const o of ops) {
      const security = o.op.security as Json[];
      if (o.op['x-access'] === 'public') expect(security, o.key).toEqual([]);
      else expect(security.length, o.key).toBeGreaterThan(0);
    }
    // Admin-only operations exist in every area that has settings (a sanity check of the walk below).
    expect(ops.filter((o) => adminOnly(o.op)).length).toBeGreaterThan(40);
  });

  it('with a staff session every admin-only operation answers 403', async () => {
    const t = await createTestApp({ env });
    const r = await t.seedTenant();
    const cookie = await r.staffCookie();
    const { doc, ops } = await walk(t);
    const wrong: string[] = [];
    const admin = ops.filter((o) => adminOnly(o.op));
    expect(admin.length).toBeGreaterThan(40);
    for (const op of admin) {
      const res = await t.req({ ...requestFor(doc, op), cookie });
      if (res.statusCode !== 403) wrong.push(`${op.key} → ${res.statusCode}`);
      else expect(res.json(), op.key).toMatchObject({ code: 'FORBIDDEN', error: expect.any(String) });
    }
    expect(wrong).toEqual([]);
  });
});
