import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { freshDatabase } from '../e2e/cluster.js';
import { lane, PG_URL } from '../helpers/db.js';
import { baseEnv, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/process.js';
import { startReceiver, until } from './modules/webhooks/receiver.js';

/**
 * A clean, quick stop (issue 27): the real entry point (server/main.ts) in its own process, stopped
 * with SIGTERM as an operator, systemd or the desktop app does. The appliance tells its tablets it
 * is going away, closes their sockets and exits within 1 s; the cloud answers its open sync
 * long-polls at once and exits within 2 s, its webhook sender thread included. Nothing answered 2xx
 * is lost. The bounds are the issue's; everything else asserts behaviour.
 */

const APPLIANCE_EXIT_MS = 1000;
const CLOUD_EXIT_MS = 2000;
/**
 * The bound holds for the server's own stop: from the SIGTERM handler's start to everything closed,
 * measured in the process and logged as `stopped`, right before `process.exit(0)`. The wall time
 * from the signal to the exit seen from outside adds the scheduling of a loaded test machine (2 cores
 * shared with other suites and a browser: up to ≈ 1.5 s more was seen), so it is only checked
 * against the bound plus this slack (that nothing after the close holds the process).
 */
const SLACK_MS = 1500;
const stoppedMs = (server: ServerProcess) => Number(server.lines.find((l) => l.msg === 'stopped')?.ms);

async function started(server: ServerProcess): Promise<string> {
  const ready = await server.waitForLog((l) => l.msg === 'restaurant service ready');
  return String(ready.url);
}

async function login(base: string, body: Record<string, string>, path = 'api/v1/auth/login'): Promise<string> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** SIGTERM and the time until the process has exited. */
async function stop(server: ServerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  return { ...exit, ms: performance.now() - t0 };
}

describe.runIf(lane === 'sqlite')('SIGTERM on the appliance (SQLite, real process)', { timeout: 120_000 }, () => {
  it('with 20 tablets connected and orders coming in: every tablet hears server:closing and is disconnected, the process exits 0 within 1 s, and no order answered 2xx is lost', async () => {
    const dataDir = tempDataDir();
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const seed = await createRuntime(config);
    const { tenant } = await seed.services.tenants.create({ slug: 'stop', name: 'Eetcafé Stop', admin_email: 'a@stop.test', admin_password: 'geheim-wachtwoord-1' });
    await seed.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: '2468' });
    const friet = await seed.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
    await seed.close();
    const env = baseEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' });

    const server = startServerProcess('server/main.ts', [], env);
    const base = await started(server);
    const cookie = await login(base, { slug: 'stop', pin: '2468' });

    // 20 tablets, live.
    const tablets: Array<{ socket: Socket; closing: number; reason: string | null }> = [];
    for (let i = 0; i < 20; i++) {
      const socket = io(base, { extraHeaders: { cookie }, transports: ['websocket'], reconnection: false });
      const t = { socket, closing: 0, reason: null as string | null };
      socket.on('server:closing', () => (t.closing += 1));
      socket.on('disconnect', (reason) => (t.reason = reason));
      tablets.push(t);
      await new Promise((resolve, reject) => {
        socket.once('hello', resolve);
        socket.once('connect_error', reject);
      });
    }
    onTestFinished(() => tablets.forEach((t) => t.socket.close()));

    // Four tills sending orders as fast as they can, each with its own idempotency key.
    const answered = new Map<string, string>(); // key → order id (2xx)
    const unanswered: string[] = []; // keys whose request got no 2xx (refused, reset, 503)
    let sending = true;
    const till = async () => {
      while (sending) {
        const key = randomUUID();
        try {
          const res = await fetch(`${base}api/v1/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie },
            body: JSON.stringify({ items: [{ product_id: friet.id, quantity: 1 }], idempotency_key: key }),
          });
          const body = (await res.json()) as { id?: string };
          if (res.ok) answered.set(key, body.id!);
          else unanswered.push(key);
        } catch {
          unanswered.push(key);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const tills = [till(), till(), till(), till()];
    await until(() => answered.size >= 40, 30_000, '40 orders');

    const exit = await stop(server);
    sending = false;
    await Promise.all(tills);
    console.info(`appliance: exit ${exit.code} ${Math.round(exit.ms)} ms after SIGTERM (stopped in ${stoppedMs(server)} ms; 20 sockets, ${answered.size} orders answered 2xx, ${unanswered.length} not)`);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(stoppedMs(server)).toBeLessThan(APPLIANCE_EXIT_MS);
    expect(exit.ms).toBeLessThan(APPLIANCE_EXIT_MS + SLACK_MS);
    expect(server.lines.some((l) => typeof l.msg === 'string' && l.msg.includes('killed by timeout'))).toBe(false);
    // Every tablet was told, and then disconnected by the server (it shows offline at once).
    await until(() => tablets.every((t) => t.reason !== null), 2000, 'every tablet disconnected');
    expect(tablets.map((t) => t.closing)).toEqual(Array(20).fill(1));
    expect(new Set(tablets.map((t) => t.reason))).toEqual(new Set(['io server disconnect']));

    // No lost write: after a restart every order answered 2xx is there; the requests that got no
    // answer are sent again with their keys, as a tablet's queue does, and arrive exactly once.
    const again = startServerProcess('server/main.ts', [], env);
    const base2 = await started(again);
    const cookie2 = await login(base2, { slug: 'stop', email: 'a@stop.test', password: 'geheim-wachtwoord-1' }, 'api/v1/auth/admin-login');
    for (const key of unanswered) {
      const res = await fetch(`${base2}api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: cookie2 }, body: JSON.stringify({ items: [{ product_id: friet.id, quantity: 1 }], idempotency_key: key }) });
      expect([200, 201], await res.clone().text()).toContain(res.status);
    }
    const ids: string[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = (await (await fetch(`${base2}api/v1/orders?limit=200&offset=${offset}`, { headers: { cookie: cookie2 } })).json()) as { data: Array<{ id: string }>; total: number };
      ids.push(...page.data.map((o) => o.id));
      if (ids.length >= page.total) break;
    }
    for (const id of answered.values()) expect(ids).toContain(id);
    expect(ids).toHaveLength(answered.size + unanswered.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await stop(again)).code).toBe(0);
  });
});

