import { sql } from 'kysely';
import { z } from 'zod';
import { legacyMethod } from '../till/till.rules.js';
import { insertRows } from '../../db/bulk.js';
import type { Db, Tx } from '../../db/connection.js';
import type { BillPaymentsTable, BillRoundsTable, BillsTable, FloorTablesTable, FloorZonesTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, insertManyIfAbsent, parsePayload, pick, pushedPayload, upsertById } from '../../../sync/apply-helpers.js';
import { chunks, defineBatchStore, preloadTenantRefs } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type ApplyBatch, type ApplyContext, type BatchState, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { newPublicCode } from './floor.rules.js';
import { familyOf, rootOf } from './floor.bill-family.js';
import { floorRepository } from './floor.repository.js';
import { flushPendingOrders } from '../orders/orders.sync.js';
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
  'id', 'tenant_id', 'zone_id', 'name', 'seats', 'x', 'y', 'shape', 'reservable', 'status_override', 'override_at', 'public_code', 'created_at', 'updated_at', 'archived_at',
] as const satisfies readonly (keyof FloorTablesTable)[];

const Fields = z.record(z.string(), z.unknown()).optional();
const ZonePayload = z.object({ zone: ZoneRow, fields: Fields });
const TablePayload = z.object({ table: TableRow, fields: Fields });
const StatusPayload = z.object({ table_id: z.uuid(), status: TableStatus });
const BillPayload = pushedPayload('bill', z.object({ bill: BillRow }));
const RoundPayload = pushedPayload('bill.round_added', z.object({ round: RoundRow }));
const PaymentPayload = pushedPayload('bill.payment', z.object({ payment: PaymentRow }));
/** A payment as it arrived, with the till's fields (0025) filled in for a node one release behind. */
const paymentRow = (p: z.infer<typeof PaymentRow>, tenantId: string): BillPaymentsTable => ({
  ...p,
  tenant_id: tenantId,
  method: p.method ?? legacyMethod(p.source),
  received_cents: p.received_cents ?? null,
  change_cents: p.change_cents ?? 0,
  items: p.items ?? '[]',
});
const MovedPayload = z.object({
  bill: BillRow,
  from_table_id: z.uuid(),
  to_table_id: z.uuid(),
  merged_into: z.uuid().nullable().optional(),
  member_ids: z.array(z.uuid()).max(1000).optional(),
  order_ids: z.array(z.uuid()).max(1000).optional(),
});
const BillSnapshot = z.object({ bill: BillRow, rounds: z.array(RoundRow).max(1000), payments: z.array(PaymentRow).max(1000) });

const OTHER_TENANT = 'Dit onderdeel van de plattegrond hoort bij een ander restaurant.';

/** A renamed duplicate stays within the API's 40 characters. */
export const suffixedName = (name: string, id: string) => `${name.slice(0, 35)}-${id.slice(-4)}`;

