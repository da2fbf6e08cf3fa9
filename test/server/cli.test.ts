import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { COMMANDS, runCli } from '../../server/cli.js';
import { lane, PG_URL } from '../helpers/db.js';
import { baseEnv, runCliProcess, tempDataDir, type ProcessResult } from '../helpers/process.js';

/**
 * The operator command line as an operator uses it: real processes on a temporary DATA_DIR (and,
 * in the PostgreSQL lane, on a fresh PostgreSQL schema through DATABASE_URL).
 */

/** The CLI in this process (same code path as the binary, without the cost of another process start). */
async function inProcess(args: string[], env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  const out = { stdout: '', stderr: '' };
  const code = await runCli(args, env, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
  return { code: code ?? null, signal: null, ...out };
}

const json = (r: ProcessResult) => {
  expect(r.stderr, 'stderr of a successful command').toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, any>;
};

/** A failure: a Dutch message on stderr, nothing on stdout, never a stack trace. */
function expectFailure(r: ProcessResult, code: 1 | 2, message: RegExp) {
  expect(r.code, `exit code; stderr: ${r.stderr}`).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:|\.ts:\d+/);
}

/** The same database the CLI wrote, opened the way the server opens it. */
async function openRuntime(env: NodeJS.ProcessEnv): Promise<Runtime> {
  const rt = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  onTestFinished(() => rt.close());
  return rt;
}

async function adminLogin(rt: Runtime, slug: string, email: string, password: string) {
  return rt.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug, email, password } });
}

async function staffLogin(rt: Runtime, slug: string, pin: string) {
  return rt.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug, pin } });
}

const tenantArgs = (slug: string) => ['tenant', 'create', '--slug', slug, '--name', 'Eetcafé De Hoek', '--admin-email', 'joost@dehoek.example', '--admin-password', 'een-lang-wachtwoord'];

