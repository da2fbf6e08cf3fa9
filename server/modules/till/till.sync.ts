import { z } from 'zod';
import type { OrderPaymentsTable, ReceiptsTable } from '../../db/database.js';
import type { Tx } from '../../db/connection.js';
import { assertTenantRef, insertIfAbsent, parsePayload, pushedPayload } from '../../../sync/apply-helpers.js';
import { chunks, defineBatchStore, selectUnion, type BatchScope } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type BatchState, type EntityDescriptor } from '../../../sync/types.js';
import { assertNotForeign, flushPendingOrders, overpaidNote, tillPaidOf } from '../orders/orders.sync.js';
import { PAYMENT_METHODS } from './till.rules.js';

/**
 * The till across sync (CONTRACT §19, docs/till.md "Across sync"). Discounts and the guest at the
 * till are ops of the order (orders.sync.ts); a bill's move is an op of the bill (floor.sync.ts).
 * Here:
 *
 * - `order_payment`: a payment at the till on an order without a table is a ledger row with its own
 *   id, inserted once (a payment pushed twice, or seen again in a page, counts once; payments made on
 *   both sides of an outage are both kept: they are real money). When the union pays more than the
 *   order's total after discounts, the cloud answers the op as a visible `conflict` (in
 *   `/sync/status`) saying how much to give back; nothing is dropped.
 * - `receipt`: receipts are numbered only by the node that numbers the restaurant's receipts (the
 *   appliance; the cloud for a restaurant without one), so the numbers stay gapless; they replicate
 *   as read-only copies (a union by id), so the other side shows the same number. A copy whose
 *   number another receipt of the restaurant holds is refused (recorded), never renumbered.
 */

const Timestamp = z.iso.datetime({ offset: true });
const PaymentWire = pushedPayload('till.payment', z.object({
  id: z.uuid(),
  order_id: z.uuid(),
  amount_cents: z.number().int().min(1).max(10_000_000),
  tip_cents: z.number().int().min(0).max(1_000_000),
  method: z.enum(PAYMENT_METHODS),
  received_cents: z.number().int().min(0).max(100_000_000).nullable(),
  change_cents: z.number().int().min(0).max(100_000_000),
  items: z
    .string()
    .max(50_000)
    .refine((t) => {
      try {
        return Array.isArray(JSON.parse(t));
      } catch {
        return false;
      }
    }, { message: 'moet een lijst zijn.' }),
  created_by: z.uuid().nullable(),
  created_at: Timestamp,
}));
const ReceiptWire = pushedPayload('till.receipt', z.object({
  id: z.uuid(),
  series: z.string().regex(/^\d{4}$/),
  seq: z.number().int().min(1).max(99_999_999),
  number: z.string().regex(/^\d{4}-\d{6,8}$/),
  bill_id: z.uuid().nullable(),
  order_id: z.uuid().nullable(),
  total_cents: z.number().int().min(0).max(1_000_000_000),
  paid_at: Timestamp,
  created_at: Timestamp,
}));

type Receipt = z.infer<typeof ReceiptWire>;
type Clash = { id: string; tenant_id: string };
const seqKey = (series: string, seq: number) => `${series}\u0000${seq}`;

/** Where `apply` reads and writes receipts: at once (no batch), or through the batch's `ReceiptsBatch`. */
interface ReceiptStore {
  /** The receipts with this id (any restaurant) or this restaurant's series and seq, as `apply` sees them. */
  clashes(r: Receipt): Promise<Clash[]>;
  /** The restaurant of an order or bill with this id, if there is one. */
  ownerOf(table: 'orders' | 'bills', id: string | null): Promise<string | undefined>;
  add(row: ReceiptsTable): Promise<void>;
}

const readClashes = (trx: Tx, tenantId: string, r: Pick<Receipt, 'id' | 'series' | 'seq'>) =>
  trx
    .selectFrom('receipts')
    .select(['id', 'tenant_id'])
    .where((eb) => eb.or([eb('id', '=', r.id), eb.and([eb('tenant_id', '=', tenantId), eb('series', '=', r.series), eb('seq', '=', r.seq)])]))
    .execute();

const readOwner = async (trx: Tx, table: 'orders' | 'bills', id: string | null) =>
  id === null ? undefined : (await trx.selectFrom(table as 'orders').select('tenant_id').where('id', '=', id).executeTakeFirst())?.tenant_id;

/**
 * A batch's receipts (issue 29 point 2: a receipt per paid order, so a catch-up pushes one for
 * about every order): at first use two statements read what the batch's receipts need (receipts
 * holding their ids or numbers; the restaurants of their orders and bills), instead of three or four
 * per receipt; the receipts are ledger rows no apply reads back from the database, written together
 * at the end (`deferLedger`). What the batch itself adds is kept here, so a later receipt of the
 * batch sees it as the database would.
 */
