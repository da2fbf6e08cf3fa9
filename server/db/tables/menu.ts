/** The menu: categories and products. Composed into `Database` by ../database.ts. */

export interface CategoriesTable {
  id: string;
  tenant_id: string;
  name: string;
  position: number;
  /** (0018) the default course of its products' lines (1..5); null: course 1 (CONTRACT §17). */
  course: number | null;
  /** (0021) its kitchen station (`keuken`, `bar`); null: the product's category's, else `keuken` (CONTRACT §18). */
  station: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  /** (0025) the VAT rate of its products that have none; null: the setting default_vat_rate (CONTRACT §19). */
  vat_rate: number | null;
}

export interface ProductsTable {
  id: string;
  tenant_id: string;
  category_id: string | null;
  name: string;
  description: string | null;
  price_cents: number;
  cost_cents: number | null;
  vat_rate: number | null;
  unit: string | null;
  min_level: number | null;
  /** 0/1 */
  available: number;
  /** 0/1 (0008): 0 = a stock item never sold (an ingredient): not on the menu, not orderable (docs/stock.md). */
  on_menu: number;
  /** (0018) JSON list of modifier group ids, in the order the product asks them. */
  modifier_group_ids: string;
  /** (0018) JSON list of its own allergen codes (the 14 EU codes; a dish also shows its recipe's). */
  allergens: string;
  /** (0018) JSON list: vegetarian, vegan. */
  dietary: string;
  /** (0018) the default course of its lines (1..5); null: the category's, else 1. */
  course: number | null;
  /** (0021) its kitchen station (`keuken`, `bar`); null: the product's category's, else `keuken` (CONTRACT §18). */
  station: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** One option of a modifier group, as stored in `modifier_groups.options` (JSON). */
export interface ModifierOptionJson {
  id: string;
  name: string;
  price_delta_cents: number;
  ingredient_product_id: string | null;
  /** thousandths of the ingredient's unit used per chosen option (as recipes store quantities) */
  ingredient_quantity_milli: number | null;
  available: boolean;
}

/** (0018) A group of options ("Saus (kies 1)", "Extra's"), CONTRACT §17, docs/menu.md. */
export interface ModifierGroupsTable {
  id: string;
  tenant_id: string;
  name: string;
  min_select: number;
  max_select: number;
  /** JSON `ModifierOptionJson[]`, in the order shown. */
  options: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The menu tables by name, as composed into `Database`. */
export interface MenuTables {
  categories: CategoriesTable;
  products: ProductsTable;
  modifier_groups: ModifierGroupsTable;
}
