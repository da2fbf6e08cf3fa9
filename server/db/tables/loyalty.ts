/** Loyalty (0009, docs/loyalty.md): customers, the points ledger, leases, the privacy log, derived accounts. Composed into `Database` by ../database.ts. */

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

/** The loyalty tables by name, as composed into `Database`. */
export interface LoyaltyTables {
  loyalty_customers: LoyaltyCustomersTable;
  loyalty_transactions: LoyaltyTransactionsTable;
  loyalty_leases: LoyaltyLeasesTable;
  loyalty_privacy_log: LoyaltyPrivacyLogTable;
  loyalty_accounts: LoyaltyAccountsTable;
}