describe.runIf(lane === 'postgres')('SIGTERM on the cloud (PostgreSQL, real process)', { timeout: 180_000 }, () => {
  it('with 50 open sync long-polls and a webhook attempt hanging in the sender thread: the polls are answered at once, the process exits 0 within 2 s, and the delivery goes back to the queue', async () => {
    const db = await freshDatabase(PG_URL);
    onTestFinished(() => db.drop());
    const config = loadConfig({ ROLE: 'cloud', DATABASE_URL: db.url, LOG_LEVEL: 'silent', PAYMENT_PROVIDER: 'simulator' });
    const seed = await createRuntime(config);
    const { tenant } = await seed.services.tenants.create({ slug: 'wolk', name: 'Eetcafé Wolk', admin_email: 'a@wolk.test', admin_password: 'geheim-wachtwoord-1' });
    await seed.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: '2468' });
    const friet = await seed.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
    const { sync_key: syncKey } = await seed.services.sync.cloud.createDevice(tenant.id, 'Kassa');
    await seed.close();

    const rx = await startReceiver();
    rx.answer = 'hang';
    const server = startServerProcess('server/main.ts', [], baseEnv({ ROLE: 'cloud', DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE: '1', PAYMENT_PROVIDER: 'simulator' }));
    const base = await started(server);
    const admin = await login(base, { slug: 'wolk', email: 'a@wolk.test', password: 'geheim-wachtwoord-1' }, 'api/v1/auth/admin-login');
    const hook = await fetch(`${base}api/v1/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: admin }, body: JSON.stringify({ url: rx.url, events: ['order.created'] }) });
    expect(hook.status).toBe(201);
    const order = await fetch(`${base}api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: admin }, body: JSON.stringify({ items: [{ product_id: friet.id, quantity: 1 }] }) });
    expect(order.status).toBe(201);
    // The sender thread's attempt is in flight: the receiver has the request and does not answer.
    await until(() => rx.requests.length === 1, 15_000, 'the webhook attempt');

    // 50 appliances long-polling, caught up (25 s waits).
    const auth = { authorization: `Bearer ${syncKey}` };
    const versions = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;
    const hello = (await (await fetch(`${base}api/v1/sync/hello?${versions}`, { headers: auth })).json()) as { last_seq: number };
    let settled = 0;
    const polls = Array.from({ length: 50 }, () =>
      fetch(`${base}api/v1/sync/pull?${versions}&cursor=${hello.last_seq}&limit=100&wait=25000`, { headers: auth })
        .then(async (res) => ({ status: res.status, body: (await res.json()) as { changes: unknown[]; next_cursor: number } }))
        .finally(() => (settled += 1)),
    );
    // All 50 are waiting (nothing answers a caught-up long-poll before something commits).
    await until(() => server.lines.filter((l) => (l.req as { url?: string } | undefined)?.url?.startsWith('/api/v1/sync/pull')).length === 50, 15_000, '50 long-polls open');
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(0);

    const exit = await stop(server);
    const answers = await Promise.all(polls);
    console.info(`cloud: exit ${exit.code} ${Math.round(exit.ms)} ms after SIGTERM (stopped in ${stoppedMs(server)} ms; 50 long-polls, 1 webhook attempt in flight)`);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(stoppedMs(server)).toBeLessThan(CLOUD_EXIT_MS);
    expect(exit.ms).toBeLessThan(CLOUD_EXIT_MS + SLACK_MS);
    // Answered, not cut off: an empty page at the same cursor; the appliance polls again later or elsewhere.
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(answers.every((a) => a.body.changes.length === 0 && a.body.next_cursor === hello.last_seq)).toBe(true);
    // 50 waiting polls share the change log's listeners (no listener per poll, no leak warning).
    expect(server.stderr()).not.toContain('MaxListenersExceededWarning');

    // The attempt the thread was making went back to the queue uncounted (sent again after a restart).
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query('select status, attempts, lock_token from webhook_deliveries');
      expect(rows).toEqual([{ status: 'pending', attempts: 0, lock_token: null }]);
    } finally {
      await client.end();
    }
  });
});
