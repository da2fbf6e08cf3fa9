import { sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { ChangeInput, ChangeLog, ChangeRecord, Writer } from '../server/db/change-log.js';
import { insertRows, selectByKeys } from '../server/db/bulk.js';
import type { Db, Executor } from '../server/db/connection.js';
import type { SyncDevicesTable, SyncOpsTable } from '../server/db/database.js';
import { isUniqueViolation } from '../server/db/errors.js';
import { SCHEMA_VERSION } from '../server/db/migrations/index.js';
import type { Clock } from '../server/shared/clock.js';
import { AppError, invalidField, isAppError, notFound, unauthorized } from '../server/shared/errors.js';
import { newId } from '../server/shared/ids.js';
import { newToken, sha256 } from '../server/shared/secrets.js';
import { fieldName, scanJson } from '../server/shared/validation.js';
import { isTransientDbError } from './errors.js';
import {
  cloudWindow,
  MAX_FIELD_CHARS,
  MAX_OP_BYTES,
  MAX_PAYLOAD_DEPTH,
  MAX_PULL_BYTES,
  MAX_SNAPSHOT_BYTES,
  OVERSIZED,
  PROTOCOL_VERSION,
  versionRefusal,
  type HelloResponse,
  type OpResult,
  type PushBody,
  type PushResponse,
  type VersionWindow,
  type WireOp,
} from './protocol.js';
import type { SyncRegistry } from './registry.js';
import { TxBatch } from './apply-helpers.js';
import { jsonEqual } from './engine.js';
import { RejectOp, type ApplyOutcome, type SyncChange } from './types.js';

export type DeviceRow = SyncDevicesTable;

export interface DeviceDto {
  id: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
  last_seen_at: string | null;
  last_device_seq: number;
  app_version: string | null;
  schema_version: number | null;
}

const toDeviceDto = (d: DeviceRow): DeviceDto => ({
  id: d.id,
  name: d.name,
  created_at: d.created_at,
  revoked_at: d.revoked_at,
  last_seen_at: d.last_seen_at,
  last_device_seq: Number(d.last_device_seq),
  app_version: d.app_version,
  schema_version: d.schema_version,
});

/** Thrown when the database is (temporarily) unavailable: the route answers 503 and nothing was acknowledged. */
export const unavailable = () => new AppError('INTERNAL', 'De cloud is tijdelijk niet beschikbaar; de synchronisatie probeert het zo opnieuw.', { status: 503, headers: { 'retry-after': '5' } });

/**
 * A push transaction (chunk) holds at most PUSH_TX_OPS ops and, after its first op, at most
 * PUSH_TX_BYTES of payload: one commit (and fsync), one dedupe read, one prefetch per area and one
 * set of multi-row writes per chunk instead of per op, while the tenant's write lock is held only for
 * one chunk at a time. An appliance's push (MAX_PUSH_OPS ops, ≈ 0.9 MB) is normally one chunk
 * (issue 29: 250 ops per chunk made two of most pushes, bench/README.md "Sync catch-up, session 10").
 */
export const PUSH_TX_OPS = 480;
export const PUSH_TX_BYTES = 1024 * 1024;

/** An op of an optimistic chunk failed: roll the chunk back and apply it again with a savepoint per op. */
class RetrySafely extends Error {
  constructor(readonly original: unknown) {
    super('sync push: an op failed in an optimistic chunk');
  }
}

/**
 * What an idle long-poll costs (issue 28 point 14; sync/README.md "What a pull costs"): the cloud
 * keeps three things in memory so that a poll with nothing new costs no statement in the common case.
 * - KEY_CACHE: SYNC_KEY hash → device row, for KEY_CACHE_MS, at most KEY_CACHE_MAX keys (unknown keys
 *   are not cached). Revoking or rotating a key forgets it on this node at once and, through the
 *   cluster bus (ChangeLog.announce → server/cluster.ts), on the others; a node that missed the
 *   notice (Redis down) forgets it after KEY_CACHE_MS at the latest.
 * - CONTACT_FLUSH_MS: contacts (last_seen_at) are noted in memory and written for all devices at once
 *   in one statement per flush, so each device's row at most once per flush; this node's readers
 *   (listDevices) see the noted contacts at once, other nodes within CONTACT_FLUSH_MS.
 * - HIGH_WATER_TRUST_MS: per tenant the highest seq this node knows to exist (its commits, other
 *   nodes' commit notices, what it read); a pull whose cursor is at or past it skips the page read.
 *   Known only from a read of the log younger than HIGH_WATER_TRUST_MS, so a commit this node did not
 *   hear of (another process, a lost notice) reaches the appliances within that time at the latest.
 */
export const KEY_CACHE_MS = 30_000;
export const KEY_CACHE_MAX = 20_000;
export const CONTACT_FLUSH_MS = 5_000;
export const HIGH_WATER_TRUST_MS = 15_000;
/**
 * Public ordering asks, for every guest's order, whether the restaurant's appliance is silent
 * (`heardFromSince`): answered from memory when it can be. Per tenant the live devices (id,
 * registration, last contact as read) for DEVICES_CACHE_MS; registering, revoking or rotating a key
 * forgets them on every node (the `sync.device` notice), a node that missed the notice after
 * DEVICES_CACHE_MS at the latest (a revoked key stops making contact within KEY_CACHE_MS even then).
 * This node's own contacts are remembered per device. Contacts only move forward, so a contact known
 * here is a lower bound of the real one: "heard from since" is exact when it says yes; a no is read
 * again from the table.
 */
export const DEVICES_CACHE_MS = 5 * 60_000;
/** Rows per contact-flush statement (2 parameters each). */
const CONTACTS_PER_STATEMENT = 400;

const badKey = () => unauthorized('Ongeldige of ingetrokken synchronisatiesleutel (SYNC_KEY).');

const MiB = 1024 * 1024;

/**
 * What one device may push (issue 17; SECURITY.md, sync/README.md "Limits"): sync is exempt from the
 * per-IP request rate limit, not from limits. A token bucket per device, kept in `sync_devices` (so
 * it holds across cloud nodes): a full bucket holds `ops` ops and `bytes` payload bytes, and refills
 * at `opsPerHour` and `bytesPerHour`. A push that does not fit is answered 429 RATE_LIMITED with
 * Retry-After; the appliance backs off and sends it again, nothing is lost. The full bucket covers a
 * week's outage of a busy restaurant (bench: 7 days = 35,000 ops, ≈ 45 MB) in one go; the refill is
 * ten times a busy day's steady pace. Every op counts, duplicates too (they cost the cloud a read).
 */
export interface DeviceBudget {
  ops: number;
  bytes: number;
  opsPerHour: number;
  bytesPerHour: number;
}
// Sized for the longest honest backlog, a busy week offline with every area (bench: ≈ 72,000 ops, see
// bench/README.md), with room to spare, so a legitimate catch-up is never throttled; abuse is still
// bounded (and every op is capped on its own).
export const DEVICE_BUDGET: DeviceBudget = { ops: 200_000, bytes: 512 * MiB, opsPerHour: 100_000, bytesPerHour: 256 * MiB };

const OpId = z.uuid();
const OpTimestamp = z.iso.datetime({ offset: true });

/** A payload as JSON text (what the change log stores). */
const payloadText = (payload: unknown): string => JSON.stringify(payload ?? null) ?? 'null';

/** Size in bytes of a payload as JSON (what the change log stores). */
export const payloadBytes = (payload: unknown): number => Buffer.byteLength(payloadText(payload));

/**
 * An op's payload as JSON text and its size in bytes (payloadBytes), made once per op of a push: the
 * budget, the chunks and the limits ask for the size, and the change log stores the text when the
 * descriptor records the payload as pushed (`payloadJson`: not serialized a second time).
 */
const measured = new WeakMap<WireOp, { text: string; bytes: number }>();
const measure = (op: WireOp): { text: string; bytes: number } => {
  let m = measured.get(op);
  if (m === undefined) {
    const text = payloadText(op.payload);
    measured.set(op, (m = { text, bytes: Buffer.byteLength(text) }));
  }
  return m;
};
const sizeOf = (op: WireOp): number => measure(op).bytes;

/** A push's ops (in device_seq order) cut into its transactions: PUSH_TX_OPS ops and PUSH_TX_BYTES of payload at most (at least one op each). */
export function pushChunks(ops: WireOp[]): WireOp[][] {
  const out: WireOp[][] = [];
  let chunk: WireOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    const size = Math.min(sizeOf(op), MAX_OP_BYTES + 1);
    if (chunk.length > 0 && (chunk.length >= PUSH_TX_OPS || bytes + size > PUSH_TX_BYTES)) {
      out.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(op);
    bytes += size;
  }
  if (chunk.length > 0) out.push(chunk);
  return out;
}

/**
 * The framework's own checks of one pushed op, before any descriptor sees it (issue 17): a UUID op
 * id, no NUL byte in its names, an ISO timestamp, the payload within MAX_OP_BYTES, every string in
 * it within MAX_FIELD_CHARS and free of NUL bytes, nesting within MAX_PAYLOAD_DEPTH. Returns the
 * Dutch reason of the rejection, or null. (The descriptors then validate the payload like the API.)
 */
export function opRefusal(op: WireOp): string | null {
  if (!OpId.safeParse(op.op_id).success) return 'Ongeldige wijziging: het op-id is geen geldige id.';
  for (const field of ['entity', 'entity_id', 'kind'] as const) {
    if (op[field].includes('\u0000')) return `Ongeldige wijziging: '${field}' bevat een ongeldig teken (een NUL-byte).`;
  }
  if (!OpTimestamp.safeParse(op.created_at).success) return "Ongeldige wijziging: 'created_at' is geen geldig tijdstip (ISO-8601).";
  const p = op.payload as Record<string, unknown> | null | undefined;
  if (p && typeof p === 'object' && !Array.isArray(p) && OVERSIZED in p) {
    return `Deze wijziging is te groot om te synchroniseren (${Number(p[OVERSIZED]) || 'meer dan ' + MAX_OP_BYTES} bytes; maximaal ${MAX_OP_BYTES}).`;
  }
  const bytes = sizeOf(op);
  if (bytes > MAX_OP_BYTES) return `Deze wijziging is te groot om te synchroniseren (${bytes} bytes; maximaal ${MAX_OP_BYTES}).`;
  const issue = clearOfIssues(op.payload, measure(op).text) ? null : scanJson(op.payload, { maxString: MAX_FIELD_CHARS, maxDepth: MAX_PAYLOAD_DEPTH });
  if (issue) {
    const field = fieldName(issue.path) || 'payload';
    if (issue.kind === 'nul') return `Ongeldige wijziging: '${field}' bevat een ongeldig teken (een NUL-byte).`;
    if (issue.kind === 'long') return `Ongeldige wijziging: '${field}' is te lang (maximaal ${MAX_FIELD_CHARS} tekens).`;
    return `Ongeldige wijziging: '${field}' is te diep genest (maximaal ${MAX_PAYLOAD_DEPTH} niveaus).`;
  }
  return null;
}

/**
 * True when `scanJson` cannot find an issue in the payload (so it need not walk every string of it),
 * told from the JSON text the size check made and one walk over its objects and arrays only
 * (issue 29: scanJson was ≈ 24 µs of every pushed op). Exact for plain objects and arrays, which is
 * all a payload parsed from the push's JSON is (anything else: false, and scanJson decides):
 * - no NUL: JSON.stringify writes U+0000 in a string or a key as the escape `\u0000`, so a text
 *   without that escape has none (a literal backslash before "u0000" only costs the scan);
 * - no string or key longer than MAX_FIELD_CHARS: each is in the text, at least as long as written;
 * - no nesting of MAX_PAYLOAD_DEPTH: `shallow`.
 * False means "maybe": scanJson walks it as before and reports the same issue.
 */
function clearOfIssues(payload: unknown, text: string): boolean {
  return text.length <= MAX_FIELD_CHARS && !text.includes('\\u0000') && shallow(payload, MAX_PAYLOAD_DEPTH);
}

/** No object or array at depth `room` or deeper (scanJson's "deep"), and every one of them a plain object or an array. */
function shallow(v: unknown, room: number): boolean {
  if (typeof v !== 'object' || v === null) return true;
  if (room === 0) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const c: unknown = v[i];
      if (typeof c === 'object' && c !== null && !shallow(c, room - 1)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) {
    const c = (v as Record<string, unknown>)[k];
    if (typeof c === 'object' && c !== null && !shallow(c, room - 1)) return false;
  }
  return true;
}

/** Whether an op id can be stored (PostgreSQL refuses NUL bytes in text): one that cannot is answered, not recorded. */
const storable = (opId: string) => !opId.includes('\u0000');

const permanentReason = (err: unknown): string => {
  if (err instanceof RejectOp || isAppError(err)) return err.message;
  if (isUniqueViolation(err)) return 'Deze wijziging botst met bestaande gegevens in de cloud.';
  return 'Deze wijziging kon niet worden verwerkt.';
};

/**
 * The cloud side of sync: device registry, push (apply appliance ops through the one write path so
 * each lands in the cloud change log with its per-tenant seq = server_seq, keeping its op_id and
 * origin), pull (the change log after a cursor, in seq order) and the hello handshake.
 */
export function createSyncCloud(deps: { db: Db; changes: ChangeLog; clock: Clock; registry: SyncRegistry; window?: VersionWindow; budget?: DeviceBudget; onError?: (err: unknown, op: WireOp) => void }) {
  const { db, changes, clock } = deps;
  const reg = deps.registry;
  const window = deps.window ?? cloudWindow();
  const budget = deps.budget ?? DEVICE_BUDGET;

  // ── the key cache (KEY_CACHE_MS) ──
  const keys = new LRUCache<string, DeviceRow>({ max: KEY_CACHE_MAX, ttl: KEY_CACHE_MS });
  /** Forgets every cached key of the device (its key was revoked or rotated, here or on another node). */
  const forgetDevice = (deviceId: string) => {
    for (const [hash, row] of keys.entries()) if (row.id === deviceId) keys.delete(hash);
  };
  // ── the tenants' live devices (DEVICES_CACHE_MS) ──
  type LiveDevice = Pick<DeviceRow, 'id' | 'created_at' | 'last_seen_at'>;
  const liveDevices = new LRUCache<string, LiveDevice[]>({ max: 100_000, ttl: DEVICES_CACHE_MS });
  /** Raised by every forget: a read that began before one must not fill the cache with what it read. */
  let devicesGeneration = 0;
  const forgetLiveDevices = () => {
    devicesGeneration++;
    liveDevices.clear();
  };
  const cacheLiveDevices = (tenantId: string, rows: DeviceRow[], generation: number) => {
    if (generation === devicesGeneration) liveDevices.set(tenantId, rows.filter((d) => !d.revoked_at).map((d) => ({ id: d.id, created_at: d.created_at, last_seen_at: d.last_seen_at })));
  };
  changes.on('notice', (topic, data) => {
    if (topic !== 'sync.device') return;
    forgetDevice(data);
    forgetLiveDevices();
  });

  // ── contacts, written in batches (CONTACT_FLUSH_MS) ──
  const contacts = new Map<string, string>();
  /** Each device's latest contact noted on this node, kept after the flush (heardFromSince). */
  const heard = new LRUCache<string, string>({ max: 100_000 });
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();
  /** Notes a contact of the device at `at` (ISO); written with the next flush. */
  function noteContact(deviceId: string, at: string): void {
    if (!(heard.get(deviceId)! >= at)) heard.set(deviceId, at);
    const prev = contacts.get(deviceId);
    if (prev === undefined || prev < at) contacts.set(deviceId, at);
    if (!flushTimer) {
      flushTimer = setTimeout(() => void flushContacts(), CONTACT_FLUSH_MS);
      flushTimer.unref();
    }
  }
  /** Writes the noted contacts (never moving a device's last_seen_at back: another node may have written a later one). */
  async function flushContacts(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    const run = flushing.then(async () => {
      const batch = [...contacts];
      contacts.clear();
      for (let i = 0; i < batch.length; i += CONTACTS_PER_STATEMENT) {
        const rows = batch.slice(i, i + CONTACTS_PER_STATEMENT);
        const values = sql.join(rows.map(([id, at]) => sql`(${id}, ${at})`));
        try {
          await sql`with v(id, at) as (values ${values})
            update sync_devices set last_seen_at = (select v.at from v where v.id = sync_devices.id)
            where id in (select id from v)
              and (last_seen_at is null or last_seen_at < (select v.at from v where v.id = sync_devices.id))`.execute(db);
        } catch {
          // A contact is a hint (the next one comes within a poll): keep the newer of the two for the next flush.
          for (const [id, at] of rows) if (!(contacts.get(id)! >= at)) contacts.set(id, at);
        }
      }
    });
    flushing = run.catch(() => {});
    return run;
  }
  /** A device row as readers should see it: with this node's contact not written yet. */
  const withContact = (d: DeviceRow): DeviceRow => {
    const at = contacts.get(d.id);
    return at !== undefined && (d.last_seen_at === null || d.last_seen_at < at) ? { ...d, last_seen_at: at } : d;
  };

  // ── the tenants' high-water marks (HIGH_WATER_TRUST_MS) ──
  /**
   * Per tenant: the highest seq known to exist, and when a read of the log last confirmed it (ms,
   * this process's time; 0: never). A commit heard of raises the mark even without a read, so a read
   * that began before that commit and ends after it cannot lower it again.
   */
  const highWater = new LRUCache<string, { seq: number; readAt: number }>({ max: 100_000 });
  const raise = (tenantId: string, seq: number) => {
    const hw = highWater.get(tenantId);
    if (!hw) highWater.set(tenantId, { seq, readAt: 0 });
    else if (hw.seq < seq) hw.seq = seq;
  };
  /** After a read of the tenant's log at `readAt` that ended at `seq` with nothing after it. */
  const confirmed = (tenantId: string, seq: number, readAt: number) => {
    const hw = highWater.get(tenantId);
    highWater.set(tenantId, { seq: Math.max(seq, hw?.seq ?? 0), readAt: Math.max(readAt, hw?.readAt ?? 0) });
  };
  /** Whether this node knows that nothing after `cursor` was committed for the tenant (so the page read can be skipped). */
  const nothingAfter = (tenantId: string, cursor: number) => {
    const hw = highWater.get(tenantId);
    return !!hw && listening && performance.now() - hw.readAt < HIGH_WATER_TRUST_MS && cursor >= hw.seq;
  };

  /**
   * Waiting long-polls per tenant, woken by one pair of change-log listeners (this node's commits
   * and other nodes' notices, server/cluster.ts) instead of a pair per poll: a node holds hundreds of
   * appliances' polls without piling listeners onto the change log.
   */
  const waiting = new Map<string, Set<() => void>>();
  const wakeTenant = (tenantId: string) => {
    for (const wake of waiting.get(tenantId) ?? []) wake();
  };
  const onCommitted = (tenantId: string, records: ChangeRecord[]) => {
    const last = records[records.length - 1];
    if (last) raise(tenantId, last.seq);
    wakeTenant(tenantId);
  };
  const onRemote = (tenantId: string, seq: number) => {
    raise(tenantId, seq);
    wakeTenant(tenantId);
  };
  /** Listening to commits (from the first pull on): high-water marks are only trusted while this node hears them. */
  let listening = false;
  const listen = () => {
    if (listening) return;
    listening = true;
    changes.on('committed', onCommitted);
    changes.on('remote', onRemote);
  };
  function waitForCommit(tenantId: string, wake: () => void): () => void {
    listen();
    let set = waiting.get(tenantId);
    if (!set) waiting.set(tenantId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && waiting.get(tenantId) === set) waiting.delete(tenantId);
    };
  }

  /** The key may have been revoked since the request was authenticated (a long-poll, a long push): check again. */
  async function assertActive(exec: Executor, device: DeviceRow, opts: { cached?: boolean } = {}): Promise<void> {
    // A pull may trust the key cache: a key still in it is neither revoked nor rotated (both forget it
    // at once). A push checks the row in its own transaction.
    if (opts.cached && keys.get(device.key_hash)?.id === device.id) return;
    const row = await exec.selectFrom('sync_devices').select(['revoked_at', 'key_hash']).where('id', '=', device.id).executeTakeFirst();
    // Revoked, or the key rotated (the request came with the old one).
    if (!row || row.revoked_at || row.key_hash !== device.key_hash) throw badKey();
  }

  /**
   * Takes `ops` and `bytes` from the device's bucket (DEVICE_BUDGET), or refuses the push with 429:
   * inside the push's first chunk transaction (issue 28 point 14: no commit of its own), where the
   * tenant's write lock serializes it with every other push of the device (on any node). Reads the
   * bucket with the key check the chunk needs anyway (revoked, or the key rotated: 401), and returns
   * the bucket's new columns, written with the chunk's device-row update (`chunkDeviceUpdate`).
   */
  async function chargeIn(exec: Executor, device: DeviceRow, spend: { ops: number; bytes: number }) {
    const row = await exec.selectFrom('sync_devices').select(['budget_ops', 'budget_bytes', 'budget_at', 'revoked_at', 'key_hash']).where('id', '=', device.id).executeTakeFirst();
    if (!row || row.revoked_at || row.key_hash !== device.key_hash) throw badKey();
    const nowMs = clock.now().getTime();
    const hours = row.budget_at === null ? 0 : Math.max(0, nowMs - new Date(row.budget_at).getTime()) / 3_600_000;
    const haveOps = row.budget_ops === null ? budget.ops : Math.min(budget.ops, Number(row.budget_ops) + hours * budget.opsPerHour);
    const haveBytes = row.budget_bytes === null ? budget.bytes : Math.min(budget.bytes, Number(row.budget_bytes) + hours * budget.bytesPerHour);
    if (haveOps < spend.ops || haveBytes < spend.bytes) {
      const waitHours = Math.max((spend.ops - haveOps) / budget.opsPerHour, (spend.bytes - haveBytes) / budget.bytesPerHour);
      const seconds = Math.max(1, Math.ceil(waitHours * 3600));
      throw new AppError('RATE_LIMITED', `Dit apparaat heeft zijn synchronisatiebudget opgebruikt; de wijzigingen volgen over ${seconds} seconden vanzelf.`, { headers: { 'retry-after': String(seconds) } });
    }
    return { was: row, next: { budget_ops: haveOps - spend.ops, budget_bytes: haveBytes - spend.bytes, budget_at: new Date(nowMs).toISOString() } };
  }

  /**
   * The chunk's one write of the device's row at its end: how far its ops are applied
   * (`last_device_seq`, never back) and, in the first chunk, the charged bucket. The bucket as read
   * is a condition too (compare-and-set, as a push outside the lock would have needed): should it
   * have changed meanwhile, the chunk is rolled back and the push answered 503 (sent again).
   */
  async function chunkDeviceUpdate(exec: Executor, device: DeviceRow, maxSeq: number, charged: Awaited<ReturnType<typeof chargeIn>> | null): Promise<void> {
    if (maxSeq <= 0 && !charged) return;
    let q = exec.updateTable('sync_devices').where('id', '=', device.id);
    if (maxSeq > 0) q = q.set({ last_device_seq: advance(maxSeq) });
    if (charged) {
      const { was, next } = charged;
      q = q.set(next);
      q = was.budget_ops === null ? q.where('budget_ops', 'is', null) : q.where('budget_ops', '=', was.budget_ops);
      q = was.budget_bytes === null ? q.where('budget_bytes', 'is', null) : q.where('budget_bytes', '=', was.budget_bytes);
      q = was.budget_at === null ? q.where('budget_at', 'is', null) : q.where('budget_at', '=', was.budget_at);
    }
    const r = await q.executeTakeFirst();
    if (charged && Number(r.numUpdatedRows) !== 1) throw unavailable();
  }

  function checkVersions(protocol: number, schema: number): void {
    const refusal = versionRefusal(protocol, schema, window);
    if (refusal) throw refusal;
  }

  const versions = () => ({ protocol_version: PROTOCOL_VERSION, schema_version: window.schema.max });

  const advance = (seq: number) =>
    sql<number>`case when last_device_seq < ${seq} then ${seq} else last_device_seq end`;

  const toRow = (device: DeviceRow, r: OpResult, now: string): SyncOpsTable => ({
    op_id: r.op_id,
    tenant_id: device.tenant_id,
    device_id: device.id,
    device_seq: r.device_seq,
    server_seq: r.server_seq,
    status: r.status,
    result: JSON.stringify({ ...r, duplicate: undefined }),
    created_at: now,
  });

  /**
   * One op inside the chunk's transaction: the descriptor's `apply` in merge mode. Returns what the
   * cloud change log gets for it (original op id, origin and created_at, the merged state as
   * payload) without writing it: the caller records it, per op or for the whole chunk at once.
   */
  const toChange = (device: DeviceRow, op: WireOp): SyncChange => ({
    op_id: op.op_id,
    tenant_id: device.tenant_id,
    origin: device.id,
    entity: op.entity,
    entity_id: op.entity_id,
    kind: op.kind,
    payload: op.payload,
    created_at: op.created_at,
  });

  /**
   * Whether the cloud records the op exactly as the device sent it (`change_log.as_sent`: a pull of
   * that device may send its echo bare, sync/README.md "Echoes"): no payload of the apply's own (the
   * pushed text is recorded), or one equal to the pushed payload as JSON values (key order aside:
   * orders' validation rebuilds the object). Asked when the change is recorded, after the batch's
   * flush, which may still change an outcome's payload (stock: the cloud's copy of a movement it had).
   * An apply never changes its argument, so `op.payload` is what was sent.
   */
  const sentAsIs = (op: WireOp, outcome: ApplyOutcome): boolean => outcome.payload === undefined || jsonEqual(outcome.payload, op.payload);

  async function mergeOne(w: Writer, device: DeviceRow, op: WireOp, batch?: TxBatch): Promise<{ input: ChangeInput; outcome: ApplyOutcome }> {
    const change = toChange(device, op);
    const descriptor = reg.descriptor(op.entity);
    if (!descriptor) throw new RejectOp(`Onbekend soort gegevens '${op.entity}'; deze wordt door de cloud (nog) niet gesynchroniseerd.`);
    if (descriptor.merge === 'cloud-only') throw new RejectOp(`'${op.entity}' wordt alleen in de cloud gewijzigd.`);
    const outcome = (await descriptor.apply(w.trx, change, { side: 'cloud', mode: 'merge', tenantId: device.tenant_id, now: w.now, ...batch?.context })) ?? {};
    return {
      input: {
        entity: op.entity,
        entityId: op.entity_id,
        kind: op.kind,
        payload: outcome.payload === undefined ? op.payload : outcome.payload,
        // Recorded as pushed: the text the size check made (the payload itself is not changed by an apply).
        ...(outcome.payload === undefined ? { payloadJson: measure(op).text } : {}),
        opId: op.op_id,
        origin: device.id,
        createdAt: op.created_at,
      },
      outcome,
    };
  }

  /**
   * The tenant's changes after `cursor`, at most `limit`, and no more than `maxBytes` as wire JSON
   * (at least one change), serialized as they are read (`wireChange`: the stored payload text is
   * never parsed): read in slices, so one page never holds more than a slice of big rows.
   * `bareFor` (a device asking with `echoes=bare`): that device's ops recorded as sent (`as_sent`)
   * come without their payload (`bareEcho`), which the read does not fetch (nor, on PostgreSQL,
   * de-TOAST); they count in the page's bytes as what is sent, so a page of them holds up to `limit`.
   */
  async function readPage(tenantId: string, cursor: number, limit: number, maxBytes = MAX_PULL_BYTES, bareFor?: string): Promise<{ parts: string[]; last: number; hasMore: boolean }> {
    const parts: string[] = [];
    let bytes = 0;
    let after = cursor;
    // Taken before the read: a commit after this moment is heard (listening) or shows in the next read.
    const readAt = performance.now();
    for (;;) {
      const slice = Math.min(100, limit + 1 - parts.length);
      const rows =
        bareFor === undefined
          ? await db.selectFrom('change_log').selectAll().where('tenant_id', '=', tenantId).where('seq', '>', after).orderBy('seq').limit(slice).execute()
          : await db
              .selectFrom('change_log')
              .select(['seq', 'op_id', 'origin', 'entity', 'entity_id', 'kind', 'created_at'])
              // null only for a bare echo (the stored payload is never null: at least the text `null`).
              .select(sql<string | null>`case when origin = ${bareFor} and as_sent = 1 then null else payload end`.as('payload'))
              .where('tenant_id', '=', tenantId)
              .where('seq', '>', after)
              .orderBy('seq')
              .limit(slice)
              .execute();
      for (const r of rows) {
        if (parts.length >= limit) return { parts, last: after, hasMore: true };
        const part = r.payload === null ? bareEcho(r) : wireChange(r as typeof r & { payload: string });
        if (parts.length > 0 && bytes + part.length > maxBytes) return { parts, last: after, hasMore: true };
        bytes += part.length;
        parts.push(part);
        after = Number(r.seq);
      }
      if (rows.length < slice) {
        // Nothing after `after` when the read began (or since: those commits raised the mark).
        if (listening) confirmed(tenantId, after, readAt);
        return { parts, last: after, hasMore: false };
      }
    }
  }

  const resultOf = (op: WireOp, conflict: string | null, serverSeq: number | null): OpResult => ({
    op_id: op.op_id,
    device_seq: op.device_seq,
    status: conflict ? 'conflict' : 'applied',
    server_seq: serverSeq,
    reason: conflict,
    duplicate: false,
  });

  /**
   * Up to PUSH_TX_OPS ops in one transaction through `changes.write` (the tenant's write lock, held
   * to the commit). Under the lock the dedupe read is authoritative: a concurrent push of the same
   * ops waits for the lock and then finds them in `sync_ops`.
   *
   * Optimistic first (`safe = false`): no savepoints (no subtransactions); the descriptors apply
   * through a `TxBatch` (each order read once and written once per chunk, ledger rows together) and
   * the chunk's change log rows are written together at the end (`recordMany`: consecutive seqs in
   * op order, as if recorded one by one), after the batch's flush. The first failure, also in the
   * flush, rolls the whole chunk back (nothing committed, nothing announced) and the caller runs it
   * again with `safe = true`, without a batch: each op under its own SAVEPOINT and recorded on its
   * own, so a permanent error undoes only that op, which is stored as rejected. A transient error
   * rolls the chunk back and is rethrown in either mode.
   */
  async function applyChunk(device: DeviceRow, ops: WireOp[], safe: boolean, spend?: { ops: number; bytes: number }): Promise<OpResult[]> {
    return changes.write(device.tenant_id, async (w) => {
      // A key revoked while this push runs stops it at the next chunk. The first chunk charges the
      // push's budget (chargeIn), which checks the key from the same row.
      const charged = spend ? await chargeIn(w.trx, device, spend) : null;
      if (!charged) await assertActive(w.trx, device);
      const prior = new Map<string, OpResult>();
      // Op ids are the tenant's own (issue 17): another restaurant's use of the same id is not a duplicate.
      const ids = [...new Set(ops.map((o) => o.op_id).filter(storable))];
      // Each id looked up on its own (selectByKeys): a read of all the restaurant's sync_ops filtered by id, which
      // PostgreSQL chose without statistics, grew with every chunk of a long catch-up.
      const rows = await selectByKeys<Pick<SyncOpsTable, 'op_id' | 'device_id' | 'result'>>(w.trx, 'sync_ops', ['op_id', 'device_id', 'result'], { tenant_id: device.tenant_id }, 'op_id', ids);
      for (const r of rows) {
        if (r.device_id === device.id) prior.set(r.op_id, { ...(JSON.parse(r.result) as OpResult), duplicate: true });
        else prior.set(r.op_id, { op_id: r.op_id, device_seq: 0, status: 'rejected', server_seq: null, reason: 'Dit op-id is al gebruikt door een ander apparaat van dit restaurant.', duplicate: false });
      }
      const unstored = new Set<number>(); // indexes in results of answers that are not recorded in sync_ops
      const results: OpResult[] = [];
      const firstAt = new Map<string, number>(); // op id → its index in results (the same op twice in one batch)
      const repeats: Array<{ at: number; of: number }> = [];
      // An outcome's conflict may be set by the batch's flush (ApplyOutcome.conflict): read again after it.
      const deferred: Array<{ at: number; input: ChangeInput; op: WireOp; outcome: ApplyOutcome }> = [];
      // Optimistic: descriptors keep what they read and write in the batch and write it once, at the end.
      const batch = safe ? undefined : new TxBatch(ops.map((op) => toChange(device, op)));
      let maxSeq = 0;
      for (const op of ops) {
        const stored = prior.get(op.op_id);
        if (stored) {
          // Answered in the numbering of this push: acked_through is what the device sent. An op of this
          // device that it no longer has (lost by a restore, or sent for it) comes back in a pull, is
          // recorded under a new local seq and pushed again; the seq it was first stored under would
          // keep acked_through below it, and the device would push it forever.
          results.push({ ...stored, device_seq: op.device_seq });
          continue;
        }
        const first = firstAt.get(op.op_id);
        if (first !== undefined) {
          repeats.push({ at: results.length, of: first });
          results.push(results[first]!);
          continue;
        }
        firstAt.set(op.op_id, results.length);
        let result: OpResult;
        // The framework's limits first: refused without any descriptor or database work.
        const refusal = opRefusal(op);
        if (refusal !== null) {
          if (!storable(op.op_id)) unstored.add(results.length);
          results.push({ op_id: op.op_id, device_seq: op.device_seq, status: 'rejected', server_seq: null, reason: refusal, duplicate: false });
          maxSeq = Math.max(maxSeq, op.device_seq);
          continue;
        }
        if (safe) await sql`savepoint sync_op`.execute(w.trx);
        try {
          const merged = await mergeOne(w, device, op, batch);
          if (safe) {
            result = resultOf(op, merged.outcome.conflict ?? null, (await w.record({ ...merged.input, asSent: sentAsIs(op, merged.outcome) })).seq);
            await sql`release savepoint sync_op`.execute(w.trx);
          } else {
            deferred.push({ at: results.length, input: merged.input, op, outcome: merged.outcome });
            result = resultOf(op, merged.outcome.conflict ?? null, null); // server_seq once recorded, below
          }
        } catch (err) {
          if (isTransientDbError(err)) throw err;
          if (!safe) throw new RetrySafely(err);
          await sql`rollback to savepoint sync_op`.execute(w.trx);
          await sql`release savepoint sync_op`.execute(w.trx);
          deps.onError?.(err, op);
          result = { op_id: op.op_id, device_seq: op.device_seq, status: 'rejected', server_seq: null, reason: permanentReason(err), duplicate: false };
        }
        results.push(result);
        maxSeq = Math.max(maxSeq, op.device_seq);
      }
      if (deferred.length > 0) {
        let recs;
        try {
          await batch!.flush(w.trx);
          recs = await w.recordMany(deferred.map((d) => ({ ...d.input, asSent: sentAsIs(d.op, d.outcome) })));
        } catch (err) {
          if (isTransientDbError(err)) throw err;
          throw new RetrySafely(err);
        }
        deferred.forEach((d, i) => (results[d.at] = resultOf(d.op, d.outcome.conflict ?? null, recs[i]!.seq)));
      }
      for (const r of repeats) results[r.at] = { ...results[r.of]!, duplicate: true };
      const fresh = [...firstAt.values()].filter((at) => !unstored.has(at)).map((at) => toRow(device, results[at]!, w.now));
      await insertRows(w.trx, 'sync_ops', fresh as unknown as Array<Record<string, unknown>>);
      await chunkDeviceUpdate(w.trx, device, maxSeq, charged);
      return results;
    });
  }

  return {
    async createDevice(tenantId: string, name: string): Promise<{ device: DeviceDto; sync_key: string }> {
      const key = newToken();
      const row: DeviceRow = {
        id: newId(),
        tenant_id: tenantId,
        name,
        key_hash: sha256(key),
        created_at: clock.now().toISOString(),
        revoked_at: null,
        last_seen_at: null,
        last_device_seq: 0,
        app_version: null,
        schema_version: null,
        protocol_version: null,
        budget_ops: null,
        budget_bytes: null,
        budget_at: null,
      };
      await db.insertInto('sync_devices').values(row).execute();
      // Every node's cached device lists forget the tenant's (heardFromSince).
      changes.announce('sync.device', row.id);
      return { device: toDeviceDto(row), sync_key: key };
    },

    async listDevices(tenantId: string): Promise<DeviceDto[]> {
      const generation = devicesGeneration;
      const rows = await db.selectFrom('sync_devices').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
      cacheLiveDevices(tenantId, rows, generation);
      return rows.map((r) => toDeviceDto(withContact(r)));
    },

    /**
     * True when this node knows, from memory (DEVICES_CACHE_MS; read once when not cached), that the
     * tenant has no live device, or that one of its live devices made contact (or was registered) at
     * or after `since`. False means "not known": ask `listDevices`, which reads the contacts as written
     * (another node's come with its next contact flush).
     */
    async heardFromSince(tenantId: string, since: Date): Promise<boolean> {
      let live = liveDevices.get(tenantId);
      if (!live) {
        const generation = devicesGeneration;
        const rows = await db.selectFrom('sync_devices').select(['id', 'created_at', 'last_seen_at', 'revoked_at']).where('tenant_id', '=', tenantId).execute();
        live = rows.filter((d) => !d.revoked_at).map((d) => ({ id: d.id, created_at: d.created_at, last_seen_at: d.last_seen_at }));
        if (generation === devicesGeneration) liveDevices.set(tenantId, live);
      }
      if (live.length === 0) return true;
      const from = since.getTime();
      return live.some((d) => {
        return [d.created_at, d.last_seen_at, heard.get(d.id)].some((at) => at != null && new Date(at).getTime() >= from);
      });
    },

    /** Writes the contacts noted in memory now (the server's close; tests). */
    flushContacts,

    async revokeDevice(tenantId: string, id: string): Promise<void> {
      const row = await db.selectFrom('sync_devices').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      if (!row || row.revoked_at) throw notFound('Apparaat');
      await db.updateTable('sync_devices').set({ revoked_at: clock.now().toISOString() }).where('id', '=', id).execute();
      changes.announce('sync.device', id);
    },

    /**
     * A new SYNC_KEY for the same device (SECURITY.md): the old key stops working at once (also for a
     * push or long-poll under way: they re-check the key), while the appliance keeps its database,
     * device id and pending changes; it only needs the new key and a restart.
     */
    async rotateDevice(tenantId: string, id: string): Promise<{ device: DeviceDto; sync_key: string }> {
      const key = newToken();
      const row = await db.selectFrom('sync_devices').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      if (!row || row.revoked_at) throw notFound('Apparaat');
      await db.updateTable('sync_devices').set({ key_hash: sha256(key) }).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
      changes.announce('sync.device', id);
      return { device: toDeviceDto(row), sync_key: key };
    },

    /** Bearer SYNC_KEY → its device; revoked or unknown keys are 401. */
    async authenticate(authorization: string | undefined): Promise<DeviceRow> {
      const m = /^Bearer\s+(\S{16,200})$/i.exec(authorization ?? '');
      if (!m) throw badKey();
      const hash = sha256(m[1]!);
      const hit = keys.get(hash);
      if (hit) return hit;
      try {
        const row = await db.selectFrom('sync_devices').selectAll().where('key_hash', '=', hash).executeTakeFirst();
        if (!row || row.revoked_at) throw badKey();
        keys.set(hash, row);
        return row;
      } catch (err) {
        if (isTransientDbError(err)) throw unavailable();
        throw err;
      }
    },

    async hello(device: DeviceRow, q: { protocol_version: number; schema_version: number; app_version?: string }): Promise<HelloResponse> {
      checkVersions(q.protocol_version, q.schema_version);
      const tenant = await db.selectFrom('tenants').select(['id', 'slug', 'name']).where('id', '=', device.tenant_id).executeTakeFirst();
      if (!tenant) throw notFound('Restaurant');
      await db
        .updateTable('sync_devices')
        .set({ last_seen_at: clock.now().toISOString(), app_version: q.app_version ?? null, schema_version: q.schema_version, protocol_version: q.protocol_version })
        .where('id', '=', device.id)
        .execute();
      // The cached row (if any) has the old versions: read it again with the next request.
      keys.delete(device.key_hash);
      return { ...versions(), device: { id: device.id, name: device.name, tenant_id: device.tenant_id }, tenant, last_seq: await changes.lastSeq(device.tenant_id) };
    },

    /**
     * Applies ops in device_seq order, in transactions of up to PUSH_TX_OPS ops (applyChunk:
     * optimistic, or with a savepoint per op once one of the chunk's ops failed). Duplicates
     * answer their stored result; permanent errors are recorded as rejected and still advance; a
     * transient error rolls back its chunk and stops the batch (503 when nothing was committed,
     * else a partial answer for the chunks before it).
     */
    async push(device: DeviceRow, body: PushBody): Promise<PushResponse> {
      checkVersions(body.protocol_version, body.schema_version);
      // The whole push's ops and bytes, charged in its first chunk's transaction (chargeIn).
      const spend = { ops: body.ops.length, bytes: body.ops.reduce((sum, op) => sum + Math.min(sizeOf(op), MAX_OP_BYTES + 1), 0) };
      const ops = [...body.ops].sort((a, b) => a.device_seq - b.device_seq);
      const results: OpResult[] = [];
      let complete = true;
      let first = true;
      for (const chunk of pushChunks(ops)) {
        const charge = first ? spend : undefined;
        first = false;
        try {
          results.push(...(await applyChunk(device, chunk, false, charge).catch((err: unknown) => {
            if (err instanceof RetrySafely) return applyChunk(device, chunk, true, charge);
            throw err;
          })));
        } catch (err) {
          if (isTransientDbError(err)) {
            complete = false;
            break;
          }
          throw err;
        }
      }
      if (!complete && results.length === 0) throw unavailable();
      const now = clock.now().toISOString();
      if (device.app_version !== (body.app_version ?? null) || device.schema_version !== body.schema_version || device.protocol_version !== body.protocol_version) {
        // Another version than the device's row says (an upgrade without a hello): written now, and the key cache forgets the old row.
        await db
          .updateTable('sync_devices')
          .set({ last_seen_at: now, app_version: body.app_version ?? null, schema_version: body.schema_version, protocol_version: body.protocol_version })
          .where('id', '=', device.id)
          .execute()
          .then(() => keys.delete(device.key_hash))
          .catch(() => {});
      } else {
        noteContact(device.id, now);
      }
      const acked = results.length > 0 ? results[results.length - 1]!.device_seq : 0;
      return { ...versions(), acked_through: acked, results, complete };
    },

    /**
     * Snapshot bootstrap, one page: the tenant's current rows, entity by entity in registry order,
     * as changes to adopt. The first page fixes `seq` (the tenant's last committed seq: every change
     * up to it is in the rows read afterwards); the appliance pulls from there once the last page is
     * in, so a change committed while it copies is applied again on top, never lost.
     */
    async snapshot(device: DeviceRow, q: { protocol_version: number; schema_version: number; cursor?: string; limit: number; max_bytes?: number }): Promise<RawJson> {
      checkVersions(q.protocol_version, q.schema_version);
      const descriptors = reg.descriptors();
      const maxBytes = q.max_bytes ?? MAX_SNAPSHOT_BYTES;
      try {
        let pos = q.cursor === undefined ? { seq: await changes.lastSeq(device.tenant_id), at: 0, after: null as string | null } : decodeSnapshotCursor(q.cursor, descriptors.length);
        // Serialized here, change by change (issue 29 point 3): the page is sized by its bytes, and
        // the answer is sent as this text (no second serialization of the whole page).
        const parts: string[] = [];
        let bytes = 0;
        while (pos.at < descriptors.length && parts.length < q.limit && bytes < maxBytes) {
          // In steps, so a page of big rows stops near its byte budget.
          const page = await descriptors[pos.at]!.snapshot(db, device.tenant_id, pos.after, Math.min(SNAPSHOT_STEP, q.limit - parts.length));
          for (const c of page.changes) {
            const part = JSON.stringify({ entity: c.entity, entity_id: c.entity_id, kind: c.kind, payload: c.payload, created_at: c.created_at });
            bytes += part.length;
            parts.push(part);
          }
          pos = page.next === null ? { ...pos, at: pos.at + 1, after: null } : { ...pos, after: page.next };
        }
        const next = pos.at < descriptors.length ? JSON.stringify(encodeSnapshotCursor(pos)) : 'null';
        return { json: `{"protocol_version":${PROTOCOL_VERSION},"schema_version":${window.schema.max},"seq":${pos.seq},"changes":[${parts.join(',')}],"next_cursor":${next}}`, count: parts.length };
      } catch (err) {
        if (isTransientDbError(err)) throw unavailable();
        throw err;
      }
    },

    /** Changes after the cursor in seq order; with `wait`, a long-poll until something commits. */
    async pull(device: DeviceRow, q: { protocol_version: number; schema_version: number; cursor: number; limit: number; wait: number; max_bytes?: number; echoes?: 'bare' }, signal?: AbortSignal): Promise<RawJson> {
      checkVersions(q.protocol_version, q.schema_version);
      // A pull is contact too (an idle appliance only long-polls): the cloud's public ordering reads
      // last_seen_at to tell a silent appliance, and a contact after an order was committed means the
      // appliance has it (issue 12). Noted in memory, written with the next flush (CONTACT_FLUSH_MS).
      noteContact(device.id, clock.now().toISOString());
      listen();
      let wake: (() => void) | undefined;
      const woke = new Promise<void>((resolve) => (wake = resolve));
      // A commit of this tenant (here, or on another cloud node) wakes this poll.
      const unwait = q.wait > 0 ? waitForCommit(device.tenant_id, () => wake!()) : () => {};
      try {
        // Nothing committed after the cursor that this node knows of (HIGH_WATER_TRUST_MS): no read.
        const read = () => (nothingAfter(device.tenant_id, q.cursor) ? Promise.resolve({ parts: [], last: q.cursor, hasMore: false }) : readPage(device.tenant_id, q.cursor, q.limit, q.max_bytes ?? MAX_PULL_BYTES, q.echoes === 'bare' ? device.id : undefined));
        let page = await read();
        if (page.parts.length === 0 && q.wait > 0 && !signal?.aborted) {
          let timer: NodeJS.Timeout | undefined;
          const onAbort = () => wake!();
          signal?.addEventListener('abort', onAbort);
          await Promise.race([woke, new Promise<void>((r) => (timer = setTimeout(r, q.wait)))]);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          // The key may have been revoked during the wait: nothing committed after that reaches it.
          await assertActive(db, device, { cached: true });
          page = await read();
        }
        return {
          json: `{"protocol_version":${PROTOCOL_VERSION},"schema_version":${window.schema.max},"changes":[${page.parts.join(',')}],"next_cursor":${page.parts.length > 0 ? page.last : q.cursor},"has_more":${page.hasMore}}`,
          count: page.parts.length,
        };
      } catch (err) {
        if (isTransientDbError(err)) throw unavailable();
        throw err;
      } finally {
        unwait();
      }
    },
  };
}

