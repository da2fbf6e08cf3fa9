/** Food waste (server/modules/waste). Composed into `Database` by ../database.ts. */

/** Food waste (a ledger): what was thrown away, why, its cost at the time and an optional photo on this node. */
export interface WasteEntriesTable {
  id: string;
  tenant_id: string;
  product_id: string;
  location_id: string | null;
  quantity: number;
  reason: 'bederf' | 'overproductie' | 'retour' | 'beschadigd' | 'overig';
  note: string | null;
  unit_cost_cents: number;
  cost_cents: number;
  /** File name under DATA_DIR/uploads/waste on the node that took the photo. */
  photo_file: string | null;
  photo_type: string | null;
  photo_bytes: number | null;
  business_day: string;
  created_by: string | null;
  created_at: string;
}

/** The waste tables by name, as composed into `Database`. */
export interface WasteTables {
  waste_entries: WasteEntriesTable;
}
