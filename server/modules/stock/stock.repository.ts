import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { LocationsTable, RecipesTable, StockLevelsTable, StockMovementsTable } from '../../db/database.js';

export type LocationRow = LocationsTable;
export type RecipeRow = RecipesTable;
export type MovementRow = StockMovementsTable;
export type LevelRow = StockLevelsTable;
export type Pair = { product_id: string; location_id: string };

/** bigint columns come back as strings from some drivers; every stock quantity fits a JS number. */
const num = (v: unknown): number => Number(v);
const movementOut = (r: MovementRow): MovementRow => ({
  ...r,
  quantity_milli: num(r.quantity_milli),
  counted_milli: r.counted_milli === null ? null : num(r.counted_milli),
  level_after_milli: num(r.level_after_milli),
});
const levelOut = (r: LevelRow): LevelRow => ({ ...r, quantity_milli: num(r.quantity_milli) });

export interface MovementFilter {
  product_id?: string;
  location_id?: string;
  from?: string;
  /** Exclusive. */
  to?: string;
}

/** The only place with the stock module's queries; takes a db or a transaction (the caller owns it). */
export const stockRepository = {
  // ── locations
  listLocations: (db: Executor, tenantId: string, includeArchived = false) => {
    let q = db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').orderBy('id').execute();
  },
  findLocation: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  findLocations: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([]) : db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),
  defaultLocation: (db: Executor, tenantId: string) =>
    db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId).where('is_default', '=', 1).where('archived_at', 'is', null).executeTakeFirst(),
  oldestLiveLocation: (db: Executor, tenantId: string) =>
    db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId).where('archived_at', 'is', null).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst(),
  insertLocation: (db: Executor, row: LocationRow) => db.insertInto('locations').values(row).execute(),
  updateLocation: (db: Executor, row: LocationRow) => db.updateTable('locations').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),
  /** The tenant's other locations that are the default now (to be un-set before `keepId` becomes it). */
  otherDefaults: (db: Executor, tenantId: string, keepId: string) =>
    db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId).where('is_default', '=', 1).where('id', '!=', keepId).execute(),
  clearDefault: (db: Executor, tenantId: string, keepId: string) =>
    db.updateTable('locations').set({ is_default: 0 }).where('tenant_id', '=', tenantId).where('is_default', '=', 1).where('id', '!=', keepId).execute(),

  // ── recipes
  findRecipe: (db: Executor, tenantId: string, productId: string) =>
    db.selectFrom('recipes').selectAll().where('tenant_id', '=', tenantId).where('id', '=', productId).executeTakeFirst(),
  findRecipes: (db: Executor, tenantId: string, productIds: string[]) =>
    productIds.length === 0 ? Promise.resolve([]) : db.selectFrom('recipes').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', productIds).execute(),
  /** Every recipe of the restaurant (the per-tenant cache behind an order's allergens). */
  listRecipes: (db: Executor, tenantId: string) => db.selectFrom('recipes').selectAll().where('tenant_id', '=', tenantId).execute(),
  upsertRecipe: async (db: Executor, row: RecipeRow) => {
    await db
      .insertInto('recipes')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ ingredients: row.ingredients, updated_at: row.updated_at }))
      .execute();
  },

  // ── movements (the ledger)
  async existingMovements(db: Executor, ids: string[]): Promise<MovementRow[]> {
    if (ids.length === 0) return [];
    return (await db.selectFrom('stock_movements').selectAll().where('id', 'in', ids).execute()).map(movementOut);
  },
  async insertMovements(db: Executor, rows: MovementRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 50) await db.insertInto('stock_movements').values(rows.slice(i, i + 50)).execute();
  },
  /** Adopting the cloud's version of a booking both sides made (same id, see docs/stock.md). */
  replaceMovement: (db: Executor, row: MovementRow) => db.updateTable('stock_movements').set(row).where('id', '=', row.id).execute(),

  async listMovements(db: Executor, tenantId: string, f: MovementFilter, limit: number, offset: number): Promise<{ rows: MovementRow[]; total: number }> {
    let q = db.selectFrom('stock_movements').where('tenant_id', '=', tenantId);
    if (f.product_id) q = q.where('product_id', '=', f.product_id);
    if (f.location_id) q = q.where('location_id', '=', f.location_id);
    if (f.from) q = q.where('created_at', '>=', f.from);
    if (f.to) q = q.where('created_at', '<', f.to);
    const [rows, count] = await Promise.all([
      q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(movementOut), total: num(count.n) };
  },

  /** Outgoing REMOVAL quantities per product and source since `from` (consumption: sales, staff removals, waste). */
  async consumptionSince(db: Executor, tenantId: string, from: string, to: string): Promise<Array<{ product_id: string; source: string; milli: number }>> {
    const rows = await db
      .selectFrom('stock_movements')
      .select(['product_id', 'source', (eb) => eb.fn.sum<number>('quantity_milli').as('milli')])
      .where('tenant_id', '=', tenantId)
      .where('type', '=', 'REMOVAL')
      .where('created_at', '>=', from)
      .where('created_at', '<=', to)
      .groupBy(['product_id', 'source'])
      .execute();
    return rows.map((r) => ({ product_id: r.product_id, source: r.source, milli: -num(r.milli) }));
  },

  /**
   * The replay of one product at one location (stock.rules `replayLevel`), in the database: the
   * last ADJUSTMENT's count plus every later movement, and the last movement in replay order.
   */
  async replayPair(db: Executor, tenantId: string, p: Pair): Promise<{ quantity_milli: number; last_booked_at: string | null; last_id: string | null }> {
    const base = db.selectFrom('stock_movements').where('tenant_id', '=', tenantId).where('product_id', '=', p.product_id).where('location_id', '=', p.location_id);
    const [adj, last] = await Promise.all([
      base.select(['booked_at', 'id', 'counted_milli']).where('type', '=', 'ADJUSTMENT').orderBy('booked_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),
      base.select(['booked_at', 'id']).orderBy('booked_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),
    ]);
    let q = base.select((eb) => eb.fn.sum<number>('quantity_milli').as('s')).where('type', '!=', 'ADJUSTMENT');
    if (adj) q = q.where((eb) => eb.or([eb('booked_at', '>', adj.booked_at), eb.and([eb('booked_at', '=', adj.booked_at), eb('id', '>', adj.id)])]));
    const sum = await q.executeTakeFirst();
    return {
      quantity_milli: (adj ? num(adj.counted_milli ?? 0) : 0) + num(sum?.s ?? 0),
      last_booked_at: last?.booked_at ?? null,
      last_id: last?.id ?? null,
    };
  },

  /** Every (product, location) pair of a tenant that has movements or a level row. */
  async pairs(db: Executor, tenantId: string): Promise<Pair[]> {
    const rows = await db
      .selectFrom('stock_movements')
      .select(['product_id', 'location_id'])
      .where('tenant_id', '=', tenantId)
      .union(db.selectFrom('stock_levels').select(['product_id', 'location_id']).where('tenant_id', '=', tenantId))
      .execute();
    return rows;
  },

  /** Tenants that have any stock data (for `stock verify` over the whole database). */
  async tenantsWithStock(db: Executor): Promise<string[]> {
    const rows = await db.selectFrom('stock_movements').select('tenant_id').distinct().union(db.selectFrom('stock_levels').select('tenant_id').distinct()).execute();
    return rows.map((r) => r.tenant_id);
  },

  // ── levels (maintained, local-only)
  async levels(db: Executor, tenantId: string): Promise<LevelRow[]> {
    return (await db.selectFrom('stock_levels').selectAll().where('tenant_id', '=', tenantId).execute()).map(levelOut);
  },
  async level(db: Executor, tenantId: string, p: Pair): Promise<LevelRow | undefined> {
    const r = await db.selectFrom('stock_levels').selectAll().where('tenant_id', '=', tenantId).where('product_id', '=', p.product_id).where('location_id', '=', p.location_id).executeTakeFirst();
    return r && levelOut(r);
  },
  async levelsOfLocation(db: Executor, tenantId: string, locationId: string): Promise<LevelRow[]> {
    return (await db.selectFrom('stock_levels').selectAll().where('tenant_id', '=', tenantId).where('location_id', '=', locationId).execute()).map(levelOut);
  },
  async putLevel(db: Executor, row: LevelRow): Promise<void> {
    await db
      .insertInto('stock_levels')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'product_id', 'location_id']).doUpdateSet({
          quantity_milli: row.quantity_milli,
          last_booked_at: row.last_booked_at,
          last_id: row.last_id,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  },
  /** The level rows of some pairs of one tenant (one statement). */
  async levelsOf(db: Executor, tenantId: string, pairs: Pair[]): Promise<LevelRow[]> {
    if (pairs.length === 0) return [];
    const products = [...new Set(pairs.map((p) => p.product_id))];
    const wanted = new Set(pairs.map((p) => `${p.product_id}/${p.location_id}`));
    const rows = await db.selectFrom('stock_levels').selectAll().where('tenant_id', '=', tenantId).where('product_id', 'in', products).execute();
    return rows.map(levelOut).filter((l) => wanted.has(`${l.product_id}/${l.location_id}`));
  },
  /** Writes several level rows (insert or overwrite), 50 per statement. */
  async putLevels(db: Executor, rows: LevelRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 50) {
      await db
        .insertInto('stock_levels')
        .values(rows.slice(i, i + 50))
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'product_id', 'location_id']).doUpdateSet((eb) => ({
            quantity_milli: eb.ref('excluded.quantity_milli'),
            last_booked_at: eb.ref('excluded.last_booked_at'),
            last_id: eb.ref('excluded.last_id'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
  },
  /** Makes sure the level row exists (0 when new), so a guarded update has a row to guard. */
  async ensureLevel(db: Executor, tenantId: string, p: Pair, now: string): Promise<void> {
    await db
      .insertInto('stock_levels')
      .values({ tenant_id: tenantId, product_id: p.product_id, location_id: p.location_id, quantity_milli: 0, last_booked_at: null, last_id: null, updated_at: now })
      .onConflict((oc) => oc.columns(['tenant_id', 'product_id', 'location_id']).doNothing())
      .execute();
  },
  /**
   * Adds `delta` to the level and records the movement as its last, in one statement. With
   * `guard`, only when the result stays at or above zero (a conditional update: of twenty
   * concurrent removals of the last units exactly the ones that fit succeed, on either engine).
   * Returns the new level, or undefined when the guard refused.
   */
  async addToLevel(db: Executor, tenantId: string, p: Pair, delta: number, last: { booked_at: string; id: string }, now: string, guard: boolean): Promise<number | undefined> {
    let q = db
      .updateTable('stock_levels')
      .set({ quantity_milli: sql<number>`quantity_milli + ${delta}`, last_booked_at: last.booked_at, last_id: last.id, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('product_id', '=', p.product_id)
      .where('location_id', '=', p.location_id);
    if (guard) q = q.where(sql<boolean>`quantity_milli + ${delta} >= 0`);
    const row = await q.returning('quantity_milli').executeTakeFirst();
    return row === undefined ? undefined : num(row.quantity_milli);
  },
  async setLevel(db: Executor, tenantId: string, p: Pair, quantity: number, last: { booked_at: string; id: string }, now: string): Promise<void> {
    await db
      .updateTable('stock_levels')
      .set({ quantity_milli: quantity, last_booked_at: last.booked_at, last_id: last.id, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('product_id', '=', p.product_id)
      .where('location_id', '=', p.location_id)
      .execute();
  },
};