/**
 * A pull or snapshot answer as the cloud serialized it (sync/README.md "What a pull costs"): the
 * route sends `json` as it is (the `PullResponse` / `SnapshotResponse` shape), so a page is
 * serialized once and its payloads, stored as JSON text, are never parsed on the way out.
 */
export interface RawJson {
  json: string;
  /** Changes in the page. */
  count: number;
}

/** Snapshot rows read per descriptor call while a page fills (the page stops near its byte budget). */
const SNAPSHOT_STEP = 250;

/** A change of the log as wire JSON (WireChange), its payload the stored JSON text as is. */
function wireChange(r: { seq: number | string; op_id: string; origin: string; entity: string; entity_id: string; kind: string; payload: string; created_at: string }): string {
  return `{"seq":${Number(r.seq)},"op_id":${JSON.stringify(r.op_id)},"origin":${JSON.stringify(r.origin)},"entity":${JSON.stringify(r.entity)},"entity_id":${JSON.stringify(r.entity_id)},"kind":${JSON.stringify(r.kind)},"payload":${r.payload},"created_at":${JSON.stringify(r.created_at)}}`;
}

/**
 * A bare echo as wire JSON (`BareEcho`, sync/README.md "Echoes"): an op of the asking device that the
 * cloud recorded as sent, without its payload (`null`) and marked `"echo":"same"`; the device has the
 * payload in its own log.
 */
