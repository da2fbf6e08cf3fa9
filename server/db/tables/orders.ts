/** Orders, their items, status history and per-day number counters. Composed into `Database` by ../database.ts. */

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
  /** (0025) the sum of the order's discounts; `total_cents` is after them. */
  discount_cents: number;
  /** (0025) the loyalty customer attached at the till; null: none (or only a phone). */
  customer_id: string | null;
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
  /** (0020) JSON `[{option_id, group_id, group_name, name, price_delta_cents, quantity}]`, as sold. */
  modifiers: string;
  /** (0020) JSON list of allergen codes of the dish and its options, as sold. */
  allergens: string;
  /** (0020) 1..50 or null. */
  seat: number | null;
  /** (0020) 1..5; 1 goes to the kitchen with the order, later ones wait until fired. */
  course: number;
  /** (0022) units taken off by voids (the sum of its order_item_voids); totals leave them out. */
  voided_quantity: number;
  /** (0022) when the line went to the kitchen; null for a held later course. */
  fired_at: string | null;
  /** (0025) the VAT rate (percent) the line was sold at. */
  vat_rate: number;
}

/** (0022) A later course sent to the kitchen; one per order and course. */
export interface OrderCourseFiresTable {
  id: string;
  tenant_id: string;
  order_id: string;
  course: number;
  user_id: string | null;
  created_at: string;
}

/** (0022) Units taken off a line, with who, when and why. */
export interface OrderItemVoidsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  item_id: string;
  quantity: number;
  reason: string;
  user_id: string | null;
  created_at: string;
}

/** (0025) A payment at the till on an order without a table (CONTRACT §19); a ledger. */
export interface OrderPaymentsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  amount_cents: number;
  tip_cents: number;
  method: 'contant' | 'pin' | 'creditcard' | 'cadeaubon' | 'overig' | 'online';
  received_cents: number | null;
  change_cents: number;
  /** JSON `[{order_id, item_id, quantity, amount_cents}]`, `[]` when not split by dish. */
  items: string;
  created_by: string | null;
  created_at: string;
}

/** (0025) A discount on an order or one of its lines (CONTRACT §19); a ledger. */
export interface OrderDiscountsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  item_id: string | null;
  kind: 'percent' | 'amount' | 'comp' | 'points';
  /** percent: 1..100; amount: cents; points: the points; comp: null. */
  value: number | null;
  /** What it took off when given. */
  amount_cents: number;
  points: number | null;
  customer_id: string | null;
  loyalty_transaction_id: string | null;
  reason: string;
  user_id: string | null;
  created_at: string;
}

/** (0025) A receipt: one per bill or order paid in full, gapless per restaurant and series (the year). */
export interface ReceiptsTable {
  id: string;
  tenant_id: string;
  series: string;
  seq: number;
  /** e.g. 2026-000123 */
  number: string;
  bill_id: string | null;
  order_id: string | null;
  total_cents: number;
  paid_at: string;
  created_at: string;
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

/** The orders tables by name, as composed into `Database`. */
export interface OrdersTables {
  orders: OrdersTable;
  order_items: OrderItemsTable;
  order_status_history: OrderStatusHistoryTable;
  order_counters: OrderCountersTable;
  order_course_fires: OrderCourseFiresTable;
  order_item_voids: OrderItemVoidsTable;
  order_payments: OrderPaymentsTable;
  order_discounts: OrderDiscountsTable;
  receipts: ReceiptsTable;
}
