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
  /** File name: under DATA_DIR/uploads/waste on the appliance; in the cloud the bytes are in upload_blobs (id = the entry's id). */
  photo_file: string | null;
  photo_type: string | null;
  photo_bytes: number | null;
  business_day: string;
  created_by: string | null;
  created_at: string;
}

/** An upload kept in the database (the cloud's waste photos, issue 28 point 16): every node reads it. */
export interface UploadBlobsTable {
  /** The record it belongs to (a waste entry's id). */
  id: string;
  tenant_id: string;
  content_type: string;
  bytes: Uint8Array;
  created_at: string;
}

/** The waste tables by name, as composed into `Database`. */
export interface WasteTables {
  waste_entries: WasteEntriesTable;
  upload_blobs: UploadBlobsTable;
}
