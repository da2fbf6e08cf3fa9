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
  /** 0/1 (0008): 0 = a stock item never sold (an ingredient): not on the menu, not orderable (docs/stock.md). */
  on_menu: number;
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
  /** Push budget (0007, sync/cloud.ts DEVICE_BUDGET): ops and payload bytes left at `budget_at`; null: a full bucket. */
  budget_ops: number | null;
  budget_bytes: number | null;
  budget_at: string | null;
}

/** Cloud: one row per pushed op (dedupe by tenant and op_id; its outcome). */
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
  /** Local seq of the last own op whose echo was pulled back from the cloud; null: not known yet (sync/README.md "Echoes"). */
  echoed_seq: number | null;
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

/** Payments (0013, server/modules/payments): one per payment started with a provider; status only from the provider's answer. */
export interface PaymentsTable {
  id: string;
  tenant_id: string;
  /** The node that created it and talks to its provider ('cloud' or an appliance's device id). */
  origin: string;
  provider: 'mollie' | 'simulator';
  provider_payment_id: string | null;
  purpose: 'order' | 'table';
  order_id: string | null;
  table_name: string | null;
  bill_id: string | null;
  amount_cents: number;
  tip_cents: number;
  status: 'open' | 'paid' | 'failed' | 'expired' | 'canceled';
  checkout_url: string | null;
  /** Something staff must act on (paid twice, order cancelled before the money came in). */
  note: string | null;
  paid_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Refunds of a payment (0013): a ledger; status moves pending → refunded | failed. */
export interface PaymentRefundsTable {
  id: string;
  tenant_id: string;
  payment_id: string;
  provider_refund_id: string | null;
  amount_cents: number;
  status: 'pending' | 'refunded' | 'failed';
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

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

/** The built-in payment simulator's own records (0013): the "provider side", local-only. */
export interface PaymentSimulatorTable {
  id: string;
  idempotency_key: string;
  amount_cents: number;
  description: string;
  status: 'open' | 'paid' | 'failed' | 'expired' | 'canceled';
  redirect_url: string;
  webhook_url: string;
  refunded_cents: number;
  created_at: string;
  expires_at: string;
  updated_at: string;
}

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
}

/** Reservations (0011, docs/reservations.md). */
export interface ReservationsTable {
  id: string;
  tenant_id: string;
  /** Local calendar date and time (tenant time zone). */
  date: string;
  time: string;
  /** UTC instants of the seating window [starts_at, ends_at). */
  starts_at: string;
  ends_at: string;
  party_size: number;
  name: string;
  phone: string | null;
  email: string | null;
  notes: string | null;
  table_id: string | null;
  status: 'booked' | 'seated' | 'cancelled' | 'no_show';
  source: 'web' | 'staff';
  /** A visible note when the cloud found the booking colliding (docs/reservations.md). */
  conflict: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

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

/** Loyalty (migration 0009, docs/loyalty.md): a customer by E.164 phone; erased = tombstone with personal fields null. */
export interface LoyaltyCustomersTable {
  id: string;
  tenant_id: string;
  phone: string | null;
  name: string | null;
  email: string | null;
  /** Change-log origin that created it (device id or 'cloud'). */
  origin: string;
  /** Set when the cloud merged this duplicate into another customer with the same phone. */
  merged_into: string | null;
  merged_at: string | null;
  erased_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Loyalty points ledger: signed points; `pool` 'lease' = spent from `device_id`'s lease. */
export interface LoyaltyTransactionsTable {
  id: string;
  tenant_id: string;
  customer_id: string;
  type: 'earn' | 'redeem' | 'adjust';
  points: number;
  pool: 'pool' | 'lease';
  device_id: string | null;
  order_id: string | null;
  note: string | null;
  user_id: string | null;
  origin: string;
  created_at: string;
}

/** Loyalty escrow: + a grant by the cloud to `device_id`, − a return by that device. */
export interface LoyaltyLeasesTable {
  id: string;
  tenant_id: string;
  customer_id: string;
  device_id: string;
  points: number;
  origin: string;
  created_at: string;
}

export interface LoyaltyPrivacyLogTable {
  id: string;
  tenant_id: string;
  customer_id: string;
  action: 'export' | 'erase';
  user_id: string | null;
  origin: string;
  created_at: string;
}

/** Local-only, derived: points a holder ('pool' or a device id) may spend for a surviving customer. */
export interface LoyaltyAccountsTable {
  tenant_id: string;
  customer_id: string;
  holder: string;
  points: number;
}

/** Partner API keys (0012, server/modules/apikeys): only the sha256 of the key is kept; replicated. */
export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  /** `svc_` + the first 8 hex of the key, to recognise it in a list. */
  key_prefix: string;
  /** JSON list of scopes: read, write, admin. */
  scopes: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

/** When this node last saw an API key (0012); local-only, written at most once a minute per key. */
export interface ApiKeyUsageTable {
  key_id: string;
  tenant_id: string;
  last_used_at: string;
}

/** Webhook subscriptions (0012, server/modules/webhooks); replicated, soft-deleted. */
export interface WebhookSubscriptionsTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON list of event names (spec §6). */
  events: string;
  /** Signing secret (`whsec_` + 64 hex), in clear: the sender signs with it. */
  secret: string;
  description: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The sender's persisted delivery queue (0012); local-only. `id` is the X-Service-Delivery header. */
export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  webhook_id: string;
  /** The event's id: the change-log op id that carried it. */
  event_id: string;
  /** Unique per webhook: one delivery per event, also when it reached this node twice. */
  event_key: string;
  event_type: string;
  /** The exact bytes that are signed and sent on every attempt. */
  body: string;
  status: 'pending' | 'delivered' | 'failed' | string;
  attempts: number;
  next_attempt_at: string | null;
  lock_token: string | null;
  locked_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Food safety (0010, server/modules/haccp, docs/haccp.md): a koelcel, vriezer ... with its target. */
export interface HaccpUnitsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** Normalised name a temperature log is matched on (trimmed, single spaces, lower case). */
  name_key: string;
  unit_type: string;
  target_max: number;
  /** A minimum, for warm holding; null: none. */
  target_min: number | null;
  readings_per_day: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** Food safety (0010): a checklist; `items` is JSON `[{id, label}]`. */
export interface HaccpChecklistsTable {
  id: string;
  tenant_id: string;
  name: string;
  frequency: 'daily' | 'weekly';
  /** HH:MM in the tenant's time zone. */
  deadline: string;
  /** Weekly lists: the day they are due (mon..sun). */
  weekday: string | null;
  items: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The hash-chain columns of every food-safety record (docs/haccp.md "Tamper evidence"). */
export interface HaccpChained {
  id: string;
  tenant_id: string;
  /** 'cloud' or the appliance's device id: one chain per origin. */
  origin: string;
  /** Position in the origin's chain: 1, 2, 3 ... across the four record tables. */
  chain_seq: number;
  prev_hash: string;
  hash: string;
}

export interface HaccpTemperatureLogsTable extends HaccpChained {
  unit_id: string;
  unit_name: string;
  unit_type: string;
  temperature: number;
  target_max: number;
  target_min: number | null;
  margin: number;
  status: 'ok' | 'waarschuwing' | 'kritiek';
  business_day: string;
  user_id: string | null;
  note: string | null;
  created_at: string;
}

export interface HaccpChecklistRunsTable extends HaccpChained {
  checklist_id: string;
  checklist_name: string;
  business_day: string;
  user_id: string | null;
  /** JSON `[{id, label, done}]`: the list as it was when it was run. */
  items: string;
  /** JSON lists of item ids. */
  completed_items: string;
  missing_items: string;
  /** 0/1 */
  complete: number;
  notes: string | null;
  created_at: string;
}

export interface HaccpIncidentsTable extends HaccpChained {
  kind: 'temperature' | 'checklist_overdue' | 'readings_missing';
  unit_id: string | null;
  checklist_id: string | null;
  log_id: string | null;
  business_day: string;
  description: string;
  created_at: string;
}

export interface HaccpActionsTable extends HaccpChained {
  incident_id: string;
  note: string;
  user_id: string | null;
  created_at: string;
}

/** Insights (0014, docs/insights.md): a worked shift; open while `end_at` is null. */
export interface ShiftsTable {
  id: string;
  tenant_id: string;
  user_id: string;
  start_at: string;
  end_at: string | null;
  break_minutes: number;
  /** 'clock' (clocked in and out) or 'admin' (entered by an admin). */
  source: 'clock' | 'admin';
  note: string | null;
  created_by: string | null;
  closed_by: string | null;
  /** How many corrections (rows in shift_corrections) the shift has had. */
  corrections: number;
  created_at: string;
  updated_at: string;
}

/** A correction of a shift, kept for good (a ledger): JSON `{start, end, break_minutes}` before and after. */
export interface ShiftCorrectionsTable {
  id: string;
  tenant_id: string;
  shift_id: string;
  changed_by: string | null;
  reason: string | null;
  before: string;
  after: string;
  created_at: string;
}

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
  api_keys: ApiKeysTable;
  api_key_usage: ApiKeyUsageTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  locations: LocationsTable;
  recipes: RecipesTable;
  stock_movements: StockMovementsTable;
  stock_levels: StockLevelsTable;
  floor_zones: FloorZonesTable;
  floor_tables: FloorTablesTable;
  floor_table_status: FloorTableStatusTable;
  bills: BillsTable;
  bill_rounds: BillRoundsTable;
  bill_payments: BillPaymentsTable;
  reservations: ReservationsTable;
  payments: PaymentsTable;
  payment_refunds: PaymentRefundsTable;
  public_orders: PublicOrdersTable;
  payment_simulator: PaymentSimulatorTable;
  loyalty_customers: LoyaltyCustomersTable;
  loyalty_transactions: LoyaltyTransactionsTable;
  loyalty_leases: LoyaltyLeasesTable;
  loyalty_privacy_log: LoyaltyPrivacyLogTable;
  loyalty_accounts: LoyaltyAccountsTable;
  haccp_units: HaccpUnitsTable;
  haccp_checklists: HaccpChecklistsTable;
  haccp_temperature_logs: HaccpTemperatureLogsTable;
  haccp_checklist_runs: HaccpChecklistRunsTable;
  haccp_incidents: HaccpIncidentsTable;
  haccp_actions: HaccpActionsTable;
  shifts: ShiftsTable;
  shift_corrections: ShiftCorrectionsTable;
  waste_entries: WasteEntriesTable;
}

export type Json = string;
export type Id = Generated<string>;
