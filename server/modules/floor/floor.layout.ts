import type { Executor } from '../../db/connection.js';
import { AppError, conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { loadTable, loadZone, tableChange, toTableDto, toZoneDto, zoneChange, type FloorContext } from './floor.context.js';
import { floorRepository as repo, type TableRow, type ZoneRow } from './floor.repository.js';
import { newPublicCode } from './floor.rules.js';
import type { CreateTableInput, CreateZoneInput, PositionsInput, Table, UpdateTableInput, UpdateZoneInput, Zone } from './floor.schemas.js';

/**
 * The floor's layout: zones and tables (admin), their positions on the plan, and the lookups other
 * modules make of the tables (reservations, pay-at-table). Part of the floor service (floor.service.ts).
 */

const nameTaken = (name: string) => conflict(`Er is al een tafel met de naam '${name}'.`);

async function assertNameFree(exec: Executor, tenantId: string, name: string, self?: string): Promise<void> {
  const other = await repo.findTableByName(exec, tenantId, name);
  if (other && other.id !== self) throw nameTaken(other.name);
}

export function createFloorLayout(ctx: FloorContext) {
  const { db, changes } = ctx;
  return {
    // ── zones (admin) ──
    async listZones(tenantId: string): Promise<Zone[]> {
      return (await repo.listZones(db, tenantId, false)).map(toZoneDto);
    },

    async createZone(tenantId: string, input: CreateZoneInput): Promise<Zone> {
      return changes.write(tenantId, async (w) => {
        const row: ZoneRow = { id: newId(), tenant_id: tenantId, name: input.name, position: input.position ?? 0, created_at: w.now, updated_at: w.now, archived_at: null };
        await repo.insertZone(w.trx, row);
        await w.record(zoneChange(row, 'zone.created'));
        return toZoneDto(row);
      });
    },

    async updateZone(tenantId: string, id: string, input: UpdateZoneInput): Promise<Zone> {
      return changes.write(tenantId, async (w) => {
        const cur = await loadZone(w.trx, tenantId, id);
        const fields: Partial<ZoneRow> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
        const row: ZoneRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateZone(w.trx, row);
        await w.record(zoneChange(row, 'zone.updated', fields));
        return toZoneDto(row);
      });
    },

    /** Archives an empty zone; one that still has tables is refused (move or archive them first). */
    async archiveZone(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await loadZone(w.trx, tenantId, id);
        if ((await repo.countLiveTablesInZone(w.trx, tenantId, id)) > 0) throw conflict(`Zone '${cur.name}' heeft nog tafels; verplaats of verwijder die eerst.`);
        const row: ZoneRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateZone(w.trx, row);
        await w.record(zoneChange(row, 'zone.archived', { archived_at: w.now }));
      });
    },

    // ── tables (admin) ──
    async createTable(tenantId: string, input: CreateTableInput): Promise<Table> {
      return changes.write(tenantId, async (w) => {
        await loadZone(w.trx, tenantId, input.zone_id);
        await assertNameFree(w.trx, tenantId, input.name);
        const row: TableRow = {
          id: newId(),
          tenant_id: tenantId,
          zone_id: input.zone_id,
          name: input.name,
          seats: input.seats,
          x: input.x,
          y: input.y,
          shape: input.shape ?? 'rect',
          reservable: input.reservable === false ? 0 : 1,
          status_override: null,
          override_at: null,
          public_code: newPublicCode(),
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await repo.insertTable(w.trx, row);
        await w.record(tableChange(row, 'table.created'));
        return toTableDto(row);
      });
    },

    async updateTable(tenantId: string, id: string, input: UpdateTableInput): Promise<Table> {
      return changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        if (input.zone_id !== undefined) await loadZone(w.trx, tenantId, input.zone_id);
        if (input.name !== undefined) await assertNameFree(w.trx, tenantId, input.name, id);
        const { reservable, ...rest } = input;
        const fields: Partial<TableRow> = {
          ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
          ...(reservable === undefined ? {} : { reservable: reservable ? 1 : 0 }),
        };
        const row: TableRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateTable(w.trx, row);
        await w.record(tableChange(row, 'table.updated', fields));
        return toTableDto(row);
      });
    },

    /**
     * A new pay-at-table code for the table (CONTRACT §11): the old one opens nothing from this
     * commit on (its QR code must be printed again). Replicates like any field of the table.
     */
    async renewPublicCode(tenantId: string, id: string): Promise<Table> {
      return changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        const fields: Partial<TableRow> = { public_code: newPublicCode() };
        const row: TableRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateTable(w.trx, row);
        await w.record(tableChange(row, 'table.updated', fields));
        return toTableDto(row);
      });
    },

    /** Archives a table (history refers to it); refused while it has an open bill or bookings to come. */
    async archiveTable(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        if (await repo.findOpenBill(w.trx, tenantId, id)) throw conflict(`Tafel '${cur.name}' heeft nog een open rekening.`);
        if (ctx.reservations && (await ctx.reservations.hasFutureBookings(w.trx, tenantId, id, w.now))) {
          throw conflict(`Tafel '${cur.name}' heeft nog reserveringen; verplaats of annuleer die eerst.`);
        }
        const row: TableRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateTable(w.trx, row);
        await w.record(tableChange(row, 'table.archived', { archived_at: w.now }));
      });
    },

    /** A live table by its name, without case (pay-at-table's URL names the table). */
    async tableByName(tenantId: string, name: string): Promise<Table> {
      const t = await repo.findTableByName(db, tenantId, name);
      if (!t) throw notFound('Tafel');
      return toTableDto(t);
    },

    /** Live tables that may be given to reservations, through `exec` (a transaction when booking). */
    async bookableTables(exec: Executor, tenantId: string): Promise<TableRow[]> {
      return (await repo.listTables(exec, tenantId)).filter((t) => t.reservable === 1);
    },

    /** Every table's name by id, archived ones included (for lists of bookings). */
    async tableNames(tenantId: string): Promise<Map<string, string>> {
      return new Map((await repo.listTables(db, tenantId, true)).map((t) => [t.id, t.name]));
    },

    async findTable(exec: Executor, tenantId: string, id: string): Promise<TableRow | undefined> {
      const t = await repo.findTable(exec, tenantId, id);
      return t && !t.archived_at ? t : undefined;
    },

    /** All-or-nothing: every id must be a live table of this restaurant, or nothing moves. */
    async setPositions(tenantId: string, input: PositionsInput): Promise<Table[]> {
      return changes.write(tenantId, async (w) => {
        const ids = input.tables.map((t) => t.id);
        const found = new Map((await repo.findTables(w.trx, tenantId, ids)).filter((t) => !t.archived_at).map((t) => [t.id, t]));
        const missing = input.tables.findIndex((t) => !found.has(t.id));
        if (missing >= 0) {
          throw new AppError('NOT_FOUND', 'Tafel niet gevonden; er is niets verplaatst.', {
            details: [{ field: `tables.${missing}.id`, error: `'tables.${missing}.id' is geen tafel van dit restaurant.` }],
          });
        }
        const out: Table[] = [];
        for (const p of input.tables) {
          const cur = found.get(p.id)!;
          if (cur.x === p.x && cur.y === p.y) {
            out.push(toTableDto(cur));
            continue;
          }
          const row: TableRow = { ...cur, x: p.x, y: p.y, updated_at: w.now };
          await repo.updateTable(w.trx, row);
          await w.record(tableChange(row, 'table.updated', { x: p.x, y: p.y }));
          out.push(toTableDto(row));
        }
        return out;
      });
    },
  };
}
