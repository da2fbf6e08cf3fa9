/** Payments (0013, server/modules/payments), refunds and the built-in simulator's records. Composed into `Database` by ../database.ts. */

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

/** The payments tables by name, as composed into `Database`. */
export interface PaymentsTables {
  payments: PaymentsTable;
  payment_refunds: PaymentRefundsTable;
  payment_simulator: PaymentSimulatorTable;
}
