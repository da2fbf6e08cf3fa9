/** Sync bookkeeping (sync/): devices and pushed ops in the cloud, the appliance's state and op results. Composed into `Database` by ../database.ts. */

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

/** The sync tables by name, as composed into `Database`. */
export interface SyncTables {
  sync_devices: SyncDevicesTable;
  sync_ops: SyncOpsTable;
  sync_state: SyncStateTable;
  sync_op_results: SyncOpResultsTable;
}
