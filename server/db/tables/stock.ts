/** Stock (0008, docs/stock.md): locations, recipes, the ledger and the derived levels. Composed into `Database` by ../database.ts. */

/** Stock (0008, docs/stock.md): where stock lies; exactly one live default per tenant. */
export interface LocationsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** 0/1 */
  is_default: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** A sold product's recipe (0008): `id` is the product's id; `ingredients` JSON `[{product_id, quantity_milli}]`. */
export interface RecipesTable {
  id: string;
  tenant_id: string;
  ingredients: string;
  created_at: string;
  updated_at: string;
}

export type StockMovementType = 'ADDITION' | 'REMOVAL' | 'INTAKE' | 'TRANSFER_OUT' | 'TRANSFER_IN' | 'ADJUSTMENT';
/** Who booked a movement: staff (POST /stock), a completed order (recipe), a waste entry. */
export type StockMovementSource = 'staff' | 'sale' | 'waste';

/** The stock ledger (0008): rows only added. Quantities in thousandths of the product's unit. */
export interface StockMovementsTable {
  id: string;
  tenant_id: string;
  product_id: string;
  location_id: string;
  type: StockMovementType;
  /** Signed change of the level (an ADJUSTMENT: the difference to the count). */
  quantity_milli: number;
  /** ADJUSTMENT only: the counted level. */
  counted_milli: number | null;
  /** The level at this location right after the movement, where and when it was booked. */
  level_after_milli: number;
  /** Both legs of a transfer share it. */
  transfer_id: string | null;
  source: StockMovementSource;
  /** The order (source 'sale') or waste entry (source 'waste') behind it. */
  ref_id: string | null;
  reason: string | null;
  note: string | null;
  user_id: string | null;
  /** Replay order (with id): after everything its node had booked for this product and location. */
  booked_at: string;
  created_at: string;
}

/** Local-only, derived (0008): the maintained level per product and location; `stock verify` rebuilds it. */
export interface StockLevelsTable {
  tenant_id: string;
  product_id: string;
  location_id: string;
  quantity_milli: number;
  /** The last movement in replay order that the level includes. */
  last_booked_at: string | null;
  last_id: string | null;
  updated_at: string;
}

/** The stock tables by name, as composed into `Database`. */
export interface StockTables {
  locations: LocationsTable;
  recipes: RecipesTable;
  stock_movements: StockMovementsTable;
  stock_levels: StockLevelsTable;
}
