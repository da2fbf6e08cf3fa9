import { EventEmitter } from 'node:events';
import { CompiledQuery, SqliteAdapter, sql } from 'kysely';
import { insertRows, isWellFormedText, wellFormedRow } from './bulk.js';
import type { Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { Db, Executor, Tx } from './connection.js';
import { prepared } from './prepared.js';

/**
 * The one write path (ARCHITECTURE §3). Every domain write runs inside `ChangeLog.write`, which
 * opens the transaction and lets the caller `record` what changed; the change-log rows commit or
 * roll back with the domain rows. Consumers (live sockets, webhooks, sync) read the log after
 * commit, in `seq` order, and never need a second write path.
 *
 * Writes of one tenant are serialized: `write` first takes the tenant's row lock on `change_seq`
 * (an upsert that changes nothing) and holds it until commit. So (1) `seq`, allocated on that row,
 * commits in order, and a reader that has seen seq N can ask for `seq > N` and never skip a change
 * that commits late (the classic PostgreSQL sequence/cursor bug); and (2) a service's
 * check-then-write inside one `write` ("is this the last admin?", "is the PIN free?", "is there
 * enough stock?") cannot race another writer of the same tenant on PostgreSQL, just as it cannot on
 * the appliance's single-writer SQLite. Other tenants are not blocked.
 */
export interface ChangeInput {
  entity: string;
  entityId: string;
  kind: string;
  payload: unknown;
  /**
   * Sync only (sync/): a change replicated from another node keeps its original identity. Domain
   * code never sets these; the defaults are a new op id, this node's origin and the write's `now`.
   */
  opId?: string;
  origin?: string;
  createdAt?: string;
  /**
   * Sync only: `JSON.stringify(payload ?? null)`, when the caller made it already (the cloud measured
   * a pushed op's payload for the limits, sync/cloud.ts `sizeOf`): the log stores it instead of
   * serializing the payload again. Must be exactly that text of this payload.
   */
  payloadJson?: string;
  /**
   * Sync only (the cloud's push, sync/cloud.ts): the payload recorded is what the device sent, equal
   * as JSON values (`change_log.as_sent`, migration 0027: a pull of that device may send it back
   * without its payload). Unset: 0. Given for one change of a write, given for all of them.
   */
  asSent?: boolean;
}

export interface ChangeRecord {
  op_id: string;
  tenant_id: string;
  seq: number;
  origin: string;
  entity: string;
  entity_id: string;
  kind: string;
  payload: unknown;
  created_at: string;
}

export interface Writer {
  trx: Tx;
  /** The transaction's timestamp: one "now" for every row it writes. */
  now: string;
  nowDate: Date;
  record(change: ChangeInput): Promise<ChangeRecord>;
  /**
   * The same as `record` for each change in turn (consecutive seqs, in the given order), in a few
   * statements: one allocates all the seqs, multi-row inserts write the rows. For bulk writers
   * (the cloud applying a pushed batch); fails as a whole.
   */
  recordMany(changes: ChangeInput[]): Promise<ChangeRecord[]>;
}

export interface WriteOptions {
  /**
   * Write the changes `record` is given to the log together when the write's function is done, in
   * the order they were recorded, with consecutive seqs: one seq allocation and one multi-row insert
   * for all instead of two statements per change (the staff order path: an order, its bill round
   * and its table's status; a bill payment with its journal entry, its orders' `order.paid` and the
   * receipt). The log and its seqs are the same as without; only when they are written differs. So
   * for writes that neither read the change log before committing nor use a record's `seq`, which
   * `record` answers as 0 (it is set once the batch is written). `recordMany` writes what is
   * waiting first, then its own changes.
   */
  batch?: boolean;
}

export type ChangeLogEvents = {
  committed: [tenantId: string, changes: ChangeRecord[]];
  /**
   * Another cloud node committed changes of this tenant, up to `seq` (server/cluster.ts relays it;
   * never on the appliance). Only a wake-up: listeners read the log itself for the records.
   */
  remote: [tenantId: string, seq: number];
  /**
   * A notice that every node must hear, not a change: e.g. `sync.device` (a SYNC_KEY revoked or
   * rotated: forget the cached key). `local` is true on the node it happened on (server/cluster.ts
   * relays those to the other nodes, where they arrive with `local` false).
   */
  notice: [topic: string, data: string, local: boolean];
};

export class ChangeLog extends EventEmitter<ChangeLogEvents> {
  private readonly singleWriter: boolean;
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** This node's origin name: the appliance's device id, or 'cloud'. */
    private _origin: string,
  ) {
    super();
    this.setMaxListeners(50);
    this.singleWriter = db.getExecutor().adapter instanceof SqliteAdapter;
  }

  get origin(): string {
    return this._origin;
  }

  /**
   * Sync bootstrap only: an empty appliance adopts the device id the cloud registered for it, so
   * its changes carry that id as their origin on both sides (sync/engine.ts; meta 'device_id' is
   * updated in the same step).
   */
  setOrigin(origin: string): void {
    this._origin = origin;
  }

  async write<T>(tenantId: string, fn: (w: Writer) => Promise<T>, opts: WriteOptions = {}): Promise<T> {
    const recorded: ChangeRecord[] = [];
    // PostgreSQL: the tenant's row is locked (and exists) from the first statement on, so a change's
    // seq and its row go in one statement (appendChangesLocked); SQLite keeps two (in-process, cheap).
    const append = this.singleWriter ? appendChanges : appendChangesLocked;
    const result = await this.db.transaction().execute(async (trx) => {
      // SQLite has one writer: the transaction already excludes every other writer.
      if (!this.singleWriter) await lockTenant(trx, tenantId);
      const nowDate = this.clock.now();
      const now = nowDate.toISOString();
      // `batch`: changes wait here, in order, until `fn` is done (or `recordMany` is called).
      const pending: Array<{ change: ChangeInput; record: ChangeRecord }> = [];
      const flush = async () => {
        if (pending.length === 0) return;
        const batch = pending.splice(0);
        const rows = await append(trx, tenantId, this.origin, now, batch.map((p) => p.change));
        batch.forEach((p, i) => Object.assign(p.record, rows[i]));
        recorded.push(...batch.map((p) => p.record));
      };
      const writer: Writer = {
        trx,
        now,
        nowDate,
        record: async (change) => {
          if (opts.batch) {
            const opId = change.opId ?? newId();
            // Its seq is given when the batch is written (see WriteOptions).
            const record: ChangeRecord = {
              op_id: opId,
              tenant_id: tenantId,
              seq: 0,
              origin: change.origin ?? this.origin,
              entity: change.entity,
              entity_id: change.entityId,
              kind: change.kind,
              payload: change.payload ?? null,
              created_at: change.createdAt ?? now,
            };
            pending.push({ change: { ...change, opId }, record });
            return record;
          }
          const [row] = await append(trx, tenantId, this.origin, now, [change]);
          recorded.push(row!);
          return row!;
        },
        recordMany: async (changes) => {
          await flush();
          const rows = await append(trx, tenantId, this.origin, now, changes);
          recorded.push(...rows);
          return rows;
        },
      };
      const out = await fn(writer);
      await flush();
      return out;
    });
    if (recorded.length > 0) this.notifyCommitted(tenantId, recorded);
    return result;
  }

  /** Where a failing 'committed' listener is reported (the app may point this at its logger). */
  onListenerError: (err: unknown) => void = (err) => console.error('change-log: a committed listener failed', err);

  /**
   * Tells each 'committed' listener on its own. The write has committed by now, so a listener that
   * fails (socket fan-out, webhook queue) must neither turn it into an error for the caller, who
   * would then retry a write that happened, nor keep the other listeners from hearing of it.
   */
  private notifyCommitted(tenantId: string, changes: ChangeRecord[]): void {
    this.notify('committed', [tenantId, changes]);
  }

  /** A commit on another node (cluster bus): wakes the same readers as a local commit would. */
  notifyRemote(tenantId: string, seq: number): void {
    this.notify('remote', [tenantId, seq]);
  }

  /** Tells this node's listeners now and, through the cluster bus, every other node's (`notice`). */
  announce(topic: string, data: string): void {
    this.notify('notice', [topic, data, true]);
  }

  /** A notice from another node (cluster bus). */
  notifyRemoteNotice(topic: string, data: string): void {
    this.notify('notice', [topic, data, false]);
  }

  private notify<K extends keyof ChangeLogEvents>(event: K, args: ChangeLogEvents[K]): void {
    for (const listener of this.rawListeners(event) as Array<(...a: ChangeLogEvents[K]) => unknown>) {
      try {
        const result = listener.apply(this, args);
        if (result instanceof Promise) result.catch((err: unknown) => this.onListenerError(err));
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /** Changes of one tenant after `afterSeq`, in commit order. */
  async readSince(tenantId: string, afterSeq: number, limit = 500): Promise<ChangeRecord[]> {
    return readChanges(this.db, tenantId, afterSeq, limit);
  }

  async lastSeq(tenantId: string): Promise<number> {
    const row = await this.db.selectFrom('change_seq').select('last_seq').where('tenant_id', '=', tenantId).executeTakeFirst();
    return row?.last_seq ?? 0;
  }
}

/** The tenant's write lock, held until the transaction ends (see the top of this file). */
export async function lockTenant(trx: Tx, tenantId: string): Promise<void> {
  await trx
    .insertInto('change_seq')
    .values({ tenant_id: tenantId, last_seq: 0 })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last_seq: sql<number>`change_seq.last_seq` }))
    .execute();
}

