/** Floor plan (0011, docs/floor.md): zones, tables, their announced status and the bills. Composed into `Database` by ../database.ts. */

/** Floor plan (0011, docs/floor.md): zones and tables, archived rather than deleted. */
export interface FloorZonesTable {
  id: string;
  tenant_id: string;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export type TableStatus = 'vrij' | 'bezet' | 'gereserveerd';

export interface FloorTablesTable {
  id: string;
  tenant_id: string;
  zone_id: string;
  name: string;
  seats: number;
  x: number;
  y: number;
  shape: 'rect' | 'round' | 'square';
  /** 0/1: may be given to reservations. */
  reservable: number;
  /** The manual status staff set; null: derived from bills, orders and reservations. */
  status_override: TableStatus | null;
  override_at: string | null;
  /**
   * The unguessable code in the table's pay-at-table link and QR code (0019, CONTRACT §11); renewed
   * by an admin. Null only for a table an appliance one release behind created, until the cloud gives it one.
   */
  public_code: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** Local-only: the status last announced per table on this node (docs/floor.md, live status). */
export interface FloorTableStatusTable {
  table_id: string;
  tenant_id: string;
  status: TableStatus;
  updated_at: string;
}

/** One open bill per table (unique partial index bills_open_per_table). */
export interface BillsTable {
  id: string;
  tenant_id: string;
  table_id: string;
  status: 'open' | 'closed' | 'merged';
  opened_at: string;
  closed_at: string | null;
  close_reason: 'paid' | 'staff' | 'empty' | null;
  closed_by: string | null;
  /** status 'merged': the bill (of the same table) this one was merged into across sync. */
  merged_into: string | null;
  /** A visible note when sync had to merge or close against another side's view. */
  conflict: string | null;
  created_at: string;
  updated_at: string;
}

export interface BillRoundsTable {
  id: string;
  tenant_id: string;
  bill_id: string;
  order_id: string;
  table_id: string;
  created_at: string;
}

export interface BillPaymentsTable {
  id: string;
  tenant_id: string;
  bill_id: string;
  amount_cents: number;
  tip_cents: number;
  source: 'pay_at_table' | 'staff' | 'order';
  payment_id: string | null;
  order_id: string | null;
  created_by: string | null;
  created_at: string;
  /** (0025) contant, pin, creditcard, cadeaubon, overig, online (CONTRACT §19). */
  method: PaymentMethod;
  /** (0025) cash handed over (contant only), else null. */
  received_cents: number | null;
  /** (0025) cash given back. */
  change_cents: number;
  /** (0025) JSON `[{order_id, item_id, quantity, amount_cents}]`: the lines paid when split by dish; `[]` otherwise. */
  items: string;
}

/** (0025) How a payment was made (CONTRACT §19); `online` is set by pay-at-table and web payments. */
export type PaymentMethod = 'contant' | 'pin' | 'creditcard' | 'cadeaubon' | 'overig' | 'online';

/** The floor tables by name, as composed into `Database`. */
export interface FloorTables {
  floor_zones: FloorZonesTable;
  floor_tables: FloorTablesTable;
  floor_table_status: FloorTableStatusTable;
  bills: BillsTable;
  bill_rounds: BillRoundsTable;
  bill_payments: BillPaymentsTable;
}