describe.runIf(lane === 'sqlite')('cli (SQLite in DATA_DIR)', { timeout: 120_000 }, () => {
  it('tenant create and user create print JSON; the admin and the staff member can then log in', async () => {
    const env = baseEnv({ DATA_DIR: tempDataDir() });

    const created = json(await runCliProcess(tenantArgs('de-hoek'), env));
    expect(created.tenant).toMatchObject({ slug: 'de-hoek', name: 'Eetcafé De Hoek' });
    expect(created.admin).toMatchObject({ email: 'joost@dehoek.example', role: 'admin' });
    expect(JSON.stringify(created)).not.toContain('een-lang-wachtwoord');

    const user = json(
      await runCliProcess(['user', 'create', '--tenant', 'de-hoek', '--name', 'Sanne', '--pin', '4821', '--hourly-wage-cents', '1450', '--job', 'bediening'], env),
    );
    expect(user.tenant).toMatchObject({ id: created.tenant.id, slug: 'de-hoek' });
    expect(user.user).toMatchObject({ name: 'Sanne', role: 'staff', hourly_wage_cents: 1450, job: 'bediening', has_pin: true });
    expect(user.user).not.toHaveProperty('pin');

    const rt = await openRuntime(env);
    const admin = await adminLogin(rt, 'de-hoek', 'joost@dehoek.example', 'een-lang-wachtwoord');
    expect(admin.statusCode, admin.body).toBe(200);
    expect(admin.json()).toMatchObject({ role: 'admin', tenant: { slug: 'de-hoek' } });
    const staff = await staffLogin(rt, 'de-hoek', '4821');
    expect(staff.statusCode, staff.body).toBe(200);
    expect(staff.json()).toMatchObject({ role: 'staff', user: { name: 'Sanne' } });
  });

  it('bad input exits non-zero with a Dutch message: taken slug, invalid PIN, unknown tenant, missing flags, unknown command', async () => {
    const env = baseEnv({ DATA_DIR: tempDataDir() });
    json(await runCliProcess(tenantArgs('de-hoek'), env));

    // As processes: the exit codes 1 (conflict) and 2 (validation) really reach the shell.
    const [taken, badPin] = await Promise.all([
      runCliProcess(tenantArgs('de-hoek'), env),
      runCliProcess(['user', 'create', '--tenant', 'de-hoek', '--name', 'Piet', '--pin', '12a'], env),
    ]);
    expectFailure(taken, 1, /^Deze restaurantnaam \(slug\) is al in gebruik\.\n$/);
    expectFailure(badPin, 2, /^Ongeldige invoer: '--pin' moet uit 4 tot 8 cijfers bestaan\.\n$/);

    // The rest through the same entry in this process, on the same database.
    expectFailure(await inProcess(['user', 'create', '--tenant', 'bestaat-niet', '--name', 'Piet', '--pin', '1234'], env), 1, /^Restaurant 'bestaat-niet' niet gevonden\.\n$/);
    expectFailure(
      await inProcess(['user', 'create', '--tenant', 'de-hoek', '--name', 'Piet', '--role', 'admin', '--email', 'piet@dehoek.example'], env),
      2,
      /^Ongeldige invoer: '--password' is verplicht voor een beheerder\.\n$/,
    );
    expectFailure(await inProcess(['tenant', 'create', '--slug', 'nieuw'], env), 2, /^Ontbrekende opties voor 'tenant create': --name, --admin-email, --admin-password\./);
    expectFailure(await inProcess(['tenant', 'verwijder'], env), 2, /^Onbekende opdracht: 'tenant verwijder'[\s\S]*Gebruik: npm run cli/);
    // Every problem at once, each naming the flag the operator typed.
    const invalid = await inProcess(['tenant', 'create', '--slug', 'Nieuw!', '--name', 'X', '--admin-email', 'geen-adres', '--admin-password', 'kort'], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr.split('\n')).toEqual([
      'Ongeldige invoer:',
      "  - '--slug' mag alleen kleine letters, cijfers en streepjes bevatten (2 tot 48 tekens).",
      "  - '--admin-email' moet een geldig e-mailadres zijn.",
      "  - '--admin-password' moet minimaal 10 tekens lang zijn.",
      '',
    ]);
    expect(invalid.stdout).toBe('');

    // Nothing was written by the failures: still one tenant with one user.
    const rt = await openRuntime(env);
    expect(await rt.services.tenants.count()).toBe(1);
    const tenant = await rt.services.tenants.bySlug('de-hoek');
    expect(await rt.services.users.list(tenant!.id)).toHaveLength(1);
  });

  it('demo seeds the demo restaurant once; a second run says so and duplicates nothing', async () => {
    // One week of order history instead of eight keeps this fast; the seeders are the same.
    const env = baseEnv({ DATA_DIR: tempDataDir(), PORT: '8123', DEMO_HISTORY_WEEKS: '1' });
    const first = json(await runCliProcess(['demo'], env));
    expect(first).toMatchObject({ created: true, tenant: { slug: 'demo' }, url: 'http://localhost:8123/', docs: 'http://localhost:8123/api/v1/docs' });
    expect(first.admin.email).toMatch(/@/);
    expect(first.admin.password.length).toBeGreaterThanOrEqual(10);
    expect(first.staff.length).toBeGreaterThanOrEqual(4);
    expect(first.staff.map((s: { job: string }) => s.job)).toEqual(expect.arrayContaining(['kok', 'bediening', 'afwas']));

    const second = json(await inProcess(['demo'], env));
    expect(second.created).toBe(false);
    expect(second.message).toMatch(/bestaat al/);
    expect(second.tenant.id).toBe(first.tenant.id);

    const rt = await openRuntime(env);
    expect(await rt.services.tenants.count()).toBe(1);
    const users = await rt.services.users.list(first.tenant.id);
    expect(users).toHaveLength(1 + first.staff.length);
    expect(users.filter((u) => u.role === 'staff').every((u) => u.hourly_wage_cents! > 0 && u.job)).toBe(true);
    const settings = await rt.services.tenants.getSettings(first.tenant.id);
    expect(settings).toMatchObject({ name: first.tenant.name, timezone: 'Europe/Amsterdam' });

    expect((await adminLogin(rt, 'demo', first.admin.email, first.admin.password)).statusCode).toBe(200);
    const staff = await staffLogin(rt, 'demo', first.staff_pin);
    expect(staff.statusCode).toBe(200);
    expect(staff.json().role).toBe('staff');
  });

  it('a bad configuration stops the CLI with the Dutch configuration message and exit 2', async () => {
    const r = await runCliProcess(['demo'], baseEnv({ DATA_DIR: tempDataDir(), RATE_LIMIT_MUTATIONS_PER_MINUTE: 'veel' }));
    expectFailure(r, 2, /Ongeldige configuratie:\n\s+RATE_LIMIT_MUTATIONS_PER_MINUTE: moet een getal zijn\./);
  });
});