export async function appendChange(
  trx: Tx,
  tenantId: string,
  origin: string,
  now: string,
  change: ChangeInput,
): Promise<ChangeRecord> {
  const [record] = await appendChanges(trx, tenantId, origin, now, [change]);
  return record!;
}

/**
 * The seq allocation of appendChanges, built and compiled once (db/prepared.ts): every staff write
 * runs it (the rows go through db/bulk.ts insertRows). `k` twice: a prepared argument is bound once.
 */
const allocateSeqs = prepared((db, tenantId: string, k: number, k2: number) =>
  db
    .insertInto('change_seq')
    .values({ tenant_id: tenantId, last_seq: k })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last_seq: sql<number>`change_seq.last_seq + ${k2}` }))
    .returning('last_seq'),
);

/** Appends changes with one seq allocation for all (under the tenant's row lock), the rows through insertRows. */
export async function appendChanges(trx: Tx, tenantId: string, origin: string, now: string, changes: ChangeInput[]): Promise<ChangeRecord[]> {
  if (changes.length === 0) return [];
  const k = changes.length;
  const [allocated] = await allocateSeqs(trx, tenantId, k, k);
  const first = Number(allocated!.last_seq) - k + 1;
  const rows = unsequencedRows(tenantId, origin, now, changes);
  await insertRows(trx, 'change_log', rows.map((row, i) => ({ ...row, seq: first + i })));
  return recordsOf(rows, first, changes);
}

