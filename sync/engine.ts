import type { ChangeLog, ChangeRecord } from '../server/db/change-log.js';
import type { Db, Tx } from '../server/db/connection.js';
import type { SyncStateTable } from '../server/db/database.js';
import { setMeta } from '../server/db/meta.js';
import { SCHEMA_VERSION } from '../server/db/migrations/index.js';
import type { Clock } from '../server/shared/clock.js';
import { MAX_OP_BYTES, MAX_PULL_LIMIT, MAX_PUSH_OPS, MAX_SNAPSHOT_LIMIT, OVERSIZED, PROTOCOL_VERSION, PULL_PAGE_BYTES, SNAPSHOT_LIMIT_V1, SNAPSHOT_PAGE_BYTES, type HelloResponse, type PullResponse, type PushResponse, type SnapshotResponse, type WireChange, type WireOp } from './protocol.js';
import type { SyncRegistry } from './registry.js';
import { JsonText, type SyncTransport } from './transport.js';
import { TxBatch } from './apply-helpers.js';
import { chunks } from './batch-store.js';
import { RejectOp, type ApplyContext, type SyncChange } from './types.js';

export const STATE_ID = 'appliance';
export const LEASE_MS = 30_000;

/** Syncing must stop until someone acts (version refused, key revoked, database of another restaurant). */
export class SyncStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncStopped';
  }
}

/** Worth retrying later (no connection, cloud unavailable, partial push). */
export class SyncTransient extends Error {
  /** True when the cloud could not be reached at all (no network, DNS, refused), as opposed to an answer saying "later". */
  readonly unreachable: boolean;
  /** The cloud's HTTP status, when it answered. */
  readonly status?: number;
  /** The fields its answer named (`details[].field`), if any: e.g. `limit` from a cloud that refuses a page size. */
  readonly fields?: string[];
  constructor(message: string, options?: { cause?: unknown; unreachable?: boolean; status?: number; fields?: string[] }) {
    super(message, options);
    this.name = 'SyncTransient';
    this.unreachable = options?.unreachable ?? false;
    if (options?.status !== undefined) this.status = options.status;
    if (options?.fields !== undefined) this.fields = options.fields;
  }
}

/**
 * A bare echo of an op this appliance's log does not hold (a database restored from a backup): the
 * engine does not guess its payload; the page is fetched again with every payload (`pullOnce`).
 */
class BareEchoUnknown extends Error {
  constructor(readonly opId: string) {
    super('sync: a bare echo of an op missing from the local log');
    this.name = 'BareEchoUnknown';
  }
}

/** Another runner holds the lease on this database. */
export class LeaseLost extends Error {
  constructor() {
    super('Een andere synchronisatie draait al op deze database.');
    this.name = 'LeaseLost';
  }
}

/**
 * Named crash points (sync/README.md, "Fail-points"). `outbox.after_commit_before_push` is reached by
 * the worker (sync/worker.ts) right after a local domain write committed, before anything is pushed.
 */
export type FailPoint = 'push.after_response_before_ack' | 'pull.after_apply_before_cursor' | 'outbox.after_commit_before_push';