describe('cli (in-process)', () => {
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
  };

  it('without a command prints the usage with every command and exits 2', async () => {
    const { out, io: sink } = io();
    expect(await runCli([], {}, sink)).toBe(2);
    for (const c of COMMANDS) expect(out.stderr).toContain(c.name);
    expect(out.stdout).toBe('');
  });

  it('rejects unknown flags and a non-numeric wage before opening a database', async () => {
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }; // would fail if it were opened
    const a = io();
    expect(await runCli(['user', 'create', '--tenant', 'x', '--name', 'P', '--pin', '1234', '--wage', '10'], env, a.io)).toBe(2);
    expect(a.out.stderr).toMatch(/^Onbekende optie --wage voor 'user create'\./);
    const b = io();
    expect(await runCli(['user', 'create', '--tenant', 'x', '--name', 'P', '--pin', '1234', '--hourly-wage-cents', '14,50'], env, b.io)).toBe(2);
    expect(b.out.stderr).toMatch(/'--hourly-wage-cents' moet een geheel getal zijn/);
    const c = io();
    expect(await runCli(['user', 'create', '--tenant', 'x', '--name', 'P', '--role', 'baas'], env, c.io)).toBe(2);
    expect(c.out.stderr).toMatch(/'--role' moet staff of admin zijn/);
  });

  it('an unreachable database is a plain message and exit 1', async () => {
    const { out, io: sink } = io();
    expect(await runCli(tenantArgs('x-y'), { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, sink)).toBe(1);
    expect(out.stderr).toMatch(/^De database is niet bereikbaar of weigert de verbinding \(ECONNREFUSED\)\. Controleer DATABASE_URL\./);
  });
});

describe.runIf(lane === 'postgres')('cli (PostgreSQL through DATABASE_URL)', { timeout: 120_000 }, () => {
  it('creates a tenant, a user and the demo in a fresh database; the admin can log in', async () => {
    // A fresh database (not a schema): the operator's real setup, and Kysely's migrator looks for
    // its own tables in every schema of the database it is given.
    const name = `cli_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    onTestFinished(async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const env = baseEnv({ DATABASE_URL: url.toString(), DATA_DIR: tempDataDir(), DEMO_HISTORY_WEEKS: '1' });
    vi.stubEnv('DEMO_HISTORY_WEEKS', '1'); // the in-process demo below reads it from process.env
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });

    // One real process (the database is the point here, not the process), the rest in this one.
    const created = json(await runCliProcess(tenantArgs('de-hoek'), env));
    const user = json(await inProcess(['user', 'create', '--tenant', 'de-hoek', '--name', 'Sanne', '--pin', '4821'], env));
    expect(user.user).toMatchObject({ name: 'Sanne', role: 'staff' });
    expectFailure(await inProcess(tenantArgs('de-hoek'), env), 1, /^Deze restaurantnaam \(slug\) is al in gebruik\./);
    const demo = json(await inProcess(['demo'], env));
    expect(demo.created).toBe(true);

    const rt = await openRuntime(env);
    expect(rt.handle.dialect).toBe('postgres');
    const { rows } = await sql<{ slug: string }>`select slug from tenants order by slug`.execute(rt.handle.db);
    expect(rows.map((r) => r.slug)).toEqual(['de-hoek', 'demo']);
    const login = await adminLogin(rt, 'de-hoek', 'joost@dehoek.example', 'een-lang-wachtwoord');
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json().tenant.id).toBe(created.tenant.id);
    expect((await staffLogin(rt, 'demo', demo.staff_pin)).statusCode).toBe(200);
  });
});
