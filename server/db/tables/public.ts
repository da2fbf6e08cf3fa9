/** Public ordering (0013, server/modules/public): what a guest's order adds to the order. Composed into `Database` by ../database.ts. */

/** A guest's order (0013): `id` is the order's id; what the public order adds to it. */
export interface PublicOrdersTable {
  id: string;
  tenant_id: string;
  type: 'pickup' | 'delivery' | 'table';
  customer_email: string | null;
  table_name: string | null;
  delivery_address: string | null;
  payment_required: number;
  /** Set when the cloud accepted it while the appliance was silent: its last contact (ISO) then. */
  appliance_silent_since: string | null;
  created_at: string;
}

/** The public tables by name, as composed into `Database`. */
export interface PublicTables {
  public_orders: PublicOrdersTable;
}
