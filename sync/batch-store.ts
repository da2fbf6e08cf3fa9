import { sql, type RawBuilder } from 'kysely';
import { ROWS_PER_INSERT, type Tx } from '../server/db/connection.js';
import type { ApplyBatch, ApplyContext, BatchState, SyncChange, TableName } from './types.js';

/**
 * The one way a descriptor applies a batch (sync/README.md, "Batches"). An area declares its store
 * once with `defineBatchStore`: the op-by-op form (`direct`) and the batch form (`create`, with an
 * optional `prefetch`). The framework owns the rest:
 *
 * - get-or-create of the batch form, once per batch (and per tenant when `perTenant`), registered
 *   in the batch so its `flush` runs before the batch commits, in creation order;
 * - the prefetch, run once before the batch form is first used (`refresh` arms it again);
 * - the fallback to the direct form: no batch (the cloud's safe re-run, op by op under savepoints,
 *   and anything outside sync), or a change of another tenant than the batch's;
 * - statement sizes: lists of ids and multi-row writes in parts of `ROWS_PER_INSERT`
 *   (`chunks`), multi-table lookups in one UNION ALL statement (`selectUnion`,
 *   `preloadTenantRefs`).
 *
 * The direct and the batch form implement one interface, so `apply` has one body, and each area's
 * chunk test (`test/sync/chunk.ts`) checks that a batch ends exactly as the same ops one by one.
 */

/** What the batch form of a store is created with. */
export interface BatchScope {
  trx: Tx;
  /** The tenant of the state: the batch's (ctx.tenantId), or the change's for `perTenant` stores. */
  tenantId: string;
  ctx: ApplyContext;
  batch: ApplyBatch;
  /** Every change the batch will apply (ApplyBatch.changes): a hint for the prefetch. */
  changes: ReadonlyArray<SyncChange>;
}

export interface BatchStoreDef<S, B extends S & BatchState> {
  /** The state's key in the batch (`<key>:<tenant>` when `perTenant`). */
  key: string;
  /**
   * `false` (default): only changes of the batch's own tenant (ctx.tenantId) use the batch; another
   * tenant's change goes direct. `true`: one batch state per tenant of the changes.
   */
  perTenant?: boolean;
  /** Use the batch only when this holds too (e.g. the batch must defer ledger rows). */
  when?(ctx: ApplyContext): boolean;
  /** The op-by-op form: straight to the database. */
  direct(trx: Tx, ctx: ApplyContext, tenantId: string): S;
  /** The batch form, created at the first use in a batch. */
  create(scope: BatchScope): B;
  /** Once, before the batch form is first used: read what the batch's changes name, in a few statements. */
  prefetch?(state: B, scope: BatchScope): Promise<void>;
}

export interface BatchStore<S, B> {
  /** The store for one apply: the batch form (prefetched) inside a batch, else the direct form. `tenantId`: the change's (default ctx.tenantId). */
  of(trx: Tx, ctx: ApplyContext, tenantId?: string): Promise<S>;
  /** The batch form without waiting for its prefetch (created if needed), undefined where `of` goes direct. */
  state(trx: Tx, ctx: ApplyContext, tenantId?: string): B | undefined;
  /** The batch form if this batch has one already (never creates one). */
  peek(ctx: ApplyContext, tenantId?: string): B | undefined;
  /** Runs the prefetch again before the next use (after the state wrote and forgot what it held). */
  refresh(ctx: ApplyContext, tenantId?: string): void;
}

/** The batch's entry for one store: its state and the prefetch it waits for. */
class Held<B extends BatchState> implements BatchState {
  ready: Promise<void> | undefined;
  constructor(readonly state: B) {}
  flush(trx: Tx): Promise<void> {
    return this.state.flush(trx);
  }
}

export function defineBatchStore<S, B extends S & BatchState>(def: BatchStoreDef<S, B>): BatchStore<S, B> {
  const keyOf = (ctx: ApplyContext, tenantId: string) => (def.perTenant ? `${def.key}:${tenantId}` : def.key);
  const usable = (ctx: ApplyContext, tenantId: string): ctx is ApplyContext & { batch: ApplyBatch } =>
    ctx.batch !== undefined && (def.perTenant || tenantId === ctx.tenantId) && (def.when?.(ctx) ?? true);
  const held = (ctx: ApplyContext, tenantId: string, create: boolean, trx?: Tx): Held<B> | undefined => {
    if (!usable(ctx, tenantId)) return undefined;
    const key = keyOf(ctx, tenantId);
    if (!create) return ctx.batch.has(key) ? ctx.batch.state<Held<B>>(key, () => undefined as never) : undefined;
    const batch = ctx.batch;
    return batch.state(key, () => new Held(def.create({ trx: trx!, tenantId, ctx, batch, changes: batch.changes })));
  };
  return {
    async of(trx, ctx, tenantId = ctx.tenantId) {
      const h = held(ctx, tenantId, true, trx);
      if (!h) return def.direct(trx, ctx, tenantId);
      if (def.prefetch) {
        h.ready ??= def.prefetch(h.state, { trx, tenantId, ctx, batch: ctx.batch!, changes: ctx.batch!.changes });
        await h.ready;
      }
      return h.state;
    },
    state: (trx, ctx, tenantId = ctx.tenantId) => held(ctx, tenantId, true, trx)?.state,
    peek: (ctx, tenantId = ctx.tenantId) => held(ctx, tenantId, false)?.state,
    refresh(ctx, tenantId = ctx.tenantId) {
      const h = held(ctx, tenantId, false);
      if (h) h.ready = undefined;
    },
  };
}

