import type { EntityDescriptor, MergeKind, TableName } from './types.js';

/**
 * The one classification of every table (ARCHITECTURE §4): each table is either written by exactly
 * one replicated entity (a descriptor from its module's `<area>.sync.ts`) or local-only, with the
 * reason. test/sync/sync.test.ts lists the database's real tables and fails on any table not
 * classified, so no later area can forget sync.
 *
 * sync/ is the framework and imports no module: the composition root
 * (server/modules/sync-descriptors.ts) lists the modules' descriptors and their local-only tables
 * and builds the registry the engine, the cloud and the tests use.
 */

/** Infrastructure tables that never leave the node, and why (areas add theirs in the composition root). */
export const LOCAL_ONLY: Partial<Record<TableName | 'kysely_migration' | 'kysely_migration_lock', string>> = {
  sessions: 'logins are per node; a session token is never sent elsewhere',
  login_failures: 'lock-out counting is per node',
  meta: "node identity (device_id) and node settings",
  change_log: "the node's own outbox/feed: ops travel through it, each node keeps its own copy with its own seq",
  change_seq: 'per-node seq allocator of the change log',
  order_counters: 'each origin numbers its own orders (K- on the appliance, W- in the cloud), so counters are per node',
  sync_devices: 'cloud: registered appliances and hashed keys',
  sync_ops: 'cloud: dedupe table and outcome of every pushed op',
  sync_state: 'appliance: pull cursor, acknowledged push position, worker lease',
  sync_op_results: 'appliance: what the cloud did with ops it did not simply apply',
  change_consumers: "per-node cursor of each change-log consumer (webhooks, ...): positions in this node's own change log",
  kysely_migration: 'migration bookkeeping',
  kysely_migration_lock: 'migration bookkeeping',
};

/**
 * Tables of areas whose descriptor is still being written, with the merge kind they will have.
 * Changes of these entities are not applied by sync yet (an op for them is rejected in the cloud and
 * skipped on the appliance). The module's `<area>.sync.ts` replaces its line here.
 */
export const PENDING: Partial<Record<TableName, { entity: string; merge: MergeKind }>> = {
};

export type TableClass =
  | { table: string; replicated: true; entity: string; merge: MergeKind }
  | { table: string; replicated: false; reason: string }
  | { table: string; pending: true; entity: string; merge: MergeKind };

export class SyncRegistry {
  private readonly byEntity = new Map<string, EntityDescriptor>();
  private readonly byTable = new Map<string, TableClass>();

  constructor(descriptors: EntityDescriptor[], moduleLocalOnly: Partial<Record<TableName, string>> = {}) {
    for (const d of descriptors) {
      if (this.byEntity.has(d.entity)) throw new Error(`sync registry: entity '${d.entity}' declared twice`);
      this.byEntity.set(d.entity, d);
      for (const table of d.tables) {
        const prev = this.byTable.get(table);
        if (prev && !('replicated' in prev && prev.replicated && prev.entity === d.entity)) {
          throw new Error(`sync registry: table '${table}' claimed by '${d.entity}' and already classified`);
        }
        this.byTable.set(table, { table, replicated: true, entity: d.entity, merge: d.merge });
      }
    }
    for (const [table, reason] of Object.entries({ ...LOCAL_ONLY, ...moduleLocalOnly })) {
      if (this.byTable.has(table)) throw new Error(`sync registry: table '${table}' is both replicated and local-only`);
      this.byTable.set(table, { table, replicated: false, reason: reason! });
    }
    for (const [table, p] of Object.entries(PENDING)) {
      if (this.byTable.has(table)) continue; // a descriptor now owns it
      this.byTable.set(table, { table, pending: true, ...p! });
    }
  }

  /** Every replicated entity, in the order given (MODULE_DESCRIPTORS) (a snapshot copies them in this order: tenant before its users, menu before orders). */
  descriptors(): EntityDescriptor[] {
    return [...this.byEntity.values()];
  }

  descriptor(entity: string): EntityDescriptor | undefined {
    return this.byEntity.get(entity);
  }

  classify(table: string): TableClass | undefined {
    return this.byTable.get(table);
  }

  tables(): TableClass[] {
    return [...this.byTable.values()];
  }

  /** Tables whose rows must be identical on every node after sync quiesces. */
  replicatedTables(): string[] {
    return this.tables()
      .filter((t): t is Extract<TableClass, { replicated: true }> => 'replicated' in t && t.replicated)
      .map((t) => t.table);
  }
}
