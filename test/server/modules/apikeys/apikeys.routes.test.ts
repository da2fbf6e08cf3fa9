import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../../../server/cli.js';
import { loadConfig } from '../../../../server/config.js';
import { createRuntime } from '../../../../server/runtime.js';
import { sha256 } from '../../../../server/shared/secrets.js';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import { lane, PG_URL } from '../../../helpers/db.js';
import { baseEnv, tempDataDir } from '../../../helpers/process.js';

const ID = '0190a0a0-0000-7000-8000-000000000000';

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  return { t, r, admin: await r.adminCookie(), staff: await r.staffCookie() };
}

const create = (t: TestApp, cookie: string, payload: unknown) => t.req({ method: 'POST', url: '/api/v1/api-keys', cookie, payload: payload as object });
const useKey = (t: TestApp, key: string) => t.req({ method: 'GET', url: '/api/v1/external/menu', headers: { authorization: `Bearer ${key}` } });

async function state(t: TestApp, r: SeededTenant) {
  return { seq: await t.changes.lastSeq(r.id), keys: await t.handle.db.selectFrom('api_keys').selectAll().orderBy('id').execute() };
}

describe('API keys (CONTRACT §12)', () => {
  it('POST answers 201 with the key once (svc_ + 64 hex); only its hash is stored, anywhere', async () => {
    const { t, r, admin } = await setup();
    const res = await create(t, admin, { name: 'Thuisbezorgd', scopes: ['write', 'read', 'write'] });
    expect(res.statusCode, res.body).toBe(201);
    const k = res.json();
    expect(k).toEqual({
      id: expect.any(String),
      name: 'Thuisbezorgd',
      scopes: ['read', 'write'],
      key_prefix: k.key.slice(0, 12),
      created_at: t.clock.now().toISOString(),
      revoked_at: null,
      last_used_at: null,
      key: expect.stringMatching(/^svc_[0-9a-f]{64}$/),
    });
    const row = await t.handle.db.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256(k.key));
    // The key itself is in no table: not the keys, not the change log that sync and sockets read.
    for (const table of ['api_keys', 'change_log'] as const) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.handle.db);
      expect(JSON.stringify(rows)).not.toContain(k.key.slice(4));
    }
    const list = await t.req({ method: 'GET', url: '/api/v1/api-keys', cookie: admin });
    expect(list.statusCode).toBe(200);
    const { key: _key, ...shown } = k;
    expect(list.json()).toEqual({ data: [shown] });
    expect(list.body).not.toMatch(/key_hash|"key"/);
    expect((await useKey(t, k.key)).statusCode).toBe(200);
    expect(r.id).toBeDefined();
  });

  it('lists newest first, revoked ones included (with revoked_at)', async () => {
    const { t, admin } = await setup();
    const a = (await create(t, admin, { name: 'Eerste', scopes: ['read'] })).json();
    t.clock.advance(1000);
    const b = (await create(t, admin, { name: 'Tweede', scopes: ['admin'] })).json();
    await t.req({ method: 'DELETE', url: `/api/v1/api-keys/${a.id}`, cookie: admin });
    const data = (await t.req({ method: 'GET', url: '/api/v1/api-keys', cookie: admin })).json().data;
    expect(data.map((x: { name: string; revoked_at: string | null }) => [x.name, x.revoked_at])).toEqual([
      ['Tweede', null],
      ['Eerste', t.clock.now().toISOString()],
    ]);
    expect(b.scopes).toEqual(['admin']);
  });

  it.each([
    ['no name', { scopes: ['read'] }, 'name', /verplicht/],
    ['empty name', { name: '  ', scopes: ['read'] }, 'name', /niet leeg/],
    ['long name', { name: 'x'.repeat(121), scopes: ['read'] }, 'name', /maximaal 120 tekens/],
    ['no scopes', { name: 'Kassa' }, 'scopes', /verplicht/],
    ['empty scopes', { name: 'Kassa', scopes: [] }, 'scopes', /minstens één/],
    ['unknown scope', { name: 'Kassa', scopes: ['read', 'owner'] }, 'scopes.1', /read, write, admin/],
    ['scopes as text', { name: 'Kassa', scopes: 'read,write' }, 'scopes', /een lijst/],
    ['a key of your own', { name: 'Kassa', scopes: ['read'], key: `svc_${'a'.repeat(64)}` }, 'key', /Onbekend veld/],
  ])('%s: 400 VALIDATION naming the field; nothing stored', async (_n, body, field, message) => {
    const { t, r, admin } = await setup();
    const before = await state(t, r);
    const res = await create(t, admin, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /), details: [{ field, error: expect.stringMatching(message) }] });
    expect(await state(t, r)).toEqual(before);
  });

  it('admin only: 401 without a session, 403 for staff', async () => {
    const { t, admin, staff } = await setup();
    const k = (await create(t, admin, { name: 'Kassa', scopes: ['read'] })).json();
    for (const [method, url, payload] of [
      ['GET', '/api/v1/api-keys', undefined],
      ['POST', '/api/v1/api-keys', { name: 'X', scopes: ['read'] }],
      ['DELETE', `/api/v1/api-keys/${k.id}`, undefined],
    ] as const) {
      const anon = await t.req({ method, url, ...(payload ? { payload } : {}) });
      expect(anon.statusCode, `${method} ${url}`).toBe(401);
      expect(anon.json().code).toBe('UNAUTHORIZED');
      const s = await t.req({ method, url, cookie: staff, ...(payload ? { payload } : {}) });
      expect(s.statusCode, `${method} ${url}`).toBe(403);
      expect(s.json()).toEqual({ code: 'FORBIDDEN', error: 'Je hebt geen toegang tot deze functie.' });
    }
    expect((await useKey(t, k.key)).statusCode).toBe(200);
  });

  it('DELETE revokes at once: the very next request with the key is 401; revoking again is 204 and changes nothing', async () => {
    const { t, r, admin } = await setup();
    const k = (await create(t, admin, { name: 'Kassa', scopes: ['admin'] })).json();
    expect((await useKey(t, k.key)).statusCode).toBe(200);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/api-keys/${k.id}`, cookie: admin })).statusCode).toBe(204);
    const refused = await useKey(t, k.key);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ code: 'UNAUTHORIZED', error: 'Deze API-sleutel is onbekend of ingetrokken.' });
    const before = await state(t, r);
    t.clock.advance(5000);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/api-keys/${k.id}`, cookie: admin })).statusCode).toBe(204);
    expect(await state(t, r)).toEqual(before);
  });

  it("another restaurant's key is 404 and keeps working; a bad id is 400", async () => {
    const { t, admin } = await setup();
    const other = await t.seedTenant();
    const theirs = (await create(t, await other.adminCookie(), { name: 'Hun kassa', scopes: ['read'] })).json();
    const res = await t.req({ method: 'DELETE', url: `/api/v1/api-keys/${theirs.id}`, cookie: admin });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', error: 'API-sleutel niet gevonden.' });
    expect((await useKey(t, theirs.key)).statusCode).toBe(200);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/api-keys/${ID}`, cookie: admin })).statusCode).toBe(404);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/api-keys/sleutel', cookie: admin })).statusCode).toBe(400);
    expect((await t.req({ method: 'GET', url: '/api/v1/api-keys', cookie: admin })).json().data).toEqual([]);
  });

  it('last_used_at: set on first use, written at most once a minute', async () => {
    const { t, admin } = await setup();
    const k = (await create(t, admin, { name: 'Kassa', scopes: ['read'] })).json();
    const lastUsed = async () => (await t.req({ method: 'GET', url: '/api/v1/api-keys', cookie: admin })).json().data[0].last_used_at;
    t.clock.advance(5000);
    const first = t.clock.now().toISOString();
    await useKey(t, k.key);
    expect(await lastUsed()).toBe(first);
    t.clock.advance(30_000);
    await useKey(t, k.key);
    expect(await lastUsed()).toBe(first);
    t.clock.advance(30_000);
    await useKey(t, k.key);
    expect(await lastUsed()).toBe(t.clock.now().toISOString());
    // A refused key leaves no trace.
    await useKey(t, `svc_${'0'.repeat(64)}`);
    expect(await t.handle.db.selectFrom('api_key_usage').selectAll().execute()).toHaveLength(1);
  });

  it('keys made at the same moment are all different, and a key revoked while it is in use is refused from then on', async () => {
    const { t, admin } = await setup();
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => create(t, admin, { name: `Koppeling ${i}`, scopes: ['read'] })));
    const keys = made.map((m) => m.json());
    expect(new Set(keys.map((k) => k.key)).size).toBe(12);
    expect(new Set(keys.map((k) => k.id)).size).toBe(12);
    const k = keys[0]!;
    const inFlight = Array.from({ length: 10 }, () => useKey(t, k.key));
    const revoked = t.req({ method: 'DELETE', url: `/api/v1/api-keys/${k.id}`, cookie: admin });
    const results = await Promise.all([...inFlight, revoked]);
    expect(results.at(-1)!.statusCode).toBe(204);
    expect(results.slice(0, -1).every((x) => x.statusCode === 200 || x.statusCode === 401)).toBe(true);
    const after = await Promise.all(Array.from({ length: 5 }, () => useKey(t, k.key)));
    expect(after.map((x) => x.statusCode)).toEqual([401, 401, 401, 401, 401]);
    expect((await useKey(t, keys[1]!.key)).statusCode).toBe(200);
  });
});

/** `npm run cli -- apikey create` (CONTRACT §15) on the lane's database, in this process. */
async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const out = { stdout: '', stderr: '' };
  const code = await runCli(args, env, { stdout: (s) => (out.stdout += s), stderr: (s) => (out.stderr += s) });
  return { code, ...out };
}

async function cliEnv(): Promise<NodeJS.ProcessEnv> {
  if (lane === 'sqlite') return baseEnv({ DATA_DIR: tempDataDir() });
  // A fresh database (the migrator looks at every schema of the database it is given).
  const name = `cli_keys_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  onTestFinished(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return baseEnv({ DATABASE_URL: url.toString(), DATA_DIR: tempDataDir() });
}

describe(`cli apikey create (${lane})`, { timeout: 60_000 }, () => {
  it('prints the key once as JSON; it works against /external; bad input exits non-zero with a Dutch message', async () => {
    const env = await cliEnv();
    expect((await cli(['tenant', 'create', '--slug', 'de-hoek', '--name', 'De Hoek', '--admin-email', 'a@dehoek.test', '--admin-password', 'een-lang-wachtwoord'], env)).code).toBe(0);
    const ok = await cli(['apikey', 'create', '--tenant', 'de-hoek', '--name', 'Thuisbezorgd', '--scopes', 'read,write'], env);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const printed = JSON.parse(ok.stdout);
    expect(printed).toEqual({
      tenant: { id: expect.any(String), slug: 'de-hoek', name: 'De Hoek' },
      api_key: { id: expect.any(String), name: 'Thuisbezorgd', scopes: ['read', 'write'], key_prefix: printed.key.slice(0, 12), created_at: expect.any(String), revoked_at: null, last_used_at: null },
      key: expect.stringMatching(/^svc_[0-9a-f]{64}$/),
    });

    const bad = await cli(['apikey', 'create', '--tenant', 'de-hoek', '--name', 'X', '--scopes', 'read,alles'], env);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/^Ongeldige invoer: '--scopes' moet een lijst zijn van read, write, admin/);
    const missing = await cli(['apikey', 'create', '--tenant', 'de-hoek', '--name', 'X'], env);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/Ontbrekende optie voor 'apikey create': --scopes/);
    const unknown = await cli(['apikey', 'create', '--tenant', 'nergens', '--name', 'X', '--scopes', 'read'], env);
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: "Restaurant 'nergens' niet gevonden.\n" });
    const long = await cli(['apikey', 'create', '--tenant', 'de-hoek', '--name', 'x'.repeat(121), '--scopes', 'read'], env);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/'--name' mag maximaal 120 tekens lang zijn/);

    const rt = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    onTestFinished(() => rt.close());
    expect(rt.handle.dialect).toBe(lane);
    const res = await rt.app.inject({ method: 'GET', url: '/api/v1/external/orders', headers: { authorization: `Bearer ${printed.key}` } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rt.handle.db.selectFrom('api_keys').select('name').execute()).toEqual([{ name: 'Thuisbezorgd' }]);
  });
});