function bareEcho(r: { seq: number | string; op_id: string; origin: string; entity: string; entity_id: string; kind: string; created_at: string }): string {
  return `{"seq":${Number(r.seq)},"op_id":${JSON.stringify(r.op_id)},"origin":${JSON.stringify(r.origin)},"entity":${JSON.stringify(r.entity)},"entity_id":${JSON.stringify(r.entity_id)},"kind":${JSON.stringify(r.kind)},"payload":null,"created_at":${JSON.stringify(r.created_at)},"echo":"same"}`;
}

interface SnapshotPosition {
  /** The tenant's seq when the snapshot began. */
  seq: number;
  /** Index of the entity being copied (registry order). */
  at: number;
  /** Last id copied of that entity. */
  after: string | null;
}

const encodeSnapshotCursor = (p: SnapshotPosition) => Buffer.from(JSON.stringify([p.seq, p.at, p.after])).toString('base64url');

function decodeSnapshotCursor(cursor: string, entities: number): SnapshotPosition {
  try {
    const [seq, at, after] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(seq) && (seq as number) >= 0 && Number.isSafeInteger(at) && (at as number) >= 0 && (at as number) < entities && (after === null || typeof after === 'string')) {
      return { seq: seq as number, at: at as number, after: after as string | null };
    }
  } catch {
    // fall through: not one of ours
  }
  throw invalidField('cursor', 'is geen cursor van een momentopname; begin opnieuw zonder cursor.');
}

export type SyncCloud = ReturnType<typeof createSyncCloud>;
export { SCHEMA_VERSION };
