import { describe, expect, it } from 'vitest';
import { baseEnv, runCliProcess, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/process.js';
import { startFakePrinter } from '../helpers/fake-printer.js';
import { decodeEscPos } from '../helpers/escpos.js';

/**
 * Issue 24 "Done when": a SIGKILL of the appliance during a retry neither loses nor doubles a
 * ticket. A real appliance process (server/main.ts, SQLite in a temp DATA_DIR, its own cron jobs)
 * and a fake printer on 127.0.0.1: the printer refuses, then hangs; the appliance is killed while it
 * retries (once between attempts, once with a send in flight to the hanging printer); restarted, with
 * the printer back, each ticket arrives exactly once, whole, and its job is done.
 */
const ADMIN = { email: 'chef@e2e-print.test', password: 'geheim-wachtwoord-1' };

async function http(base: string, method: string, url: string, opts: { cookie?: string; body?: unknown } = {}) {
  const res = await fetch(new URL(url, base), {
    method,
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(opts.cookie ? { cookie: opts.cookie } : {}) },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? null };
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('printing end to end: the appliance SIGKILLed during a retry', () => {
  it('neither loses nor doubles a ticket', async () => {
    const dataDir = tempDataDir();
    const env = baseEnv({ ROLE: 'local', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PRINT_RETRY_BASE_MS: '200', PRINT_RETRY_CAP_MS: '400', PRINT_TIMEOUT_MS: '700' });
    const created = await runCliProcess(['tenant', 'create', '--slug', 'e2e-print', '--name', 'Café Print', '--admin-email', ADMIN.email, '--admin-password', ADMIN.password], env);
    expect(created.code, created.stderr).toBe(0);
    const printer = await startFakePrinter({ mode: 'refuse' });
    let server: ServerProcess | null = null;
    try {
      const start = async () => {
        server = startServerProcess('server/main.ts', [], env);
        const ready = await server.waitForLog((l) => l.msg === 'restaurant service ready', 60_000);
        const base = ready.url as string;
        const login = await http(base, 'POST', '/api/v1/auth/admin-login', { body: { slug: 'e2e-print', ...ADMIN } });
        expect(login.status).toBe(200);
        return { base, cookie: login.cookie! };
      };
      let { base, cookie } = await start();
      const api = (method: string, url: string, body?: unknown) => http(base, method, url, { cookie, ...(body !== undefined ? { body } : {}) });
      const cat = await api('POST', '/api/v1/categories', { name: 'Hoofdgerechten', station: 'keuken' });
      const dish = await api('POST', '/api/v1/products', { name: 'Stoofvlees met frieten', price_cents: 1850, category_id: cat.body.id });
      expect((await api('POST', '/api/v1/printers', { name: 'Keuken', host: '127.0.0.1', port: printer.port, stations: ['keuken'] })).status).toBe(201);
      const jobsOf = async () => (await api('GET', '/api/v1/print-jobs')).body.data as Array<{ id: string; order_id: string; status: string; attempts: number; last_error: string | null }>;

      // 1. Refused: killed between two attempts.
      const first = await api('POST', '/api/v1/orders', { items: [{ product_id: dish.body.id, quantity: 2, notes: 'Allergie: selderij' }] });
      expect(first.status).toBe(201);
      await until('two failed attempts', 20_000, async () => (await jobsOf()).find((j) => j.attempts >= 2));
      server!.child.kill('SIGKILL');
      await server!.exited;

      // 2. Restarted while the printer hangs: killed with a send in flight.
      await printer.setMode('hang');
      ({ base, cookie } = await start());
      const second = await api('POST', '/api/v1/orders', { items: [{ product_id: dish.body.id, quantity: 1 }] });
      expect(second.status).toBe(201);
      await until('a connection to the hanging printer', 20_000, async () => printer.connections >= 2);
      server!.child.kill('SIGKILL');
      await server!.exited;
      expect(printer.tickets).toHaveLength(0);

      // 3. The printer is back; restarted, each ticket prints once.
      await printer.setMode('ok');
      ({ base, cookie } = await start());
      await until('both jobs done', 30_000, async () => {
        const jobs = await jobsOf();
        return jobs.length === 2 && jobs.every((j) => j.status === 'done');
      });
      // A few more delivery rounds: nothing is sent again.
      await new Promise((r) => setTimeout(r, 2500));
      expect(printer.tickets).toHaveLength(2);
      const texts = printer.tickets.map((t) => decodeEscPos(t));
      const byNumber = new Map(texts.map((d) => [d.lines.find((l) => l.startsWith('Bestelling '))!, d]));
      expect(byNumber.get(`Bestelling ${first.body.number}`)!.lines).toContain('2x Stoofvlees met frieten');
      expect(byNumber.get(`Bestelling ${first.body.number}`)!.inverse).toContain('! Allergie: selderij');
      expect(byNumber.get(`Bestelling ${second.body.number}`)!.lines).toContain('1x Stoofvlees met frieten');
      expect(texts.every((d) => d.endsWithCut)).toBe(true);
      const printers = (await api('GET', '/api/v1/printers')).body.data as Array<{ status: string; queued: number }>;
      expect(printers[0]).toMatchObject({ status: 'online', queued: 0 });
    } finally {
      const s = server as ServerProcess | null;
      if (s && s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
      await printer.close();
    }
  }, 120_000);
});