class ReceiptsBatch implements ReceiptStore, BatchState {
  /** Receipts read at the start (by id, or this restaurant's by number) and added by the batch. */
  private readonly byId = new Map<string, Clash>();
  private readonly bySeq = new Map<string, Clash>();
  /** `id|series|seq` of receipts whose clashes the prefetch read. */
  private readonly covered = new Set<string>();
  /** Orders and bills: `table:id` → restaurant (absent from the map but asked: not there). */
  private readonly owners = new Map<string, string>();
  private readonly asked = new Set<string>();

  constructor(private readonly s: BatchScope) {}

  async prefetch(): Promise<void> {
    const wanted: Array<Pick<Receipt, 'id' | 'series' | 'seq'>> = [];
    const refs = { orders: new Set<string>(), bills: new Set<string>() };
    for (const c of this.s.changes) {
      if (c.entity !== RECEIPT_ENTITY || c.tenant_id !== this.s.tenantId) continue;
      const r = (c.payload as { receipt?: Record<string, unknown> } | null)?.receipt;
      if (!r || typeof r !== 'object' || typeof r.id !== 'string' || typeof r.series !== 'string' || typeof r.seq !== 'number') continue;
      wanted.push({ id: r.id, series: r.series, seq: r.seq });
      if (typeof r.order_id === 'string') refs.orders.add(r.order_id);
      if (typeof r.bill_id === 'string') refs.bills.add(r.bill_id);
    }
    for (const part of chunks(wanted)) {
      const series = [...new Set(part.map((w) => w.series))];
      const seqs = [...new Set(part.map((w) => w.seq))];
      const rows = await this.s.trx
        .selectFrom('receipts')
        .select(['id', 'tenant_id', 'series', 'seq'])
        .where((eb) => eb.or([eb('id', 'in', part.map((w) => w.id)), eb.and([eb('tenant_id', '=', this.s.tenantId), eb('series', 'in', series), eb('seq', 'in', seqs)])]))
        .execute();
      for (const r of rows) this.remember({ id: r.id, tenant_id: r.tenant_id }, r.tenant_id === this.s.tenantId ? seqKey(r.series, Number(r.seq)) : null);
      for (const w of part) this.covered.add(`${w.id}|${seqKey(w.series, w.seq)}`);
    }
    const parts = (['orders', 'bills'] as const).filter((t) => refs[t].size > 0).map((table) => ({ table, ids: refs[table] }));
    if (parts.length === 0) return;
    for (const r of await selectUnion(this.s.trx, parts)) this.owners.set(`${r.t}:${r.id}`, r.tenant_id);
    for (const { table, ids } of parts) for (const id of ids) this.asked.add(`${table}:${id}`);
  }

  private remember(c: Clash, key: string | null): void {
    this.byId.set(c.id, c);
    if (key !== null) this.bySeq.set(key, c);
  }

  async clashes(r: Receipt): Promise<Clash[]> {
    const key = seqKey(r.series, r.seq);
    if (!this.covered.has(`${r.id}|${key}`)) {
      // Not in the batch's list (only a hint): read it, as without a batch, plus what the batch added.
      for (const c of await readClashes(this.s.trx, this.s.tenantId, r)) this.remember(c, c.tenant_id === this.s.tenantId && c.id !== r.id ? key : null);
      this.covered.add(`${r.id}|${key}`);
    }
    const out = new Map<string, Clash>();
    const same = this.byId.get(r.id);
    if (same) out.set(same.id, same);
    const holder = this.bySeq.get(key);
    if (holder) out.set(holder.id, holder);
    return [...out.values()];
  }

  async ownerOf(table: 'orders' | 'bills', id: string | null): Promise<string | undefined> {
    if (id === null) return undefined;
    const k = `${table}:${id}`;
    if (!this.asked.has(k)) {
      const owner = await readOwner(this.s.trx, table, id);
      this.asked.add(k);
      if (owner !== undefined) this.owners.set(k, owner);
    }
    return this.owners.get(k);
  }

  async add(row: ReceiptsTable): Promise<void> {
    this.s.ctx.deferLedger!('receipts', row as ReceiptsTable & Record<string, unknown>);
    this.remember({ id: row.id, tenant_id: row.tenant_id }, seqKey(row.series, row.seq));
  }

  async flush(): Promise<void> {}
}

