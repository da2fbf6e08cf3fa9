/** Restaurants (tenants): one row per restaurant. Composed into `Database` by ../database.ts. */

export interface TenantsTable {
  id: string;
  slug: string;
  name: string;
  /** JSON object of settings (CONTRACT §16); defaults are applied in code. */
  settings: string;
  /** Per-tenant salt of the deterministic PIN hash (see docs/adr/0003-pins.md). */
  pin_salt: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The tenants tables by name, as composed into `Database`. */
export interface TenantsTables {
  tenants: TenantsTable;
}
