import type { Executor } from './connection.js';
import type { TableVersions } from './table-watch.js';

/**
 * A per-tenant cache of what `load` reads from `tables` (the menu, recipes, printers that every order
 * reads), kept as long as none of those tables was written (server/db/table-watch.ts). On a miss the
 * value is read through the caller's `exec` (inside an order's transaction on the appliance's one
 * SQLite connection, a read through the root db would wait for that transaction forever) and kept
 * only if no write to those tables happened meanwhile. Without a watch (PostgreSQL) every call reads.
 * At most `max` tenants are kept (the oldest first out).
 *
 * The value is shared by every caller until a write: it must not be changed (callers read it only).
 */
export function perTenant<T>(
  versions: TableVersions | undefined,
  tables: readonly string[],
  load: (exec: Executor, tenantId: string) => Promise<T>,
  max = 100,
): (exec: Executor, tenantId: string) => Promise<T> {
  if (!versions) return load;
  const entries = new Map<string, { stamp: number; value: T }>();
  return async (exec, tenantId) => {
    const stamp = versions.stamp(tables);
    if (stamp === null) return load(exec, tenantId);
    const hit = entries.get(tenantId);
    if (hit && hit.stamp === stamp) return hit.value;
    const value = await load(exec, tenantId);
    if (versions.stamp(tables) === stamp) {
      entries.delete(tenantId);
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(tenantId, { stamp, value });
    }
    return value;
  };
}
