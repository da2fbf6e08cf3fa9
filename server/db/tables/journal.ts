/** The journal and the day close (0026, docs/till.md). Composed into `Database` by ../database.ts. */

/** One link of an origin's journal hash chain (a ledger row, never updated). */
export interface JournalEntriesTable {
  id: string;
  tenant_id: string;
  origin: string;
  chain_seq: number;
  prev_hash: string;
  hash: string;
  /** 'payment' | 'discount' | 'void' | 'refund' | 'close'. */
  kind: string;
  /** The record the entry is about (the payment, discount, void, refund or close). */
  ref_id: string;
  order_id: string | null;
  bill_id: string | null;
  /** Payments and refunds: the money (tip apart); discounts and voids: what they took off; a close: the day's gross. */
  amount_cents: number;
  tip_cents: number;
  /** Payments and refunds: contant, pin, creditcard, cadeaubon, overig, online. */
  method: string | null;
  business_day: string;
  at: string;
  user_id: string | null;
  /** JSON object: what else the writer kept (a reason, a quantity, the orders a bill payment paid). */
  detail: string;
  created_at: string;
}

/** A day close (Z report): immutable, numbered gapless per restaurant. */
export interface DayClosesTable {
  id: string;
  tenant_id: string;
  number: number;
  business_date: string;
  origin: string;
  closed_at: string;
  closed_by: string | null;
  forced: number;
  cash_counted_cents: number;
  /** JSON: the close's figures as the API shows them. */
  report: string;
  /** JSON `{origin: chain_seq}`: the journal the close counted, per origin. */
  covered: string;
  previous_hash: string;
  hash: string;
  created_at: string;
}

/** The journal's tables by name, as composed into `Database`. */
export interface JournalTables {
  journal_entries: JournalEntriesTable;
  day_closes: DayClosesTable;
}