/** `xs` in parts of at most `size` (default ROWS_PER_INSERT: the size of every id list and multi-row write of a batch). */
export function chunks<T>(xs: Iterable<T>, size = ROWS_PER_INSERT): T[][] {
  const all = [...xs];
  const out: T[][] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size));
  return out;
}

/** Bound parameters per UNION ALL statement of `selectUnion` (far below either database's limit). */
const PARAMS_PER_UNION = 4 * ROWS_PER_INSERT;

/** One table's part of a `selectUnion`. */
export interface UnionPart {
  table: TableName;
  ids: Iterable<string>;
  /** The columns after `t` and `id` (every part of one call the same shape). Default: `tenant_id`. */
  columns?: RawBuilder<unknown>;
  /** More rows of this table besides those by id (`id in (...) or <or>`), asked once (with the first part of its ids). */
  or?: { where: RawBuilder<unknown>; params: number };
}

/**
 * Several tables' rows by id in one statement: `select '<table>' as t, id, <columns> from <table>
 * where id in (...)` per table, joined by UNION ALL; ids in parts of ROWS_PER_INSERT, parts grouped
 * into statements of at most PARAMS_PER_UNION parameters. A batch's prefetch of what its changes
 * name in many tables (a push chunk during a long outage often carries one op: one statement, not
 * one per table).
 */
export async function selectUnion<R extends object = { tenant_id: string }>(trx: Tx, parts: ReadonlyArray<UnionPart>): Promise<Array<{ t: TableName; id: string } & R>> {
  const pieces: Array<{ sql: RawBuilder<unknown>; params: number }> = [];
  for (const part of parts) {
    const columns = part.columns ?? sql`tenant_id`;
    const idParts = chunks(new Set(part.ids));
    if (idParts.length === 0 && part.or) idParts.push([]);
    idParts.forEach((ids, i) => {
      const byId = ids.length > 0 ? sql`id in (${sql.join(ids)})` : sql`1 = 0`;
      const or = i === 0 ? part.or : undefined;
      const where = or ? sql`${byId} or (${or.where})` : byId;
      pieces.push({ sql: sql`select ${sql.lit(part.table)} as t, id, ${columns} from ${sql.table(part.table)} where ${where}`, params: ids.length + (or?.params ?? 0) + 1 });
    });
  }
  const out: Array<{ t: TableName; id: string } & R> = [];
  for (let i = 0; i < pieces.length; ) {
    const group: RawBuilder<unknown>[] = [];
    let params = 0;
    while (i < pieces.length && (group.length === 0 || params + pieces[i]!.params <= PARAMS_PER_UNION)) {
      params += pieces[i]!.params;
      group.push(pieces[i++]!.sql);
    }
    const found = await sql<{ t: TableName; id: string } & R>`${sql.join(group, sql` union all `)}`.execute(trx);
    out.push(...found.rows);
  }
  return out;
}

/** Ids a batch has found to be rows of its tenant, per table (a push chunk names the same staff, products and bills many times). */
class KnownRefs implements BatchState {
  readonly ids = new Set<string>();
  async flush(): Promise<void> {}
}

/** The batch's set of ids known to be rows of `table` of its tenant (undefined outside a batch). */
export const knownRefs = (batch: ApplyBatch | undefined, table: TableName): Set<string> | undefined => batch?.state(`refs:${table}`, () => new KnownRefs()).ids;

/**
 * Prefetch for `assertTenantRef(s)` (apply-helpers.ts) over several tables at once: one statement
 * (`selectUnion`) finds which of the ids are rows of the tenant and the batch remembers them; ids not
 * found are left for the per-op check to reject with its own message. `extra`: more parts of the same
 * shape (`tenant_id`) read in the same statement, whose rows are returned (e.g. the batch's own
 * entries, to know whether they exist).
 */
export async function preloadTenantRefs(
  trx: Tx,
  tenantId: string,
  batch: ApplyBatch,
  refs: Partial<Record<TableName, Iterable<string | null | undefined>>>,
  extra: ReadonlyArray<UnionPart> = [],
): Promise<Array<{ t: TableName; id: string; tenant_id: string }>> {
  const parts: UnionPart[] = [];
  for (const [table, ids] of Object.entries(refs) as Array<[TableName, Iterable<string | null | undefined>]>) {
    const known = knownRefs(batch, table)!;
    const wanted = [...ids].filter((id): id is string => typeof id === 'string' && !known.has(id));
    if (wanted.length > 0) parts.push({ table, ids: wanted });
  }
  const own = new Set(parts.map((p) => p.table));
  const rows = await selectUnion(trx, [...parts, ...extra]);
  const out: Array<{ t: TableName; id: string; tenant_id: string }> = [];
  for (const r of rows) {
    if (own.has(r.t) && r.tenant_id === tenantId) knownRefs(batch, r.t)!.add(r.id);
    if (extra.some((p) => p.table === r.t)) out.push(r);
  }
  return out;
}
