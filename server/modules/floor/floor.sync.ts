import { sql } from 'kysely';
import { z } from 'zod';
import type { Db, Tx } from '../../db/connection.js';
import type { BillsTable, FloorTablesTable, FloorZonesTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, parsePayload, pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyContext, type EntityDescriptor } from '../../../sync/types.js';
import { BillRow, PaymentRow, RoundRow, TableRow, TableStatus, ZoneRow } from './floor.schemas.js';

/**
 * Floor plan across sync (docs/floor.md, "Across sync"):
 * - zones and tables: configuration, last-writer-wins per field in cloud apply order (the `fields`
 *   an update carries), archive sticky. Two tables given the same name on both sides: the one the
 *   cloud saw first keeps it, the other becomes `<name>-<last 4 of its id>` (a visible conflict),
 *   and an appliance adopting the cloud's table moves its own holder of the name the same way.
 *   `table.status_changed` announces a derived status (each node derives its own): applied as a no-op.
 * - bills: status only moves forward (open → closed | merged). One open bill per table on every
 *   node: a bill opened offline for a table whose open bill the cloud already knows is merged into
 *   that one (status `merged`, `merged_into`, a Dutch `conflict` note; its rounds and payments
 *   count on the surviving bill). An appliance adopting the cloud's open bill merges its own open
 *   bill of that table into it the same way. Rounds and payments are ledgers (union by id).
 */

const ZONE_COLUMNS = ['id', 'tenant_id', 'name', 'position', 'created_at', 'updated_at', 'archived_at'] as const satisfies readonly (keyof FloorZonesTable)[];
const TABLE_COLUMNS = [
  'id', 'tenant_id', 'zone_id', 'name', 'seats', 'x', 'y', 'shape', 'reservable', 'status_override', 'override_at', 'created_at', 'updated_at', 'archived_at',
] as const satisfies readonly (keyof FloorTablesTable)[];

const Fields = z.record(z.string(), z.unknown()).optional();
const ZonePayload = z.object({ zone: ZoneRow, fields: Fields });
const TablePayload = z.object({ table: TableRow, fields: Fields });
const StatusPayload = z.object({ table_id: z.uuid(), status: TableStatus });
const BillPayload = z.object({ bill: BillRow });
const RoundPayload = z.object({ round: RoundRow });
const PaymentPayload = z.object({ payment: PaymentRow });
const BillSnapshot = z.object({ bill: BillRow, rounds: z.array(RoundRow).max(1000), payments: z.array(PaymentRow).max(1000) });

/** A renamed duplicate stays within the API's 40 characters. */
export const suffixedName = (name: string, id: string) => `${name.slice(0, 35)}-${id.slice(-4)}`;

async function sameTenant(trx: Tx, table: 'floor_zones' | 'floor_tables' | 'bills', id: string, tenantId: string): Promise<Record<string, unknown> | undefined> {
  const row = (await trx.selectFrom(table as 'bills').selectAll().where('id', '=', id).executeTakeFirst()) as Record<string, unknown> | undefined;
  if (row && row.tenant_id !== tenantId) throw new RejectOp('Dit onderdeel van de plattegrond hoort bij een ander restaurant.');
  return row;
}

