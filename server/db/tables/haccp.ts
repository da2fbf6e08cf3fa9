/** Food safety (0010, server/modules/haccp, docs/haccp.md). Composed into `Database` by ../database.ts. */

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

/** The haccp tables by name, as composed into `Database`. */
export interface HaccpTables {
  haccp_units: HaccpUnitsTable;
  haccp_checklists: HaccpChecklistsTable;
  haccp_temperature_logs: HaccpTemperatureLogsTable;
  haccp_checklist_runs: HaccpChecklistRunsTable;
  haccp_incidents: HaccpIncidentsTable;
  haccp_actions: HaccpActionsTable;
}
