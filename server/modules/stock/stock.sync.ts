import type { Tx } from '../../db/connection.js';
import type { LocationsTable, RecipesTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyContext, type BatchState, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { stockRepository as repo, type MovementRow, type Pair } from './stock.repository.js';
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

/** Adopting a pull page or snapshot page: the pairs it touched get one replay each, at the page's end. */
class LevelsBatch implements BatchState {
  private readonly dirty = new Map<string, { tenantId: string; pair: Pair }>();
  constructor(private readonly now: string) {}
  mark(tenantId: string, pair: Pair): void {
    this.dirty.set(`${tenantId}\u0000${pairKey(pair)}`, { tenantId, pair });
  }
  async flush(trx: Tx): Promise<void> {
    for (const { tenantId, pair } of this.dirty.values()) {
      const r = await repo.replayPair(trx, tenantId, pair);
      await repo.putLevel(trx, { tenant_id: tenantId, ...pair, ...r, updated_at: this.now });
    }
    this.dirty.clear();
  }
}

/**
 * The stock ledger: a union keyed by movement id (docs/stock.md). A movement is inserted once;
 * a second copy of the same id (a sale both sides booked for the same order) is not added again:
 * the cloud keeps the copy it has and records it as the op's result, and an appliance adopting the
 * cloud's change takes the cloud's copy, so every side holds the same row. The maintained level of
 * each touched product and location follows in the same transaction. A staff removal that, merged,
 * takes a level below zero (both sides took the last units offline) stays booked, and the op is
 * answered as a visible conflict; GET /stock flags the level.
 */
const movementsSync: EntityDescriptor = {
  entity: 'stock',
  merge: 'ledger',
  tables: ['stock_movements'],
  async apply(trx, change, ctx) {
    if (!['stock.moved', 'stock.consumed', 'stock.wasted', 'stock.snapshot'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    if (change.kind === 'stock.snapshot' && ctx.mode !== 'adopt') throw new RejectOp('Een momentopname van de voorraad komt alleen uit de cloud.');
    const p = parsePayload(MovementsPayload, change.payload, 'een voorraadmutatie');
    const tenantId = change.tenant_id;
    await assertRefs(trx, 'products', p.movements.map((m) => m.product_id), tenantId, 'Het product');
    await assertRefs(trx, 'locations', p.movements.map((m) => m.location_id), tenantId, 'De locatie');
    const incoming = p.movements.map((m) => ({ ...pick<MovementRow>(m, MOVEMENT_COLUMNS), tenant_id: tenantId }) as MovementRow);
    const existing = new Map((await repo.existingMovements(trx, incoming.map((m) => m.id))).map((r) => [r.id, r]));
    const result: MovementRow[] = [];
    const touched = new Map<string, { pair: Pair; added: MovementRow[]; replaced: boolean }>();
    const touch = (m: MovementRow, replaced: boolean) => {
      const pair = { product_id: m.product_id, location_id: m.location_id };
      const t = touched.get(pairKey(pair)) ?? { pair, added: [], replaced: false };
      t.added.push(m);
      t.replaced ||= replaced;
      touched.set(pairKey(pair), t);
    };
    const fresh: MovementRow[] = [];
    for (const m of incoming) {
      const have = existing.get(m.id);
      if (have && have.tenant_id !== tenantId) throw new RejectOp('Deze voorraadmutatie hoort bij een ander restaurant.');
      if (!have) {
        fresh.push(m);
        existing.set(m.id, m);
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
    await repo.insertMovements(trx, fresh);
    const below: string[] = [];
    if (ctx.mode === 'adopt' && ctx.batch) {
      const levels = ctx.batch.state('stock-levels', () => new LevelsBatch(ctx.now));
      for (const t of touched.values()) levels.mark(tenantId, t.pair);
    } else {
      for (const t of touched.values()) {
        const level = await updateLevel(trx, tenantId, t.pair, t.added.filter((m) => m.product_id === t.pair.product_id && m.location_id === t.pair.location_id), t.replaced, ctx.now);
        const staffOut = t.added.some((m) => m.source === 'staff' && GUARDED_TYPES.has(m.type) && m.quantity_milli < 0);
        if (ctx.mode === 'merge' && staffOut && level < 0) below.push(await describeBelowZero(trx, tenantId, t.pair, level));
      }
    }
    return {
      payload: { ...(change.payload as Record<string, unknown>), movements: result.map(movementWire) },
      ...(below.length ? { conflict: below.join(' ') } : {}),
    };
  },
  async snapshot(db, tenantId, after, limit) {
    let q = db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(limit).execute();
    const changes = rows.map((r) => ({
      entity: 'stock',
      entity_id: r.id,
      kind: 'stock.snapshot',
      payload: { movements: [movementWire({ ...r, quantity_milli: Number(r.quantity_milli), counted_milli: r.counted_milli === null ? null : Number(r.counted_milli), level_after_milli: Number(r.level_after_milli) })] },
      created_at: r.created_at,
    }));
    return { changes, next: snapshotNext(changes, limit) };
  },
};

async function describeBelowZero(trx: Tx, tenantId: string, pair: Pair, level: number): Promise<string> {
  const product = await trx.selectFrom('products').select(['name', 'unit']).where('id', '=', pair.product_id).executeTakeFirst();
  const location = await trx.selectFrom('locations').select('name').where('id', '=', pair.location_id).executeTakeFirst();
  const amount = String(fromMilli(level)).replace('.', ',');
  return `Voorraad van ${product?.name ?? 'een product'} op '${location?.name ?? 'een locatie'}' staat na samenvoegen op ${amount}${product?.unit ? ` ${product.unit}` : ''}: beide kanten namen tijdens de storing de laatste voorraad. Tel en corrigeer de voorraad.`;
}

export const stockSync: EntityDescriptor[] = [locationSync, recipeSync, movementsSync];