export interface EngineOptions {
  db: Db;
  changes: ChangeLog;
  clock: Clock;
  transport: SyncTransport;
  /** Every replicated entity (server/modules/sync-descriptors.ts). */
  registry: SyncRegistry;
  appVersion?: string;
  schemaVersion?: number;
  protocolVersion?: number;
  /** The lease holder this engine writes under; when set, every sync transaction checks and renews the lease. */
  holder?: string;
  pushBatch?: number;
  /** Changes per pull page at most (default MAX_PULL_LIMIT); the page is sized by `pullBytes` first. */
  pullLimit?: number;
  /** Payload bytes per pull page (default PULL_PAGE_BYTES, ≈ 1 MiB): pages sized by bytes, so memory per page is bounded. */
  pullBytes?: number;
  /**
   * Entities per snapshot page (bootstrap; default MAX_SNAPSHOT_LIMIT); the page is sized by
   * `snapshotBytes` first. A cloud that refuses more than SNAPSHOT_LIMIT_V1 (an older release) is
   * asked with that instead, for the rest of this engine's life.
   */
  snapshotLimit?: number;
  /** Bytes per snapshot page (default SNAPSHOT_PAGE_BYTES): fewer, bigger transactions, memory still bounded. */
  snapshotBytes?: number;
  /** How an empty appliance gets its tenant: copy the current rows (default) or replay the cloud's whole log. */
  bootstrap?: 'snapshot' | 'replay';
  /**
   * Ask the cloud for the next snapshot page while this one is applied (default true): the cloud's
   * reads and serialization overlap the appliance's inserts (issue 29 point 3). At most one page
   * ahead; it is used only when the committed cursor is the one it was asked with.
   */
  snapshotAhead?: boolean;
  /**
   * Ask the cloud for bare echoes (`echoes=bare`, default true): this device's ops that the cloud
   * recorded exactly as sent come back without their payload (sync/README.md "Echoes"). False: every
   * change with its payload (what an appliance from before bare echoes asks; tests).
   */
  bareEchoes?: boolean;
  /** Test hook: called at named points; throwing there simulates a crash at that point. */
  failpoint?: (name: FailPoint) => void | Promise<void>;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

const MAX_BATCH_BYTES = 900_000;
/** Echoes of one entity and kind in a row whose text differed from what was sent, after which `sameEcho` compares values at once. */
const TEXT_MISSES = 8;
/** Pending ops read per statement while a push batch is filled (at most this many rows in memory beyond the batch). */
const PUSH_READ_SLICE = 100;

/**
 * The appliance side of one sync round (sync/README.md): handshake and bootstrap binding, push of
 * this device's change-log rows after the acknowledged position, and pull of the cloud's changes
 * after the cursor, each page applied with its cursor in one transaction. Stateless between calls
 * (everything lives in `sync_state`), so a restart anywhere loses nothing.
 */
export class SyncEngine {
  private ready: { tenantId: string; deviceId: string } | null = null;
  /** The snapshot page asked for ahead (`snapshotAhead`): its cursor, and the answer or the error of that request. */
  private ahead: { cursor: string; page: Promise<SnapshotResponse> } | null = null;
  /** Per entity and kind, echoes in a row whose text differed from what was sent (`sameEcho`). */
  private readonly textMisses = new Map<string, number>();
  /** The cloud refused a snapshot page size above SNAPSHOT_LIMIT_V1 (a release from before MAX_SNAPSHOT_LIMIT grew). */
  private snapshotLimitRefused = false;
  private readonly reg: SyncRegistry;
  private readonly schemaVersion: number;
  private readonly protocolVersion: number;

  constructor(private readonly o: EngineOptions) {
    this.reg = o.registry;
    this.schemaVersion = o.schemaVersion ?? SCHEMA_VERSION;
    this.protocolVersion = o.protocolVersion ?? PROTOCOL_VERSION;
  }

  private versions() {
    return { protocol_version: this.protocolVersion, schema_version: this.schemaVersion, ...(this.o.appVersion ? { app_version: this.o.appVersion } : {}) };
  }

  private async call<T>(method: 'GET' | 'POST', path: string, args: { query?: Record<string, string | number>; body?: unknown; signal?: AbortSignal }): Promise<T> {
    let reply;
    try {
      reply = await this.o.transport.send({ method, path, ...args });
    } catch (err) {
      throw new SyncTransient('Geen verbinding met de cloud.', { cause: err, unreachable: true });
    }
    if (reply.status >= 200 && reply.status < 300) return reply.body as T;
    const body = (reply.body ?? {}) as { error?: string; details?: { field: string }[] };
    const message = body.error ?? `De cloud antwoordde met status ${reply.status}.`;
    const versionField = body.details?.some((d) => d.field === 'protocol_version' || d.field === 'schema_version');
    if ((reply.status === 409 || reply.status === 426) && versionField) throw new SyncStopped(message);
    if (reply.status === 401 || reply.status === 403) throw new SyncStopped(message);
    const fields = body.details?.map((d) => d.field).filter((f): f is string => typeof f === 'string');
    throw new SyncTransient(message, { status: reply.status, ...(fields?.length ? { fields } : {}) });
  }

  async readState(db: Db | Tx = this.o.db): Promise<SyncStateTable | undefined> {
    const row = await db.selectFrom('sync_state').selectAll().where('id', '=', STATE_ID).executeTakeFirst();
    return row ? { ...row, pull_cursor: Number(row.pull_cursor), acked_seq: Number(row.acked_seq), echoed_seq: row.echoed_seq === null ? null : Number(row.echoed_seq) } : undefined;
  }

