import { stableId } from '../../shared/ids.js';

/**
 * The loyalty rules that the API, sync and jobs share (docs/loyalty.md). Pure functions: no database.
 */

/** Points for a paid order: whole euros times the tenant's rate (default 1 point per whole euro). */
export function pointsForOrder(totalCents: number, pointsPerEuro: number): number {
  if (!Number.isFinite(totalCents) || totalCents <= 0 || pointsPerEuro <= 0) return 0;
  return Math.floor(totalCents / 100) * pointsPerEuro;
}

/** The loyalty area's id namespace (server/shared/ids.ts). */
const NAMESPACE = '6f1c3a52-e1b0-4f4c-9a7d-2b8e5c0d4a19';

/**
 * The id of an order's earn row: `stableId` (UUID v5) of `loyalty-earn:<order id>` as ONE part.
 * Both sides of an outage that mark the same order paid write the same id, so the ledger union
 * keeps one row: points earned exactly once per order. FROZEN, do not change: ids already stored
 * and synced (pinned in test/server/shared/ids.test.ts; the SHA-1 of namespace and name this area
 * computed by hand before is exactly UUID v5).
 */
export function earnId(orderId: string): string {
  return stableId(NAMESPACE, `loyalty-earn:${orderId}`);
}

/** The holder of the authority's rights: the cloud's (or a stand-alone appliance's) pool. Devices hold rights under their id. */
export const POOL = 'pool';

export type TransactionType = 'earn' | 'redeem' | 'adjust';

export interface LedgerEffectRow {
  points: number;
  pool: string;
  device_id: string | null;
}

/**
 * Whose spendable points a ledger row changes (the escrow, docs/loyalty.md): additions always go to
 * the pool (the cloud leases them out); a decrement spends the pool's points, or the lease of the
 * device that made it offline.
 */
export function holderOf(row: LedgerEffectRow): string {
  if (row.points < 0 && row.pool === 'lease' && row.device_id) return row.device_id;
  return POOL;
}

/** A lease row moves points between the pool and a device: + granted by the cloud, − returned by the device. */
export function leaseEffects(row: { points: number; device_id: string }): Array<{ holder: string; delta: number }> {
  return [
    { holder: POOL, delta: -row.points },
    { holder: row.device_id, delta: row.points },
  ];
}

/** How much to grant a device so it holds the allowance, limited by what the pool has. */
export function topUpAmount(allowance: number, held: number, pool: number): number {
  const want = allowance - held;
  if (want <= 0 || pool <= 0) return 0;
  return Math.min(want, pool);
}

/** Points a device holds beyond the allowance (returned by the appliance's job). */
export function excessOf(allowance: number, held: number): number {
  return held > allowance ? held - allowance : 0;
}

/** Escapes LIKE wildcards so a search for "50%" means the characters, not a pattern. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
