/** The menu: categories and products. Composed into `Database` by ../database.ts. */

export interface CategoriesTable {
  id: string;
  tenant_id: string;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
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
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The menu tables by name, as composed into `Database`. */
export interface MenuTables {
  categories: CategoriesTable;
  products: ProductsTable;
}
