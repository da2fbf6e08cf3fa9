import type { Db, Tx } from '../server/db/connection.js';
import type { SnapshotChange } from './protocol.js';
import type { Database } from '../server/db/database.js';
import type { ChangeRecord } from '../server/db/change-log.js';

/**
 * How every table takes part in sync (ARCHITECTURE §4, sync/README.md).
 *
 * - `ledger`: rows are only ever added; both sides insert-if-absent by id; the table is the union.
 * - `monotonic-status`: a row whose status only moves forward along a rank; the first final status
 *   the cloud accepted wins and a different final status is a recorded conflict.
 * - `lww-fields`: configuration; fields are last-writer-wins in cloud apply order (server_seq).
 * - `cloud-only`: written only in the cloud, replicated down; an appliance op on it is rejected.
 * - `appliance-only`: written only on appliances, replicated up (and down to other appliances).
 * - `escrow`: a ledger (union by id) whose decrements are bounded by rights the cloud leases out per
 *   appliance: only the cloud grants, only the holder spends or returns, and the cloud refuses a
 *   pushed spend beyond the holder's lease (loyalty points: server/modules/loyalty, docs/loyalty.md).
 */
export type MergeKind = 'ledger' | 'monotonic-status' | 'lww-fields' | 'cloud-only' | 'appliance-only' | 'escrow';

export type TableName = keyof Database & string;

/** One change as it travels: a change_log row with its payload parsed (its local `seq` does not travel). */
export type SyncChange = Omit<ChangeRecord, 'seq'>;

export interface ApplyContext {
  /** Where the apply runs. */
  side: 'cloud' | 'appliance';
  /**
   * - `merge`: the cloud applying an appliance's op, or an appliance re-applying its own pending
   *   ops on top of fresh cloud state (rebase). Enforce the merge rules (never backwards, LWW...).
   * - `adopt`: an appliance applying the cloud's state (pull). The cloud is the authority: make the
   *   local rows equal to the snapshot, even where a merge would refuse (e.g. the cloud kept
   *   'cancelled' where this appliance said 'completed').
   */
  mode: 'merge' | 'adopt';
  tenantId: string;
  /** The applying transaction's timestamp. */
  now: string;
  /**
   * Set by the appliance's engine for the rows of its cloud's snapshot (bootstrap, `adopt`): state
   * the cloud read from its own tables, each row checked by the cloud when it came in. `parsePayload`
   * then checks the payload's shape (types, required fields, enums) instead of the API's field
   * rules (sync/README.md "Trust boundary"); the checks against this database (tenant, references,
   * clashes) stay.
   */
  snapshot?: boolean;
  /**
   * Set together with `batch` (the cloud's optimistic push chunk, an appliance's pull page): queue
   * ledger rows (insert-if-absent by id) to be written together before that transaction commits,
   * after the batch states' flush. Only for rows that no `apply` reads back (e.g. order status
   * history). Absent: insert them at once (`insertIfAbsent`).
   */
  deferLedger?: (table: TableName, row: { id: string } & Record<string, unknown>) => void;
  /**
   * Set only where a batch of changes is applied in one transaction that is rolled back as a whole
   * when any of them fails (the cloud's optimistic push chunk, an appliance's pull page): a
   * descriptor may keep per-batch state there (e.g. the rows it read or will write) and write it
   * once, in its `flush`, before the transaction commits. Absent: read and write at once.
   */
  batch?: ApplyBatch;
}

/** Per-batch state of one descriptor: `flush` writes what it holds, once, before the batch commits. */
export interface BatchState {
  flush(trx: Tx): Promise<void>;
}

/** A batch as descriptors see it; they reach it through their store (`defineBatchStore`, sync/batch-store.ts), not directly. */
export interface ApplyBatch {
  /** The state under `key` for this batch, created on first use. States flush in that order, before the deferred ledger rows. */
  state<T extends BatchState>(key: string, create: () => T): T;
  /** Whether the batch holds a state under `key` already. */
  has(key: string): boolean;
  /**
   * Every change this batch will apply, in order (also those of other entities, and ops the cloud
   * finds it applied before): a state may read what they need in a few statements when it is
   * created (prefetch) instead of one read per op. Only a hint: `apply` must stay correct for any
   * change, listed here or not.
   */
  readonly changes: ReadonlyArray<SyncChange>;
}

export interface ApplyOutcome {
  /**
   * The entity's state after the apply, in the same shape as the change's payload: the cloud records
   * it in its change log (state down), so appliances adopt the merged result. Omitted: the change's
   * own payload is recorded. Only the cloud reads it: an appliance (`side: 'appliance'`: a pull page,
   * a rebase, a snapshot page) never reads an apply's outcome, so a descriptor may leave out there
   * what is costly to make (an order's DTO, a stock change's movements; bench/README.md "Session 18, join").
   */
  payload?: unknown;
  /**
   * Set when the op was only partly applied or not at all because of a merge rule (a visible conflict).
   * Inside a batch it may be set on the returned outcome by the batch's flush (a staff removal's
   * below-zero check, stock.sync.ts): the cloud reads it after the flush.
   */
  conflict?: string;
}

