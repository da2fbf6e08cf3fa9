/**
 * Table types as Kysely sees them. Kept by hand beside the migrations (server/db/migrations):
 * a migration that adds a column adds it here too. Both engines return the same JS types
 * because every column is one of: text, integer (cents, counts, 0/1 booleans), bigint (parsed
 * to number on PostgreSQL), or text holding JSON. Timestamps are ISO-8601 UTC strings.
 */
import type { Generated } from 'kysely';

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

export interface UsersTable {
  id: string;
  tenant_id: string;
  name: string;
  role: 'admin' | 'staff';
  email: string | null;
  password_hash: string | null;
  pin_hash: string | null;
  hourly_wage_cents: number | null;
  job: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface SessionsTable {
  token_hash: string;
  tenant_id: string;
  user_id: string;
  role: 'admin' | 'staff';
  created_at: string;
  last_seen_at: string;
  ip: string | null;
}

export interface LoginFailuresTable {
  id: string;
  tenant_id: string;
  ip: string;
  created_at: string;
}

/** The change log / outbox: every domain write appends here in the same transaction. */
export interface ChangeLogTable {
  op_id: string;
  tenant_id: string;
  /** Per-tenant position, allocated under a per-tenant row lock, so it commits in order. */
  seq: number;
  /** Where the change was born: this appliance's device id, or 'cloud'. */
  origin: string;
  entity: string;
  entity_id: string;
  kind: string;
  /** JSON: the entity's snapshot after the change, plus op details. */
  payload: string;
  created_at: string;
}

export interface ChangeSeqTable {
  tenant_id: string;
  last_seq: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

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
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export type OrderStatus = 'new' | 'accepted' | 'preparing' | 'ready' | 'delivering' | 'completed' | 'cancelled';
export type OrderSource = 'pos' | 'web' | 'external';

export interface OrdersTable {
  id: string;
  tenant_id: string;
  number: string;
  /** Calendar date (tenant time zone) the number belongs to. */
  business_day: string;
  /** Change-log origin that created the order (device id or 'cloud'). */
  origin: string;
  status: OrderStatus;
  source: OrderSource;
  table_id: string | null;
  customer_name: string | null;
  customer_phone: string | null;
  notes: string | null;
  total_cents: number;
  payment_status: 'open' | 'paid';
  idempotency_key: string | null;
  /** sha256 of the creating request body, to tell a repeat from a different request with the same key. */
  request_hash: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrderItemsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  position: number;
  product_id: string;
  name: string;
  quantity: number;
  unit_price_cents: number;
  total_cents: number;
  notes: string | null;
}

export interface OrderStatusHistoryTable {
  id: string;
  tenant_id: string;
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  user_id: string | null;
  source: string;
  created_at: string;
}

export interface OrderCountersTable {
  tenant_id: string;
  prefix: string;
  business_day: string;
  last: number;
}

/** Cloud: a registered appliance (sync/). The SYNC_KEY is stored as its sha256 only. */
export interface SyncDevicesTable {
  id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
  last_seen_at: string | null;
  /** Highest device_seq the cloud has processed (applied, conflict or rejected) for this device. */
  last_device_seq: number;
  app_version: string | null;
  schema_version: number | null;
  protocol_version: number | null;
}

/** Cloud: one row per pushed op (dedupe by op_id; its outcome). */
export interface SyncOpsTable {
  op_id: string;
  tenant_id: string;
  device_id: string;
  device_seq: number;
  server_seq: number | null;
  status: 'applied' | 'rejected' | 'conflict';
  /** JSON: the result answered to the device. */
  result: string;
  created_at: string;
}

/** Appliance: the one sync state row (id 'appliance'). */
export interface SyncStateTable {
  id: string;
  tenant_id: string;
  device_id: string;
  /** Cloud change_log seq up to which changes have been applied here. */
  pull_cursor: number;
  /** Local change_log seq up to which this device's own changes are acknowledged by the cloud. */
  acked_seq: number;
  lease_holder: string | null;
  lease_expires_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** Set when syncing stopped for good (version refused, key revoked); cleared on restart. */
  stopped_reason: string | null;
  /** Snapshot bootstrap under way: the cloud's cursor of the next page ('' = not started); null otherwise. */
  snapshot_cursor: string | null;
  updated_at: string;
}

/** Appliance: ops the cloud did not simply apply (rejected or conflict), for staff to see. */
export interface SyncOpResultsTable {
  op_id: string;
  tenant_id: string;
  status: 'rejected' | 'conflict';
  reason: string | null;
  server_seq: number | null;
  created_at: string;
}

/** A change-log consumer's cursor per tenant (server/db/consumers.ts); local-only. */
export interface ChangeConsumersTable {
  consumer: string;
  tenant_id: string;
  /** Every change with seq <= last_seq has been handled. */
  last_seq: number;
  /** The node that last advanced the cursor (diagnostics only). */
  node: string | null;
  updated_at: string;
}

export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  change_log: ChangeLogTable;
  change_seq: ChangeSeqTable;
  meta: MetaTable;
  categories: CategoriesTable;
  products: ProductsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  order_status_history: OrderStatusHistoryTable;
  order_counters: OrderCountersTable;
  sync_devices: SyncDevicesTable;
  sync_ops: SyncOpsTable;
  sync_state: SyncStateTable;
  sync_op_results: SyncOpResultsTable;
  change_consumers: ChangeConsumersTable;
}

export type Json = string;
export type Id = Generated<string>;
