import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import { perTenant } from '../../db/read-cache.js';
import type { TableVersions } from '../../db/table-watch.js';
import type { StockMovementSource, StockMovementType } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { addDays, dayStart, isDate } from '../../shared/zoned-time.js';
import { optionsOf, type MenuService } from '../menu/menu.service.js';
import type { Product } from '../menu/menu.schemas.js';
import type { Order } from '../orders/orders.schemas.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { stockRepository as repo, type LocationRow, type MovementRow, type Pair, type RecipeRow } from './stock.repository.js';
import {
  DEFAULT_COVER_DAYS,
  fallbackLocationId,
  fromMilli,
  GUARDED_TYPES,
  hasAtMost3Decimals,
  MAX_QUANTITY,
  nextBookedAt,
  saleEntityId,
  saleMovementId,
  shortfall,
  suggest,
  toMilli,
  wasteMovementId,
} from './stock.rules.js';
import type {
  CreateLocationInput,
  Location,
  MoveStockInput,
  MoveStockResult,
  Movement,
  PurchaseList,
  PutRecipeInput,
  Recipe,
  StockItem,
  StockList,
  SuggestionList,
  UpdateLocationInput,
} from './stock.schemas.js';

export const toLocationDto = (r: LocationRow): Location => ({
  id: r.id,
  name: r.name,
  is_default: r.is_default === 1,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

export const toMovementDto = (r: MovementRow): Movement => ({
  id: r.id,
  product_id: r.product_id,
  location_id: r.location_id,
  type: r.type,
  quantity: fromMilli(r.quantity_milli),
  counted: r.counted_milli === null ? null : fromMilli(r.counted_milli),
  level_after: fromMilli(r.level_after_milli),
  transfer_id: r.transfer_id,
  source: r.source,
  ref_id: r.ref_id,
  reason: r.reason,
  note: r.note,
  user_id: r.user_id,
  created_at: r.created_at,
});

/** A movement as it travels in the change log: the row without its tenant (sync adds the receiving tenant). */
export const movementWire = ({ tenant_id: _t, ...rest }: MovementRow) => rest;

const locationChange = (row: LocationRow, kind: string, fields?: Partial<LocationRow>) => ({ entity: 'location', entityId: row.id, kind, payload: { ...row, ...(fields ? { fields } : {}) } });

/** What one booking asks for (the service turns it into a ledger row and a level). */
interface Draft {
  /** A deterministic id (sale, waste) or none (a new one). */
  id?: string;
  pair: Pair;
  type: StockMovementType;
  /** Signed change in milli; for ADJUSTMENT the counted level instead. */
  milli: number;
  /** Refuse (409) when the level would go below zero. */
  guard: boolean;
  source: StockMovementSource;
  transfer_id?: string | null;
  ref_id?: string | null;
  reason?: string | null;
  note?: string | null;
  user_id?: string | null;
}

export interface WasteBooking {
  tenantId: string;
  /** The waste entry's id: the movement's id is derived from it, so booking it twice books it once. */
  wasteId: string;
  productId: string;
  /** In the product's unit (> 0, at most 3 decimals). */
  quantity: number;
  /** Default: the tenant's default location. */
  locationId?: string | null;
  userId?: string | null;
  /** The waste reason (bederf, overproductie ...). */
  reason?: string | null;
  note?: string | null;
}

const notEnough = (productName: string, locationName: string, have: number, asked: number, unit: string | null) =>
  conflict(`Onvoldoende voorraad op deze locatie: ${productName} op '${locationName}' is ${fmt(have)}${unit ? ` ${unit}` : ''}, gevraagd ${fmt(asked)}.`);
const fmt = (n: number) => String(n).replace('.', ',');

/** The last day and instant ISO-8601 text without a sign can hold. */
const LAST_DAY = '9999-12-31';
const END_OF_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function createStockService(deps: { db: Db; changes: ChangeLog; clock: Clock; menu: MenuService; tenants: TenantsService; tables?: TableVersions }) {
  const { db, changes, clock, menu, tenants } = deps;

  async function liveProduct(trx: Executor, tenantId: string, id: string): Promise<Product> {
    const [p] = await menu.productsByIds(trx, tenantId, [id]);
    if (!p || p.archived_at) throw notFound('Product');
    return p;
  }

  async function liveLocation(trx: Executor, tenantId: string, id: string): Promise<LocationRow> {
    const l = await repo.findLocation(trx, tenantId, id);
    if (!l || l.archived_at) throw notFound('Locatie');
    return l;
  }

  /**
   * The location recipe consumption and waste are booked at: the live default; without one (never
   * set up, or lost in a merge) the oldest live location; a tenant without any location gets
   * "Voorraad", with an id derived from the tenant so both sides of an outage make the same row.
   */
  async function defaultLocationFor(w: Writer, tenantId: string): Promise<LocationRow> {
    const found = (await repo.defaultLocation(w.trx, tenantId)) ?? (await repo.oldestLiveLocation(w.trx, tenantId));
    if (found) return found;
    const id = fallbackLocationId(tenantId);
    const existing = await repo.findLocation(w.trx, tenantId, id);
    const row: LocationRow = existing
      ? { ...existing, is_default: 1, archived_at: null, updated_at: w.now }
      : { id, tenant_id: tenantId, name: 'Voorraad', is_default: 1, created_at: w.now, updated_at: w.now, archived_at: null };
    await repo.clearDefault(w.trx, tenantId, id);
    if (existing) await repo.updateLocation(w.trx, row);
    else await repo.insertLocation(w.trx, row);
    await w.record(locationChange(row, existing ? 'location.updated' : 'location.created', existing ? { is_default: 1, archived_at: null } : undefined));
    return row;
  }

  /** Makes `keep` the only default: the others are un-set, each recorded (so sync carries it). */
  async function takeDefault(w: Writer, tenantId: string, keepId: string): Promise<void> {
    for (const other of await repo.otherDefaults(w.trx, tenantId, keepId)) {
      const row = { ...other, is_default: 0, updated_at: w.now };
      await repo.updateLocation(w.trx, row);
      await w.record(locationChange(row, 'location.updated', { is_default: 0 }));
    }
  }

  /**
   * Books drafts in order, each with its level, inside the caller's transaction: the ledger row and
   * the maintained level change together. A guarded draft is a conditional update of the level
   * (only when it stays ≥ 0), so concurrent removals cannot both take the last units. Drafts with a
   * deterministic id that is already in the ledger are skipped (booked once).
   */
  async function book(w: Writer, tenantId: string, drafts: Draft[], names?: (pair: Pair) => Promise<{ product: string; location: string; unit: string | null }>): Promise<MovementRow[]> {
    const known = new Set((await repo.existingMovements(w.trx, drafts.flatMap((d) => (d.id ? [d.id] : [])))).map((r) => r.id));
    const out: MovementRow[] = [];
    for (const d of drafts) {
      if (d.id && known.has(d.id)) continue;
      await repo.ensureLevel(w.trx, tenantId, d.pair, w.now);
      const level = (await repo.level(w.trx, tenantId, d.pair))!;
      const id = d.id ?? newId();
      const booked_at = nextBookedAt(w.now, level.last_booked_at);
      const last = { booked_at, id };
      let after: number;
      let quantity: number;
      if (d.type === 'ADJUSTMENT') {
        quantity = d.milli - level.quantity_milli;
        after = d.milli;
        await repo.setLevel(w.trx, tenantId, d.pair, after, last, w.now);
      } else {
        quantity = d.milli;
        const r = await repo.addToLevel(w.trx, tenantId, d.pair, d.milli, last, w.now, d.guard);
        if (r === undefined) {
          const now = (await repo.level(w.trx, tenantId, d.pair))!;
          const n = names ? await names(d.pair) : { product: 'Het product', location: '', unit: null };
          throw notEnough(n.product, n.location, fromMilli(now.quantity_milli), fromMilli(-d.milli), n.unit);
        }
        after = r;
      }
      const row: MovementRow = {
        id,
        tenant_id: tenantId,
        product_id: d.pair.product_id,
        location_id: d.pair.location_id,
        type: d.type,
        quantity_milli: quantity,
        counted_milli: d.type === 'ADJUSTMENT' ? d.milli : null,
        level_after_milli: after,
        transfer_id: d.transfer_id ?? null,
        source: d.source,
        ref_id: d.ref_id ?? null,
        reason: d.reason ?? null,
        note: d.note ?? null,
        user_id: d.user_id ?? null,
        booked_at,
        created_at: w.now,
      };
      await repo.insertMovements(w.trx, [row]);
      known.add(id);
      out.push(row);
    }
    return out;
  }

  async function recordBooked(w: Writer, entityId: string, kind: string, rows: MovementRow[]): Promise<void> {
    if (rows.length > 0) await w.record({ entity: 'stock', entityId, kind, payload: { movements: rows.map(movementWire) } });
  }

  function assertQuantity(field: string, q: number): void {
    if (!Number.isFinite(q) || q <= 0 || q > MAX_QUANTITY) throw invalidField(field, `moet een getal groter dan 0 en hoogstens ${MAX_QUANTITY} zijn.`);
    if (!hasAtMost3Decimals(q)) throw invalidField(field, 'mag hoogstens 3 decimalen hebben.');
  }

  type RecipeLine = { product_id: string; quantity_milli: number };
  const linesOf = (r: RecipeRow): RecipeLine[] => JSON.parse(r.ingredients) as RecipeLine[];

  /**
   * Every recipe's ingredient ids, per restaurant, kept until `recipes` is written (db/read-cache.ts):
   * an order's lines carry their dishes' allergens, which include their recipes' ingredients'.
   */
  const allRecipes = perTenant(deps.tables, ['recipes'], async (exec, tenantId): Promise<ReadonlyMap<string, readonly string[]>> =>
    new Map((await repo.listRecipes(exec, tenantId)).map((r) => [r.id, Object.freeze(linesOf(r).map((l) => l.product_id))])),
  );

  async function recipeOf(tenantId: string, productId: string, exec: Executor = db): Promise<Recipe> {
    const row = await repo.findRecipe(exec, tenantId, productId);
    const lines = row ? linesOf(row) : [];
    const products = new Map((await menu.productsByIds(exec, tenantId, lines.map((l) => l.product_id))).map((p) => [p.id, p]));
    let complete = true;
    let cost = 0;
    const ingredients = lines.map((l) => {
      const p = products.get(l.product_id);
      const quantity = fromMilli(l.quantity_milli);
      const c = p?.cost_cents ?? null;
      if (c === null) complete = false;
      const lineCost = c === null ? null : Math.round(quantity * c * 100) / 100;
      cost += lineCost ?? 0;
      return { product_id: l.product_id, name: p?.name ?? '?', unit: p?.unit ?? null, quantity, cost_cents: lineCost };
    });
    return { product_id: productId, ingredients, cost_cents: row && lines.length ? Math.round(cost) : null, complete, updated_at: row?.updated_at ?? null };
  }

  async function stockList(tenantId: string): Promise<StockList> {
    const [levels, products, locations] = await Promise.all([repo.levels(db, tenantId), menu.listProducts(tenantId, false), repo.listLocations(db, tenantId, true)]);
    const locName = new Map(locations.map((l) => [l.id, l]));
    const byProduct = new Map<string, typeof levels>();
    for (const l of levels) {
      const list = byProduct.get(l.product_id);
      if (list) list.push(l);
      else byProduct.set(l.product_id, [l]);
    }
    const data: StockItem[] = [];
    for (const p of products) {
      const rows = (byProduct.get(p.id) ?? []).filter((l) => l.quantity_milli !== 0 || !locName.get(l.location_id)?.archived_at);
      if (rows.length === 0 && p.min_level === null && p.on_menu) continue; // a dish that is not a stock item
      const totalMilli = rows.reduce((s, l) => s + l.quantity_milli, 0);
      const locs = rows
        .map((l) => ({ location_id: l.location_id, name: locName.get(l.location_id)?.name ?? '?', quantity: fromMilli(l.quantity_milli), below_zero: l.quantity_milli < 0 }))
        .sort((a, b) => a.name.localeCompare(b.name, 'nl') || a.location_id.localeCompare(b.location_id));
      data.push({
        product_id: p.id,
        name: p.name,
        unit: p.unit,
        total: fromMilli(totalMilli),
        min_level: p.min_level,
        below_min: p.min_level !== null && totalMilli < toMilli(p.min_level),
        below_zero: locs.some((l) => l.below_zero),
        locations: locs,
      });
    }
    const live = locations.filter((l) => !l.archived_at);
    return { data, locations: live.map((l) => ({ id: l.id, name: l.name, is_default: l.is_default === 1 })) };
  }

  return {
    // ───────────── locations
    async listLocations(tenantId: string): Promise<Location[]> {
      return (await repo.listLocations(db, tenantId)).map(toLocationDto);
    },

    async createLocation(tenantId: string, input: CreateLocationInput): Promise<Location> {
      return changes.write(tenantId, async (w) => {
        const live = await repo.listLocations(w.trx, tenantId);
        if (live.some((l) => l.name.toLocaleLowerCase('nl') === input.name.toLocaleLowerCase('nl'))) throw conflict(`Er is al een locatie '${input.name}'.`);
        const isDefault = input.is_default === true || !live.some((l) => l.is_default === 1);
        const row: LocationRow = { id: newId(), tenant_id: tenantId, name: input.name, is_default: isDefault ? 1 : 0, created_at: w.now, updated_at: w.now, archived_at: null };
        if (isDefault) await takeDefault(w, tenantId, row.id);
        await repo.insertLocation(w.trx, row);
        await w.record(locationChange(row, 'location.created'));
        return toLocationDto(row);
      });
    },

    async updateLocation(tenantId: string, id: string, input: UpdateLocationInput): Promise<Location> {
      return changes.write(tenantId, async (w) => {
        const cur = await liveLocation(w.trx, tenantId, id);
        if (input.name !== undefined) {
          const live = await repo.listLocations(w.trx, tenantId);
          if (live.some((l) => l.id !== id && l.name.toLocaleLowerCase('nl') === input.name!.toLocaleLowerCase('nl'))) throw conflict(`Er is al een locatie '${input.name}'.`);
        }
        const fields: Partial<LocationRow> = {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.is_default ? { is_default: 1 } : {}),
        };
        if (input.is_default && cur.is_default !== 1) await takeDefault(w, tenantId, id);
        const row: LocationRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateLocation(w.trx, row);
        await w.record(locationChange(row, 'location.updated', fields));
        return toLocationDto(row);
      });
    },

    /** Archives a location (history keeps it). Not the default, and not while stock lies there. */
    async archiveLocation(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await liveLocation(w.trx, tenantId, id);
        if (cur.is_default === 1) throw conflict('De standaardlocatie kan niet worden verwijderd; maak eerst een andere locatie de standaard.');
        const stocked = (await repo.levelsOfLocation(w.trx, tenantId, id)).filter((l) => l.quantity_milli !== 0);
        if (stocked.length > 0) throw conflict(`Op deze locatie ligt nog voorraad van ${stocked.length} ${stocked.length === 1 ? 'product' : 'producten'}; verplaats of corrigeer die eerst.`);
        const row: LocationRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateLocation(w.trx, row);
        await w.record(locationChange(row, 'location.archived', { archived_at: w.now }));
      });
    },

    // ───────────── stock
    /** GET /stock (and GET /external/stock): every stock item with its total and its levels per location. */
    list: stockList,

    /**
     * POST /stock (CONTRACT §7): one movement, or a transfer's two legs, atomically. REMOVAL and
     * the out-leg of a transfer are refused (409, nothing written) when they would take the
     * location below zero; ADJUSTMENT books the difference to the counted level.
     */
    async recordMovement(ctx: { tenantId: string; userId: string | null }, input: MoveStockInput): Promise<MoveStockResult> {
      const { tenantId } = ctx;
      return changes.write(tenantId, async (w) => {
        const product = await liveProduct(w.trx, tenantId, input.product_id);
        const here = await liveLocation(w.trx, tenantId, input.location_id);
        const other = input.to_location_id ?? input.from_location_id;
        const there = other ? await liveLocation(w.trx, tenantId, other) : undefined;
        const locs = new Map([here, ...(there ? [there] : [])].map((l) => [l.id, l]));
        const names = async (pair: Pair) => ({ product: product.name, location: locs.get(pair.location_id)?.name ?? '', unit: product.unit });
        const milli = toMilli(input.quantity);
        const base = { source: 'staff' as const, reason: input.reason, note: input.note, user_id: ctx.userId };
        const at = (location_id: string): Pair => ({ product_id: product.id, location_id });
        let drafts: Draft[];
        let groupId: string;
        if (input.type === 'TRANSFER_OUT' || input.type === 'TRANSFER_IN') {
          const [from, to] = input.type === 'TRANSFER_OUT' ? [here, there!] : [there!, here];
          groupId = newId();
          drafts = [
            { ...base, pair: at(from.id), type: 'TRANSFER_OUT', milli: -milli, guard: true, transfer_id: groupId },
            { ...base, pair: at(to.id), type: 'TRANSFER_IN', milli, guard: false, transfer_id: groupId },
          ];
        } else {
          const sign = input.type === 'REMOVAL' ? -1 : 1;
          drafts = [{ ...base, pair: at(here.id), type: input.type, milli: input.type === 'ADJUSTMENT' ? milli : sign * milli, guard: GUARDED_TYPES.has(input.type) }];
          groupId = '';
        }
        const rows = await book(w, tenantId, drafts, names);
        await recordBooked(w, groupId || rows[0]!.id, 'stock.moved', rows);
        return {
          movements: rows.map(toMovementDto),
          levels: rows.map((r) => ({ product_id: r.product_id, location_id: r.location_id, quantity: fromMilli(r.level_after_milli) })),
        };
      });
    },

    /** GET /stock/movements: the ledger, newest first. Dates are days in the restaurant's time zone (`to` inclusive). */
    async movements(tenantId: string, q: { product_id?: string; location_id?: string; from?: string; to?: string; limit: number; offset: number }) {
      const { timezone } = await tenants.cachedSettings(tenantId);
      // Instants are compared as ISO text, which ends with the year 9999: a bound past it (`to=9999-12-31`,
      // or a timestamp whose offset moves it into the year 10000) is the end of time, not a 500.
      const instant = (ms: number) => new Date(Math.min(ms, END_OF_TIME)).toISOString();
      const from = q.from ? instant(isDate(q.from) ? dayStart(q.from, timezone).getTime() : Date.parse(q.from)) : undefined;
      const to = q.to ? (isDate(q.to) ? (q.to >= LAST_DAY ? undefined : instant(dayStart(addDays(q.to, 1), timezone).getTime())) : instant(Date.parse(q.to) + 1)) : undefined;
      const { rows, total } = await repo.listMovements(db, tenantId, { product_id: q.product_id, location_id: q.location_id, from, to }, q.limit, q.offset);
      return { data: rows.map(toMovementDto), total, limit: q.limit, offset: q.offset };
    },

    /**
     * Books the recipe consumption of a completed order (the orders `statusChanged` hook, inside the
     * order's transaction) at the default location: one REMOVAL per ingredient, summed over the
     * order's items, allowed below zero (the food was served). Ids derive from the order and the
     * ingredient, so a repeated completion, or the same order completed on both sides of an
     * outage, books it once.
     */
    async consumeForOrder(w: Writer, tenantId: string, order: Pick<Order, 'id' | 'number' | 'items'>, userId: string | null = null): Promise<Movement[]> {
      const recipes = await repo.findRecipes(w.trx, tenantId, [...new Set(order.items.map((i) => i.product_id))]);
      // Options with an ingredient (CONTRACT §17) book it like a recipe line: per chosen option, times the item's quantity.
      const groupIds = [...new Set(order.items.flatMap((i) => (i.modifiers ?? []).map((m) => m.group_id)))];
      const optionIngredient = new Map(
        (await menu.groupRows(w.trx, tenantId, groupIds)).flatMap((g) => optionsOf(g).flatMap((o) => (o.ingredient_product_id && o.ingredient_quantity_milli ? [[o.id, { product_id: o.ingredient_product_id, quantity_milli: o.ingredient_quantity_milli }] as const] : []))),
      );
      if (recipes.length === 0 && optionIngredient.size === 0) return [];
      const byProduct = new Map(recipes.map((r) => [r.id, linesOf(r)]));
      const need = new Map<string, number>();
      const add = (ingredient: string, milli: number) => need.set(ingredient, (need.get(ingredient) ?? 0) + milli);
      for (const item of order.items) {
        // Voided units were never served: they book nothing (CONTRACT §17).
        const served = item.quantity - (item.voided_quantity ?? 0);
        if (served <= 0) continue;
        for (const l of byProduct.get(item.product_id) ?? []) add(l.product_id, l.quantity_milli * served);
        for (const m of item.modifiers ?? []) {
          const l = optionIngredient.get(m.option_id);
          if (l) add(l.product_id, l.quantity_milli * m.quantity * served);
        }
      }
      if (need.size === 0) return [];
      const location = await defaultLocationFor(w, tenantId);
      const drafts: Draft[] = [...need].map(([ingredient, milli]) => ({
        id: saleMovementId(order.id, ingredient),
        pair: { product_id: ingredient, location_id: location.id },
        type: 'REMOVAL',
        milli: -milli,
        guard: false,
        source: 'sale',
        ref_id: order.id,
        note: `Bestelling ${order.number}`,
        user_id: userId,
      }));
      const rows = await book(w, tenantId, drafts);
      await recordBooked(w, saleEntityId(order.id), 'stock.consumed', rows);
      return rows.map(toMovementDto);
    },

    /**
     * For the waste area (#13): removes wasted stock inside the waste entry's own transaction (`w`),
     * allowed below zero like a sale, `source: 'waste'` (the purchase suggestion counts it as
     * consumption). The movement id derives from the waste entry and product: booked once.
     * Throws NOT_FOUND for a product or location that is not the tenant's, VALIDATION for a bad quantity.
     */
    async bookWaste(w: Writer, input: WasteBooking): Promise<{ movement: Movement; level: number }> {
      assertQuantity('quantity', input.quantity);
      const product = await liveProduct(w.trx, input.tenantId, input.productId);
      const location = input.locationId ? await liveLocation(w.trx, input.tenantId, input.locationId) : await defaultLocationFor(w, input.tenantId);
      const id = wasteMovementId(input.wasteId, product.id);
      const [existing] = await repo.existingMovements(w.trx, [id]);
      if (existing) return { movement: toMovementDto(existing), level: fromMilli((await repo.level(w.trx, input.tenantId, existing))?.quantity_milli ?? 0) };
      const rows = await book(w, input.tenantId, [
        {
          id,
          pair: { product_id: product.id, location_id: location.id },
          type: 'REMOVAL',
          milli: -toMilli(input.quantity),
          guard: false,
          source: 'waste',
          ref_id: input.wasteId,
          reason: input.reason ?? null,
          note: input.note ?? null,
          user_id: input.userId ?? null,
        },
      ]);
      await recordBooked(w, id, 'stock.wasted', rows);
      return { movement: toMovementDto(rows[0]!), level: fromMilli(rows[0]!.level_after_milli) };
    },

    // ───────────── recipes
    /** The ingredient product ids of each given product's recipe (products without one are left out); for the menu's allergens. */
    async recipeIngredientIds(exec: Executor, tenantId: string, productIds: string[]): Promise<Map<string, string[]>> {
      const rows = await repo.findRecipes(exec, tenantId, [...new Set(productIds)]);
      return new Map(rows.map((r) => [r.id, linesOf(r).map((l) => l.product_id)]));
    },

    /** Every recipe of the restaurant: product id → ingredient ids (cached per restaurant until a recipe is written). */
    allRecipeIngredients: (exec: Executor, tenantId: string) => allRecipes(exec, tenantId),

    async getRecipe(tenantId: string, productId: string): Promise<Recipe> {
      await liveProduct(db, tenantId, productId);
      return recipeOf(tenantId, productId);
    },

    /** PUT /recipes/:product_id: replaces the recipe (an empty list removes it). Ingredients must be the tenant's live products. */
    async putRecipe(tenantId: string, productId: string, input: PutRecipeInput): Promise<Recipe> {
      return changes.write(tenantId, async (w) => {
        await liveProduct(w.trx, tenantId, productId);
        const ids = input.ingredients.map((i) => i.product_id);
        const found = new Map((await menu.productsByIds(w.trx, tenantId, ids)).map((p) => [p.id, p]));
        const missing = input.ingredients.findIndex((i) => !found.get(i.product_id) || found.get(i.product_id)!.archived_at);
        if (missing >= 0) throw new AppError('NOT_FOUND', `Ingrediënt niet gevonden ('ingredients.${missing}.product_id').`, { details: [{ field: `ingredients.${missing}.product_id`, error: `'ingredients.${missing}.product_id' is geen product van dit restaurant.` }] });
        const existing = await repo.findRecipe(w.trx, tenantId, productId);
        const row: RecipeRow = {
          id: productId,
          tenant_id: tenantId,
          ingredients: JSON.stringify(input.ingredients.map((i) => ({ product_id: i.product_id, quantity_milli: toMilli(i.quantity) }))),
          created_at: existing?.created_at ?? w.now,
          updated_at: w.now,
        };
        await repo.upsertRecipe(w.trx, row);
        const { tenant_id: _t, ...wire } = row;
        await w.record({ entity: 'recipe', entityId: productId, kind: 'recipe.updated', payload: { ...wire, ingredients: JSON.parse(row.ingredients) as unknown } });
        return recipeOf(tenantId, productId, w.trx);
      });
    },

    /** The ingredient cost of one sold unit of a product, in cents (rounded); null when it has no recipe. For the waste area (#13). */
    async recipeCost(tenantId: string, productId: string): Promise<number | null> {
      return (await recipeOf(tenantId, productId)).cost_cents;
    },

    // ───────────── purchasing
    /** GET /purchase-list: stock items whose total is below their min_level, with the shortfall to order. */
    async purchaseList(tenantId: string): Promise<PurchaseList> {
      const { data } = await stockList(tenantId);
      return {
        data: data
          .filter((i) => i.min_level !== null && i.below_min)
          .map((i) => ({
            product_id: i.product_id,
            name: i.name,
            unit: i.unit,
            total: i.total,
            min_level: i.min_level!,
            quantity_to_order: fromMilli(shortfall(toMilli(i.total), toMilli(i.min_level!), i.unit)),
          })),
      };
    },

    /** GET /purchase-list/suggest (CONTRACT §7; formula in stock.rules `suggest` and docs/stock.md). */
    async suggest(tenantId: string, q: { lookback: number; lead_days: number; cover_days?: number }): Promise<SuggestionList> {
      const cover = q.cover_days ?? DEFAULT_COVER_DAYS;
      const now = clock.now();
      const to = now.toISOString();
      const from = new Date(now.getTime() - q.lookback * 86_400_000).toISOString();
      const [used, products, levels] = await Promise.all([repo.consumptionSince(db, tenantId, from, to), menu.listProducts(tenantId, false), repo.levels(db, tenantId)]);
      const totals = new Map<string, number>();
      for (const l of levels) totals.set(l.product_id, (totals.get(l.product_id) ?? 0) + l.quantity_milli);
      const bySource = new Map<string, { sale: number; staff: number; waste: number }>();
      for (const u of used) {
        const s = bySource.get(u.product_id) ?? { sale: 0, staff: 0, waste: 0 };
        s[u.source as 'sale' | 'staff' | 'waste'] += u.milli;
        bySource.set(u.product_id, s);
      }
      const data: SuggestionList['data'] = [];
      for (const p of products) {
        const s = bySource.get(p.id);
        if (!s) continue;
        const consumed = s.sale + s.staff + s.waste;
        const totalMilli = totals.get(p.id) ?? 0;
        const r = suggest({ consumedMilli: consumed, lookbackDays: q.lookback, leadDays: q.lead_days, coverDays: cover, totalMilli, unit: p.unit });
        if (!r || r.to_order_milli <= 0) continue;
        data.push({
          product_id: p.id,
          name: p.name,
          unit: p.unit,
          total: fromMilli(totalMilli),
          consumption: { sales: fromMilli(s.sale), removals: fromMilli(s.staff), waste: fromMilli(s.waste), total: fromMilli(consumed) },
          daily_use: Math.round(r.daily_use_milli) / 1000,
          days_of_cover: r.days_of_cover,
          target: fromMilli(r.target_milli),
          quantity_to_order: fromMilli(r.to_order_milli),
        });
      }
      data.sort((a, b) => (a.days_of_cover ?? 0) - (b.days_of_cover ?? 0) || a.name.localeCompare(b.name, 'nl'));
      return { lookback: q.lookback, lead_days: q.lead_days, cover_days: cover, from, to, data };
    },

    // ───────────── the ledger is the truth
    /**
     * `cli stock verify`: rebuilds every level from the ledger (the replay) and reports where the
     * maintained level differed; with `repair: false` it only reports.
     */
    async verify(opts: { tenantId?: string; repair: boolean }) {
      const tenantIds = opts.tenantId ? [opts.tenantId] : await repo.tenantsWithStock(db);
      const differences: Array<{ tenant_id: string; product_id: string; location_id: string; stored: number | null; ledger: number }> = [];
      let pairs = 0;
      for (const tenantId of tenantIds) {
        await changes.write(tenantId, async (w) => {
          for (const pair of await repo.pairs(w.trx, tenantId)) {
            pairs += 1;
            const [stored, replay] = await Promise.all([repo.level(w.trx, tenantId, pair), repo.replayPair(w.trx, tenantId, pair)]);
            if (stored && stored.quantity_milli === replay.quantity_milli) continue;
            differences.push({ tenant_id: tenantId, ...pair, stored: stored ? fromMilli(stored.quantity_milli) : null, ledger: fromMilli(replay.quantity_milli) });
            if (opts.repair) await repo.putLevel(w.trx, { tenant_id: tenantId, ...pair, ...replay, updated_at: w.now });
          }
        });
      }
      return { tenants: tenantIds.length, pairs, differences, repaired: opts.repair ? differences.length : 0 };
    },
  };
}

export type StockService = ReturnType<typeof createStockService>;