const receiptStore = defineBatchStore<ReceiptStore, ReceiptsBatch>({
  key: 'receipts',
  when: (ctx) => ctx.deferLedger !== undefined,
  direct: (trx, _ctx, tenantId) => ({
    clashes: (r) => readClashes(trx, tenantId, r),
    ownerOf: (table, id) => readOwner(trx, table, id),
    add: async (row) => void (await insertIfAbsent(trx, 'receipts', row as ReceiptsTable & Record<string, unknown>)),
  }),
  create: (scope) => new ReceiptsBatch(scope),
  prefetch: (b) => b.prefetch(),
});

export const ORDER_PAYMENT_ENTITY = 'order_payment';
export const RECEIPT_ENTITY = 'receipt';

export const tillSync: EntityDescriptor[] = [
  {
    entity: ORDER_PAYMENT_ENTITY,
    merge: 'ledger',
    // Append-only: an echo the cloud kept as sent changes nothing here.
    echo: 'skip-equal',
    tables: ['order_payments'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'order_payment.recorded' && change.kind !== 'order_payment.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const pay = parsePayload(PaymentWire, (change.payload as { payment?: unknown } | null)?.payment, 'een betaling', ctx);
      if (pay.id !== change.entity_id) throw new RejectOp('Ongeldige betaling.');
      const existing = await trx.selectFrom('order_payments').select('tenant_id').where('id', '=', pay.id).executeTakeFirst();
      if (existing) {
        if (existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze betaling hoort bij een ander restaurant.');
        return { payload: { payment: pay } };
      }
      const merging = ctx.side === 'cloud' && ctx.mode === 'merge';
      if (merging) {
        await assertTenantRef(trx, 'users', pay.created_by, change.tenant_id, 'De medewerker van deze betaling', ctx.batch);
        await assertNotForeign(trx, 'orders', pay.order_id, change.tenant_id, 'De bestelling van deze betaling');
      }
      const row: OrderPaymentsTable = { ...pay, tenant_id: change.tenant_id };
      await insertIfAbsent(trx, 'order_payments', row as OrderPaymentsTable & Record<string, unknown>);
      if (!merging) return { payload: { payment: pay } };
      // Over-paid? The order as it stands here (the batch's pending orders written first).
      await flushPendingOrders(trx, ctx);
      const order = await trx.selectFrom('orders').select(['number', 'total_cents']).where('id', '=', pay.order_id).executeTakeFirst();
      const paid = await tillPaidOf(trx, pay.order_id);
      if (order && paid > Number(order.total_cents)) return { payload: { payment: pay }, conflict: overpaidNote(order.number, paid - Number(order.total_cents)) };
      return { payload: { payment: pay } };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('order_payments').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map(({ tenant_id: _t, ...payment }) => ({ entity: ORDER_PAYMENT_ENTITY, entity_id: payment.id, kind: 'order_payment.snapshot', payload: { payment }, created_at: payment.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
  {
    entity: RECEIPT_ENTITY,
    merge: 'ledger',
    echo: 'skip-equal',
    tables: ['receipts'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'receipt.issued' && change.kind !== 'receipt.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const r = parsePayload(ReceiptWire, (change.payload as { receipt?: unknown } | null)?.receipt, 'een bon', ctx);
      if (r.id !== change.entity_id || r.number !== `${r.series}-${String(r.seq).padStart(6, '0')}`) throw new RejectOp('Ongeldige bon.');
      const store = await receiptStore.of(trx, ctx, change.tenant_id);
      const clash = await store.clashes(r);
      const same = clash.find((c) => c.id === r.id);
      if (same) {
        if (same.tenant_id !== change.tenant_id) throw new RejectOp('Deze bon hoort bij een ander restaurant.');
        return;
      }
      if (clash.length > 0) throw new RejectOp(`Bonnummer ${r.number} is al gegeven aan een andere bon; deze bon is niet overgenomen.`);
      if (ctx.side === 'cloud' && ctx.mode === 'merge') {
        // Refused only when the order or bill is another restaurant's (the same push may make it later).
        for (const [table, id, what] of [['orders', r.order_id, 'De bestelling van deze bon'], ['bills', r.bill_id, 'De rekening van deze bon']] as const) {
          const owner = await store.ownerOf(table, id);
          if (owner !== undefined && owner !== change.tenant_id) throw new RejectOp(`${what} hoort bij een ander restaurant.`);
        }
      }
      await store.add({ ...r, tenant_id: change.tenant_id });
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('receipts').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map(({ tenant_id: _t, ...receipt }) => ({ entity: RECEIPT_ENTITY, entity_id: receipt.id, kind: 'receipt.snapshot', payload: { receipt }, created_at: receipt.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