async function nameHolder(trx: Tx, tenantId: string, name: string, self: string) {
  return trx
    .selectFrom('floor_tables')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('archived_at', 'is', null)
    .where('id', '!=', self)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

/** Last-writer-wins per field for a configuration row (zones, tables), as menu.sync does it. */
function mergeRow(current: Record<string, unknown> | undefined, snapshot: Record<string, unknown>, fields: Record<string, unknown> | undefined, columns: readonly string[], ctx: ApplyContext) {
  let next: Record<string, unknown>;
  if (!current || ctx.mode === 'adopt' || !fields) next = snapshot;
  else {
    const picked = pick<Record<string, unknown>>(fields, columns.filter((c) => c !== 'id' && c !== 'tenant_id') as never);
    next = { ...current, ...picked, updated_at: snapshot.updated_at ?? current.updated_at };
  }
  if (ctx.mode === 'merge' && current?.archived_at && !next.archived_at) next.archived_at = current.archived_at;
  return next;
}

const zoneDescriptor: EntityDescriptor = {
  entity: 'zone',
  merge: 'lww-fields',
  tables: ['floor_zones'],
  async apply(trx, change, ctx) {
    if (!change.kind.startsWith('zone.')) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    const p = parsePayload(ZonePayload, change.payload, 'een zone');
    if (p.zone.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een zone.');
    if (p.fields) parsePayload(ZoneRow.partial(), pick(p.fields, ZONE_COLUMNS as never), 'een zone');
    const current = await sameTenant(trx, 'floor_zones', change.entity_id, change.tenant_id);
    const next = mergeRow(current, { ...p.zone, tenant_id: change.tenant_id }, p.fields, ZONE_COLUMNS, ctx);
    await upsertById(trx, 'floor_zones', next as { id: string } & Record<string, unknown>);
    const { tenant_id: _t, ...zone } = next;
    return { payload: { zone, ...(p.fields ? { fields: p.fields } : {}) } };
  },
  async snapshot(db, tenantId, after, limit) {
    let q = db.selectFrom('floor_zones').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(limit).execute();
    const changes = rows.map(({ tenant_id: _t, ...zone }) => ({ entity: 'zone', entity_id: zone.id, kind: 'zone.updated', payload: { zone }, created_at: zone.updated_at }));
    return { changes, next: snapshotNext(changes, limit) };
  },
};

const tableDescriptor: EntityDescriptor = {
  entity: 'table',
  merge: 'lww-fields',
  tables: ['floor_tables'],
  async apply(trx, change, ctx) {
    if (change.kind === 'table.status_changed') {
      // A derived status one node announced to its tablets; every node derives its own (docs/floor.md).
      const p = parsePayload(StatusPayload, change.payload, 'een tafelstatus');
      if (p.table_id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een tafelstatus.');
      await sameTenant(trx, 'floor_tables', change.entity_id, change.tenant_id);
      return;
    }
    if (!change.kind.startsWith('table.')) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    const p = parsePayload(TablePayload, change.payload, 'een tafel');
    if (p.table.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een tafel.');
    if (p.fields) parsePayload(TableRow.partial(), pick(p.fields, TABLE_COLUMNS as never), 'een tafel');
    const current = await sameTenant(trx, 'floor_tables', change.entity_id, change.tenant_id);
    const next = mergeRow(current, { ...p.table, tenant_id: change.tenant_id }, p.fields, TABLE_COLUMNS, ctx) as unknown as FloorTablesTable;
    if (ctx.mode === 'merge') await assertTenantRef(trx, 'floor_zones', next.zone_id, change.tenant_id, 'De zone van deze tafel');
    let conflict: string | undefined;
    if (!next.archived_at && (!current || current.name !== next.name)) {
      const holder = await nameHolder(trx, change.tenant_id, next.name, next.id);
      if (holder) {
        if (ctx.mode === 'adopt') {
          // The cloud's table keeps the name; ours moves aside exactly as the cloud will rename it.
          await trx.updateTable('floor_tables').set({ name: suffixedName(holder.name, holder.id) }).where('id', '=', holder.id).execute();
        } else {
          const renamed = suffixedName(next.name, next.id);
          conflict = `Er was al een tafel met de naam '${next.name}'; deze tafel heet nu '${renamed}'.`;
          next.name = renamed;
        }
      }
    }
    await upsertById(trx, 'floor_tables', next as unknown as { id: string } & Record<string, unknown>);
    const { tenant_id: _t, ...table } = next;
    return { payload: { table, ...(p.fields ? { fields: p.fields } : {}) }, ...(conflict ? { conflict } : {}) };
  },
  async snapshot(db, tenantId, after, limit) {
    let q = db.selectFrom('floor_tables').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(limit).execute();
    const changes = rows.map(({ tenant_id: _t, ...table }) => ({ entity: 'table', entity_id: table.id, kind: 'table.updated', payload: { table }, created_at: table.updated_at }));
    return { changes, next: snapshotNext(changes, limit) };
  },
};

export const MERGED_NOTE = 'Deze tafel had al een open rekening; deze rekening is daarmee samengevoegd (twee apparaten openden de tafel tegelijk).';

/**
 * Writes the cloud's bill row here (adopt). One open bill per table: an open bill of this node for
 * the same table is merged into the incoming one (the bill the cloud knows wins).
 */
async function adoptBill(trx: Tx, tenantId: string, row: BillsTable): Promise<void> {
  if (row.status === 'open') {
    const others = await trx.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId).where('table_id', '=', row.table_id).where('status', '=', 'open').where('id', '!=', row.id).execute();
    for (const o of others) {
      await trx.updateTable('bills').set({ status: 'merged', merged_into: row.id, closed_at: row.updated_at, conflict: MERGED_NOTE, updated_at: row.updated_at }).where('id', '=', o.id).execute();
    }
  }
  await upsertById(trx, 'bills', row as unknown as { id: string } & Record<string, unknown>);
}

const billRow = (b: z.infer<typeof BillRow>, tenantId: string): BillsTable => ({ ...b, tenant_id: tenantId });

const billDescriptor: EntityDescriptor = {
  entity: 'bill',
  merge: 'monotonic-status',
  tables: ['bills', 'bill_rounds', 'bill_payments'],
  async apply(trx, change, ctx) {
    const tenantId = change.tenant_id;
    const strip = (b: BillsTable) => {
      const { tenant_id: _t, ...rest } = b;
      return rest;
    };
    switch (change.kind) {
      case 'bill.opened': {
        const p = parsePayload(BillPayload, change.payload, 'een rekening');
        if (p.bill.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        const existing = (await sameTenant(trx, 'bills', change.entity_id, tenantId)) as BillsTable | undefined;
        // Adopting, the cloud's state is the truth (it checked the references when it took the op).
        if (ctx.mode === 'adopt') {
          await adoptBill(trx, tenantId, billRow(p.bill, tenantId));
          return;
        }
        await assertTenantRef(trx, 'floor_tables', p.bill.table_id, tenantId, 'De tafel van deze rekening');
        if (existing) return { payload: { bill: strip(existing) } };
        // A bill is born open (the API never makes it otherwise); closing and merging are their own changes.
        if (p.bill.status !== 'open' || p.bill.merged_into !== null || p.bill.closed_at !== null || p.bill.close_reason !== null || p.bill.closed_by !== null) {
          throw new RejectOp('Een nieuwe rekening moet open zijn.');
        }
        let row = billRow(p.bill, tenantId);
        let conflict: string | undefined;
        if (row.status === 'open') {
          const known = await trx.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId).where('table_id', '=', row.table_id).where('status', '=', 'open').executeTakeFirst();
          if (known) {
            row = { ...row, status: 'merged', merged_into: known.id, closed_at: change.created_at, conflict: MERGED_NOTE, updated_at: change.created_at };
            conflict = MERGED_NOTE;
          }
        }
        await trx.insertInto('bills').values(row).execute();
        return { payload: { bill: strip(row) }, ...(conflict ? { conflict } : {}) };
      }
      case 'bill.round_added': {
        const p = parsePayload(RoundPayload, change.payload, 'een rekening');
        if (p.round.bill_id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        if (ctx.mode === 'merge') {
          await assertTenantRef(trx, 'bills', p.round.bill_id, tenantId, 'Deze rekening');
          const bill = await trx.selectFrom('bills').select('table_id').where('id', '=', p.round.bill_id).executeTakeFirstOrThrow();
          if (bill.table_id !== p.round.table_id) throw new RejectOp('Deze ronde hoort bij een andere tafel dan haar rekening.');
          // The order itself follows in the same push (hooks run before the order's own change is recorded).
          const foreign = await trx.selectFrom('orders').select('id').where('id', '=', p.round.order_id).where('tenant_id', '!=', tenantId).executeTakeFirst();
          if (foreign) throw new RejectOp('De bestelling van deze rekening hoort bij een ander restaurant.');
          const other = await trx.selectFrom('bill_rounds').select('id').where('order_id', '=', p.round.order_id).where('id', '!=', p.round.id).executeTakeFirst();
          if (other) throw new RejectOp('Deze bestelling staat al op een rekening.');
        }
        await insertIfAbsent(trx, 'bill_rounds', { ...p.round, tenant_id: tenantId });
        return;
      }
      case 'bill.payment_recorded': {
        const p = parsePayload(PaymentPayload, change.payload, 'een betaling');
        if (p.payment.bill_id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een betaling.');
        if (ctx.mode === 'merge') {
          await assertTenantRef(trx, 'bills', p.payment.bill_id, tenantId, 'De rekening van deze betaling');
          await assertTenantRef(trx, 'users', p.payment.created_by, tenantId, 'De medewerker van deze betaling');
          if (p.payment.order_id && (await trx.selectFrom('orders').select('id').where('id', '=', p.payment.order_id).where('tenant_id', '!=', tenantId).executeTakeFirst())) {
            throw new RejectOp('De bestelling van deze betaling hoort bij een ander restaurant.');
          }
          if (p.payment.amount_cents < 1) throw new RejectOp('Een betaling is minstens 1 cent.');
        }
        const bill = await trx.selectFrom('bills').select('status').where('id', '=', p.payment.bill_id).executeTakeFirst();
        await insertIfAbsent(trx, 'bill_payments', { ...p.payment, tenant_id: tenantId });
        if (ctx.mode === 'merge' && bill?.status === 'closed') {
          return { conflict: 'Betaling ontvangen voor een rekening die al gesloten was; controleer de rekening.' };
        }
        return;
      }
      case 'bill.closed': {
        const p = parsePayload(BillPayload, change.payload, 'een rekening');
        if (p.bill.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        const existing = (await sameTenant(trx, 'bills', change.entity_id, tenantId)) as BillsTable | undefined;
        if (ctx.mode === 'adopt') {
          await adoptBill(trx, tenantId, billRow(p.bill, tenantId));
          return;
        }
        if (!existing) throw new RejectOp('Rekening niet gevonden.');
        if (p.bill.status !== 'closed' || p.bill.close_reason === null) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        await assertTenantRef(trx, 'users', p.bill.closed_by, tenantId, 'De medewerker die de rekening sloot');
        if (existing.status === 'open') {
          const row: BillsTable = { ...existing, status: 'closed', closed_at: p.bill.closed_at ?? change.created_at, close_reason: p.bill.close_reason, closed_by: p.bill.closed_by, updated_at: p.bill.updated_at };
          await trx.updateTable('bills').set(row).where('id', '=', row.id).execute();
          return { payload: { bill: strip(row) } };
        }
        if (existing.status === 'merged') {
          return { payload: { bill: strip(existing) }, conflict: 'Deze rekening was samengevoegd met de open rekening van dezelfde tafel; die blijft open tot alles betaald is.' };
        }
        return { payload: { bill: strip(existing) } };
      }
      case 'bill.snapshot': {
        if (ctx.mode !== 'adopt') throw new RejectOp('Een momentopname van een rekening komt alleen uit de cloud.');
        const p = parsePayload(BillSnapshot, change.payload, 'een rekening');
        await adoptBill(trx, tenantId, billRow(p.bill, tenantId));
        for (const r of p.rounds) await insertIfAbsent(trx, 'bill_rounds', { ...r, tenant_id: tenantId });
        for (const pay of p.payments) await insertIfAbsent(trx, 'bill_payments', { ...pay, tenant_id: tenantId });
        return;
      }
      default:
        throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    }
  },
  async snapshot(db: Db, tenantId, after, limit) {
    let q = db.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(limit).execute();
    if (rows.length === 0) return { changes: [], next: null };
    const ids = rows.map((r) => r.id);
    const rounds = await db.selectFrom('bill_rounds').selectAll().where('bill_id', 'in', ids).orderBy('id').execute();
    const payments = await db.selectFrom('bill_payments').selectAll().where('bill_id', 'in', ids).orderBy('id').execute();
    const changes = rows.map(({ tenant_id: _t, ...bill }) => ({
      entity: 'bill',
      entity_id: bill.id,
      kind: 'bill.snapshot',
      payload: {
        bill,
        rounds: rounds.filter((r) => r.bill_id === bill.id).map(({ tenant_id: _x, ...r }) => r),
        payments: payments.filter((p) => p.bill_id === bill.id).map(({ tenant_id: _x, ...p }) => p),
      },
      created_at: bill.updated_at,
    }));
    return { changes, next: snapshotNext(changes, limit) };
  },
};

export const floorSync: EntityDescriptor[] = [zoneDescriptor, tableDescriptor, billDescriptor];