/** The change-log rows of `changes` before their seqs are known (both appends below). */
function unsequencedRows(tenantId: string, origin: string, now: string, changes: ChangeInput[]) {
  // `as_sent` only in the rows of a write that says it (the cloud's push); undefined in the others' (insertRows leaves the column out: its default).
  const marked = changes.some((c) => c.asSent !== undefined);
  return changes.map((change) => ({
    op_id: change.opId ?? newId(),
    tenant_id: tenantId,
    origin: change.origin ?? origin,
    entity: change.entity,
    entity_id: change.entityId,
    kind: change.kind,
    payload: change.payloadJson ?? JSON.stringify(change.payload ?? null),
    created_at: change.createdAt ?? now,
    as_sent: marked ? (change.asSent ? 1 : 0) : undefined,
  }));
}

/** The appended rows as records, seqs from `first` on, each with its payload as given (not its JSON text). */
function recordsOf(rows: ReturnType<typeof unsequencedRows>, first: number, changes: ChangeInput[]): ChangeRecord[] {
  return rows.map((row, i) => ({
    op_id: row.op_id,
    tenant_id: row.tenant_id,
    seq: first + i,
    origin: row.origin,
    entity: row.entity,
    entity_id: row.entity_id,
    kind: row.kind,
    payload: changes[i]!.payload ?? null,
    created_at: row.created_at,
  }));
}

/**
 * `appendChanges` in ONE statement (PostgreSQL only: a data-modifying CTE, the rows in one json parameter):
 * the seq allocation on `change_seq` and the first rows together, each row's seq computed from the
 * allocation's new `last_seq`. The same seqs, rows and locks as `appendChanges`, one round trip less
 * per recorded change (bench/README.md "Fewer round trips (session 10)"). A failing insert fails the
 * whole statement, allocation included, as a rolled-back savepoint would undo both before.
 */
