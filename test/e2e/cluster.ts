import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pgReachable as probePg } from '../helpers/pg-reachable.js';

/**
 * Real processes for the end-to-end sync test (test/e2e/sync.e2e.test.ts) and the chaos script
 * (bench/sync-chaos.ts): a cloud (`npm start` with ROLE=cloud on a fresh PostgreSQL database) and
 * an appliance (`npm start` on a temporary SQLite DATA_DIR with CLOUD_URL and SYNC_KEY), each on a
 * free 127.0.0.1 port that it keeps across restarts. No vitest imports: the script uses it too.
 * Everything spawned is tracked and killed by `Cluster.close()`.
 */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export const pgReachable = (url = PG_ADMIN_URL): Promise<boolean> => probePg(url);

/** A fresh database on the PostgreSQL server of `adminUrl`; `drop()` removes it (forcing out leftover connections). */
export async function freshDatabase(adminUrl = PG_ADMIN_URL): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `e2e_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** The environment variable that marks every process a cluster spawns (servers and CLI runs), children included. */
export const MARKER_VAR = 'E2E_CLUSTER_MARKER';

/**
 * Live processes whose environment carries `E2E_CLUSTER_MARKER=<marker>` (Linux /proc): whatever a
 * cluster started, including anything those processes started in turn (they inherit it).
 */
export function markedProcesses(marker: string): number[] {
  const needle = `${MARKER_VAR}=${marker}`;
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (environ.split('\0').includes(needle)) found.push(Number(entry));
  }
  return found.sort((a, b) => a - b);
}

function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs `server/cli.ts` to completion and parses its JSON. */
export async function cli(args: string[], env: Record<string, string | undefined>): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`cli ${args.join(' ')} exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as Record<string, any>);
    });
  });
}

export interface HttpReply {
  status: number;
  body: any;
  cookie?: string;
}

/** One HTTP call; `status: 0` when no answer arrived (refused, reset, timeout). */
export async function http(base: string, method: string, url: string, opts: { body?: unknown; cookie?: string; timeoutMs?: number } = {}): Promise<HttpReply> {
  try {
    const res = await fetch(base + url, {
      method,
      headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(opts.cookie ? { cookie: opts.cookie } : {}) },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    const setCookie = res.headers.get('set-cookie');
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, cookie: setCookie ? setCookie.split(';')[0] : undefined };
  } catch {
    return { status: 0, body: null };
  }
}

