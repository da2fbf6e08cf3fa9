import type { Writer } from '../../db/change-log.js';
import type { Executor } from '../../db/connection.js';
import { families } from './floor.bill-family.js';
import { loadTable, tableChange, type FloorContext, type UpcomingBooking } from './floor.context.js';
import { floorRepository as repo, type TableRow } from './floor.repository.js';
import { deriveStatus, RESERVED_BEFORE_MIN, RESERVED_GRACE_MIN } from './floor.rules.js';
import type { FloorPlan, FloorTable, TableStatus } from './floor.schemas.js';

/**
 * A table's live status (CONTRACT §10, docs/floor.md): derived from the manual status, open bills,
 * active orders and bookings (floor.rules.ts `deriveStatus`), announced through the change log when
 * it changes, and the floor plan that shows it. Part of the floor service (floor.service.ts).
 */

const minutes = (d: Date, m: number) => new Date(d.getTime() + m * 60_000).toISOString();

export interface TableStatusInfo {
  status: TableStatus;
  manual: boolean;
  booking: UpcomingBooking | null;
}

/** The derived status of each of these tables at `now`, and the restaurant's open bills (read alongside). */
export async function computeStatuses(ctx: FloorContext, exec: Executor, tenantId: string, tables: TableRow[], now: Date) {
  const { reservations } = ctx;
  const [open, active, bookings] = await Promise.all([
    repo.openBills(exec, tenantId),
    repo.tablesWithActiveOrders(exec, tenantId),
    reservations
      ? reservations.forStatus(exec, tenantId, minutes(now, -RESERVED_GRACE_MIN), minutes(now, RESERVED_BEFORE_MIN), now.toISOString())
      : Promise.resolve({ booked: [] as UpcomingBooking[], seatedTables: [] as string[] }),
  ]);
  const billed = new Set(open.map((b) => b.table_id));
  const seated = new Set(bookings.seatedTables);
  const nextBooking = new Map<string, UpcomingBooking>();
  for (const r of [...bookings.booked].sort((a, b) => a.starts_at.localeCompare(b.starts_at))) if (!nextBooking.has(r.table_id)) nextBooking.set(r.table_id, r);
  const out = new Map<string, TableStatusInfo>();
  for (const t of tables) {
    const booking = nextBooking.get(t.id) ?? null;
    const occupied = billed.has(t.id) || active.has(t.id) || seated.has(t.id);
    const status = deriveStatus({ override: t.status_override, occupied, reserved: booking !== null });
    out.set(t.id, { status, manual: t.status_override !== null, booking });
  }
  return { statuses: out, open };
}

/**
 * Announces, in this transaction, every status change of these tables (all live tables when
 * omitted): compares the derived status with the one last announced on this node and records
 * `table.status_changed` for each difference (the change log → the tablets' socket, docs/floor.md).
 */
export async function refresh(ctx: FloorContext, w: Writer, tenantId: string, tableIds?: string[], known?: { occupied: true; rows?: readonly TableRow[] }): Promise<void> {
  // `known.rows`: the tables as this transaction read them already (an order's table, checked when it was created).
  const ids = tableIds ? [...new Set(tableIds)] : undefined;
  const given = ids && known?.rows && ids.every((id) => known.rows!.some((r) => r.id === id)) ? known.rows.filter((r) => ids.includes(r.id)) : undefined;
  const tables = (given ?? (ids ? await repo.findTables(w.trx, tenantId, ids) : await repo.listTables(w.trx, tenantId))).filter((t) => !t.archived_at);
  if (tables.length === 0) return;
  // `occupied`: the caller knows each of these tables has an active order on it (one it just wrote):
  // occupied wins over any booking (deriveStatus), so bills and bookings need not be read.
  const statuses = known?.occupied
    ? new Map(tables.map((t) => [t.id, { status: deriveStatus({ override: t.status_override, occupied: true, reserved: false }), manual: t.status_override !== null }]))
    : (await computeStatuses(ctx, w.trx, tenantId, tables, w.nowDate)).statuses;
  const announced = new Map((await (tableIds ? repo.announcedOf(w.trx, tenantId, tables.map((t) => t.id)) : repo.announced(w.trx, tenantId))).map((r) => [r.table_id, r.status]));
  for (const t of tables) {
    const s = statuses.get(t.id)!;
    const before = announced.get(t.id) ?? 'vrij';
    if (s.status === before) continue;
    await repo.announce(w.trx, { table_id: t.id, tenant_id: tenantId, status: s.status, updated_at: w.now });
    await w.record({
      entity: 'table',
      entityId: t.id,
      kind: 'table.status_changed',
      payload: { table_id: t.id, zone_id: t.zone_id, name: t.name, status: s.status, from: before, manual: s.manual },
    });
  }
}

export function createFloorStatus(ctx: FloorContext) {
  const { db, changes, clock } = ctx;

  // ── the floor plan with live status (session) ──
  async function floorplan(tenantId: string): Promise<FloorPlan> {
    const [zones, tables] = await Promise.all([repo.listZones(db, tenantId, true), repo.listTables(db, tenantId)]);
    const { statuses, open } = await computeStatuses(ctx, db, tenantId, tables, clock.now());
    const fams = new Map((await families(db, tenantId, open)).map((f) => [f.root.table_id, f]));
    const used = new Set(tables.map((t) => t.zone_id));
    return {
      zones: zones
        .filter((z) => !z.archived_at || used.has(z.id))
        .map((z) => ({
          id: z.id,
          name: z.name,
          tables: tables
            .filter((t) => t.zone_id === z.id)
            .map((t): FloorTable => {
              const s = statuses.get(t.id)!;
              const fam = fams.get(t.id);
              return {
                id: t.id,
                name: t.name,
                seats: t.seats,
                x: t.x,
                y: t.y,
                shape: t.shape,
                public_code: t.public_code,
                status: s.status,
                manual: s.manual,
                bill: fam ? { id: fam.root.id, total_cents: fam.figures.total_cents, open_cents: fam.figures.open_cents } : null,
                reservation: s.booking ? { id: s.booking.id, time: s.booking.time, name: s.booking.name, party_size: s.booking.party_size } : null,
              };
            }),
        })),
    };
  }

  return {
    floorplan,

    /** Tables with guests right now: an open bill or an active order on them (bookings starting soon avoid them). */
    async occupiedTables(exec: Executor, tenantId: string): Promise<Set<string>> {
      const [open, active] = await Promise.all([repo.openBills(exec, tenantId), repo.tablesWithActiveOrders(exec, tenantId)]);
      return new Set([...open.map((b) => b.table_id), ...active]);
    },

    /** Sets (or with null clears) the manual status; the new live status is announced in the same transaction. */
    async setOverride(tenantId: string, id: string, status: TableStatus | null): Promise<FloorTable> {
      await changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        if (cur.status_override !== status) {
          const row: TableRow = { ...cur, status_override: status, override_at: status ? w.now : null, updated_at: w.now };
          await repo.updateTable(w.trx, row);
          await w.record(tableChange(row, 'table.updated', { status_override: row.status_override, override_at: row.override_at }));
        }
        await refresh(ctx, w, tenantId, [id]);
      });
      const plan = await floorplan(tenantId);
      return plan.zones.flatMap((z) => z.tables).find((t) => t.id === id)!;
    },

    /** Announces the status of these tables inside a caller's transaction (reservations call it after a booking). */
    refreshIn: (w: Writer, tenantId: string, tableIds: string[]) => refresh(ctx, w, tenantId, tableIds),
  };
}
