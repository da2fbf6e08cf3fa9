import { insertRowsReturning } from '../../db/bulk.js';
import type { Tx } from '../../db/connection.js';
import type { LocationsTable, RecipesTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, pick, pushedPayload, upsertById } from '../../../sync/apply-helpers.js';
import { defineBatchStore } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type ApplyContext, type BatchState, type EntityDescriptor } from '../../../sync/types.js';
import { stockRepository as repo, type LevelRow, type MovementRow, type Pair } from './stock.repository.js';
import { fromMilli, GUARDED_TYPES, replayOrder } from './stock.rules.js';
import { LocationPayload, MovementsPayload, RecipePayload } from './stock.schemas.js';
import { movementWire } from './stock.service.js';

const LOCATION_COLUMNS = ['id', 'tenant_id', 'name', 'is_default', 'created_at', 'updated_at', 'archived_at'] as const satisfies readonly (keyof LocationsTable)[];
const MOVEMENT_COLUMNS = [
  'id', 'product_id', 'location_id', 'type', 'quantity_milli', 'counted_milli', 'level_after_milli', 'transfer_id', 'source', 'ref_id', 'reason', 'note', 'user_id', 'booked_at', 'created_at',
] as const satisfies readonly (keyof MovementRow)[];

/** Distinct ids of one kind inside a payload must each be a row of this tenant (never a link into another restaurant). */
async function assertRefs(trx: Tx, table: 'products' | 'locations', ids: Iterable<string>, tenantId: string, what: string): Promise<void> {
  for (const id of new Set(ids)) await assertTenantRef(trx, table, id, tenantId, what);
}

/**
 * Locations: last-writer-wins per field in cloud apply order (like the menu). One default per
 * tenant: a location that becomes the default un-sets the others, on every node in the same apply
 * order, so all sides end with the same one; an archived location is never the default.
 */
