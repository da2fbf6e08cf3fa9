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
}