async function sameTenant(trx: Tx, table: 'floor_zones' | 'floor_tables' | 'bills', id: string, tenantId: string): Promise<Record<string, unknown> | undefined> {
  const row = (await trx.selectFrom(table as 'bills').selectAll().where('id', '=', id).executeTakeFirst()) as Record<string, unknown> | undefined;
  if (row && row.tenant_id !== tenantId) throw new RejectOp(OTHER_TENANT);
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
  // An announced status writes no row (below): its equal echo is skipped, not adopted and rebased on.
  echoKinds: ['table.status_changed'],
  tables: ['floor_tables'],
  async apply(trx, change, ctx) {
    if (change.kind === 'table.status_changed') {
      // A derived status one node announced to its tablets; every node derives its own (docs/floor.md).
      const p = parsePayload(StatusPayload, change.payload, 'een tafelstatus');
      if (p.table_id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een tafelstatus.');
      // Inside a batch the tables its changes name are read once (FloorBatch), not once per announcement.
      const owner = await (await floorStore.of(trx, ctx, change.tenant_id)).tableTenant(change.entity_id);
      if (owner !== undefined && owner !== change.tenant_id) throw new RejectOp(OTHER_TENANT);
      return;
    }
    if (!change.kind.startsWith('table.')) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    const p = parsePayload(TablePayload, change.payload, 'een tafel');
    if (p.table.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een tafel.');
    if (p.fields) parsePayload(TableRow.partial(), pick(p.fields, TABLE_COLUMNS as never), 'een tafel');
    const current = await sameTenant(trx, 'floor_tables', change.entity_id, change.tenant_id);
    const next = mergeRow(current, { ...p.table, tenant_id: change.tenant_id }, p.fields, TABLE_COLUMNS, ctx) as unknown as FloorTablesTable;
    if (ctx.mode === 'merge') await assertTenantRef(trx, 'floor_zones', next.zone_id, change.tenant_id, 'De zone van deze tafel', ctx.batch);
    // A node one release behind (before 0019) sends tables without a pay-at-table code: the code this
    // node has stays, and the cloud gives a table that has none one (it reaches the appliances with this change).
    if (!next.public_code) next.public_code = (current?.public_code as string | null | undefined) ?? (ctx.side === 'cloud' ? newPublicCode() : null);
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

const BILL_COLUMNS = [
  'id', 'tenant_id', 'table_id', 'status', 'opened_at', 'closed_at', 'close_reason', 'closed_by', 'merged_into', 'conflict', 'created_at', 'updated_at',
] as const satisfies readonly (keyof BillsTable)[];

/**
 * Where the bill and table descriptors read and write (docs/floor.md, "Across sync"): straight to the
 * database op by op (`directStore`, no batch: the cloud's safe re-run), or, inside a batch
 * (`ctx.batch`: the cloud's push chunk, an appliance's pull or snapshot page), through `FloorBatch`,
 * which reads what the batch's changes name in a few statements and writes bills, rounds and
 * payments once, at the flush. The apply logic is the same for both.
 */
interface FloorStore {
  /** The bill with this id, of any restaurant (the caller checks the tenant). */
  bill(id: string): Promise<BillsTable | undefined>;
  /** The restaurant's open bills of this table (one at most). */
  openBills(tenantId: string, tableId: string): Promise<BillsTable[]>;
  /** A bill that `bill(id)` did not find. */
  insertBill(row: BillsTable): Promise<void>;
  /** These columns of a bill `bill` or `openBills` returned. */
  updateBill(current: BillsTable, patch: Partial<BillsTable>): Promise<void>;
  /** Adopting the cloud's row: inserted, or every column overwritten (upsertById). */
  upsertBill(row: BillsTable): Promise<void>;
  /** The restaurant of this table, undefined when there is no such table. */
  tableTenant(id: string): Promise<string | undefined>;
  /** A table, staff member: a row of this restaurant, or RejectOp `${what} bestaat niet bij dit restaurant.` */
  assertTable(tenantId: string, id: string, what: string): Promise<void>;
  assertUser(tenantId: string, id: string | null, what: string): Promise<void>;
  /** An order with this id exists and belongs to another restaurant. */
  foreignOrder(tenantId: string, orderId: string): Promise<boolean>;
  /** A round with another id than `roundId` puts this order on a bill already. */
  otherRound(orderId: string, roundId: string): Promise<boolean>;
  /** Ledger rows: inserted if no row has their id. */
  addRound(row: BillRoundsTable): Promise<void>;
  addPayment(row: BillPaymentsTable): Promise<void>;
}

const directStore = (trx: Tx): FloorStore => ({
  bill: (id) => trx.selectFrom('bills').selectAll().where('id', '=', id).executeTakeFirst(),
  openBills: (tenantId, tableId) => trx.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId).where('table_id', '=', tableId).where('status', '=', 'open').execute(),
  async insertBill(row) {
    await trx.insertInto('bills').values(row).execute();
  },
  async updateBill(current, patch) {
    await trx.updateTable('bills').set(patch).where('id', '=', current.id).execute();
  },
  upsertBill: (row) => upsertById(trx, 'bills', row as unknown as { id: string } & Record<string, unknown>),
  async tableTenant(id) {
    return (await trx.selectFrom('floor_tables').select('tenant_id').where('id', '=', id).executeTakeFirst())?.tenant_id;
  },
  assertTable: (tenantId, id, what) => assertTenantRef(trx, 'floor_tables', id, tenantId, what),
  assertUser: (tenantId, id, what) => assertTenantRef(trx, 'users', id, tenantId, what),
  async foreignOrder(tenantId, orderId) {
    return (await trx.selectFrom('orders').select('id').where('id', '=', orderId).where('tenant_id', '!=', tenantId).executeTakeFirst()) !== undefined;
  },
  async otherRound(orderId, roundId) {
    return (await trx.selectFrom('bill_rounds').select('id').where('order_id', '=', orderId).where('id', '!=', roundId).executeTakeFirst()) !== undefined;
  },
  async addRound(row) {
    await insertIfAbsent(trx, 'bill_rounds', row as BillRoundsTable & Record<string, unknown>);
  },
  async addPayment(row) {
    await insertIfAbsent(trx, 'bill_payments', row as BillPaymentsTable & Record<string, unknown>);
  },
});

/** An id inside a payload not validated yet (a hint for a prefetch): only a string of an id's size. */
const hintId = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= 64 ? v : undefined);
const at = (o: unknown, key: string): unknown => (o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[key] : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** What the batch's changes name (ApplyBatch.changes): read together, on first need, instead of op by op. */
interface Hints {
  bills: Set<string>;
  /** Tables whose open bills a bill op may look for (bill.opened, adopted bills). */
  billTables: Set<string>;
  /** Every table named (the above and table.status_changed). */
  tables: Set<string>;
  orders: Set<string>;
  rounds: Set<string>;
  users: Set<string>;
}

function hintsOf(changes: ReadonlyArray<SyncChange>, tenantId: string): Hints {
  const h: Hints = { bills: new Set(), billTables: new Set(), tables: new Set(), orders: new Set(), rounds: new Set(), users: new Set() };
  const add = (set: Set<string>, v: unknown) => {
    const id = hintId(v);
    if (id) set.add(id);
  };
  for (const c of changes) {
    if (c.tenant_id !== tenantId) continue;
    if (c.entity === 'table' && c.kind === 'table.status_changed') add(h.tables, c.entity_id);
    if (c.entity !== 'bill') continue;
    add(h.bills, c.entity_id);
    const bill = at(c.payload, 'bill');
    add(h.billTables, at(bill, 'table_id'));
    add(h.tables, at(bill, 'table_id'));
    add(h.users, at(bill, 'closed_by'));
    for (const round of [at(c.payload, 'round'), ...list(at(c.payload, 'rounds'))]) {
      add(h.orders, at(round, 'order_id'));
      add(h.rounds, at(round, 'id'));
    }
    const payment = at(c.payload, 'payment');
    add(h.orders, at(payment, 'order_id'));
    add(h.users, at(payment, 'created_by'));
  }
  return h;
}

/** A bill row with exactly the table's columns, in the table's order (as a row read back): one shape for every multi-row write. */
const columnsOf = (row: BillsTable): BillsTable => Object.fromEntries(BILL_COLUMNS.map((c) => [c, row[c] ?? null])) as unknown as BillsTable;

interface BillEntry {
  /** The bill as this batch sees it now (undefined: none with this id). */
  row: BillsTable | undefined;
  /** Changed by this batch: written at the flush. */
  dirty: boolean;
}

/**
 * The floor inside a batch (FloorStore). It reads, each in one statement on first need for every
 * change of the batch (ApplyBatch.changes): the bills the bill ops name together with the open bills
 * of their tables, the tables' restaurants, the staff members (the batch's reference cache), the
 * orders' restaurants, and the rounds of the orders (and with the ids) the rounds name. What an op
 * changes stays here, so a later op of the batch sees it (a round, then a payment, then the close of
 * a bill opened in the same batch); anything not named by `changes` is read when asked for. At the
 * flush: bills in one upsert per status group (first those no longer open, then the open ones, so
 * the one-open-bill-per-table index never sees two at once), rounds and payments in multi-row
 * inserts (`on conflict (id) do nothing`).
 */
class FloorBatch implements FloorStore, BatchState {
  private readonly bills = new Map<string, BillEntry>();
  /** Tables whose open bills are all in `bills`. */
  private readonly openLoaded = new Set<string>();
  /** Table → its restaurant at the batch's start (null: no such table then). */
  private readonly tables = new Map<string, string | null>();
  /** Order → its restaurant at the batch's start (null: no such order then). */
  private readonly orders = new Map<string, string | null>();
  /** Round ids that are rows, or queued here; the round ids of each order. */
  private readonly roundIds = new Set<string>();
  private readonly roundsOfOrder = new Map<string, Set<string>>();
  /** Orders whose rounds, and round ids whose rows, are known here. */
  private readonly ordersSeen = new Set<string>();
  private readonly roundIdsSeen = new Set<string>();
  private readonly rounds = new Map<string, BillRoundsTable>();
  private readonly payments = new Map<string, BillPaymentsTable>();
  private readonly done = new Set<'bills' | 'tables' | 'users' | 'orders' | 'rounds'>();
  private hintsCache?: Hints;

  constructor(
    private readonly trx: Tx,
    private readonly tenantId: string,
    private readonly batch: ApplyBatch,
  ) {}

  private get hints(): Hints {
    return (this.hintsCache ??= hintsOf(this.batch.changes, this.tenantId));
  }

  /** True the first time for `what` in this batch. */
  private first(what: 'bills' | 'tables' | 'users' | 'orders' | 'rounds'): boolean {
    if (this.done.has(what)) return false;
    this.done.add(what);
    return true;
  }

  /** Bills by id and the open bills of tables, in statements of up to ROWS_PER_INSERT of each; what this batch holds already stays. */
  private async readBills(ids: string[], tables: string[]): Promise<void> {
    const byId = chunks(ids.filter((id) => !this.bills.has(id)));
    const byTable = chunks(tables.filter((t) => !this.openLoaded.has(t)));
    for (let i = 0; i < Math.max(byId.length, byTable.length); i++) {
      const idPart = byId[i] ?? [];
      const tablePart = byTable[i] ?? [];
      const rows = await this.trx
        .selectFrom('bills')
        .selectAll()
        .where((eb) =>
          eb.or([
            ...(idPart.length > 0 ? [eb('id', 'in', idPart)] : []),
            ...(tablePart.length > 0 ? [eb.and([eb('tenant_id', '=', this.tenantId), eb('status', '=', 'open'), eb('table_id', 'in', tablePart)])] : []),
          ]),
        )
        .execute();
      for (const r of rows) if (!this.bills.has(r.id)) this.bills.set(r.id, { row: r, dirty: false });
      for (const id of idPart) if (!this.bills.has(id)) this.bills.set(id, { row: undefined, dirty: false });
      for (const t of tablePart) this.openLoaded.add(t);
    }
  }

  private async entry(id: string): Promise<BillEntry> {
    if (this.first('bills')) await this.readBills([...this.hints.bills], [...this.hints.billTables]);
    if (!this.bills.has(id)) await this.readBills([id], []);
    return this.bills.get(id)!;
  }

  async bill(id: string): Promise<BillsTable | undefined> {
    return (await this.entry(id)).row;
  }

  async openBills(tenantId: string, tableId: string): Promise<BillsTable[]> {
    if (this.first('bills')) await this.readBills([...this.hints.bills], [...this.hints.billTables]);
    if (!this.openLoaded.has(tableId)) await this.readBills([], [tableId]);
    const out: BillsTable[] = [];
    for (const { row } of this.bills.values()) if (row && row.tenant_id === tenantId && row.table_id === tableId && row.status === 'open') out.push(row);
    return out;
  }

  async insertBill(row: BillsTable): Promise<void> {
    this.bills.set(row.id, { row: columnsOf(row), dirty: true });
  }

  async updateBill(current: BillsTable, patch: Partial<BillsTable>): Promise<void> {
    const e = await this.entry(current.id);
    e.row = { ...e.row!, ...patch };
    e.dirty = true;
  }

  async upsertBill(row: BillsTable): Promise<void> {
    const e = await this.entry(row.id);
    e.row = e.row ? { ...e.row, ...row } : columnsOf(row);
    e.dirty = true;
  }

  private async readTables(ids: string[]): Promise<void> {
    for (const part of chunks(ids.filter((id) => !this.tables.has(id)))) {
      const rows = await this.trx.selectFrom('floor_tables').select(['id', 'tenant_id']).where('id', 'in', part).execute();
      for (const r of rows) this.tables.set(r.id, r.tenant_id);
      for (const id of part) if (!this.tables.has(id)) this.tables.set(id, null);
    }
  }

  async tableTenant(id: string): Promise<string | undefined> {
    if (this.first('tables')) await this.readTables([...this.hints.tables]);
    // Not there at the batch's start: none, or one an earlier op of this batch made (of this restaurant).
    if (!this.tables.has(id)) await this.readTables([id]);
    return this.tables.get(id) ?? undefined;
  }

  async assertTable(tenantId: string, id: string, what: string): Promise<void> {
    if ((await this.tableTenant(id)) === tenantId) return;
    // Not this restaurant's at the start: an earlier op of the batch may have made it since.
    await assertTenantRef(this.trx, 'floor_tables', id, tenantId, what, this.batch);
  }

  async assertUser(tenantId: string, id: string | null, what: string): Promise<void> {
    if (this.first('users')) await preloadTenantRefs(this.trx, tenantId, this.batch, { users: this.hints.users });
    await assertTenantRef(this.trx, 'users', id, tenantId, what, this.batch);
  }

  private async readOrders(ids: string[]): Promise<void> {
    for (const part of chunks(ids.filter((id) => !this.orders.has(id)))) {
      const rows = await this.trx.selectFrom('orders').select(['id', 'tenant_id']).where('id', 'in', part).execute();
      for (const r of rows) this.orders.set(r.id, r.tenant_id);
      for (const id of part) if (!this.orders.has(id)) this.orders.set(id, null);
    }
  }

  async foreignOrder(tenantId: string, orderId: string): Promise<boolean> {
    if (this.first('orders')) await this.readOrders([...this.hints.orders]);
    if (!this.orders.has(orderId)) await this.readOrders([orderId]);
    // An order this batch makes is this restaurant's (the order descriptor refuses another's id).
    const owner = this.orders.get(orderId);
    return owner !== null && owner !== undefined && owner !== tenantId;
  }

  /** The rounds of these orders and with these ids, in statements of up to ROWS_PER_INSERT of each. */
  private async readRounds(orderIds: string[], roundIds: string[]): Promise<void> {
    const byOrder = chunks(orderIds.filter((id) => !this.ordersSeen.has(id)));
    const byId = chunks(roundIds.filter((id) => !this.roundIdsSeen.has(id)));
    for (let i = 0; i < Math.max(byOrder.length, byId.length); i++) {
      const orderPart = byOrder[i] ?? [];
      const idPart = byId[i] ?? [];
      const rows = await this.trx
        .selectFrom('bill_rounds')
        .select(['id', 'order_id'])
        .where((eb) => eb.or([...(orderPart.length > 0 ? [eb('order_id', 'in', orderPart)] : []), ...(idPart.length > 0 ? [eb('id', 'in', idPart)] : [])]))
        .execute();
      for (const r of rows) this.noteRound(r.id, r.order_id);
      for (const id of orderPart) this.ordersSeen.add(id);
      for (const id of idPart) this.roundIdsSeen.add(id);
    }
  }

  private noteRound(id: string, orderId: string): void {
    if (this.roundIds.has(id)) return;
    this.roundIds.add(id);
    this.roundIdsSeen.add(id);
    let set = this.roundsOfOrder.get(orderId);
    if (!set) this.roundsOfOrder.set(orderId, (set = new Set()));
    set.add(id);
  }

  private async knowRounds(orderId: string, roundId: string): Promise<void> {
    if (this.first('rounds')) await this.readRounds([...this.hints.orders], [...this.hints.rounds]);
    if (!this.ordersSeen.has(orderId) || !this.roundIdsSeen.has(roundId)) await this.readRounds([orderId], [roundId]);
  }

  async otherRound(orderId: string, roundId: string): Promise<boolean> {
    await this.knowRounds(orderId, roundId);
    return [...(this.roundsOfOrder.get(orderId) ?? [])].some((id) => id !== roundId);
  }

  async addRound(row: BillRoundsTable): Promise<void> {
    await this.knowRounds(row.order_id, row.id);
    // An id that is a row already (or queued) is left as it is: a ledger, insert-if-absent.
    if (this.roundIds.has(row.id)) return;
    this.noteRound(row.id, row.order_id);
    this.rounds.set(row.id, row);
  }

  async addPayment(row: BillPaymentsTable): Promise<void> {
    if (!this.payments.has(row.id)) this.payments.set(row.id, row);
  }

  async flush(trx: Tx): Promise<void> {
    const changed = [...this.bills.values()].filter((e) => e.dirty && e.row).map((e) => e.row!);
    // Bills that stop being open first: a table's new open bill never meets its old one in the index.
    for (const group of [changed.filter((r) => r.status !== 'open'), changed.filter((r) => r.status === 'open')]) {
      // Multi-row upserts without Kysely's build of every value (server/db/bulk.ts insertRows).
      await insertRows(trx, 'bills', group as unknown as Array<Record<string, unknown>>, { columns: ['id'], action: 'update', set: BILL_COLUMNS.filter((c) => c !== 'id') });
    }
    await insertManyIfAbsent(trx, 'bill_rounds', [...this.rounds.values()] as Array<BillRoundsTable & Record<string, unknown>>);
    await insertManyIfAbsent(trx, 'bill_payments', [...this.payments.values()] as Array<BillPaymentsTable & Record<string, unknown>>);
    this.bills.clear();
    this.rounds.clear();
    this.payments.clear();
    // Flushed before the batch ends (a bill moved): the open bills of a table are read again when asked for.
    this.openLoaded.clear();
  }
}

/** One batch form per restaurant of the batch's changes; each reads what it needs on first need (no prefetch up front). */
const floorStore = defineBatchStore<FloorStore, FloorBatch>({
  key: 'floor',
  perTenant: true,
  direct: (trx) => directStore(trx),
  create: (s) => new FloorBatch(s.trx, s.tenantId, s.batch),
});

/** The bill with this id (any state), refused when it is another restaurant's. */
async function ownBill(store: FloorStore, id: string, tenantId: string): Promise<BillsTable | undefined> {
  const row = await store.bill(id);
  if (row && row.tenant_id !== tenantId) throw new RejectOp(OTHER_TENANT);
  return row;
}

/**
 * Writes the cloud's bill row here (adopt). One open bill per table: an open bill of this node for
 * the same table is merged into the incoming one (the bill the cloud knows wins).
 */
async function adoptBill(store: FloorStore, tenantId: string, row: BillsTable): Promise<void> {
  if (row.status === 'open') {
    for (const o of await store.openBills(tenantId, row.table_id)) {
      if (o.id === row.id) continue;
      await store.updateBill(o, { status: 'merged', merged_into: row.id, closed_at: row.updated_at, conflict: MERGED_NOTE, updated_at: row.updated_at });
    }
  }
  await store.upsertBill(row);
}

const billRow = (b: z.infer<typeof BillRow>, tenantId: string): BillsTable => ({ ...b, tenant_id: tenantId });

const billDescriptor: EntityDescriptor = {
  entity: 'bill',
  merge: 'monotonic-status',
  // Equal echoes skipped for these kinds only (sync/README.md "Echoes", bills): a round or payment is a
  // ledger row this node holds under its id, and a closed bill is no longer written by another bill's
  // adoption. An opened or moved bill's echo is adopted: an adopted open bill of the same table may
  // have merged this node's bill meanwhile, and only that echo opens it again.
  echoKinds: ['bill.round_added', 'bill.payment_recorded', 'bill.closed'],
  tables: ['bills', 'bill_rounds', 'bill_payments'],
  async apply(trx, change, ctx) {
    const tenantId = change.tenant_id;
    const store = await floorStore.of(trx, ctx, tenantId);
    const strip = (b: BillsTable) => {
      const { tenant_id: _t, ...rest } = b;
      return rest;
    };
    switch (change.kind) {
      case 'bill.opened': {
        const p = parsePayload(BillPayload, change.payload, 'een rekening');
        if (p.bill.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        const existing = await ownBill(store, change.entity_id, tenantId);
        // Adopting, the cloud's state is the truth (it checked the references when it took the op).
        if (ctx.mode === 'adopt') {
          await adoptBill(store, tenantId, billRow(p.bill, tenantId));
          return;
        }
        await store.assertTable(tenantId, p.bill.table_id, 'De tafel van deze rekening');
        if (existing) return { payload: { bill: strip(existing) } };
        // A bill is born open (the API never makes it otherwise); closing and merging are their own changes.
        if (p.bill.status !== 'open' || p.bill.merged_into !== null || p.bill.closed_at !== null || p.bill.close_reason !== null || p.bill.closed_by !== null) {
          throw new RejectOp('Een nieuwe rekening moet open zijn.');
        }
        let row = billRow(p.bill, tenantId);
        let conflict: string | undefined;
        const known = (await store.openBills(tenantId, row.table_id))[0];
        if (known) {
          row = { ...row, status: 'merged', merged_into: known.id, closed_at: change.created_at, conflict: MERGED_NOTE, updated_at: change.created_at };
          conflict = MERGED_NOTE;
        }
        await store.insertBill(row);
        return { payload: { bill: strip(row) }, ...(conflict ? { conflict } : {}) };
      }
      case 'bill.round_added': {
        const p = parsePayload(RoundPayload, change.payload, 'een rekening');
        if (p.round.bill_id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        if (ctx.mode === 'merge') {
          const bill = await store.bill(p.round.bill_id);
          if (!bill || bill.tenant_id !== tenantId) throw new RejectOp('Deze rekening bestaat niet bij dit restaurant.');
          if (bill.table_id !== p.round.table_id) throw new RejectOp('Deze ronde hoort bij een andere tafel dan haar rekening.');
          // The order itself follows in the same push (hooks run before the order's own change is recorded).
          if (await store.foreignOrder(tenantId, p.round.order_id)) throw new RejectOp('De bestelling van deze rekening hoort bij een ander restaurant.');
          if (await store.otherRound(p.round.order_id, p.round.id)) throw new RejectOp('Deze bestelling staat al op een rekening.');
        }
        await store.addRound({ ...p.round, tenant_id: tenantId });
        return;
      }
      case 'bill.payment_recorded': {
        const p = parsePayload(PaymentPayload, change.payload, 'een betaling');
        if (p.payment.bill_id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een betaling.');
        let closed = false;
        if (ctx.mode === 'merge') {
          const bill = await store.bill(p.payment.bill_id);
          if (!bill || bill.tenant_id !== tenantId) throw new RejectOp('De rekening van deze betaling bestaat niet bij dit restaurant.');
          await store.assertUser(tenantId, p.payment.created_by, 'De medewerker van deze betaling');
          if (p.payment.order_id && (await store.foreignOrder(tenantId, p.payment.order_id))) {
            throw new RejectOp('De bestelling van deze betaling hoort bij een ander restaurant.');
          }
          if (p.payment.amount_cents < 1) throw new RejectOp('Een betaling is minstens 1 cent.');
          closed = bill.status === 'closed';
        }
        await store.addPayment(paymentRow(p.payment, tenantId));
        if (closed) return { conflict: 'Betaling ontvangen voor een rekening die al gesloten was; controleer de rekening.' };
        return;
      }
      case 'bill.closed': {
        const p = parsePayload(BillPayload, change.payload, 'een rekening');
        if (p.bill.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        const existing = await ownBill(store, change.entity_id, tenantId);
        if (ctx.mode === 'adopt') {
          await adoptBill(store, tenantId, billRow(p.bill, tenantId));
          return;
        }
        if (!existing) throw new RejectOp('Rekening niet gevonden.');
        if (p.bill.status !== 'closed' || p.bill.close_reason === null) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        await store.assertUser(tenantId, p.bill.closed_by, 'De medewerker die de rekening sloot');
        if (existing.status === 'open') {
          const patch = { status: 'closed', closed_at: p.bill.closed_at ?? change.created_at, close_reason: p.bill.close_reason, closed_by: p.bill.closed_by, updated_at: p.bill.updated_at } as const;
          await store.updateBill(existing, patch);
          return { payload: { bill: strip({ ...existing, ...patch }) } };
        }
        if (existing.status === 'merged') {
          return { payload: { bill: strip(existing) }, conflict: 'Deze rekening was samengevoegd met de open rekening van dezelfde tafel; die blijft open tot alles betaald is.' };
        }
        return { payload: { bill: strip(existing) } };
      }
      case 'bill.moved': {
        const p = parsePayload(MovedPayload, change.payload, 'een verplaatste rekening');
        if (p.bill.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een rekening.');
        // Rare: the batch's pending bills, rounds and orders are written first; the move works on the rows directly.
        await floorStore.peek(ctx, tenantId)?.flush(trx);
        await flushPendingOrders(trx, ctx);
        return await applyMove(trx, change, ctx, p);
      }
      case 'bill.snapshot': {
        if (ctx.mode !== 'adopt') throw new RejectOp('Een momentopname van een rekening komt alleen uit de cloud.');
        const p = parsePayload(BillSnapshot, change.payload, 'een rekening');
        await adoptBill(store, tenantId, billRow(p.bill, tenantId));
        for (const r of p.rounds) await store.addRound({ ...r, tenant_id: tenantId });
        for (const pay of p.payments) await store.addPayment(paymentRow(pay, tenantId));
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

/**
 * A bill moved to another table (POST /floorplan/bills/:id/move, CONTRACT §19): last writer wins in
 * cloud apply order. Merging (the cloud), the bill a moved bill lives in moves (a bill merged into
 * another meanwhile moves with its family), with the bills merged into it, their rounds and the
 * rounds' orders; when the target table has another open bill here, the moved bill is merged into
 * it, as the API does. Adopting (an appliance), the cloud's resulting bill row is taken as it is (an
 * open bill of this node on that table is merged into it, as for any adopted open bill) and the
 * family's bills, rounds and orders follow it to its table. The orders' `updated_at` only moves
 * forward (the later of theirs and the move's), so both sides end alike whatever came first.
 */
async function applyMove(trx: Tx, change: SyncChange, ctx: ApplyContext, p: z.infer<typeof MovedPayload>) {
  const tenantId = change.tenant_id;
  const at = change.created_at;
  const existing = await floorRepository.findBill(trx, tenantId, change.entity_id);
  if (!existing && (await trx.selectFrom('bills').select('id').where('id', '=', change.entity_id).executeTakeFirst())) throw new RejectOp(OTHER_TENANT);
  let root: BillsTable;
  let from: string;
  let mergedInto: string | null = null;
  if (ctx.mode === 'adopt') {
    const row = billRow(p.bill, tenantId);
    if (row.status === 'open') {
      const other = await floorRepository.findOpenBill(trx, tenantId, row.table_id);
      if (other && other.id !== row.id) await trx.updateTable('bills').set({ status: 'merged', merged_into: row.id, closed_at: row.updated_at, conflict: MERGED_NOTE, updated_at: row.updated_at }).where('id', '=', other.id).execute();
    }
    from = p.from_table_id;
    mergedInto = p.merged_into ?? null;
    await upsertById(trx, 'bills', row as unknown as { id: string } & Record<string, unknown>);
    root = row;
  } else {
    if (!existing) throw new RejectOp('Rekening niet gevonden.');
    await assertTenantRef(trx, 'floor_tables', p.to_table_id, tenantId, 'De tafel waar de rekening heen gaat', ctx.batch);
    const current = await rootOf(trx, tenantId, existing);
    from = current.table_id;
    root = current;
    if (current.table_id !== p.to_table_id) {
      const there = current.status === 'open' ? await floorRepository.findOpenBill(trx, tenantId, p.to_table_id) : undefined;
      root = there && there.id !== current.id ? { ...current, table_id: p.to_table_id, status: 'merged', merged_into: there.id, updated_at: at } : { ...current, table_id: p.to_table_id, updated_at: at };
      mergedInto = root.status === 'merged' ? root.merged_into : null;
      await trx.updateTable('bills').set(root).where('id', '=', root.id).execute();
    }
  }
  // The family follows its root: the bills merged into it, their rounds and the rounds' orders.
  const fam = await familyOf(trx, tenantId, root);
  const others = fam.members.filter((m) => m.id !== root.id && m.table_id !== root.table_id).map((m) => m.id);
  if (others.length > 0) await trx.updateTable('bills').set({ table_id: root.table_id, updated_at: at }).where('id', 'in', others).execute();
  await floorRepository.moveRounds(trx, tenantId, fam.members.map((m) => m.id), root.table_id);
  const orderIds = [...new Set(fam.rounds.map((r) => r.order_id))];
  if (orderIds.length > 0) {
    await trx
      .updateTable('orders')
      .set({ table_id: root.table_id, updated_at: sql<string>`case when updated_at < ${at} then ${at} else updated_at end` })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', orderIds)
      .execute();
  }
  const { tenant_id: _t, ...bill } = root;
  return { payload: { bill, from_table_id: from, to_table_id: root.table_id, merged_into: mergedInto, member_ids: fam.members.filter((m) => m.id !== root.id).map((m) => m.id), order_ids: orderIds } };
}

export const floorSync: EntityDescriptor[] = [zoneDescriptor, tableDescriptor, billDescriptor];
