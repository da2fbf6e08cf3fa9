/** Kitchen printers and print jobs (server/modules/printing, migration 0024). Composed into `Database` by ../database.ts. */

/** A network printer (raw TCP, ESC/POS) on the restaurant's network; local to the node that prints. */
export interface PrintersTable {
  id: string;
  tenant_id: string;
  name: string;
  host: string;
  port: number;
  /** 58 or 80. */
  width_mm: number;
  /** JSON array of station names (keuken, bar, ...). */
  stations: string;
  /** 0/1: receipts from the till print here. */
  receipts: number;
  fallback_printer_id: string | null;
  /** When this node last handed the printer every byte of a job. */
  last_ok_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** One ticket for one printer: this node's outbox to its printers. */
export interface PrintJobsTable {
  id: string;
  tenant_id: string;
  /** The printer the ticket was made for. */
  printer_id: string;
  /** The fallback printer it moved to after 3 failed attempts. */
  moved_to: string | null;
  order_id: string | null;
  kind: 'ticket' | 'void' | 'receipt' | 'reprint' | 'test';
  status: 'queued' | 'done' | 'failed';
  attempts: number;
  last_error: string | null;
  next_attempt_at: string;
  /** Set while a send is in flight (cleared by its outcome). */
  sending_at: string | null;
  /** JSON: what the ticket says (printing.rules.ts TicketContent), rendered to ESC/POS when sent. */
  content: string;
  /** The cause and printer (`order:<id>:<printer>`...); unique per restaurant, null for reprints, tests and receipts. */
  dedupe_key: string | null;
  requested_by: string | null;
  reprint_of: string | null;
  created_at: string;
  updated_at: string;
  done_at: string | null;
}

/** The printing tables by name, as composed into `Database`. */
export interface PrintingTables {
  printers: PrintersTable;
  print_jobs: PrintJobsTable;
}