export async function appendChangesLocked(trx: Tx, tenantId: string, origin: string, now: string, changes: ChangeInput[]): Promise<ChangeRecord[]> {
  if (changes.length === 0) return [];
  const k = changes.length;
  const rows = unsequencedRows(tenantId, origin, now, changes);
  // Strings as the driver would store them in UTF-8 (a lone surrogate: U+FFFD; bulk.ts wellFormedRow).
  const wellFormed = rows.some((r) => ![r.op_id, r.origin, r.entity, r.entity_id, r.kind, r.created_at].every(isWellFormedText)) ? rows.map(wellFormedRow) : rows;
  // The rows in one json parameter (insertRows, server/db/bulk.ts: no Kysely build of every value),
  // numbered by their position (`with ordinality`): row i gets the allocation's last_seq - k + i.
  // The payloads (JSON.stringify's text, which writes lone surrogates as escapes) each in a text
  // parameter of their own (up to PAYLOAD_PARAMS changes), joined by position: no escaping of every
  // payload into the json text here, no unescaping by PostgreSQL's json parser (bench/README.md
  // "Sync push, session 15"). More changes than that: the payloads inside the json, as before.
  const own = k <= PAYLOAD_PARAMS;
  const marked = rows[0]!.as_sent !== undefined;
  const payloads = own ? `join unnest(array[${Array.from({ length: k }, (_, i) => `$${i + 3}`).join(', ')}]::text[]) with ordinality as p(payload, n) on p.n = v.ordinality` : '';
  const written = await trx.executeQuery<{ first: number | string }>(
    CompiledQuery.raw(
      `with s as (insert into change_seq (tenant_id, last_seq) values ($1, ${k}) on conflict (tenant_id) do update set last_seq = change_seq.last_seq + ${k} returning last_seq),
       w as (insert into change_log (op_id, tenant_id, origin, entity, entity_id, kind, payload, created_at, seq${marked ? ', as_sent' : ''})
         select v.op_id, v.tenant_id, v.origin, v.entity, v.entity_id, v.kind, ${own ? 'p.payload' : 'v.payload'}, v.created_at, (select last_seq from s) - ${k} + v.ordinality${marked ? ', v.as_sent' : ''}
         from json_populate_recordset(null::change_log, $2) with ordinality as v ${payloads}
         returning seq)
       select min(seq) as first from w`,
      own ? [tenantId, JSON.stringify(wellFormed.map(withoutPayload)), ...rows.map((r) => r.payload)] : [tenantId, JSON.stringify(wellFormed)],
    ),
  );
  const first = Number(written.rows[0]!.first);
  return recordsOf(rows, first, changes);
}

/** Changes whose payloads `appendChangesLocked` binds one by one (a statement takes at most 65,535 parameters). */
const PAYLOAD_PARAMS = 5_000;

const withoutPayload = (r: ReturnType<typeof unsequencedRows>[number]) => ({ op_id: r.op_id, tenant_id: r.tenant_id, origin: r.origin, entity: r.entity, entity_id: r.entity_id, kind: r.kind, created_at: r.created_at, as_sent: r.as_sent });

/**
 * Changes of one tenant after `afterSeq`, in seq order. With `payloadKinds`, only changes of those
 * kinds carry their payload (the others: null), read and parsed (a consumer that looks at a few kinds: ChangeConsumer.payloadKinds).
 */
export async function readChanges(db: Executor, tenantId: string, afterSeq: number, limit: number, payloadKinds?: readonly string[]): Promise<ChangeRecord[]> {
  const payload =
    payloadKinds === undefined ? sql<string>`payload` : payloadKinds.length === 0 ? sql<string>`'null'` : sql<string>`case when kind in (${sql.join(payloadKinds)}) then payload else 'null' end`;
  const rows = await db
    .selectFrom('change_log')
    .select(['op_id', 'tenant_id', 'seq', 'origin', 'entity', 'entity_id', 'kind', 'created_at'])
    .select(payload.as('payload'))
    .where('tenant_id', '=', tenantId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq), payload: JSON.parse(r.payload) as unknown }));
}