/** A server process (server/main.ts) on a fixed port; can be killed and started again with other env. */
export class Node {
  child: ChildProcess | null = null;
  stderr = '';
  /** How each start ended: signal or code. */
  exits: Array<{ code: number | null; signal: NodeJS.Signals | null; stderrTail: string }> = [];
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string | undefined>,
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the server and waits until /api/v1/health answers (or the process dies). */
  async start(extraEnv: Record<string, string | undefined> = {}, timeoutMs = 60_000): Promise<void> {
    if (this.alive) throw new Error(`${this.name} already runs`);
    const env = cleanEnv({ ...this.env, ...extraEnv, PORT: String(this.port), HOST: '127.0.0.1' });
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    this.stderr = '';
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise<void>((resolve) =>
      child.on('exit', (code, signal) => {
        this.exits.push({ code, signal, stderrTail: this.stderr.slice(-2000) });
        resolve();
      }),
    );
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${this.name} exited (${child.exitCode ?? child.signalCode}) during start-up: ${this.stderr.slice(-2000)}`);
      }
      const r = await http(this.base, 'GET', '/api/v1/health', { timeoutMs: 1000 });
      if (r.status === 200) return;
      if (Date.now() > end) throw new Error(`${this.name} did not answer /api/v1/health within ${timeoutMs} ms: ${this.stderr.slice(-2000)}`);
      await sleep(50);
    }
  }

  /** Waits for the process to end by itself (e.g. at an armed fail-point); false on timeout. */
  async waitExit(timeoutMs: number): Promise<boolean> {
    if (!this.child) return true;
    const done = await Promise.race([this.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
    return done;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.alive) this.child!.kill(signal);
    await this.exited;
  }
}

export interface Order {
  id: string;
  number: string;
  status: string;
  total_cents: number;
  payment_status: string;
  created_at: string;
}

export type FailPointName = 'outbox.after_commit_before_push' | 'push.after_response_before_ack' | 'pull.after_apply_before_cursor';
export const FAIL_POINT_NAMES: FailPointName[] = ['outbox.after_commit_before_push', 'push.after_response_before_ack', 'pull.after_apply_before_cursor'];

export type Kill = { failpoint: FailPointName } | { randomMs: number };

export interface RoundReport {
  kill: string;
  /** The appliance died at the armed fail-point (or the random SIGKILL landed). */
  killed: boolean;
  /** Time from the healed connection to nothing pending and both order sets equal. */
  healMs: number;
  orders: number;
  unknownRetried: number;
}

const NEXT: Record<string, string> = { new: 'accepted', accepted: 'preparing', preparing: 'ready', ready: 'completed' };

/**
 * One restaurant, its cloud and its appliance, plus the test's own ledger of what the clients were
 * told: every order whose POST got a 2xx (by id), every status change that got a 2xx, and the
 * idempotency keys of POSTs that got no answer (retried after the restart: they must then answer
 * 2xx with one order, never two).
 */
export class Cluster {
  cloud!: Node;
  appliance!: Node;
  slug = `e2e-${randomBytes(3).toString('hex')}`;
  private db!: { url: string; drop(): Promise<void> };
  private dataDir!: string;
  private products: Array<{ id: string; price_cents: number }> = [];
  private cookies: { cloudStaff?: string; cloudAdmin?: string; applianceStaff?: string; applianceAdmin?: string } = {};
  private readonly adminEmail = 'admin@e2e.test';
  private readonly adminPassword = 'e2e-wachtwoord-123';
  private readonly pin = '4321';
  private seq = 0;
  /** order id → where it was created. */
  readonly confirmed = new Map<string, 'appliance' | 'cloud'>();
  /** order id → the last status a PATCH was answered 2xx for. */
  readonly expectedStatus = new Map<string, string>();
  /** idempotency key → node and body of POSTs without an answer (a retry sends the same body). */
  readonly unknown = new Map<string, { where: 'appliance' | 'cloud'; items: Array<{ product_id: string; quantity: number }> }>();
  readonly log: (msg: string) => void;
  /** Carried by every process this cluster spawns (`markedProcesses`); several clusters may share one. */
  readonly marker: string;

  constructor(opts: { log?: (msg: string) => void; marker?: string } = {}) {
    this.log = opts.log ?? (() => {});
    this.marker = opts.marker ?? randomBytes(8).toString('hex');
  }

  /** `killDuringBootstrap`: the appliance's first start is SIGKILLed in the middle of its bootstrap snapshot (before the page commits); the second completes it. */
  static async create(opts: { log?: (msg: string) => void; adminUrl?: string; killDuringBootstrap?: boolean; marker?: string } = {}): Promise<Cluster> {
    const c = new Cluster(opts);
    try {
      await c.setUp(opts.adminUrl ?? PG_ADMIN_URL, opts.killDuringBootstrap ?? false);
    } catch (err) {
      await c.close();
      throw err;
    }
    return c;
  }

  private async setUp(adminUrl: string, killDuringBootstrap: boolean): Promise<void> {
    this.db = await freshDatabase(adminUrl);
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restaurant-e2e-'));
    const common = { LOG_LEVEL: 'warn', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000', [MARKER_VAR]: this.marker };
    const cloudEnv = { ...common, ROLE: 'cloud', DATABASE_URL: this.db.url, PAYMENT_PROVIDER: 'simulator' };
    this.cloud = new Node('cloud', await freePort(), cloudEnv);
    await this.cloud.start();
    await cli(['tenant', 'create', '--slug', this.slug, '--name', 'E2E Bistro', '--admin-email', this.adminEmail, '--admin-password', this.adminPassword], cloudEnv);
    const [, { sync_key }] = await Promise.all([
      cli(['user', 'create', '--tenant', this.slug, '--name', 'Sam', '--pin', this.pin], cloudEnv),
      cli(['device', 'create', '--tenant', this.slug, '--name', 'Keuken'], cloudEnv),
    ]);
    this.cookies.cloudAdmin = await this.adminLogin(this.cloud);
    for (const [name, price] of [['Friet', 350], ['Kroket', 275], ['Bier', 425]] as const) {
      const r = await http(this.cloud.base, 'POST', '/api/v1/products', { cookie: this.cookies.cloudAdmin, body: { name, price_cents: price } });
      if (r.status !== 201) throw new Error(`product: ${r.status} ${JSON.stringify(r.body)}`);
      this.products.push({ id: r.body.id, price_cents: price });
    }
    this.cookies.cloudStaff = await this.staffLogin(this.cloud);
    this.appliance = new Node('appliance', await freePort(), { ...common, ROLE: 'local', DATA_DIR: this.dataDir, CLOUD_URL: this.cloud.base, SYNC_KEY: sync_key as string });
    if (killDuringBootstrap) {
      // The first snapshot page is applied but not committed when the process dies (it may die before /health answers).
      await this.appliance.start({ SYNC_FAILPOINT: 'pull.after_apply_before_cursor' }).catch(() => {});
      if (!(await this.appliance.waitExit(30_000))) throw new Error('the appliance did not reach the fail-point during its bootstrap');
      const exit = this.appliance.exits.at(-1)!;
      if (exit.signal !== 'SIGKILL' || !exit.stderrTail.includes('SYNC_FAILPOINT pull.after_apply_before_cursor hit 1')) throw new Error(`the appliance did not die at the bootstrap fail-point: ${exit.stderrTail}`);
    }
    await this.appliance.start();
    // Bootstrap: staff can log in on the appliance once their user (with PIN hash) has arrived.
    const end = Date.now() + 30_000;
    while (!this.cookies.applianceStaff) {
      const r = await http(this.appliance.base, 'POST', '/api/v1/auth/login', { body: { slug: this.slug, pin: this.pin } });
      if (r.status === 200) this.cookies.applianceStaff = r.cookie;
      else if (Date.now() > end) throw new Error(`appliance bootstrap: staff login ${r.status} ${JSON.stringify(r.body)}`);
      else await sleep(100);
    }
    this.cookies.applianceAdmin = await this.adminLogin(this.appliance);
    await this.until('menu on the appliance', 30_000, async () => {
      const r = await http(this.appliance.base, 'GET', '/api/v1/products', { cookie: this.cookies.applianceAdmin });
      return r.status === 200 && r.body.data.length === this.products.length;
    });
  }

  private async adminLogin(node: Node): Promise<string> {
    const r = await http(node.base, 'POST', '/api/v1/auth/admin-login', { body: { slug: this.slug, email: this.adminEmail, password: this.adminPassword } });
    if (r.status !== 200 || !r.cookie) throw new Error(`admin login on ${node.name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.cookie;
  }

  private async staffLogin(node: Node): Promise<string> {
    const r = await http(node.base, 'POST', '/api/v1/auth/login', { body: { slug: this.slug, pin: this.pin } });
    if (r.status !== 200 || !r.cookie) throw new Error(`staff login on ${node.name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.cookie;
  }

  async until(what: string, ms: number, fn: () => Promise<boolean>): Promise<number> {
    const t0 = Date.now();
    for (;;) {
      if (await fn()) return Date.now() - t0;
      if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
      await sleep(100);
    }
  }

  /** A staff member (appliance) or a web customer stand-in (cloud) places an order. */
  async placeOrder(
    where: 'appliance' | 'cloud',
    key = `k-${where}-${++this.seq}-${randomBytes(3).toString('hex')}`,
    items = this.randomItems(),
  ): Promise<number> {
    const node = where === 'appliance' ? this.appliance : this.cloud;
    const cookie = where === 'appliance' ? this.cookies.applianceStaff : this.cookies.cloudStaff;
    const r = await http(node.base, 'POST', '/api/v1/orders', { cookie, body: { items, idempotency_key: key } });
    if (r.status === 200 || r.status === 201) {
      const expectedTotal = items.reduce((s, i) => s + i.quantity * this.products.find((p) => p.id === i.product_id)!.price_cents, 0);
      if (r.status === 201 && r.body.total_cents !== expectedTotal) throw new Error(`order total ${r.body.total_cents} ≠ ${expectedTotal}`);
      const before = this.confirmed.get(r.body.id);
      if (r.status === 201 && before) throw new Error(`order ${r.body.id} created twice (201 for an id already confirmed)`);
      this.confirmed.set(r.body.id, where);
      this.unknown.delete(key);
    } else if (r.status === 0) {
      this.unknown.set(key, { where, items });
    } else {
      throw new Error(`POST /orders on ${where}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return r.status;
  }

  private randomItems(): Array<{ product_id: string; quantity: number }> {
    const items = [0, 1, 2].filter(() => Math.random() < 0.6).map((i) => ({ product_id: this.products[i]!.id, quantity: 1 + Math.floor(Math.random() * 3) }));
    if (items.length === 0) items.push({ product_id: this.products[0]!.id, quantity: 1 });
    return items;
  }

  /** An admin moves an order of `where` one status forward. */
  async advance(where: 'appliance' | 'cloud'): Promise<void> {
    const candidates = [...this.confirmed].filter(
      ([id, w]) => w === where && (this.expectedStatus.get(id) ?? 'new') !== 'completed' && !this.uncertainStatus.has(id) && !this.expectedStatusAlt.has(id),
    );
    if (candidates.length === 0) return;
    const [id] = candidates[Math.floor(Math.random() * candidates.length)]!;
    const next = NEXT[this.expectedStatus.get(id) ?? 'new']!;
    const node = where === 'appliance' ? this.appliance : this.cloud;
    const cookie = where === 'appliance' ? this.cookies.applianceAdmin : this.cookies.cloudAdmin;
    const r = await http(node.base, 'PATCH', `/api/v1/orders/${id}`, { cookie, body: { status: next } });
    if (r.status === 200) this.expectedStatus.set(id, next);
    else if (r.status !== 0) throw new Error(`PATCH status on ${where}: ${r.status} ${JSON.stringify(r.body)}`);
    // status 0: unknown outcome; the verification accepts the old or the new status for it.
    else this.uncertainStatus.set(id, next);
  }

  readonly uncertainStatus = new Map<string, string>();

  /** Staff keep working on the appliance in the background until `stop()` (or the appliance dies). */
  staffLoop(intervalMs = 80): { stop(): Promise<number> } {
    let running = true;
    let n = 0;
    const done = (async () => {
      while (running) {
        const status = await this.placeOrder('appliance');
        n += 1;
        if (status === 0) break; // appliance gone
        if (n % 3 === 0) await this.advance('appliance');
        await sleep(intervalMs);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await done;
        return n;
      },
    };
  }

  async allOrders(node: Node, cookie: string): Promise<Order[]> {
    const out: Order[] = [];
    for (let offset = 0; ; offset += 200) {
      const r = await http(node.base, 'GET', `/api/v1/orders?limit=200&offset=${offset}`, { cookie });
      if (r.status !== 200) throw new Error(`GET /orders on ${node.name}: ${r.status} ${JSON.stringify(r.body)}`);
      out.push(...(r.body.data as Order[]));
      if (out.length >= r.body.total || r.body.data.length === 0) return out;
    }
  }

  async pending(): Promise<number | null> {
    const r = await http(this.appliance.base, 'GET', '/api/v1/sync/status', { cookie: this.cookies.applianceAdmin });
    return r.status === 200 ? (r.body.pending as number) : null;
  }

  /**
   * One round of the scenario: staff work online; the cloud is taken away while staff keep working;
   * the appliance is killed (armed at a fail-point, or at a random moment of the heal); the cloud
   * comes back and takes orders of its own; everything restarts; then both must converge.
   */
  async round(kill: Kill, opts: { healBoundMs?: number; restartCloud?: boolean } = {}): Promise<RoundReport> {
    const label = 'failpoint' in kill ? kill.failpoint : `random ${kill.randomMs} ms`;
    if (!this.appliance.alive) await this.appliance.start();
    if (!this.cloud.alive) await this.cloud.start();
    // 1. Online.
    for (let i = 0; i < 3; i++) await this.placeOrder('appliance');
    await this.advance('appliance');
    // 2. The cloud is taken away; staff keep working (orders and status changes).
    await this.cloud.kill('SIGKILL');
    this.log(`[${label}] cloud down`);
    for (let i = 0; i < 4; i++) await this.placeOrder('appliance');
    await this.advance('appliance');
    await this.advance('appliance');
    // 3. Arm the appliance: restart it with the fail-point set.
    await this.appliance.kill('SIGKILL');
    let killed = false;
    if ('failpoint' in kill) {
      await this.appliance.start({ SYNC_FAILPOINT: kill.failpoint });
      if (kill.failpoint === 'outbox.after_commit_before_push') {
        // The first local commit after the start kills it: committed, answered never, pushed never.
        const status = await this.placeOrder('appliance');
        killed = await this.appliance.waitExit(10_000);
        if (status !== 0 || !killed) throw new Error(`[${label}] the appliance did not die at the fail-point (POST ${status})`);
        await this.appliance.start();
      }
    } else {
      await this.appliance.start();
    }
    for (let i = 0; i < 2; i++) await this.placeOrder('appliance');
    // 4. The cloud comes back and takes orders of its own while the appliance (re)connects and works.
    await this.cloud.start();
    this.log(`[${label}] cloud up`);
    const staff = this.staffLoop();
    const web = (async () => {
      for (let i = 0; i < 4; i++) {
        await this.placeOrder('cloud');
        if (i % 2 === 1) await this.advance('cloud');
      }
    })();
    if ('failpoint' in kill) {
      if (kill.failpoint !== 'outbox.after_commit_before_push') {
        killed = await this.appliance.waitExit(30_000);
        if (!killed) {
          await staff.stop();
          await web;
          throw new Error(`[${label}] the appliance did not reach the fail-point within 30 s\n${this.appliance.stderr.slice(-2000)}`);
        }
        if (!this.appliance.exits.at(-1)!.stderrTail.includes(`SYNC_FAILPOINT ${kill.failpoint}`)) throw new Error(`[${label}] the appliance died, but not at the fail-point: ${this.appliance.exits.at(-1)!.stderrTail}`);
      }
    } else {
      await sleep(kill.randomMs);
      killed = this.appliance.alive;
      await this.appliance.kill('SIGKILL');
    }
    await this.appliance.kill('SIGKILL');
    await staff.stop();
    await web;
    this.log(`[${label}] appliance killed: ${killed}`);
    // 5. Everything restarted (the cloud once more too, unless `restartCloud: false`: it already was in step 4).
    if (opts.restartCloud !== false) {
      await this.cloud.kill('SIGTERM');
      await this.cloud.start();
    }
    await this.appliance.start();
    const healedAt = Date.now();
    // Clients retry what they never got an answer to, with the same idempotency key.
    const retried = this.unknown.size;
    for (const [key, { where, items }] of [...this.unknown]) {
      const status = await this.placeOrder(where, key, items);
      if (status !== 200 && status !== 201) throw new Error(`retry of ${key} on ${where}: ${status}`);
    }
    for (const [id, next] of this.uncertainStatus) {
      // A PATCH without an answer: whether it happened or not, the order must end in one of the two.
      this.expectedStatus.set(id, this.expectedStatus.get(id) ?? 'new');
      this.expectedStatusAlt.set(id, next);
    }
    this.uncertainStatus.clear();
    const bound = opts.healBoundMs ?? 15_000;
    const healMs = await this.converge(bound, healedAt);
    this.log(`[${label}] converged in ${healMs} ms (${this.confirmed.size} orders)`);
    return { kill: label, killed, healMs, orders: this.confirmed.size, unknownRetried: retried };
  }

  readonly expectedStatusAlt = new Map<string, string>();

  /** Waits (≤ bound from `since`) for nothing pending and equal order sets, then checks every invariant. */
  async converge(boundMs: number, since = Date.now()): Promise<number> {
    let last: string;
    for (;;) {
      const pending = await this.pending();
      if (pending === 0) {
        const a = await this.allOrders(this.appliance, this.cookies.applianceAdmin!);
        const c = await this.allOrders(this.cloud, this.cookies.cloudAdmin!);
        const problems = compare(a, c);
        if (problems.length === 0) {
          this.verify(a, c);
          return Date.now() - since;
        }
        last = problems.slice(0, 5).join('; ');
      } else last = `pending ${pending}`;
      if (Date.now() - since > boundMs) throw new Error(`not converged within ${boundMs} ms after healing: ${last}`);
      await sleep(100);
    }
  }

  /** Nothing lost, nothing doubled, statuses as the clients were told. */
  verify(a: Order[], c: Order[]): void {
    for (const [name, list] of [['appliance', a], ['cloud', c]] as const) {
      const ids = new Map<string, number>();
      for (const o of list) ids.set(o.id, (ids.get(o.id) ?? 0) + 1);
      const twice = [...ids].filter(([, n]) => n > 1);
      if (twice.length) throw new Error(`${name}: orders listed twice: ${twice.map(([id]) => id).join(', ')}`);
      const numbers = new Map<string, string>();
      for (const o of list) {
        const k = `${localDay(o.created_at)} ${o.number}`;
        if (numbers.has(k)) throw new Error(`${name}: order number ${o.number} used twice (${numbers.get(k)} and ${o.id})`);
        numbers.set(k, o.id);
      }
      for (const id of this.confirmed.keys()) if (!ids.has(id)) throw new Error(`${name}: confirmed order ${id} (${this.confirmed.get(id)}) is missing`);
      const byId = new Map(list.map((o) => [o.id, o]));
      for (const [id, status] of this.expectedStatus) {
        const got = byId.get(id)?.status;
        const alt = this.expectedStatusAlt.get(id);
        if (got !== status && got !== alt) throw new Error(`${name}: order ${id} has status ${got}, the client was told ${status}${alt ? ` (or ${alt})` : ''}`);
      }
    }
    // Orders the test never heard of (a POST that died with the appliance and was not retried) would be extra: there are none.
    if (a.length !== this.confirmed.size) throw new Error(`${a.length} orders on the appliance, ${this.confirmed.size} confirmed to clients`);
  }

  async close(): Promise<void> {
    await this.appliance?.kill('SIGKILL').catch(() => {});
    await this.cloud?.kill('SIGKILL').catch(() => {});
    await this.db?.drop().catch(() => {});
    if (this.dataDir) fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function localDay(iso: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam' }).format(new Date(iso));
}

/** Differences between the two sides' orders (id, number, status, total, payment). */
export function compare(a: Order[], c: Order[]): string[] {
  const key = (o: Order) => `${o.number} ${o.status} ${o.total_cents} ${o.payment_status}`;
  const am = new Map(a.map((o) => [o.id, o]));
  const cm = new Map(c.map((o) => [o.id, o]));
  const out: string[] = [];
  for (const [id, o] of am) {
    const other = cm.get(id);
    if (!other) out.push(`${id} only on the appliance`);
    else if (key(o) !== key(other)) out.push(`${id}: appliance ${key(o)} ≠ cloud ${key(other)}`);
  }
  for (const id of cm.keys()) if (!am.has(id)) out.push(`${id} only in the cloud`);
  return out;
}
