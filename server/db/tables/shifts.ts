/** Insights (0014, docs/insights.md): worked shifts and their corrections. Composed into `Database` by ../database.ts. */

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

/** The shifts tables by name, as composed into `Database`. */
export interface ShiftsTables {
  shifts: ShiftsTable;
  shift_corrections: ShiftCorrectionsTable;
}