const locationSync: EntityDescriptor = {
  entity: 'location',
  merge: 'lww-fields',
  tables: ['locations'],
  async apply(trx, change, ctx) {
    if (!change.kind.startsWith('location.')) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    const p = parsePayload(LocationPayload, change.payload, 'een locatie');
    if (p.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een locatie.');
    const current = await trx.selectFrom('locations').selectAll().where('id', '=', change.entity_id).executeTakeFirst();
    if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze locatie hoort bij een ander restaurant.');
    const snapshot = { ...pick<LocationsTable>(p, LOCATION_COLUMNS), id: change.entity_id, tenant_id: change.tenant_id } as LocationsTable;
    let next: LocationsTable;
    if (!current || ctx.mode === 'adopt' || !p.fields) next = snapshot;
    else {
      const fields = pick<LocationsTable>(p.fields, ['name', 'is_default', 'archived_at']);
      next = { ...current, ...fields, updated_at: snapshot.updated_at ?? current.updated_at };
    }
    // Archive is sticky when merging; an archived location is never the default.
    if (ctx.mode === 'merge' && current?.archived_at && !next.archived_at) next.archived_at = current.archived_at;
    if (next.archived_at) next.is_default = 0;
    if (next.is_default === 1) await repo.clearDefault(trx, change.tenant_id, next.id);
    await upsertById(trx, 'locations', next as unknown as { id: string } & Record<string, unknown>);
    return { payload: { ...next, ...(p.fields ? { fields: p.fields } : {}) } };
  },
  async snapshot(db, tenantId, after, limit) {
    let q = db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(limit).execute();
    const changes = rows.map((r) => ({ entity: 'location', entity_id: r.id, kind: 'location.updated', payload: r, created_at: r.updated_at }));
    return { changes, next: snapshotNext(changes, limit) };
  },
};

/** Recipes: the whole recipe is one value; last writer in cloud apply order wins. */
const recipeSync: EntityDescriptor = {
  entity: 'recipe',
  merge: 'lww-fields',
  tables: ['recipes'],
  async apply(trx, change) {
    if (change.kind !== 'recipe.updated') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    const p = parsePayload(RecipePayload, change.payload, 'een recept');
    if (p.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een recept.');
    await assertRefs(trx, 'products', [p.id, ...p.ingredients.map((i) => i.product_id)], change.tenant_id, 'Het product');
    const current = await trx.selectFrom('recipes').select('tenant_id').where('id', '=', p.id).executeTakeFirst();
    if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Dit recept hoort bij een ander restaurant.');
    const ingredients = p.ingredients.map((i) => ({ product_id: i.product_id, quantity_milli: i.quantity_milli }));
    const row: RecipesTable = { id: p.id, tenant_id: change.tenant_id, ingredients: JSON.stringify(ingredients), created_at: p.created_at, updated_at: p.updated_at };
    await upsertById(trx, 'recipes', row as unknown as { id: string } & Record<string, unknown>);
    return { payload: { id: p.id, ingredients, created_at: p.created_at, updated_at: p.updated_at } };
  },
  async snapshot(db, tenantId, after, limit) {
    let q = db.selectFrom('recipes').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(limit).execute();
    const changes = rows.map((r) => ({
      entity: 'recipe',
      entity_id: r.id,
      kind: 'recipe.updated',
      payload: { id: r.id, ingredients: JSON.parse(r.ingredients) as unknown, created_at: r.created_at, updated_at: r.updated_at },
      created_at: r.updated_at,
    }));
    return { changes, next: snapshotNext(changes, limit) };
  },
};

/** A movement of a payload as a ledger row of this tenant: its known columns (`pick`) and the tenant, in the one object `pick` made. */
function movementRow(m: Record<string, unknown>, tenantId: string): MovementRow {
  const row = pick<MovementRow>(m, MOVEMENT_COLUMNS);
  row.tenant_id = tenantId;
  return row as MovementRow;
}

const pairKey = (p: Pair) => `${p.product_id}\u0000${p.location_id}`;
const sameRow = (a: Record<string, unknown>, b: Record<string, unknown>) => MOVEMENT_COLUMNS.every((c) => (a[c] ?? null) === (b[c] ?? null));

/** Brings the maintained level of one pair up to date after rows were added: incrementally when they come last in replay order, else by a replay. */
async function updateLevel(trx: Tx, tenantId: string, pair: Pair, added: MovementRow[], replaced: boolean, now: string): Promise<number> {
  const level = await repo.level(trx, tenantId, pair);
  const sorted = [...added].sort(replayOrder);
  const first = sorted[0]!;
  const appends = !replaced && level !== undefined && (level.last_booked_at === null || replayOrder(first, { booked_at: level.last_booked_at, id: level.last_id ?? '' }) > 0);
  if (appends) {
    let q = level.quantity_milli;
    for (const m of sorted) q = m.type === 'ADJUSTMENT' && m.counted_milli !== null ? m.counted_milli : q + m.quantity_milli;
    const last = sorted[sorted.length - 1]!;
    await repo.putLevel(trx, { tenant_id: tenantId, ...pair, quantity_milli: q, last_booked_at: last.booked_at, last_id: last.id, updated_at: now });
    return q;
  }
  const r = await repo.replayPair(trx, tenantId, pair);
  await repo.putLevel(trx, { tenant_id: tenantId, ...pair, ...r, updated_at: now });
  return r.quantity_milli;
}

/** A queued row of a batch and where its op's answer shows it (replaced in place if the ledger already had that id). */
interface Slot {
  row: MovementRow;
  mode: ApplyContext['mode'];
  wire: Array<ReturnType<typeof movementWire>>;
  index: number;
}

/**
 * The stock ledger inside a batch (the cloud's push chunk, an appliance's pull or snapshot page):
 * tenant references checked once per batch; the rows inserted together at the flush (`on conflict
 * do nothing returning id`, so the existence check costs nothing per op); every touched product and
 * location brought up to date once (incrementally when the new rows come after everything its
 * level holds, by a replay otherwise), the levels read and written in one statement each. About
 * five statements per batch instead of a dozen per op (bench/README.md, "Stock").
 *
 * An id the ledger already had is not inserted: merging (the cloud) keeps the stored copy and puts
 * it into the op's answer in place (the cloud records a chunk's answers after the batch's flush,
 * sync/cloud.ts `applyChunk`); adopting (an appliance) takes the cloud's copy.
 */
class StockBatch implements BatchState {
  private readonly refs = new Set<string>();
  private queued = new Map<string, Slot>();
  /** The queue as it stood at each deferred staff removal (`checkpoint`), oldest first; `queued` holds what came after the last. */
  private segments: Array<{ slots: Map<string, Slot>; check: Checkpoint }> = [];
  constructor(
    private readonly tenantId: string,
    private readonly now: string,
    /** Whether a staff removal's below-zero check may wait for the flush (`canDefer`). */
    readonly defers: boolean,
  ) {}

  private readonly loaded = new Set<string>();

  async assertRefs(trx: Tx, table: 'products' | 'locations', ids: string[], what: string): Promise<void> {
    let todo = [...new Set(ids)].filter((id) => !this.refs.has(`${table}:${id}`));
    if (todo.length === 0) return;
    if (!this.loaded.has(table)) {
      // Once per batch: every id of the tenant (a restaurant has hundreds of products, not millions).
      this.loaded.add(table);
      for (const { id } of await trx.selectFrom(table).select('id').where('tenant_id', '=', this.tenantId).execute()) this.refs.add(`${table}:${id}`);
      todo = todo.filter((id) => !this.refs.has(`${table}:${id}`));
      if (todo.length === 0) return;
    }
    // Not known at the batch's start: made by an earlier op of this batch, or not the tenant's.
    const found = await trx.selectFrom(table).select('id').where('tenant_id', '=', this.tenantId).where('id', 'in', todo).execute();
    if (found.length !== todo.length) throw new RejectOp(`${what} bestaat niet bij dit restaurant.`);
    for (const id of todo) this.refs.add(`${table}:${id}`);
  }

  queuedSlot(id: string): Slot | undefined {
    return this.queued.get(id);
  }

  queue(slot: Slot): void {
    this.queued.set(slot.row.id, slot);
  }

  /**
   * A staff removal merged in (the cloud's push, `defers`): its below-zero check is made at the flush,
   * on the level as it stood right after this op, and its answer's `conflict` set there (sync/cloud.ts
   * reads a batch's conflicts after its flush). Until then the queue is cut here: what comes after is
   * a new segment, as after the write that the check made in its place before (issue 29: a
   * removal's write and level reads were ≈ 74 of a push chunk's statements).
   */
  checkpoint(out: MovementRow[], outcome: { conflict?: string }): void {
    this.segments.push({ slots: this.queued, check: { out, outcome } });
    this.queued = new Map();
  }

  async flush(trx: Tx): Promise<void> {
    if (this.segments.length === 0) {
      await this.write(trx);
      return;
    }
    const segments = [...this.segments, { slots: this.queued, check: null }];
    this.segments = [];
    this.queued = new Map();
    if (await this.writeAtOnce(trx, segments)) return;
    // As the removals did it op by op: each segment written, then its removal's levels read.
    for (const seg of segments) {
      const inserted = await this.writeSlots(trx, [...seg.slots.values()]);
      if (!seg.check) continue;
      const below = await belowZero(trx, this.tenantId, uniquePairs(seg.check.out.filter((m) => inserted.has(m.id))));
      if (below.length) seg.check.outcome.conflict = below.join(' ');
    }
  }

  /**
   * The segments in one write, when that leaves the ledger and the levels as the segment-by-segment
   * writes would, and each removal's level right after its segment follows from the levels read
   * before: every movement id queued once, and every pair that more than one segment touches has a
   * level row whose last movement comes before all of them (each segment's write then only appended
   * to the level, so a removal's level is the level before plus its pair's rows of its own and the
   * earlier segments, in replay order, whatever order the segments booked them in). Otherwise nothing
   * is written and false is returned.
   */
  private async writeAtOnce(trx: Tx, segments: Array<{ slots: Map<string, Slot>; check: Checkpoint | null }>): Promise<boolean> {
    const slots: Slot[] = [];
    const ids = new Set<string>();
    const spans = new Map<string, { pair: Pair; first: number; last: number; rows: Array<{ row: MovementRow; seg: number }> }>();
    let ordered = true;
    segments.forEach((seg, i) => {
      for (const x of seg.slots.values()) {
        if (ids.has(x.row.id) || x.mode !== 'merge') ordered = false;
        ids.add(x.row.id);
        slots.push(x);
        const k = pairKey(x.row);
        const span = spans.get(k) ?? { pair: { product_id: x.row.product_id, location_id: x.row.location_id }, first: i, last: i, rows: [] };
        span.last = i;
        span.rows.push({ row: x.row, seg: i });
        spans.set(k, span);
      }
    });
    if (!ordered) return false;
    const shared = [...spans.values()].filter((s) => s.first !== s.last);
    // Also the pairs a removal names whose rows were not queued (an id queued earlier for another pair): their level is read as it stands.
    const named = segments.flatMap((seg) => (seg.check ? seg.check.out : []));
    const levels = new Map((await repo.levelsOf(trx, this.tenantId, uniquePairs([...slots.map((x) => x.row), ...named]))).map((l) => [pairKey(l), l]));
    for (const s of shared) {
      const level = levels.get(pairKey(s.pair));
      if (!level) return false;
      const earliest = s.rows.reduce((a, b) => (replayOrder(b.row, a.row) < 0 ? b : a)).row;
      if (level.last_booked_at !== null && replayOrder(earliest, { booked_at: level.last_booked_at, id: level.last_id ?? '' }) <= 0) return false;
    }
    const { inserted, written } = await this.writeSlotsWith(trx, slots, levels);
    for (let i = 0; i < segments.length; i++) {
      const check = segments[i]!.check;
      if (!check) continue;
      const below: string[] = [];
      // The ids this segment's own write inserted, as the write in the check's place returned them.
      const mine = check.out.filter((m) => inserted.has(m.id) && segments[i]!.slots.has(m.id));
      for (const pair of uniquePairs(mine)) {
        const k = pairKey(pair);
        const span = spans.get(k);
        let level: number;
        if (!span || span.first > i) level = levels.get(k)?.quantity_milli ?? 0;
        else if (span.first === span.last) level = (written.get(k) ?? levels.get(k))?.quantity_milli ?? 0;
        else {
          // Appends only: the level before the batch, then this pair's new rows of the segments up to this one.
          level = levels.get(k)!.quantity_milli;
          for (const { row: m } of span.rows.filter((r) => r.seg <= i && inserted.has(r.row.id)).sort((a, b) => replayOrder(a.row, b.row))) {
            level = m.type === 'ADJUSTMENT' && m.counted_milli !== null ? m.counted_milli : level + m.quantity_milli;
          }
        }
        if (level < 0) below.push(await describeBelowZero(trx, this.tenantId, pair, level));
      }
      if (below.length) check.outcome.conflict = below.join(' ');
    }
    return true;
  }

  /** Writes what is queued; returns the ids it inserted (new to the ledger). */
  async write(trx: Tx): Promise<Set<string>> {
    const slots = [...this.queued.values()];
    this.queued.clear();
    return this.writeSlots(trx, slots);
  }

  private async writeSlots(trx: Tx, slots: Slot[]): Promise<Set<string>> {
    return (await this.writeSlotsWith(trx, slots)).inserted;
  }

  /**
   * Writes the slots; returns the ids it inserted (new to the ledger) and the level rows it wrote.
   * `before`: the level rows of (at least) the slots' pairs as read before this write, else read here.
   */
  private async writeSlotsWith(trx: Tx, slots: Slot[], before?: Map<string, LevelRow>): Promise<{ inserted: Set<string>; written: Map<string, LevelRow> }> {
    const inserted = new Set<string>();
    const written = new Map<string, LevelRow>();
    if (slots.length === 0) return { inserted, written };
    const rows = slots.map((x) => x.row);
    // One statement per ROWS_PER_JSON_STATEMENT rows on PostgreSQL, no Kysely build of every value (server/db/bulk.ts).
    const r = await insertRowsReturning(trx, 'stock_movements', rows as unknown as Array<Record<string, unknown>>, { columns: ['id'], action: 'nothing' }, 'id');
    for (const id of r.returned) inserted.add(id as string);
    const dirty = new Map<string, { pair: Pair; added: MovementRow[]; replay: boolean }>();
    const touch = (m: MovementRow, replay: boolean) => {
      const t = dirty.get(pairKey(m)) ?? { pair: { product_id: m.product_id, location_id: m.location_id }, added: [], replay: false };
      t.added.push(m);
      t.replay ||= replay;
      dirty.set(pairKey(m), t);
    };
    const stale = slots.filter((x) => !inserted.has(x.row.id));
    const stored = new Map((await repo.existingMovements(trx, stale.map((x) => x.row.id))).map((r) => [r.id, r]));
    for (const x of slots) {
      if (inserted.has(x.row.id)) {
        touch(x.row, false);
        continue;
      }
      const have = stored.get(x.row.id)!;
      if (have.tenant_id !== this.tenantId) throw new RejectOp('Deze voorraadmutatie hoort bij een ander restaurant.');
      if (x.mode === 'merge') x.wire[x.index] = movementWire(have);
      else if (!sameRow(have as never, x.row as never)) {
        await repo.replaceMovement(trx, x.row);
        touch(have, true);
        touch(x.row, true);
      }
    }
    if (dirty.size === 0) return { inserted, written };
    const levels = before ?? new Map((await repo.levelsOf(trx, this.tenantId, [...dirty.values()].map((t) => t.pair))).map((l) => [pairKey(l), l]));
    const out: LevelRow[] = [];
    for (const [k, t] of dirty) {
      const level = levels.get(k);
      const sorted = t.added.sort(replayOrder);
      const appends = !t.replay && level !== undefined && (level.last_booked_at === null || replayOrder(sorted[0]!, { booked_at: level.last_booked_at, id: level.last_id ?? '' }) > 0);
      if (appends) {
        let q = level.quantity_milli;
        for (const m of sorted) q = m.type === 'ADJUSTMENT' && m.counted_milli !== null ? m.counted_milli : q + m.quantity_milli;
        const last = sorted[sorted.length - 1]!;
        out.push({ tenant_id: this.tenantId, ...t.pair, quantity_milli: q, last_booked_at: last.booked_at, last_id: last.id, updated_at: this.now });
      } else {
        out.push({ tenant_id: this.tenantId, ...t.pair, ...(await repo.replayPair(trx, this.tenantId, t.pair)), updated_at: this.now });
      }
    }
    await repo.putLevels(trx, out);
    for (const l of out) written.set(pairKey(l), l);
    return { inserted, written };
  }
}

/** A deferred staff removal (StockBatch.checkpoint): its movements and the outcome whose conflict the flush sets. */
interface Checkpoint {
  out: MovementRow[];
  outcome: { conflict?: string };
}

/**
 * The batch form, or none: without a batch the ledger is written op by op below (the same outcome,
 * checked by test/server/modules/stock/stock.sync.test.ts), so the direct form holds nothing.
 */
const stockStore = defineBatchStore<StockBatch | undefined, StockBatch>({
  key: 'stock',
  perTenant: true,
  direct: () => undefined,
  create: (s) => new StockBatch(s.tenantId, s.ctx.now, canDefer(s.ctx, s.changes)),
});

/**
 * Whether a staff removal's below-zero check may wait for the batch's flush: on the cloud (its push
 * reads the answers' conflicts after the flush), when no change of the batch renames a product or a
 * location (the conflict's sentence names them as they were at the removal).
 */
const canDefer = (ctx: ApplyContext, changes: ReadonlyArray<{ entity: string }>): boolean => ctx.side === 'cloud' && ctx.mode === 'merge' && !changes.some((c) => c.entity === 'product' || c.entity === 'location');

/**
 * The stock ledger: a union keyed by movement id (docs/stock.md). A movement is inserted once;
 * a second copy of the same id (a sale both sides booked for the same order) is not added again:
 * the cloud keeps the copy it has and records it as the op's result, and an appliance adopting the
 * cloud's change takes the cloud's copy, so every side holds the same row. The maintained level of
 * each touched product and location follows in the same transaction. A staff removal that, merged,
 * takes a level below zero (both sides took the last units offline) stays booked, and the op is
 * answered as a visible conflict; GET /stock flags the level.
 */
/** The movements' schema, parsed for every pushed stock op (compiled: `pushedPayload`). */
const PushedMovements = pushedPayload('stock.moved', MovementsPayload);
const movementsSync: EntityDescriptor = {
  entity: 'stock',
  // A ledger (rows only added): an echo the cloud kept as sent changes nothing here.
  echo: 'skip-equal',
  merge: 'ledger',
  tables: ['stock_movements'],
  async apply(trx, change, ctx) {
    if (!['stock.moved', 'stock.consumed', 'stock.wasted', 'stock.snapshot'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    if (change.kind === 'stock.snapshot' && ctx.mode !== 'adopt') throw new RejectOp('Een momentopname van de voorraad komt alleen uit de cloud.');
    const p = parsePayload(PushedMovements, change.payload, 'een voorraadmutatie', ctx);
    const tenantId = change.tenant_id;
    const incoming = p.movements.map((m) => movementRow(m, tenantId));
    const staffOut = (list: MovementRow[]) => list.filter((m) => m.source === 'staff' && GUARDED_TYPES.has(m.type) && m.quantity_milli < 0);
    const below: string[] = [];
    const checkBelow = async (pairs: Pair[]) => void below.push(...(await belowZero(trx, tenantId, pairs)));
    const answer = (wire: unknown[]) => ({ payload: { ...(change.payload as Record<string, unknown>), movements: wire }, ...(below.length ? { conflict: below.join(' ') } : {}) });

    const batch = await stockStore.of(trx, ctx, tenantId);
    if (batch) {
      await batch.assertRefs(trx, 'products', incoming.map((m) => m.product_id), 'Het product');
      await batch.assertRefs(trx, 'locations', incoming.map((m) => m.location_id), 'De locatie');
      // The answer's movements (what the cloud records); an appliance never reads an apply's answer, so it keeps none.
      const wire = ctx.side === 'cloud' ? incoming.map(movementWire) : [];
      incoming.forEach((m, index) => {
        const earlier = batch.queuedSlot(m.id);
        if (earlier && earlier.row.tenant_id !== tenantId) throw new RejectOp('Deze voorraadmutatie hoort bij een ander restaurant.');
        if (!earlier || (ctx.mode === 'adopt' && !sameRow(earlier.row as never, m as never))) batch.queue({ row: m, mode: ctx.mode, wire, index });
        else if (ctx.side === 'cloud') wire[index] = movementWire(earlier.row);
      });
      // A staff removal merged in may take a level below zero: that needs the level now, not at the end of the batch.
      const out = ctx.mode === 'merge' ? staffOut(incoming) : [];
      if (out.length && batch.defers) {
        // Checked at the flush, on the level right after this op (StockBatch.checkpoint).
        const outcome = answer(wire);
        batch.checkpoint(out, outcome);
        return outcome;
      }
      if (out.length) {
        const inserted = await batch.write(trx);
        await checkBelow(uniquePairs(out.filter((m) => inserted.has(m.id))));
      }
      return answer(wire);
    }

    for (const table of ['products', 'locations'] as const) {
      await assertRefs(trx, table, incoming.map((m) => (table === 'products' ? m.product_id : m.location_id)), tenantId, table === 'products' ? 'Het product' : 'De locatie');
    }
    const existing = new Map((await repo.existingMovements(trx, incoming.map((m) => m.id))).map((r) => [r.id, r]));
    const result: MovementRow[] = [];
    const added: MovementRow[] = [];
    const touched = new Map<string, { pair: Pair; added: MovementRow[]; replaced: boolean }>();
    const touch = (m: MovementRow, replaced: boolean) => {
      const t = touched.get(pairKey(m)) ?? { pair: { product_id: m.product_id, location_id: m.location_id }, added: [], replaced: false };
      t.added.push(m);
      t.replaced ||= replaced;
      touched.set(pairKey(m), t);
    };
    for (const m of incoming) {
      const have = existing.get(m.id);
      if (have && have.tenant_id !== tenantId) throw new RejectOp('Deze voorraadmutatie hoort bij een ander restaurant.');
      if (!have) {
        existing.set(m.id, m);
        added.push(m);
        touch(m, false);
        result.push(m);
      } else if (ctx.mode === 'adopt' && !sameRow(have as never, m as never)) {
        // The cloud's copy of a booking both sides made: every side keeps the same row.
        await repo.replaceMovement(trx, m);
        touch(have, true);
        touch(m, true);
        result.push(m);
      } else {
        result.push(have);
      }
    }
    await repo.insertMovements(trx, added);
    for (const t of touched.values()) await updateLevel(trx, tenantId, t.pair, t.added, t.replaced, ctx.now);
    if (ctx.mode === 'merge') await checkBelow(uniquePairs(staffOut(added)));
    return answer(result.map(movementWire));
  },
  /**
   * The ledger in replay order (booked_at, id), so every page only appends to the levels the
   * appliance keeps (`updateLevel`); in id order a movement booked earlier than one already copied
   * made it replay the pair's ledger, page after page (bench/README.md, session 5). The cursor is
   * `[booked_at, id]` as JSON; anything else (a cursor of an older release, where it was an id)
   * starts the ledger again, which adopts the rows already copied as no-ops.
   */
  async snapshot(db, tenantId, after, limit) {
    let q = db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenantId);
    const from = ledgerCursor(after);
    if (from) q = q.where((eb) => eb(eb.refTuple('booked_at', 'id'), '>', eb.tuple(from[0], from[1])));
    const rows = await q.orderBy('booked_at').orderBy('id').limit(limit).execute();
    // Up to SNAPSHOT_MOVEMENTS rows per change (issue 29 point 3): a week's ledger is most of a
    // restaurant's rows, and one change per row cost the appliance an apply, a payload check and a
    // batch entry per movement, and filled its pages (counted in changes) with small rows. An
    // appliance of any release applies a change of many movements (MovementsPayload, stock.moved).
    const changes = [];
    for (let i = 0; i < rows.length; i += SNAPSHOT_MOVEMENTS) {
      const part = rows.slice(i, i + SNAPSHOT_MOVEMENTS);
      changes.push({
        entity: 'stock',
        entity_id: part[0]!.id,
        kind: 'stock.snapshot',
        payload: { movements: part.map((r) => movementWire({ ...r, quantity_milli: Number(r.quantity_milli), counted_milli: r.counted_milli === null ? null : Number(r.counted_milli), level_after_milli: Number(r.level_after_milli) })) },
        created_at: part[part.length - 1]!.created_at,
      });
    }
    const last = rows[rows.length - 1];
    return { changes, next: rows.length >= limit && last ? JSON.stringify([last.booked_at, last.id]) : null };
  },
};

/** Movements per change of a stock snapshot (MovementsPayload takes up to 200). */
const SNAPSHOT_MOVEMENTS = 200;

/** A stock-ledger snapshot cursor `[booked_at, id]`, or null (start of the ledger). */
function ledgerCursor(after: string | null): [string, string] | null {
  if (after === null) return null;
  try {
    const v = JSON.parse(after) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return [v[0], v[1]];
  } catch {
    // an older release's cursor: start again
  }
  return null;
}

const uniquePairs = (rows: MovementRow[]): Pair[] => [...new Map(rows.map((m) => [pairKey(m), { product_id: m.product_id, location_id: m.location_id }])).values()];

/** The below-zero sentences of the pairs whose level (as it stands now) is under zero, in the pairs' order. */
async function belowZero(trx: Tx, tenantId: string, pairs: readonly Pair[]): Promise<string[]> {
  const below: string[] = [];
  for (const pair of pairs) {
    const level = (await repo.level(trx, tenantId, pair))?.quantity_milli ?? 0;
    if (level < 0) below.push(await describeBelowZero(trx, tenantId, pair, level));
  }
  return below;
}

async function describeBelowZero(trx: Tx, tenantId: string, pair: Pair, level: number): Promise<string> {
  const product = await trx.selectFrom('products').select(['name', 'unit']).where('id', '=', pair.product_id).executeTakeFirst();
  const location = await trx.selectFrom('locations').select('name').where('id', '=', pair.location_id).executeTakeFirst();
  const amount = String(fromMilli(level)).replace('.', ',');
  return `Voorraad van ${product?.name ?? 'een product'} op '${location?.name ?? 'een locatie'}' staat na samenvoegen op ${amount}${product?.unit ? ` ${product.unit}` : ''}: beide kanten namen tijdens de storing de laatste voorraad. Tel en corrigeer de voorraad.`;
}

export const stockSync: EntityDescriptor[] = [locationSync, recipeSync, movementsSync];