  /** Handshake, and on an empty database the binding to the cloud's device and tenant. */
  async ensureReady(): Promise<{ tenantId: string; deviceId: string }> {
    if (this.ready) return this.ready;
    const hello = await this.call<HelloResponse>('GET', '/api/v1/sync/hello', { query: this.versions() });
    const { device } = hello;
    const { db, changes, clock } = this.o;
    const state = await this.readState();
    if (state) {
      if (state.device_id !== device.id || state.tenant_id !== device.tenant_id) {
        throw new SyncStopped('Deze database hoort bij een ander apparaat of restaurant dan deze SYNC_KEY. Gebruik de sleutel van dit apparaat of een lege database.');
      }
    } else {
      const tenants = await db.selectFrom('tenants').select('id').execute();
      if (tenants.length > 0) {
        throw new SyncStopped('Deze database bevat al een restaurant dat niet aan de cloud gekoppeld is. Koppel een apparaat met een lege database.');
      }
      const ownChanges = await db.selectFrom('change_log').select('op_id').limit(1).execute();
      if (ownChanges.length > 0) throw new SyncStopped('Deze database is niet leeg; koppel een apparaat met een lege database.');
      const now = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await setMeta(trx, 'device_id', device.id);
        await trx
          .insertInto('sync_state')
          .values({ id: STATE_ID, tenant_id: device.tenant_id, device_id: device.id, pull_cursor: 0, acked_seq: 0, lease_holder: null, lease_expires_at: null, last_success_at: null, last_error: null, last_error_at: null, stopped_reason: null, snapshot_cursor: this.o.bootstrap === 'replay' ? null : '', echoed_seq: 0, updated_at: now })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
      });
      this.o.log?.('sync: bound this appliance to its cloud device', { device: device.id, tenant: device.tenant_id });
    }
    if (changes.origin !== device.id) changes.setOrigin(device.id);
    this.ready = { tenantId: device.tenant_id, deviceId: device.id };
    return this.ready;
  }

  /** Checks that this engine still holds the lease and renews it, inside the caller's transaction. */
  private async fence(trx: Tx): Promise<void> {
    if (!this.o.holder) return;
    const until = new Date(this.o.clock.now().getTime() + LEASE_MS).toISOString();
    const res = await trx
      .updateTable('sync_state')
      .set({ lease_expires_at: until })
      .where('id', '=', STATE_ID)
      .where('lease_holder', '=', this.o.holder)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new LeaseLost();
  }

  /** This device's changes not yet acknowledged by the cloud. */
  async pendingCount(): Promise<number> {
    const state = await this.readState();
    if (!state) return 0;
    const r = await this.o.db
      .selectFrom('change_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', state.tenant_id)
      .where('origin', '=', state.device_id)
      .where('seq', '>', state.acked_seq)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Sends one batch of pending ops; returns how many were sent and whether more are waiting. */
  async pushOnce(): Promise<{ sent: number; more: boolean; results: PushResponse['results'] }> {
    const { tenantId, deviceId } = await this.ensureReady();
    const { db } = this.o;
    const state = (await this.readState())!;
    const limit = this.o.pushBatch ?? MAX_PUSH_OPS;
    // Pending ops read in slices (PUSH_READ_SLICE rows), stopping at the batch's byte budget: the
    // appliance never holds more than one batch plus one slice of its outbox (issue 29 point 4).
    // Each op as JSON text with its payload spliced in as stored (it was written by JSON.stringify):
    // no parse and re-serialization of every payload (issue 29 point 2).
    const ops: string[] = [];
    let lastSent = 0;
    let bytes = 0;
    let after = state.acked_seq;
    let more = false;
    read: for (;;) {
      const slice = Math.min(PUSH_READ_SLICE, limit - ops.length);
      const rows = await db
        .selectFrom('change_log')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('origin', '=', deviceId)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(slice)
        .execute();
      for (const r of rows) {
        // An op over the cloud's limit is not sent: a marker in its place is answered as rejected (protocol.ts OVERSIZED).
        const size = Buffer.byteLength(r.payload);
        const oversized = size > MAX_OP_BYTES;
        bytes += (oversized ? 0 : r.payload.length) + 300;
        if (ops.length > 0 && bytes > MAX_BATCH_BYTES) {
          more = true;
          break read;
        }
        const payload = oversized ? JSON.stringify({ [OVERSIZED]: size }) : r.payload;
        const head: Omit<WireOp, 'payload'> = { op_id: r.op_id, device_seq: Number(r.seq), entity: r.entity, entity_id: r.entity_id, kind: r.kind, created_at: r.created_at };
        ops.push(`${JSON.stringify(head).slice(0, -1)},"payload":${payload}}`);
        after = lastSent = Number(r.seq);
      }
      if (rows.length < slice) break;
      if (ops.length >= limit) {
        more = true; // there may be more (as before: a full batch says so)
        break;
      }
    }
    if (ops.length === 0) return { sent: 0, more: false, results: [] };
    const body = new JsonText(`${JSON.stringify({ ...this.versions(), ops: [] }).slice(0, -3)}[${ops.join(',')}]}`);
    const res = await this.call<PushResponse>('POST', '/api/v1/sync/push', { body });
    await this.o.failpoint?.('push.after_response_before_ack');
    const ackedThrough = Math.min(res.acked_through, lastSent);
    const now = this.o.clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      await this.fence(trx);
      const current = (await this.readState(trx))!;
      await trx
        .updateTable('sync_state')
        .set({ acked_seq: Math.max(current.acked_seq, ackedThrough), last_success_at: now, last_error: null, updated_at: now })
        .where('id', '=', STATE_ID)
        .execute();
      for (const r of res.results) {
        if (r.status === 'applied') continue;
        await trx
          .insertInto('sync_op_results')
          .values({ op_id: r.op_id, tenant_id: tenantId, status: r.status, reason: r.reason, server_seq: r.server_seq, created_at: now })
          .onConflict((oc) => oc.column('op_id').doNothing())
          .execute();
      }
    });
    for (const r of res.results) if (r.status !== 'applied') this.o.log?.(`sync: op ${r.status}`, { op_id: r.op_id, reason: r.reason });
    if (!res.complete) throw new SyncTransient('De cloud kon niet alle wijzigingen verwerken; de rest volgt.');
    return { sent: ops.length, more, results: res.results };
  }

  /** Fetches one page after the cursor and applies it, with the new cursor, in one transaction. */
  async pullOnce(opts: { wait?: number; signal?: AbortSignal } = {}): Promise<{ applied: number; more: boolean; records: ChangeRecord[] }> {
    const { tenantId, deviceId } = await this.ensureReady();
    const state = (await this.readState())!;
    if (state.snapshot_cursor !== null) return this.snapshotPage(state, tenantId);
    const ask = (bare: boolean, wait: number, signal?: AbortSignal) =>
      this.call<PullResponse>('GET', '/api/v1/sync/pull', {
        query: { ...this.versions(), cursor: state.pull_cursor, limit: this.o.pullLimit ?? MAX_PULL_LIMIT, max_bytes: this.o.pullBytes ?? PULL_PAGE_BYTES, wait, ...(bare ? { echoes: 'bare' } : {}) },
        signal,
      });
    const res = await ask(this.o.bareEchoes !== false, opts.wait ?? 0, opts.signal);
    if (res.changes.length === 0 && res.next_cursor === state.pull_cursor) return { applied: 0, more: false, records: [] };
    try {
      return await this.applyPage(res, state.pull_cursor, tenantId, deviceId);
    } catch (err) {
      if (!(err instanceof BareEchoUnknown)) throw err;
      // Nothing of the page was applied (its transaction rolled back): the same page with every payload.
      this.o.log?.('sync: an echo of an op this appliance does not have (a restored database?); the page is fetched again with its payloads', { op_id: err.opId });
      const full = await ask(false, 0);
      if (full.changes.length === 0 && full.next_cursor === state.pull_cursor) return { applied: 0, more: false, records: [] };
      return this.applyPage(full, state.pull_cursor, tenantId, deviceId);
    }
  }

  private async applyPage(res: PullResponse, cursor: number, tenantId: string, deviceId: string): Promise<{ applied: number; more: boolean; records: ChangeRecord[] }> {
    let applied = 0;
    const records: ChangeRecord[] = [];
    await this.o.changes.write(tenantId, async (w) => {
      await this.fence(w.trx);
      const current = (await this.readState(w.trx))!;
      if (current.pull_cursor !== cursor) return; // another runner moved on; this page is stale
      let acked = current.acked_seq;
      // Echoes (sync/README.md "Echoes"): own ops come back in this device's op order. Every own op
      // after `echoed` is re-applied over any cloud state adopted for its entity, so the local state
      // is always the cloud's plus this device's not-yet-echoed ops; an echo that carries exactly
      // what was sent therefore changes nothing here and is skipped. Null: not known yet (a database
      // from before this rule): every echo is adopted, as then, until the first one sets it.
      let echoed = current.echoed_seq;
      // Bare echoes (`echoes=bare`): own ops the cloud recorded as sent, without their payload. One
      // that this page skips needs nothing from the local log but its seq and origin; the others
      // (an entity that adopts every echo, or `echoed` unknown) are adopted with the payload as stored here.
      const textless = new Set<string>();
      for (const c of res.changes) if (c.echo === 'same' && echoed !== null && this.echoSkippable(c)) textless.add(c.op_id);
      const known = new Map<string, { seq: number; origin: string; payload: string | null }>();
      for (const part of chunks(res.changes.filter((c) => !textless.has(c.op_id)).map((c) => c.op_id))) {
        const rows = await w.trx.selectFrom('change_log').select(['op_id', 'seq', 'origin', 'payload']).where('tenant_id', '=', tenantId).where('op_id', 'in', part).execute();
        for (const r of rows) known.set(r.op_id, { seq: Number(r.seq), origin: r.origin, payload: r.origin === deviceId ? r.payload : null });
      }
      for (const part of chunks([...textless])) {
        const rows = await w.trx.selectFrom('change_log').select(['op_id', 'seq', 'origin']).where('tenant_id', '=', tenantId).where('op_id', 'in', part).execute();
        for (const r of rows) known.set(r.op_id, { seq: Number(r.seq), origin: r.origin, payload: null });
      }
      // What this page adopts: foreign changes new here, and echoes that differ from what was sent.
      // Equal as JSON values (key order aside: the cloud's validation may rebuild an object).
      // Only for entities that allow it (EntityDescriptor.echo). Decided once per echo (`sameEcho`);
      // a bare echo is equal by the cloud's word (it recorded the op as sent).
      const sameEcho = new Set<string>();
      const changes: WireChange[] = [];
      for (const c of res.changes) {
        const local = known.get(c.op_id);
        if (c.echo === 'same') {
          // Not in the local log: its payload is unknown here. Nothing is written yet; the page is fetched again in full.
          if (!local) throw new BareEchoUnknown(c.op_id);
          if (local.origin === deviceId && this.echoSkippable(c)) sameEcho.add(c.op_id);
          // Adopted (if at all) with the payload this device sent, which the cloud recorded as its own.
          const { echo: _, ...rest } = c;
          changes.push({ ...rest, payload: local.payload === null ? null : (JSON.parse(local.payload) as unknown) });
        } else {
          if (local?.payload != null && this.echoSkippable(c) && this.sameEcho(c, local.payload)) sameEcho.add(c.op_id);
          changes.push(c);
        }
        // The sent payload's text is only needed for this comparison (or the adoption above).
        if (local) local.payload = null;
      }
      const adopting = changes.filter((c) => {
        const local = known.get(c.op_id);
        return !local || (local.origin === deviceId && !(echoed !== null && sameEcho.has(c.op_id)));
      });
      // Each entity read once and written once per page (ApplyContext.batch), flushed before the cursor
      // moves. Its prefetch hint lists what the page may adopt, not the echoes it skips (after an
      // outage nearly all of a page): the stores read only what will be applied.
      const batch = new TxBatch(adopting.map((c) => ({ ...stripSeq(c), tenant_id: tenantId })));
      const ctx = { side: 'appliance', tenantId, now: w.now, ...batch.context } as const;
      // The changes new here: not in the local log (the first of an op id the page holds twice).
      const fresh = new Map<string, WireChange>();
      for (const c of changes) if (!known.has(c.op_id) && !fresh.has(c.op_id)) fresh.set(c.op_id, c);
      // One of them an op of this device that its log lacks (a restored database): such a page records
      // each change after its apply, as before (the rebase reads this device's ops from the log, which
      // that op then joins).
      const ownFresh = [...fresh.values()].some((c) => c.origin === deviceId);
      // Of the adopted entities, those with own ops that may need re-applying on top: not yet echoed
      // (or, while `echoed` is unknown, not yet acknowledged), and not rejected by the cloud. One lookup
      // per page, with each entity's last own op: an adoption rebases only when that op is after the
      // `echoed` (or `acked`) of that moment, which grows within the page (the echo of an entity's last
      // own op, e.g. a loyalty earn's, has nothing left to re-apply: no read of the log for it).
      const pendingEntities = new Map<string, number>();
      const adoptIds = [...new Set(adopting.map((c) => c.entity_id))];
      const after = echoed ?? acked;
      for (const part of chunks(adoptIds)) {
        const rows = await w.trx
          .selectFrom('change_log')
          .select(['entity', 'entity_id', (eb) => eb.fn.max('seq').as('last')])
          .where('tenant_id', '=', tenantId)
          .where('entity_id', 'in', part)
          .where('origin', '=', deviceId)
          .where('seq', '>', after)
          .groupBy(['entity', 'entity_id'])
          .execute();
        for (const r of rows) pendingEntities.set(`${r.entity}\u0000${r.entity_id}`, Number(r.last));
      }
      // The new changes go into the local change log together, before any is applied: one seq
      // allocation and multi-row inserts instead of two statements per change, the same rows and seqs
      // (consecutive, in page order). Written first rather than after each apply, so what an apply
      // reads of the log is at least what it read before (the one such read, a loyalty erasure's
      // redaction of the stored payloads, then also covers the page's later changes of those rows).
      const early = fresh.size > 0 && !ownFresh;
      if (early) {
        const written = await w.recordMany([...fresh.values()].map((c) => ({ entity: c.entity, entityId: c.entity_id, kind: c.kind, payload: c.payload, opId: c.op_id, origin: c.origin, createdAt: c.created_at })));
        records.push(...written);
      }
      for (const c of changes) {
        const local = known.get(c.op_id);
        if (local && local.origin !== deviceId) continue; // applied before (a page seen twice)
        // Written above: only its first occurrence in the page is applied.
        if (!local && early && !fresh.delete(c.op_id)) continue;
        if (local) {
          acked = Math.max(acked, local.seq); // our own op, now final in the cloud
          const same = echoed !== null && sameEcho.has(c.op_id);
          echoed = Math.max(echoed ?? 0, local.seq);
          if (same) {
            applied += 1;
            continue;
          }
        }
        const change: SyncChange = { ...stripSeq(c), tenant_id: tenantId };
        const descriptor = this.reg.descriptor(c.entity);
        if (descriptor) {
          await descriptor.apply(w.trx, change, { ...ctx, mode: 'adopt' });
          // A page that records own ops after their apply (`ownFresh`) adds later own ops to the log: it rebases as before.
          const last = pendingEntities.get(`${c.entity}\u0000${c.entity_id}`);
          if (last !== undefined && (ownFresh || last > (echoed ?? acked))) await this.rebase(w.trx, change, echoed ?? acked, { ...ctx, mode: 'merge' }, deviceId);
        } else {
          this.o.log?.('sync: change of an entity this version does not know; kept in the change log, not applied', { entity: c.entity, kind: c.kind });
        }
        if (!local) {
          if (!early) records.push(await w.record({ entity: c.entity, entityId: c.entity_id, kind: c.kind, payload: c.payload, opId: c.op_id, origin: c.origin, createdAt: c.created_at }));
          known.set(c.op_id, { seq: 0, origin: c.origin, payload: null });
        }
        applied += 1;
      }
      await batch.flush(w.trx);
      await this.o.failpoint?.('pull.after_apply_before_cursor');
      await w.trx
        .updateTable('sync_state')
        .set({ pull_cursor: res.next_cursor, acked_seq: acked, echoed_seq: echoed, last_success_at: w.now, last_error: null, updated_at: w.now })
        .where('id', '=', STATE_ID)
        .execute();
    });
    return { applied, more: res.has_more, records };
  }

  /**
   * Snapshot bootstrap (sync/README.md), one page, applied with the next snapshot cursor in one
   * transaction; after the last page the pull cursor is the snapshot's seq, so the changes committed
   * meanwhile are pulled and adopted on top. Always `more: true`: the pull goes on from there.
   */
  private async snapshotPage(state: SyncStateTable, tenantId: string): Promise<{ applied: number; more: boolean; records: ChangeRecord[] }> {
    let res: SnapshotResponse;
    const cursor = state.snapshot_cursor!;
    // The page asked for ahead, if it is this one (anything else, e.g. after a failed page, is dropped).
    const ahead = this.ahead?.cursor === cursor ? this.ahead.page : null;
    this.ahead = null;
    try {
      res = await (ahead ?? this.fetchSnapshot(cursor));
    } catch (err) {
      if (!(err instanceof SyncTransient && err.status === 404 && state.snapshot_cursor === '')) throw err;
      // A cloud from before snapshots: replay its whole log instead.
      this.o.log?.('sync: the cloud has no snapshot; replaying its change log from the start');
      await this.o.db.updateTable('sync_state').set({ snapshot_cursor: null }).where('id', '=', STATE_ID).where('snapshot_cursor', '=', '').execute();
      return { applied: 0, more: true, records: [] };
    }
    // The next page is asked for now and read by the cloud while this one is applied (pipelined).
    // Only a read of the cloud: it is used if this page commits (the cursor then is its
    // next_cursor), dropped otherwise; its error, if any, is the next page's.
    if (res.next_cursor !== null && this.o.snapshotAhead !== false) {
      const page = this.fetchSnapshot(res.next_cursor);
      page.catch(() => {});
      this.ahead = { cursor: res.next_cursor, page };
    }
    let applied = 0;
    await this.o.changes.write(tenantId, async (w) => {
      await this.fence(w.trx);
      const current = (await this.readState(w.trx))!;
      if (current.snapshot_cursor !== state.snapshot_cursor) return; // another runner moved on; this page is stale
      // One SyncChange per row, the batch's hint and the apply's argument alike (an apply never changes its argument).
      const changes: SyncChange[] = res.changes.map((c) => ({ op_id: `snapshot:${c.entity}:${c.entity_id}`, origin: 'cloud', entity: c.entity, entity_id: c.entity_id, kind: c.kind, payload: c.payload, created_at: c.created_at, tenant_id: tenantId }));
      const batch = new TxBatch(changes);
      // `snapshot`: rows of the cloud's own tables, their payloads' shape checked rather than the API's field rules (parsePayload).
      const ctx = { side: 'appliance', mode: 'adopt', snapshot: true, tenantId, now: w.now, ...batch.context } as const;
      for (const change of changes) {
        const descriptor = this.reg.descriptor(change.entity);
        if (!descriptor) {
          this.o.log?.('sync: snapshot row of an entity this version does not know; skipped', { entity: change.entity });
          continue;
        }
        await descriptor.apply(w.trx, change, ctx);
        applied += 1;
      }
      await batch.flush(w.trx);
      await this.o.failpoint?.('pull.after_apply_before_cursor');
      await w.trx
        .updateTable('sync_state')
        .set({ snapshot_cursor: res.next_cursor, ...(res.next_cursor === null ? { pull_cursor: res.seq } : {}), last_success_at: w.now, last_error: null, updated_at: w.now })
        .where('id', '=', STATE_ID)
        .execute();
    });
    return { applied, more: true, records: [] };
  }

  /** Whether an equal echo of this change may be skipped (EntityDescriptor `echo`, `echoKinds`). */
  private echoSkippable(c: WireChange): boolean {
    const d = this.reg.descriptor(c.entity);
    return d !== undefined && (d.echo === 'skip-equal' || (d.echoKinds?.includes(c.kind) ?? false));
  }

  /**
   * Whether an echo's payload equals the stored one (JSON text) as JSON values, key order aside.
   * Usually the cloud records a pushed payload as sent, so its text is the same: one stringify and a
   * string compare. Only when the texts differ is the stored text parsed and compared value by value
   * (`jsonEqual`). The cloud rebuilds some payloads in another key order (its validation): per entity
   * and kind, after TEXT_MISSES such misses in a row the string compare is skipped and the values
   * compared at once.
   */
  private sameEcho(c: WireChange, text: string): boolean {
    const key = `${c.entity}\u0000${c.kind}`;
    const misses = this.textMisses.get(key) ?? 0;
    if (misses < TEXT_MISSES) {
      if (JSON.stringify(c.payload) === text) {
        if (misses > 0) this.textMisses.set(key, 0);
        return true;
      }
      this.textMisses.set(key, misses + 1);
    }
    return jsonEqual(JSON.parse(text) as unknown, c.payload);
  }

  /**
   * One snapshot page from the cloud: `cursor` '' is the first page (none sent). A cloud from before
   * MAX_SNAPSHOT_LIMIT grew refuses a `limit` above SNAPSHOT_LIMIT_V1 (400 naming `limit`): the page
   * is asked again with that, and so is every later one (sync/README.md, protocol step 4).
   */
  private async fetchSnapshot(cursor: string): Promise<SnapshotResponse> {
    const ask = (limit: number) =>
      this.call<SnapshotResponse>('GET', '/api/v1/sync/snapshot', {
        query: { ...this.versions(), ...(cursor ? { cursor } : {}), limit, max_bytes: this.o.snapshotBytes ?? SNAPSHOT_PAGE_BYTES },
      });
    const wanted = this.o.snapshotLimit ?? MAX_SNAPSHOT_LIMIT;
    if (wanted <= SNAPSHOT_LIMIT_V1 || this.snapshotLimitRefused) return ask(Math.min(wanted, SNAPSHOT_LIMIT_V1));
    try {
      return await ask(wanted);
    } catch (err) {
      if (!(err instanceof SyncTransient && err.status === 400 && err.fields?.includes('limit'))) throw err;
      if (!this.snapshotLimitRefused) this.o.log?.(`sync: the cloud takes at most ${SNAPSHOT_LIMIT_V1} rows per snapshot page; asking for that`);
      this.snapshotLimitRefused = true;
      return ask(SNAPSHOT_LIMIT_V1);
    }
  }

  /**
   * Re-applies this device's ops after `after` on the entity over the cloud state just adopted
   * (Replicache-style rebase): the ops the cloud has not echoed yet, except those it rejected.
   */
  private async rebase(trx: Tx, change: SyncChange, after: number, ctx: ApplyContext, deviceId: string): Promise<void> {
    const { tenantId } = ctx;
    const pending = await trx
      .selectFrom('change_log')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('entity_id', '=', change.entity_id)
      .where('seq', '>', after)
      .where('origin', '=', deviceId)
      .where('entity', '=', change.entity)
      .where('op_id', 'not in', (eb) => eb.selectFrom('sync_op_results').select('op_id').where('tenant_id', '=', tenantId).where('status', '=', 'rejected'))
      .orderBy('seq')
      .execute();
    const descriptor = this.reg.descriptor(change.entity)!;
    for (const p of pending) {
      try {
        await descriptor.apply(trx, { ...p, payload: JSON.parse(p.payload) as unknown }, ctx);
      } catch (err) {
        // The cloud will answer this op itself when it is pushed; here it simply does not apply.
        if (!(err instanceof RejectOp)) throw err;
      }
    }
  }

  /** Push everything pending, then pull until caught up. */
  async syncOnce(): Promise<{ pushed: number; pulled: number }> {
    let pushed = 0;
    let pulled = 0;
    for (;;) {
      const r = await this.pushOnce();
      pushed += r.sent;
      if (!r.more) break;
    }
    for (;;) {
      const r = await this.pullOnce();
      pulled += r.applied;
      if (!r.more) break;
    }
    return { pushed, pulled };
  }
}

/**
 * Equality of two JSON values (what `JSON.parse` makes: plain objects, arrays, strings, numbers,
 * booleans, null), key order aside: `util.isDeepStrictEqual` for such values (numbers by
 * `Object.is`), without its checks of prototypes, property descriptors and symbols, which cost it
 * several times as much per echo.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  return true;
}

function stripSeq(c: WireChange): Omit<SyncChange, 'tenant_id'> {
  return { op_id: c.op_id, origin: c.origin, entity: c.entity, entity_id: c.entity_id, kind: c.kind, payload: c.payload, created_at: c.created_at };
}

export type { HelloResponse };