/**
 * One replicated entity (a change_log `entity`). Each module contributes its descriptors from its
 * own folder (`server/modules/<area>/<area>.sync.ts`) and server/modules/sync-descriptors.ts lists them.
 *
 * Rules for `apply` (it runs inside the sync transaction, on SQLite and PostgreSQL):
 * - idempotent: applying the same change twice equals applying it once;
 * - upsert by id from the snapshot; never rely on catching a constraint error inside the
 *   transaction (PostgreSQL aborts the whole transaction): check first, then write;
 * - throw `RejectOp` (sync/types.ts) for a permanent problem with this op (it is recorded as
 *   rejected and the queue moves on); any other error from the database is treated as transient;
 * - do not call services or `changes.write`: the sync engine records the change itself.
 *
 * @example server/modules/menu/menu.sync.ts
 * ```ts
 * import type { EntityDescriptor } from '../../../sync/types.js';
 * import { upsertById } from '../../../sync/apply-helpers.js';
 *
 * export const menuSync: EntityDescriptor[] = [
 *   {
 *     entity: 'category',
 *     merge: 'lww-fields',
 *     tables: ['categories'],
 *     async apply(trx, change) {
 *       const p = change.payload as { category: CategoryRow };   // whatever your kinds carry
 *       await upsertById(trx, 'categories', { ...p.category, tenant_id: change.tenant_id });
 *     },
 *     async snapshot(db, tenantId, after, limit) {              // the current rows, for a bootstrap
 *       let q = db.selectFrom('categories').selectAll().where('tenant_id', '=', tenantId);
 *       if (after !== null) q = q.where('id', '>', after);
 *       const rows = await q.orderBy('id').limit(limit).execute();
 *       const changes = rows.map((r) => ({ entity: 'category', entity_id: r.id, kind: 'category.updated', payload: { category: r }, created_at: r.updated_at }));
 *       return { changes, next: snapshotNext(changes, limit) };
 *     },
 *   },
 * ];
 * ```
 * and in server/modules/sync-descriptors.ts: `...menuSync,` in MODULE_DESCRIPTORS.
 */
export interface EntityDescriptor {
  /** The change_log `entity` this descriptor applies. */
  entity: string;
  merge: MergeKind;
  /** The tables whose rows this entity's changes write (every one must be listed by exactly one descriptor or as local-only). */
  tables: TableName[];
  apply(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<ApplyOutcome | void>;
  /**
   * Echoes (sync/README.md "Echoes"): `'skip-equal'` lets an appliance skip the pull of its own op
   * when the cloud recorded it as sent. Only for an entity whose rows no other entity's adoption
   * moves back (effects from elsewhere, if any, only go forward: paid never reverts); otherwise
   * (unset) every echo is adopted. E.g. a location made the default un-sets the others, so a
   * location's echo must be adopted to undo a foreign un-setting.
   */
  echo?: 'skip-equal';
  /**
   * Kinds of an entity without `echo` whose echoes may be skipped all the same when equal: changes
   * whose adoption, when equal, changes nothing here and whose rebase (re-applying the device's later
   * ops on top) changes nothing either, argued per kind in sync/README.md "Echoes": a table's
   * announced status writes no row on either side (each node derives its own); a bill's round or
   * payment is a ledger row this node holds already, and a closed bill is written by no other bill's
   * adoption (its opened and moved echoes are adopted: another bill's adoption may have merged it).
   * Without it, a week's outage re-applied each table's remaining own ops after every one of its
   * announcements: quadratic (bench/README.md, "Sync pull and join, session 14").
   */
  echoKinds?: readonly string[];
  /**
   * Snapshot bootstrap (sync/README.md): the tenant's current rows of this entity, by id after
   * `after` (null: from the start), at most `limit` entities, each as a change that `apply` in
   * adopt mode turns into that row with everything that belongs to it. `next` is the last id when
   * there may be more, null when this was the last page.
   */
  snapshot(db: Db, tenantId: string, after: string | null, limit: number): Promise<{ changes: SnapshotChange[]; next: string | null }>;
}

/** A page of `EntityDescriptor.snapshot`: the last id when the page was full (there may be more), else null. */
export const snapshotNext = (changes: ReadonlyArray<{ entity_id: string }>, limit: number): string | null =>
  changes.length >= limit ? changes[changes.length - 1]!.entity_id : null;

/** A permanent problem with one op: recorded as rejected, acknowledged, never retried. */
export class RejectOp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RejectOp';
  }
}
