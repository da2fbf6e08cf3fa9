import type { Generated } from 'kysely';

/** Infrastructure tables that belong to no area: the change log and its sequence, node meta, change-log consumer cursors. Composed into `Database` by ../database.ts. */

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
  /** Cloud only: 1 when a push recorded the op exactly as sent (a pull may send it back bare, migration 0027); 0 otherwise. */
  as_sent: Generated<number>;
}

export interface ChangeSeqTable {
  tenant_id: string;
  last_seq: number;
}

export interface MetaTable {
  key: string;
  value: string;
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

/** The core tables by name, as composed into `Database`. */
export interface CoreTables {
  change_log: ChangeLogTable;
  change_seq: ChangeSeqTable;
  meta: MetaTable;
  change_consumers: ChangeConsumersTable;
}
