import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { lane } from '../helpers/db.js';
import { baseEnv, runTs, startServerProcess, tempDataDir } from '../helpers/process.js';

/** A GET on a new connection (no keep-alive pool that could reuse a socket opened before close). */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

/**
 * `npm start` as an operator runs it: server/main.ts in its own process. SQLite only: the database
 * is not the point here (both dialects are covered by the API suites).
 */
describe.runIf(lane === 'sqlite')('server/main.ts (npm start)', { timeout: 120_000 }, () => {
  it('a bad variable stops start-up with the Dutch configuration message and exit code 2', async () => {
    const r = await runTs('server/main.ts', [], baseEnv({ DATA_DIR: tempDataDir(), PORT: 'abc', ROLE: 'x' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Ongeldige configuratie:/);
    expect(r.stderr).toMatch(/PORT: moet een getal zijn\./);
    expect(r.stderr).toMatch(/ROLE: moet een van deze waarden zijn: local, cloud\./);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('on an empty database serves the setup page and health; SIGTERM drains an in-flight request and exits 0', async () => {
    const dataDir = tempDataDir();
    const server = startServerProcess('server/main.ts', [], baseEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }));
    const ready = await server.waitForLog((l) => l.msg === 'restaurant service ready');
    const base = String(ready.url);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const health = await fetch(`${base}api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', role: 'local', database: { dialect: 'sqlite', reachable: true } });

    const page = await fetch(base);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('Stel je restaurant in');

    // Every request is logged with its request id.
    const healthLog = await server.waitForLog((l) => (l.req as { url?: string } | undefined)?.url === '/api/v1/health');
    expect(healthLog.reqId).toEqual(expect.any(String));

    // A request in flight: headers sent, body not yet complete (the server has routed it and waits).
    const body = JSON.stringify({ slug: 'de-hoek', name: 'Eetcafé De Hoek', admin_email: 'joost@dehoek.example', admin_password: 'een-lang-wachtwoord' });
    const bytes = Buffer.from(body);
    const half = Math.floor(bytes.length / 2);
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${base}api/v1/setup`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': bytes.length } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write(bytes.subarray(0, half));
      server
        .waitForLog((l) => (l.req as { url?: string } | undefined)?.url === '/api/v1/setup')
        .then(async () => {
          server.child.kill('SIGTERM');
          await server.waitForLog((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM');
          // Draining: still alive, not accepting new connections, waiting for our body.
          await new Promise((r) => setTimeout(r, 300));
          expect(server.child.exitCode).toBeNull();
          await expect(freshGet(`${base}api/v1/health`)).rejects.toThrow(/ECONNREFUSED/);
          req.end(bytes.subarray(half));
        })
        .catch(reject);
    });

    const answered = await response;
    expect(answered.status, answered.body).toBe(201);
    expect(JSON.parse(answered.body)).toMatchObject({ tenant: { slug: 'de-hoek' } });

    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toBe('');
    // Secrets stay out of the log: no password, no session cookie value.
    const log = server.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(log).not.toContain('een-lang-wachtwoord');
    expect(log).not.toContain('ck_token=');

    // The drained write was committed before the database closed.
    const rt = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      expect((await rt.services.tenants.bySlug('de-hoek'))?.name).toBe('Eetcafé De Hoek');
    } finally {
      await rt.close();
    }
  });

  it('npm run demo (cli demo --serve) seeds, prints the logins, serves; the demo admin logs in; SIGTERM exits 0', async () => {
    const server = startServerProcess(
      'server/cli.ts',
      ['demo', '--serve'],
      baseEnv({ DATA_DIR: tempDataDir(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DEMO_HISTORY_WEEKS: '0' }),
    );
    const ready = await server.waitForLog((l) => l.msg === 'restaurant service ready');
    const base = String(ready.url);
    // The pretty-printed JSON with the logins comes first on stdout, before the server's log lines.
    const printed = server.lines.slice(0, server.lines.findIndex((l) => typeof l.text !== 'string' || l.text === '}') + 1);
    const result = JSON.parse(printed.map((l) => l.text).join('\n')) as { created: boolean; admin: { slug: string; email: string; password: string }; staff_pin: string };
    expect(result.created).toBe(true);

    expect((await fetch(`${base}api/v1/health`)).status).toBe(200);
    const login = await fetch(`${base}api/v1/auth/admin-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: result.admin.slug, email: result.admin.email, password: result.admin.password }),
    });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { role: string }).role).toBe('admin');
    // With a restaurant in place the home page is no longer the first-run setup.
    expect(await (await fetch(base)).text()).not.toContain('Stel je restaurant in');
    expect(server.stderr()).toContain(`Demorestaurant draait op ${base}`);

    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
