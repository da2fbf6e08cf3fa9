import { onTestFinished } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { openDb, type DbHandle } from '../../server/db/connection.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { SyncEngine, type FailPoint } from '../../sync/engine.js';
import { syncRegistry as registry } from '../../server/modules/sync-descriptors.js';
import { jsonBody, withQuery, type SyncReply, type SyncRequest, type SyncTransport } from '../../sync/transport.js';
import { createTestApp, type SeededTenant, type TestApp } from '../helpers/app.js';

/**
 * Two-node harness: a cloud (ROLE=cloud on the lane's database: PostgreSQL in the postgres lane,
 * SQLite in the sqlite lane) and an appliance (always SQLite), joined by a transport the test
 * controls (calls the cloud app via inject; can go offline, lose a request or lose a response).
 */
export type Fault = 'lose-request' | 'lose-response';

export class FakeTransport implements SyncTransport {
  offline = false;
  faults: Fault[] = [];
  calls: { method: string; path: string; query?: SyncRequest['query']; status?: number }[] = [];

  constructor(
    private readonly cloud: () => Runtime,
    public key: string,
  ) {}

  async send(req: SyncRequest): Promise<SyncReply> {
    if (this.offline) throw new Error('offline');
    const fault = this.faults.shift();
    if (fault === 'lose-request') throw new Error('request lost');
    const pending = this.cloud().app.inject({
      method: req.method,
      url: withQuery(req.path, req.query),
      headers: { authorization: `Bearer ${this.key}`, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      // The body's JSON text, as the HTTP transport sends it (a JsonText as it is).
      ...(req.body !== undefined ? { payload: jsonBody(req.body) } : {}),
    });
    // Like fetch: an aborted request rejects at once (a long-poll cut short by a local change).
    const aborted = new Promise<never>((_, reject) => {
      if (req.signal?.aborted) reject(new Error('aborted'));
      req.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    const res = await Promise.race([pending, aborted]);
    this.calls.push({ method: req.method, path: req.path, query: req.query, status: res.statusCode });
    if (fault === 'lose-response') throw new Error('response lost');
    return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : null };
  }
}

export interface Appliance extends Runtime {
  clock: ManualClock;
  engine: SyncEngine;
  /** Simulates a restart: a new engine (no in-memory state) on the same database. */
  restart(): SyncEngine;
  setFailpoint(fn: ((name: FailPoint) => void | Promise<void>) | undefined): void;
}

export async function createCloud(clock = new ManualClock()): Promise<TestApp> {
  return createTestApp({ clock, env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } });
}

export async function createAppliance(transport: SyncTransport, opts: { clock?: ManualClock; handle?: DbHandle; schemaVersion?: number; protocolVersion?: number; pullLimit?: number; pushBatch?: number; snapshotLimit?: number; snapshotBytes?: number; bootstrap?: 'snapshot' | 'replay'; bareEchoes?: boolean; autoClose?: boolean } = {}): Promise<Appliance> {
  const clock = opts.clock ?? new ManualClock();
  const handle = opts.handle ?? openDb({ sqliteFile: ':memory:' });
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/restaurant-test' });
  const rt = await createRuntime(config, { clock, handle });
  if (opts.autoClose !== false) onTestFinished(() => rt.close());
  let failpoint: ((name: FailPoint) => void | Promise<void>) | undefined;
  const make = () =>
    new SyncEngine({
      db: rt.handle.db,
      changes: rt.changes,
      clock,
      transport,
      registry,
      schemaVersion: opts.schemaVersion,
      protocolVersion: opts.protocolVersion,
      pullLimit: opts.pullLimit,
      pushBatch: opts.pushBatch,
      snapshotLimit: opts.snapshotLimit,
      snapshotBytes: opts.snapshotBytes,
      bootstrap: opts.bootstrap,
      bareEchoes: opts.bareEchoes,
      failpoint: (name) => failpoint?.(name),
    });
  const app: Appliance = Object.assign(rt, {
    clock,
    engine: make(),
    restart: () => (app.engine = make()),
    setFailpoint: (fn: typeof failpoint) => {
      failpoint = fn;
    },
  });
  return app;
}

/** What `quiesce` drives: an engine, or a node that has one (read at each call: `restart()` replaces it). */
export type Syncing = { syncOnce(): Promise<{ pushed: number; pulled: number }> } | { engine: { syncOnce(): Promise<{ pushed: number; pulled: number }> } };

/**
 * Syncs until a round neither pushes nor pulls anything and returns the rounds it took. Throws when
 * `maxRounds` rounds each still moved something: sync that does not settle is a failure, never a
 * silent stop with the two sides apart.
 */
export async function quiesce(node: Syncing, maxRounds = 6): Promise<number> {
  const rounds: Array<{ pushed: number; pulled: number }> = [];
  for (let round = 1; round <= maxRounds; round++) {
    const r = await ('engine' in node ? node.engine : node).syncOnce();
    if (r.pushed === 0 && r.pulled === 0) return round;
    rounds.push(r);
  }
  throw new Error(`sync did not settle: each of ${maxRounds} rounds still pushed or pulled (${rounds.map((r) => `${r.pushed}↑ ${r.pulled}↓`).join(', ')})`);
}

/** A cloud tenant (admin + staff) with a registered device; the appliance joined to it. */
export async function twoNodes(opts: Parameters<typeof createAppliance>[1] = {}) {
  const cloud = await createCloud(opts.clock);
  const tenant: SeededTenant = await cloud.seedTenant();
  const { sync_key, device } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Kassa');
  const transport = new FakeTransport(() => cloud, sync_key);
  const appliance = await createAppliance(transport, opts);
  return { cloud, tenant, device, transport, appliance };
}

const JSON_COLUMNS = new Set(['settings']);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** Every replicated table's rows of one tenant, canonicalised (JSON text parsed with sorted keys, numbers as numbers). */
export async function replicatedState(rt: Runtime, tenantId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of registry.replicatedTables()) {
    const t = table as 'users';
    const q = table === 'tenants' ? rt.handle.db.selectFrom(t).selectAll().where('id', '=', tenantId) : rt.handle.db.selectFrom(t).selectAll().where('tenant_id', '=', tenantId);
    const rows = (await q.orderBy('id').execute()) as Record<string, unknown>[];
    out[table] = rows.map((r) =>
      canonical(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, JSON_COLUMNS.has(k) && typeof v === 'string' ? JSON.parse(v) : typeof v === 'bigint' ? Number(v) : v]))),
    );
  }
  return out;
}
