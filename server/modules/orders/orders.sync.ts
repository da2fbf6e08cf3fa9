import { z } from 'zod';
import type { Tx } from '../../db/connection.js';
import { CompiledQuery, sql } from 'kysely';
import { bulkUpdateById, insertRows, isPostgres } from '../../db/bulk.js';
import type { OrderCourseFiresTable, OrderDiscountsTable, OrderItemsTable, OrderItemVoidsTable, OrdersTable, OrderStatusHistoryTable } from '../../db/database.js';
import { assertTenantRefs, insertIfAbsent, insertManyIfAbsent, parsePayload, pushedPayload } from '../../../sync/apply-helpers.js';
import { defineBatchStore, preloadTenantRefs } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type ApplyContext, type BatchState, type EntityDescriptor, type SyncChange, type TableName } from '../../../sync/types.js';
import { Allergen, CreateProductBody } from '../menu/menu.schemas.js';
import { toOrderDto } from './orders.service.js';
import { DISCOUNT_KINDS, orderFigures } from '../till/till.rules.js';
import { isFinal, STATUS_RANK, transition } from './orders.rules.js';
import { CreateOrderBody, IdempotencyKey, ORDER_SOURCES, OrderSource, OrderStatus, type Order } from './orders.schemas.js';

interface CreatedPayload {
  order: Order;
  history?: OrderStatusHistoryTable;
  business_day: string;
  origin: string;
  idempotency_key: string | null;
  request_hash?: string | null;
  created_by?: string | null;
}
interface StatusPayload {
  order: Order;
  from?: OrderStatus;
  to: OrderStatus;
  history?: OrderStatusHistoryTable;
}

const isStatus = (s: unknown): s is OrderStatus => typeof s === 'string' && s in STATUS_RANK;

/*
 * What a device may push for an order (issue 17): the API's own rules (orders.schemas.ts,
 * menu.schemas.ts), plus what the API guarantees by construction: a new order is 'new' and open, each
 * line's total is its price times its quantity, the order's total their sum, line ids unique.
 */
const Timestamp = z.iso.datetime({ offset: true });
const NewItem = CreateOrderBody.shape.items.element.shape;
const PushedItem = z
  .object({
    id: z.uuid(),
    product_id: NewItem.product_id,
    name: CreateProductBody.shape.name,
    quantity: NewItem.quantity,
    unit_price_cents: z.number().int().min(0).max(100_000_000),
    total_cents: z.number().int().min(0),
    notes: NewItem.notes.unwrap().nullable(),
    // Menu depth (0020): what was chosen, as sold; older appliances send none of these.
    modifiers: z
      .array(
        z.object({
          option_id: z.uuid(),
          group_id: z.uuid(),
          group_name: z.string().trim().min(1).max(80),
          name: z.string().trim().min(1).max(80),
          price_delta_cents: z.number().int().min(-100_000).max(100_000),
          quantity: z.number().int().min(1).max(10),
        }),
      )
      .max(30)
      .default([]),
    seat: NewItem.seat.unwrap().nullable().default(null),
    course: NewItem.course.unwrap().default(1),
    allergens: z.array(Allergen).max(14).default([]),
    voided_quantity: z.literal(0).default(0),
    held: z.boolean().optional(),
    fired_at: Timestamp.nullable().optional(),
    // The till (0025): the rate it was sold at; an older node sends none (9, the default rate).
    vat_rate: z.number().int().min(0).max(100).optional(),
  })
  .refine((i) => i.total_cents === i.unit_price_cents * i.quantity, { message: 'moet gelijk zijn aan de prijs maal het aantal.', path: ['total_cents'] });
const Customer = CreateOrderBody.shape.customer.unwrap().shape;
const PushedOrder = z.object({
  id: z.uuid(),
  number: z.string().regex(/^[A-Za-z0-9-]{1,40}$/, { message: 'moet een bestelnummer zijn, bijvoorbeeld K-017.' }),
  status: z.literal('new'),
  source: OrderSource,
  table_id: z.uuid().nullable(),
  customer: z.object({ name: Customer.name.unwrap().nullable(), phone: Customer.phone.unwrap().nullable() }).nullable(),
  notes: CreateOrderBody.shape.notes.unwrap().nullable(),
  items: z.array(PushedItem).min(1).max(100),
  total_cents: z.number().int().min(0),
  payment_status: z.literal('open'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const PushedHistory = z.object({
  id: z.uuid(),
  from_status: OrderStatus.nullable(),
  to_status: OrderStatus,
  user_id: z.uuid().nullable(),
  source: z.enum([...ORDER_SOURCES, 'sync']),
  created_at: Timestamp,
});
const PushedCreated = pushedPayload('order.created', z.object({
  order: PushedOrder.superRefine((o, c) => {
    if (o.total_cents !== o.items.reduce((sum, i) => sum + i.total_cents, 0)) c.addIssue({ code: 'custom', message: 'moet de som van de regels zijn.', path: ['total_cents'] });
    if (new Set(o.items.map((i) => i.id)).size !== o.items.length) c.addIssue({ code: 'custom', message: 'bevat een regel-id twee keer.', path: ['items'] });
  }),
  history: PushedHistory.extend({ from_status: z.null(), to_status: z.literal('new') }).optional(),
  business_day: z.iso.date(),
  origin: z.string().min(1).max(64),
  idempotency_key: IdempotencyKey.nullable().optional(),
  request_hash: z.string().regex(/^[0-9a-f]{64}$/).nullable().optional(),
  created_by: z.uuid().nullable().optional(),
}));
const PushedStatus = pushedPayload('order.status_changed', z.object({ from: OrderStatus.optional(), to: OrderStatus, history: PushedHistory.optional() }).refine((p) => !p.history || p.history.to_status === p.to, {
  message: 'moet dezelfde status hebben als de wijziging.',
  path: ['history', 'to_status'],
}));
const PushedPaid = pushedPayload('order.paid', z.object({
  payment: z
    .object({
      provider: z.string().trim().min(1).max(40).optional(),
      payment_id: z.string().trim().min(1).max(200).optional(),
      amount_cents: z.number().int().min(0).max(100_000_000).optional(),
      by: z.uuid().nullable().optional(),
      via: z.enum([...ORDER_SOURCES, 'sync']).optional(),
    })
    .optional(),
}));

/** Every id must be a row of `table` of this tenant (archived rows count: an order taken offline may name a product archived since). */
const assertRefs = (trx: Tx, ctx: ApplyContext, table: TableName, ids: Array<string | null | undefined>, what: string) => assertTenantRefs(trx, table, ids, ctx.tenantId, what, ctx.batch);

/** The products, staff and tables the batch's order ops name, read once per batch (one statement for the three tables). */
function namedRefs(changes: ReadonlyArray<SyncChange>): { products: Set<string>; users: Set<string>; floor_tables: Set<string> } {
  const refs = { products: new Set<string>(), users: new Set<string>(), floor_tables: new Set<string>() };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  for (const c of changes) {
    if (c.entity !== 'order' || !c.payload || typeof c.payload !== 'object') continue;
    const p = c.payload as { order?: { items?: unknown; table_id?: unknown }; created_by?: unknown; history?: { user_id?: unknown }; payment?: { by?: unknown } };
    for (const u of [str(p.created_by), str(p.history?.user_id), str(p.payment?.by)]) if (u) refs.users.add(u);
    if (c.kind !== 'order.created') continue;
    const t = str(p.order?.table_id);
    if (t) refs.floor_tables.add(t);
    if (Array.isArray(p.order?.items)) for (const i of p.order.items as Array<{ product_id?: unknown }>) if (str(i?.product_id)) refs.products.add(i.product_id as string);
  }
  return refs;
}

/** Nothing to hold: the batch's reference cache (`assertTenantRefs`) is filled once by the prefetch. */
const refsPreload = defineBatchStore<object, BatchState>({
  key: 'orders-refs',
  direct: () => ({}),
  create: () => ({ flush: async () => {} }),
  prefetch: (_, s) => preloadTenantRefs(s.trx, s.tenantId, s.batch, namedRefs(s.changes)).then(() => undefined),
});

/**
 * A device's order op validated like an API request; returns the payload to use instead (unknown
 * fields dropped, strings trimmed as the API trims them). Throws RejectOp before anything is changed.
 */
async function validatePushed(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<Record<string, unknown>> {
  const p = change.payload as Record<string, unknown>;
  await refsPreload.of(trx, ctx);
  if (change.kind === 'order.created') {
    const c = parsePayload(PushedCreated, p, 'een bestelling');
    if (c.order.id !== change.entity_id) throw new RejectOp('Ongeldige bestelling.');
    await assertRefs(trx, ctx, 'products', c.order.items.map((i) => i.product_id), 'Een product van deze bestelling');
    await assertRefs(trx, ctx, 'floor_tables', [c.order.table_id], 'De tafel van deze bestelling');
    await assertRefs(trx, ctx, 'users', [c.created_by, c.history?.user_id], 'De medewerker van deze bestelling');
    return { ...c, origin: change.origin };
  }
  if (change.kind === 'order.status_changed') {
    const st = parsePayload(PushedStatus, p, 'een bestelstatus');
    await assertRefs(trx, ctx, 'users', [st.history?.user_id], 'De medewerker van deze statuswijziging');
    return { ...st, order: p.order };
  }
  if (change.kind === 'order.paid') {
    const paid = parsePayload(PushedPaid, p, 'een betaling');
    await assertRefs(trx, ctx, 'users', [paid.payment?.by], 'De medewerker van deze betaling');
    return { ...paid, order: p.order };
  }
  if (change.kind === 'order.course_fired') {
    const f = parsePayload(PushedFire, p, 'een gang');
    await assertRefs(trx, ctx, 'users', [f.fire.user_id], 'De medewerker van deze gang');
    return { ...f, order: p.order };
  }
  if (change.kind === 'order.item_voided') {
    const v = parsePayload(PushedVoid, p, 'een annulering');
    await assertRefs(trx, ctx, 'users', [v.void.user_id], 'De medewerker van deze annulering');
    return { ...v, order: p.order };
  }
  if (change.kind === 'order.discounted') {
    const d = parsePayload(PushedDiscount, p, 'een korting');
    if (d.discount.order_id !== change.entity_id) throw new RejectOp('Ongeldige korting.');
    await assertRefs(trx, ctx, 'users', [d.discount.user_id], 'De medewerker van deze korting');
    await assertNotForeign(trx, 'loyalty_customers', d.discount.customer_id, change.tenant_id, 'De klant van deze korting');
    return { ...d, order: p.order };
  }
  if (change.kind === 'order.customer_attached') {
    const c = parsePayload(PushedCustomer, p, 'een klant');
    await assertNotForeign(trx, 'loyalty_customers', c.customer_id, change.tenant_id, 'De klant van deze bestelling');
    return { ...c, order: p.order };
  }
  throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
}

/**
 * An order's state as recorded with its op (`toOrderDto`), its lines and VAT summary made once per
 * items array: a status or payment op leaves the lines as they are, and inside a batch every op of
 * an order sees the one items array its store holds (`OrdersBatch`), so a chunk builds an order's
 * lines once instead of once per op (the new order's, then each move's). Valid for the
 * `discount_cents` the VAT was spread with; items arrays are never changed in place. The state is
 * the same object, key for key, as `toOrderDto(row, items)`.
 */
const statesOfLines = new WeakMap<OrderItemsTable[], { discountCents: number; items: Order['items']; vat: Order['vat'] }>();
const NO_LINES: OrderItemsTable[] = [];
function orderState(row: OrdersTable, items: OrderItemsTable[]): Order {
  const discountCents = row.discount_cents ?? 0;
  const known = statesOfLines.get(items);
  if (known && known.discountCents === discountCents) return { ...toOrderDto(row, NO_LINES), items: known.items, vat: known.vat };
  const order = toOrderDto(row, items);
  statesOfLines.set(items, { discountCents, items: order.items, vat: order.vat });
  return order;
}

const itemTaken = () => new RejectOp('Een bestelregel van deze bestelling bestaat al (hetzelfde id); de bestelling is niet overgenomen.');

async function snapshot(store: OrderStore, orderId: string): Promise<Order> {
  const found = await store.get(orderId);
  if (!found) throw new Error(`order ${orderId} not found`);
  return orderState(found.row, found.items);
}

type Loaded = { row: OrdersTable; items: OrderItemsTable[] };

/** The order row and its items (by position) in one statement (a left join), or undefined. */
async function loadOrder(trx: Tx, orderId: string): Promise<Loaded | undefined> {
  return (await loadOrders(trx, [orderId])).get(orderId);
}

/** Orders with their items (by position), in one statement per 200 ids (a left join). */
async function loadOrders(trx: Tx, orderIds: string[]): Promise<Map<string, Loaded>> {
  const out = new Map<string, Loaded>();
  for (let i = 0; i < orderIds.length; i += 200) {
    for (const [id, loaded] of await loadOrderSlice(trx, orderIds.slice(i, i + 200))) out.set(id, loaded);
  }
  return out;
}

async function loadOrderSlice(trx: Tx, orderIds: string[]): Promise<Map<string, Loaded>> {
  const rows = await trx
    .selectFrom('orders')
    .leftJoin('order_items', 'order_items.order_id', 'orders.id')
    .selectAll('orders')
    .select([
      'order_items.id as i_id',
      'order_items.position as i_position',
      'order_items.product_id as i_product_id',
      'order_items.name as i_name',
      'order_items.quantity as i_quantity',
      'order_items.unit_price_cents as i_unit_price_cents',
      'order_items.total_cents as i_total_cents',
      'order_items.notes as i_notes',
      'order_items.modifiers as i_modifiers',
      'order_items.allergens as i_allergens',
      'order_items.seat as i_seat',
      'order_items.course as i_course',
      'order_items.voided_quantity as i_voided_quantity',
      'order_items.fired_at as i_fired_at',
      'order_items.vat_rate as i_vat_rate',
    ])
    .where('orders.id', orderIds.length === 1 ? '=' : 'in', orderIds.length === 1 ? orderIds[0]! : orderIds)
    .orderBy('orders.id')
    .orderBy('order_items.position')
    .execute();
  const out = new Map<string, Loaded>();
  for (const r of rows) {
    const { i_id, i_position, i_product_id, i_name, i_quantity, i_unit_price_cents, i_total_cents, i_notes, i_modifiers, i_allergens, i_seat, i_course, i_voided_quantity, i_fired_at, i_vat_rate, ...row } = r;
    let loaded = out.get(row.id);
    if (!loaded) out.set(row.id, (loaded = { row, items: [] }));
    if (i_id === null) continue;
    loaded.items.push({
      id: i_id,
      tenant_id: row.tenant_id,
      order_id: row.id,
      position: i_position!,
      product_id: i_product_id!,
      name: i_name!,
      quantity: i_quantity!,
      unit_price_cents: i_unit_price_cents!,
      total_cents: i_total_cents!,
      notes: i_notes ?? null,
      modifiers: i_modifiers ?? '[]',
      allergens: i_allergens ?? '[]',
      seat: i_seat ?? null,
      course: i_course ?? 1,
      voided_quantity: i_voided_quantity ?? 0,
      fired_at: i_fired_at ?? null,
      vat_rate: i_vat_rate ?? 9,
    });
  }
  return out;
}

type Claim = Pick<OrdersTable, 'id' | 'tenant_id' | 'business_day' | 'number' | 'idempotency_key'>;

/**
 * What stands in the way of creating order `id` with this number and key: the order itself (applied
 * before), and whether another order of the tenant holds the number or the key. One statement.
 */
const readClaims = (trx: Tx, tenantId: string, id: string, day: string, number: string, key: string | null): Promise<Claim[]> => readClaimsMany(trx, tenantId, [{ id, day, number, key }]);

/** `readClaims` for many new orders of one tenant at once (a batch's prefetch): a superset, filtered per order by `claimsOf`. */
async function readClaimsMany(trx: Tx, tenantId: string, wanted: ReadonlyArray<{ id: string; day: string; number: string; key: string | null }>): Promise<Claim[]> {
  if (isPostgres(trx)) return readClaimsKeyed(trx, tenantId, wanted);
  const out: Claim[] = [];
  for (let i = 0; i < wanted.length; i += 300) {
    const slice = wanted.slice(i, i + 300);
    const ids = slice.map((w) => w.id);
    const days = [...new Set(slice.map((w) => w.day))];
    const numbers = [...new Set(slice.map((w) => w.number))];
    const keys = [...new Set(slice.map((w) => w.key).filter((k): k is string => k !== null))];
    out.push(
      ...(await trx
        .selectFrom('orders')
        .select(['id', 'tenant_id', 'business_day', 'number', 'idempotency_key'])
        .where((eb) =>
          eb.or([
            eb('id', 'in', ids),
            eb.and([eb('tenant_id', '=', tenantId), eb('business_day', 'in', days), eb('number', 'in', numbers)]),
            ...(keys.length ? [eb.and([eb('tenant_id', '=', tenantId), eb('idempotency_key', 'in', keys)])] : []),
          ]),
        )
        .execute()),
    );
  }
  return out;
}

/**
 * `readClaimsMany` on PostgreSQL: each new order's three claims looked up on their own, in one
 * statement (the wanted orders in four array parameters, `cross join lateral (… offset 0)` as
 * server/db/bulk.ts `selectByKeys`): the order by its id, the holder of its number on its day
 * (index `orders_number`) and of its idempotency key (`orders_idempotency`). The `or` of the three
 * `in (…)` lists was a seq scan of the whole `orders` table per chunk, with or without statistics
 * (≈ 18 ms at 14,000 orders, growing with the table; bench/README.md "Sync push, session 14").
 * Exactly the rows `claimsOf` keeps for each wanted order (a row may come twice).
 */
async function readClaimsKeyed(trx: Tx, tenantId: string, wanted: ReadonlyArray<{ id: string; day: string; number: string; key: string | null }>): Promise<Claim[]> {
  if (wanted.length === 0) return [];
  const cols = 'id, tenant_id, business_day, number, idempotency_key';
  const text = `select t.* from unnest($2::text[], $3::text[], $4::text[], $5::text[]) as u(id, day, number, key) cross join lateral (
      select ${cols} from orders where id = u.id
      union all select ${cols} from orders where tenant_id = $1 and business_day = u.day and number = u.number
      union all select ${cols} from orders where tenant_id = $1 and idempotency_key = u.key
      offset 0) as t`;
  const res = await trx.executeQuery<Claim>(
    CompiledQuery.raw(text, [tenantId, wanted.map((w) => w.id), wanted.map((w) => w.day), wanted.map((w) => w.number), wanted.map((w) => w.key)]),
  );
  return res.rows;
}

/** What `readClaims` would have answered, out of a superset of rows. */
const claimsOf = (rows: Claim[], tenantId: string, id: string, day: string, number: string, key: string | null) =>
  rows.filter((c) => c.id === id || (c.tenant_id === tenantId && ((c.business_day === day && c.number === number) || (key !== null && c.idempotency_key === key))));

interface Clashes {
  existing?: Pick<OrdersTable, 'tenant_id' | 'number' | 'idempotency_key'>;
  /** The other order of the tenant holding this number on this day, or this idempotency key. */
  numberHolder?: string;
  keyHolder?: string;
}

/**
 * Where the descriptor reads and writes orders: straight to the database (`directStore`), or,
 * inside a batch (`ctx.batch`), through `OrdersBatch`, which reads each order once per batch and
 * writes it once at the end: a new order is inserted in its final state, a known one gets one
 * update with everything the batch changed.
 */
interface OrderStore {
  get(id: string): Promise<Loaded | undefined>;
  clashes(tenantId: string, id: string, day: string, number: string, key: string | null): Promise<Clashes>;
  insert(row: OrdersTable, items: OrderItemsTable[]): Promise<void>;
  /** `get(id)` must have found the order in this store first. */
  update(id: string, patch: Partial<OrdersTable>): Promise<void>;
}

function clashesOf(claims: Claim[], tenantId: string, id: string, day: string, number: string, key: string | null, stale: (c: Claim) => boolean = () => false): Clashes {
  const existing = claims.find((c) => c.id === id);
  const others = claims.filter((c) => c.id !== id && c.tenant_id === tenantId && !stale(c));
  const numberHolder = others.find((c) => c.business_day === day && c.number === number)?.id;
  const keyHolder = key === null ? undefined : others.find((c) => c.idempotency_key === key)?.id;
  return { ...(existing ? { existing } : {}), ...(numberHolder ? { numberHolder } : {}), ...(keyHolder ? { keyHolder } : {}) };
}

/**
 * `strict` (the cloud applying a device's op): a new order whose line id already exists anywhere is
 * refused as a whole (issue 17: it used to be answered "applied" with those lines silently skipped).
 * The appliance adopting the cloud's state is never strict.
 */
const directStore = (trx: Tx, strict = false): OrderStore => ({
  get: (id) => loadOrder(trx, id),
  async clashes(tenantId, id, day, number, key) {
    return clashesOf(await readClaims(trx, tenantId, id, day, number, key), tenantId, id, day, number, key);
  },
  async insert(row, items) {
    if (strict && items.length > 0 && (await trx.selectFrom('order_items').select('id').where('id', 'in', items.map((i) => i.id)).limit(1).execute()).length > 0) {
      throw itemTaken();
    }
    await trx.insertInto('orders').values(row).execute();
    await insertManyIfAbsent(trx, 'order_items', items as Array<OrderItemsTable & Record<string, unknown>>);
  },
  async update(id, patch) {
    await trx.updateTable('orders').set(patch).where('id', '=', id).execute();
  },
});

const numberKey = (r: Pick<OrdersTable, 'tenant_id' | 'business_day' | 'number'>) => `${r.tenant_id}\u0000${r.business_day}\u0000${r.number}`;
const idemKey = (r: Pick<OrdersTable, 'tenant_id' | 'idempotency_key'>) => (r.idempotency_key === null ? null : `${r.tenant_id}\u0000${r.idempotency_key}`);

/** The batch form of the store (see OrderStore): one read per order per batch, one write per order at the flush. */
class OrdersBatch implements OrderStore, BatchState {
  private readonly entries = new Map<string, Loaded & { isNew: boolean; patch: Partial<OrdersTable> }>();
  /** Number and idempotency key → the cached order holding it now (the database may still show an older holder). */
  private readonly numbers = new Map<string, string>();
  private readonly keys = new Map<string, string>();

  /** The batch's prefetch (see `prefetch`): database rows, at the batch's start, that may claim the number or key of one of its new orders. */
  private claims: Claim[] = [];
  /** New orders of the batch whose claims are in `claims`. */
  private readonly covered = new Set<string>();

  constructor(
    private readonly trx: Tx,
    /** See directStore: a line id that exists already fails the flush, and the chunk is applied again op by op. */
    private readonly strict = false,
    /** The batch's changes (ApplyBatch.changes) and tenant, for the prefetch. */
    private readonly upcoming: ReadonlyArray<SyncChange> = [],
    private readonly tenantId = '',
  ) {}

  /**
   * Once, at first use: what the batch's order changes will read, in a few statements instead of
   * one or two per op: the claims on the numbers and keys of its new orders, and the orders its
   * status and payment changes move (with their items). The batch writes orders only at its flush,
   * so the database shows these rows as they were at its start all along; later ops see earlier
   * ops' work through `entries`, as without the prefetch.
   */
  async prefetch(): Promise<void> {
    const creates: Array<{ id: string; day: string; number: string; key: string | null }> = [];
    const moved = new Set<string>();
    for (const c of this.upcoming) {
      if (c.entity !== 'order' || c.tenant_id !== this.tenantId) continue;
      const p = c.payload as Partial<CreatedPayload> | null;
      if (c.kind === 'order.created' || c.kind === 'order.snapshot') {
        const o = p?.order;
        if (o && typeof o.id === 'string' && o.id === c.entity_id && typeof o.number === 'string' && typeof p.business_day === 'string') {
          creates.push({ id: o.id, day: p.business_day, number: o.number, key: typeof p.idempotency_key === 'string' ? p.idempotency_key : null });
        }
      } else if (c.kind === 'order.status_changed' || c.kind === 'order.paid') moved.add(c.entity_id);
    }
    if (creates.length > 0) {
      this.claims = await readClaimsMany(this.trx, this.tenantId, creates);
      for (const w of creates) this.covered.add(w.id);
    }
    for (const w of creates) moved.delete(w.id);
    const wanted = [...moved].filter((id) => !this.entries.has(id));
    if (wanted.length === 0) return;
    for (const [id, found] of await loadOrders(this.trx, wanted)) {
      if (this.entries.has(id)) continue;
      this.entries.set(id, { ...found, isNew: false, patch: {} });
      this.index(found.row);
    }
  }

  private index(row: OrdersTable): void {
    this.numbers.set(numberKey(row), row.id);
    const k = idemKey(row);
    if (k) this.keys.set(k, row.id);
  }

  private unindex(row: OrdersTable): void {
    if (this.numbers.get(numberKey(row)) === row.id) this.numbers.delete(numberKey(row));
    const k = idemKey(row);
    if (k && this.keys.get(k) === row.id) this.keys.delete(k);
  }

  async get(id: string): Promise<Loaded | undefined> {
    const cached = this.entries.get(id);
    if (cached) return cached;
    const found = await loadOrder(this.trx, id);
    if (found) {
      this.entries.set(id, { ...found, isNew: false, patch: {} });
      this.index(found.row);
    }
    return found;
  }

  async clashes(tenantId: string, id: string, day: string, number: string, key: string | null): Promise<Clashes> {
    const cached = this.entries.get(id);
    if (cached) return { existing: cached.row };
    const claims = this.covered.has(id) && tenantId === this.tenantId ? claimsOf(this.claims, tenantId, id, day, number, key) : await readClaims(this.trx, tenantId, id, day, number, key);
    // A database row whose order this batch already changed speaks for its old values only.
    const stale = (c: Claim) => {
      const e = this.entries.get(c.id);
      return e !== undefined && (e.row.number !== c.number || e.row.business_day !== c.business_day || e.row.idempotency_key !== c.idempotency_key);
    };
    const found = clashesOf(claims, tenantId, id, day, number, key, stale);
    const numberHolder = found.numberHolder ?? this.numbers.get(numberKey({ tenant_id: tenantId, business_day: day, number }));
    const keyHolder = found.keyHolder ?? (key === null ? undefined : this.keys.get(`${tenantId}\u0000${key}`));
    return { ...found, ...(numberHolder && numberHolder !== id ? { numberHolder } : {}), ...(keyHolder && keyHolder !== id ? { keyHolder } : {}) };
  }

  async insert(row: OrdersTable, items: OrderItemsTable[]): Promise<void> {
    this.entries.set(row.id, { row: { ...row }, items, isNew: true, patch: {} });
    this.index(row);
  }

  async update(id: string, patch: Partial<OrdersTable>): Promise<void> {
    const e = this.entries.get(id);
    if (!e) throw new Error(`order ${id} is not in this batch`);
    this.unindex(e.row);
    Object.assign(e.row, patch);
    if (!e.isNew) Object.assign(e.patch, patch);
    this.index(e.row);
  }

  async flush(trx: Tx): Promise<void> {
    const fresh: OrdersTable[] = [];
    const items: OrderItemsTable[] = [];
    const moved: Array<{ id: string } & Partial<OrdersTable>> = [];
    // Known orders first: a number one of them gives up may be the number of a new one.
    for (const e of this.entries.values()) {
      if (e.isNew) {
        fresh.push(e.row);
        items.push(...e.items);
      } else if ('number' in e.patch || 'idempotency_key' in e.patch) {
        // One by one, in order (a number or key handed from one order to another).
        await trx.updateTable('orders').set(e.patch).where('id', '=', e.row.id).execute();
      } else if (Object.keys(e.patch).length > 0) moved.push({ ...e.patch, id: e.row.id });
    }
    // Status and payment moves of the chunk's known orders: one statement per set of columns (server/db/bulk.ts).
    await bulkUpdateById(trx, 'orders', moved);
    // Multi-row inserts written without Kysely's builder (server/db/bulk.ts insertRows; rows of another shape fall back to it).
    await insertRows(trx, 'orders', fresh as Array<OrdersTable & Record<string, unknown>>);
    const inserted = await insertManyIfAbsent(trx, 'order_items', items as Array<OrderItemsTable & Record<string, unknown>>);
    if (this.strict && inserted !== items.length) throw new Error('sync: an order line id of this batch exists already');
    this.entries.clear();
    this.numbers.clear();
    this.keys.clear();
  }
}

const strictOf = (ctx: ApplyContext) => ctx.side === 'cloud' && ctx.mode === 'merge';
/** The batch's orders are its tenant's (ctx.tenantId); every change of a batch uses the one batch form. */
const orderStore = defineBatchStore<OrderStore, OrdersBatch>({
  key: 'orders',
  direct: (trx, ctx) => directStore(trx, strictOf(ctx)),
  create: (s) => new OrdersBatch(s.trx, strictOf(s.ctx), s.changes, s.tenantId),
  prefetch: (b) => b.prefetch(),
});

async function addHistory(trx: Tx, change: SyncChange, h: OrderStatusHistoryTable | undefined, ctx: ApplyContext): Promise<void> {
  if (!h || typeof h.id !== 'string' || !isStatus(h.to_status)) return;
  const row = { ...h, tenant_id: change.tenant_id, order_id: change.entity_id } as OrderStatusHistoryTable & Record<string, unknown>;
  // A ledger no apply reads back: a batch writes its rows together.
  if (ctx.deferLedger) ctx.deferLedger('order_status_history', row);
  else await insertIfAbsent(trx, 'order_status_history', row);
}

async function applyCreated(trx: Tx, store: OrderStore, change: SyncChange, ctx: ApplyContext): Promise<{ conflict?: string; idempotency_key?: string | null; order?: Order; inserted?: true }> {
  const p = change.payload as CreatedPayload;
  const o = p?.order;
  if (!o || o.id !== change.entity_id || !Array.isArray(o.items) || typeof o.number !== 'string' || typeof p.business_day !== 'string') {
    throw new RejectOp('Ongeldige bestelling.');
  }
  let key = p.idempotency_key ?? null;
  const clashes = await store.clashes(change.tenant_id, o.id, p.business_day, o.number, key);
  const { existing } = clashes;
  if (existing) {
    if (existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze bestelling hoort bij een ander restaurant.');
    // Applied before: ids are born once, where the order was taken. When adopting, take the
    // number and key the cloud settled on (it renames an order whose number was already taken).
    if (ctx.mode === 'adopt' && (existing.number !== o.number || existing.idempotency_key !== key)) {
      await store.get(o.id);
      await store.update(o.id, { number: o.number, idempotency_key: key });
    }
    return {};
  }
  const notes: string[] = [];
  // Numbers come from per-origin sequences and collide only when two appliances of one tenant share
  // a prefix: the cloud keeps both orders and gives the later one the distinct number
  // `<number>-<last 4 of its id>`. An appliance adopting the cloud's order moves its own holder of
  // that number to exactly the name the cloud gives (or gave) it; likewise the key stays with the
  // order the cloud saw first.
  let number = o.number;
  if (clashes.numberHolder) {
    const suffixed = (n: string, id: string) => `${n}-${id.slice(-4)}`;
    if (ctx.mode === 'adopt') {
      await store.get(clashes.numberHolder);
      await store.update(clashes.numberHolder, { number: suffixed(o.number, clashes.numberHolder) });
    } else {
      number = suffixed(o.number, o.id);
      notes.push(`Bestelnummer ${o.number} bestond al op ${p.business_day}; deze bestelling heet nu ${number}.`);
    }
  }
  if (key && clashes.keyHolder) {
    if (ctx.mode === 'adopt') {
      await store.get(clashes.keyHolder);
      await store.update(clashes.keyHolder, { idempotency_key: null, request_hash: null });
    } else {
      key = null;
      notes.push('De idempotency-sleutel van deze bestelling was al gebruikt voor een andere bestelling.');
    }
  }
  const row: OrdersTable = {
    id: o.id,
    tenant_id: change.tenant_id,
    number,
    business_day: p.business_day,
    origin: p.origin ?? change.origin,
    status: isStatus(o.status) ? o.status : 'new',
    source: o.source,
    table_id: o.table_id ?? null,
    customer_name: o.customer?.name ?? null,
    customer_phone: o.customer?.phone ?? null,
    notes: o.notes ?? null,
    total_cents: o.total_cents,
    payment_status: o.payment_status === 'paid' ? 'paid' : 'open',
    idempotency_key: key,
    request_hash: key ? (p.request_hash ?? null) : null,
    created_by: p.created_by ?? null,
    created_at: o.created_at,
    updated_at: o.updated_at,
    // A snapshot (adopting) carries the till's columns (0025); a pushed new order has no discounts and no loyalty guest yet.
    discount_cents: ctx.mode === 'adopt' && typeof o.discount_cents === 'number' ? o.discount_cents : 0,
    customer_id: ctx.mode === 'adopt' && typeof (p as { customer_id?: unknown }).customer_id === 'string' ? ((p as { customer_id?: string }).customer_id ?? null) : null,
  };
  const items: OrderItemsTable[] = o.items.map((i, position) => ({
    id: i.id,
    tenant_id: change.tenant_id,
    order_id: o.id,
    position,
    product_id: i.product_id,
    name: i.name,
    quantity: i.quantity,
    unit_price_cents: i.unit_price_cents,
    total_cents: i.total_cents,
    notes: i.notes ?? null,
    modifiers: JSON.stringify(Array.isArray(i.modifiers) ? i.modifiers : []),
    allergens: JSON.stringify(Array.isArray(i.allergens) ? i.allergens : []),
    seat: typeof i.seat === 'number' ? i.seat : null,
    course: typeof i.course === 'number' ? i.course : 1,
    voided_quantity: typeof i.voided_quantity === 'number' ? i.voided_quantity : 0,
    // An older appliance's line has no fired_at: it went to the kitchen with the order.
    fired_at: typeof i.fired_at === 'string' ? i.fired_at : i.held === true ? null : o.created_at,
    vat_rate: typeof i.vat_rate === 'number' ? i.vat_rate : 9,
  }));
  await store.insert(row, items);
  await addHistory(trx, change, p.history, ctx);
  // Just inserted: the resulting state is these rows (items by position), no need to read them back.
  // Only the cloud records it (an appliance never reads an apply's answer).
  const order = ctx.side === 'cloud' ? orderState(row, items) : undefined;
  return notes.length ? { conflict: notes.join(' '), idempotency_key: key, order, inserted: true } : { order, inserted: true };
}

const PushedFire = pushedPayload('order.course_fired', z.object({
  fire: z.object({ id: z.uuid(), course: z.number().int().min(2).max(5), user_id: z.uuid().nullable(), created_at: Timestamp }),
}));
const PushedVoid = pushedPayload('order.item_voided', z.object({
  void: z.object({
    id: z.uuid(),
    item_id: z.uuid(),
    quantity: z.number().int().min(1).max(999),
    reason: z.string().trim().min(1).max(200),
    user_id: z.uuid().nullable(),
    created_at: Timestamp,
  }),
}));

/** A discount given at the till (CONTRACT §19): the row as written (its tenant is the change's). */
const PushedDiscount = pushedPayload('order.discounted', z.object({
  discount: z.object({
    id: z.uuid(),
    order_id: z.uuid(),
    item_id: z.uuid().nullable(),
    kind: z.enum(DISCOUNT_KINDS),
    value: z.number().int().min(1).max(10_000_000).nullable(),
    amount_cents: z.number().int().min(1).max(100_000_000),
    points: z.number().int().min(1).max(10_000_000).nullable(),
    customer_id: z.uuid().nullable(),
    loyalty_transaction_id: z.string().min(1).max(100).nullable(),
    reason: z.string().trim().min(1).max(200),
    user_id: z.uuid().nullable(),
    created_at: Timestamp,
  }),
}));
/** A guest attached at the till: the loyalty customer and the order's resulting name and phone. */
const PushedCustomer = pushedPayload('order.customer_attached', z.object({
  customer_id: z.uuid(),
  order: z.looseObject({ customer: z.object({ name: z.string().trim().min(1).max(120).nullable(), phone: z.string().trim().min(6).max(30).nullable() }) }),
}));

/**
 * An id inside a pushed payload that may name a row the same push makes later (a guest created with
 * the attach): refused only when it is a row of another restaurant (never a link across restaurants).
 */
async function assertNotForeign(trx: Tx, table: 'loyalty_customers' | 'orders' | 'bills', id: string | null, tenantId: string, what: string): Promise<void> {
  if (id === null) return;
  const row = await trx.selectFrom(table as 'orders').select('tenant_id').where('id', '=', id).executeTakeFirst();
  if (row && row.tenant_id !== tenantId) throw new RejectOp(`${what} hoort bij een ander restaurant.`);
}
export { assertNotForeign };

/** The order's `total_cents` and `discount_cents` from its lines (voids left out) and the union of its discounts (CONTRACT §19, as the service computes them). */
async function figuresFor(trx: Tx, orderId: string, items: ReadonlyArray<Pick<OrderItemsTable, 'id' | 'total_cents' | 'vat_rate'>>): Promise<{ total_cents: number; discount_cents: number; discounts: OrderDiscountsTable[] }> {
  const discounts = await trx.selectFrom('order_discounts').selectAll().where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute();
  const f = orderFigures(
    items.map((i) => ({ id: i.id, total_cents: i.total_cents, vat_rate: i.vat_rate })),
    discounts.map((d) => ({ item_id: d.item_id, amount_cents: d.amount_cents })),
  );
  return { total_cents: f.total_cents, discount_cents: f.discount_cents, discounts };
}

/** What the order's till payments (order_payments, a union across sync) add up to. */
export async function tillPaidOf(trx: Tx, orderId: string): Promise<number> {
  const r = await trx.selectFrom('order_payments').select((eb) => eb.fn.sum<number>('amount_cents').as('n')).where('order_id', '=', orderId).executeTakeFirst();
  return Number(r?.n ?? 0);
}

const euro = (cents: number): string => `€ ${(cents / 100).toFixed(2).replace('.', ',')}`;
/**
 * The note when the union of an order's till payments is more than its total after discounts (both
 * sides of an outage took money, or a discount arrived after it was paid): every payment is kept
 * (it is real money), and the op is answered as a visible `conflict` saying what to give back.
 */
export const overpaidNote = (number: string, over: number): string =>
  `Bestelling ${number} is ${euro(over)} te veel betaald (betalingen van beide kanten, of een korting na de betaling); alle betalingen zijn bewaard: geef ${euro(over)} terug.`;

/**
 * A discount or a guest at the till (CONTRACT §19), ops of the order. A discount is a ledger row
 * inserted once by its id; the order's `discount_cents` and `total_cents` are recomputed from the
 * union of its discounts (a discount given on both sides of an outage counts once each, never
 * below zero). The guest is last-writer-wins in cloud apply order (adopting: the cloud's).
 */
async function applyTill(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<{ order: Order; conflict?: string }> {
  const found = await loadOrder(trx, change.entity_id);
  if (!found || found.row.tenant_id !== change.tenant_id) throw new RejectOp('Bestelling niet gevonden.');
  const orderId = change.entity_id;
  const later = (a: string, b: string) => (a > b ? a : b);
  let conflict: string | undefined;
  if (change.kind === 'order.discounted') {
    const { discount: d } = parsePayload(PushedDiscount, change.payload, 'een korting');
    if (d.order_id !== orderId) throw new RejectOp('Ongeldige korting.');
    if (d.item_id !== null && !found.items.some((i) => i.id === d.item_id)) throw new RejectOp('Bestelregel niet gevonden.');
    if (await insertIfAbsent(trx, 'order_discounts', { ...d, tenant_id: change.tenant_id })) {
      const f = await figuresFor(trx, orderId, found.items);
      await trx.updateTable('orders').set({ total_cents: f.total_cents, discount_cents: f.discount_cents, updated_at: later(change.created_at, found.row.updated_at) }).where('id', '=', orderId).execute();
      if (ctx.side === 'cloud' && ctx.mode === 'merge') {
        const paid = await tillPaidOf(trx, orderId);
        if (paid > f.total_cents) conflict = overpaidNote(found.row.number, paid - f.total_cents);
      }
    }
  } else {
    const c = parsePayload(PushedCustomer, change.payload, 'een klant');
    await trx
      .updateTable('orders')
      .set({ customer_id: c.customer_id, customer_name: c.order.customer.name, customer_phone: c.order.customer.phone, updated_at: later(change.created_at, found.row.updated_at) })
      .where('id', '=', orderId)
      .execute();
  }
  await adoptUpdatedAt(trx, change, ctx);
  const after = (await loadOrder(trx, orderId))!;
  const discounts = await trx.selectFrom('order_discounts').selectAll().where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute();
  return { order: toOrderDto(after.row, after.items, discounts), ...(conflict ? { conflict } : {}) };
}

/** The batch's pending orders written now (a rare op of another entity that then works on the order rows directly: a bill moved, a till payment). */
export async function flushPendingOrders(trx: Tx, ctx: ApplyContext): Promise<void> {
  await orderStore.peek(ctx)?.flush(trx);
}

/**
 * A fired course or a void (CONTRACT §17), each an op with its own id. A void is inserted once by
 * its id (a void made offline counts once) and the line's voided units are the sum of its voids,
 * never more than the line has: a unit voided on both sides is never charged on either. A course
 * fires once per order: the first fire a side sees is kept; adopting, the cloud's fire replaces a
 * different local one, so both sides show the same who and when.
 */
async function applyFireOrVoid(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<{ order: Order; fire?: Omit<OrderCourseFiresTable, 'tenant_id' | 'order_id'> }> {
  const found = await loadOrder(trx, change.entity_id);
  if (!found || found.row.tenant_id !== change.tenant_id) throw new RejectOp('Bestelling niet gevonden.');
  const orderId = change.entity_id;
  if (change.kind === 'order.course_fired') {
    const { fire: f } = parsePayload(PushedFire, change.payload, 'een gang');
    const existing = await trx.selectFrom('order_course_fires').select('id').where('order_id', '=', orderId).where('course', '=', f.course).executeTakeFirst();
    if (existing && existing.id !== f.id && ctx.mode === 'adopt') await trx.deleteFrom('order_course_fires').where('id', '=', existing.id).execute();
    if (!existing || (existing.id !== f.id && ctx.mode === 'adopt')) {
      await trx.insertInto('order_course_fires').values({ ...f, tenant_id: change.tenant_id, order_id: orderId }).execute();
      let q = trx.updateTable('order_items').set({ fired_at: f.created_at }).where('order_id', '=', orderId).where('course', '=', f.course);
      if (!existing) q = q.where('fired_at', 'is', null);
      await q.execute();
      await trx.updateTable('orders').set({ updated_at: change.created_at > found.row.updated_at ? change.created_at : found.row.updated_at }).where('id', '=', orderId).execute();
    }
    // The fire that stands (the first one here when merging): recorded as the op's, so a side adopting
    // this change (also the echo of its own fire that lost) takes the same one.
    const kept = await trx.selectFrom('order_course_fires').selectAll().where('order_id', '=', orderId).where('course', '=', f.course).executeTakeFirstOrThrow();
    const { tenant_id: _t, order_id: _o, ...fire } = kept;
    await adoptUpdatedAt(trx, change, ctx);
    const after = (await loadOrder(trx, orderId))!;
    return { order: toOrderDto(after.row, after.items), fire };
  } else {
    const { void: v } = parsePayload(PushedVoid, change.payload, 'een annulering');
    const item = found.items.find((i) => i.id === v.item_id);
    if (!item) throw new RejectOp('Bestelregel niet gevonden.');
    if (await insertIfAbsent(trx, 'order_item_voids', { ...v, tenant_id: change.tenant_id, order_id: orderId })) {
      const sum = Number((await trx.selectFrom('order_item_voids').select((eb) => eb.fn.sum<number>('quantity').as('n')).where('item_id', '=', item.id).executeTakeFirstOrThrow()).n ?? 0);
      const voided = Math.min(item.quantity, sum);
      const lineTotal = item.unit_price_cents * (item.quantity - voided);
      await trx.updateTable('order_items').set({ voided_quantity: voided, total_cents: lineTotal }).where('id', '=', item.id).execute();
      // The order's total after its discounts (the union's; a discount never takes more than is left), as the service computes it.
      const f = await figuresFor(trx, orderId, found.items.map((i) => (i.id === item.id ? { ...i, total_cents: lineTotal } : i)));
      await trx
        .updateTable('orders')
        .set({ total_cents: f.total_cents, discount_cents: f.discount_cents, updated_at: change.created_at > found.row.updated_at ? change.created_at : found.row.updated_at })
        .where('id', '=', orderId)
        .execute();
    }
  }
  await adoptUpdatedAt(trx, change, ctx);
  const after = (await loadOrder(trx, orderId))!;
  return { order: toOrderDto(after.row, after.items) };
}

/** Adopting, the cloud's order after the op is the truth for `updated_at` too (this side's own fire may have lost, its time with it). */
async function adoptUpdatedAt(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<void> {
  const at = (change.payload as { order?: { updated_at?: unknown } } | null)?.order?.updated_at;
  if (ctx.mode === 'adopt' && typeof at === 'string') await trx.updateTable('orders').set({ updated_at: at }).where('id', '=', change.entity_id).execute();
}

/**
 * A snapshot's fires and voids (a new appliance joining): the rows as the cloud has them, so the
 * newcomer shows the same who, when and why. The lines' `fired_at` and `voided_quantity` already
 * came with the order; a row that is here already is left (a page applied again), a different fire
 * of the same course gives way to the cloud's.
 */
async function adoptFiresAndVoids(
  trx: Tx,
  store: OrderStore,
  change: SyncChange,
  payload: object,
): Promise<void> {
  const p = payload as {
    fire_rows?: Array<Omit<OrderCourseFiresTable, 'tenant_id' | 'order_id'>>;
    void_rows?: Array<Omit<OrderItemVoidsTable, 'tenant_id' | 'order_id'>>;
    discount_rows?: Array<Omit<OrderDiscountsTable, 'tenant_id'>>;
  };
  const fires = Array.isArray(p.fire_rows) ? p.fire_rows : [];
  const voids = Array.isArray(p.void_rows) ? p.void_rows : [];
  const discounts = Array.isArray(p.discount_rows) ? p.discount_rows : [];
  if (fires.length === 0 && voids.length === 0 && discounts.length === 0) return;
  if (store instanceof OrdersBatch) await store.flush(trx);
  const orderId = change.entity_id;
  for (const f of fires) {
    await trx.deleteFrom('order_course_fires').where('order_id', '=', orderId).where('course', '=', f.course).where('id', '!=', f.id).execute();
    await insertIfAbsent(trx, 'order_course_fires', { ...f, tenant_id: change.tenant_id, order_id: orderId });
  }
  for (const v of voids) await insertIfAbsent(trx, 'order_item_voids', { ...v, tenant_id: change.tenant_id, order_id: orderId });
  for (const d of discounts) await insertIfAbsent(trx, 'order_discounts', { ...d, tenant_id: change.tenant_id, order_id: orderId });
}

/** A snapshot's till columns (0025) that differ from the row: the figures after discounts and the guest, as the cloud has them. */
function tillColumns(row: OrdersTable, p: { order: Partial<Order>; customer_id?: unknown }): Partial<OrdersTable> {
  const patch: Partial<OrdersTable> = {};
  if (typeof p.order.total_cents === 'number' && p.order.total_cents !== row.total_cents) patch.total_cents = p.order.total_cents;
  if (typeof p.order.discount_cents === 'number' && p.order.discount_cents !== row.discount_cents) patch.discount_cents = p.order.discount_cents;
  const customerId = typeof p.customer_id === 'string' ? p.customer_id : null;
  if (customerId !== row.customer_id) patch.customer_id = customerId;
  return patch;
}

/**
 * Order status only moves forward (CONTRACT §5). Merging (the cloud applying an appliance's op):
 * a backward or repeated move is a no-op; once a final status is set, a different final status is
 * a recorded conflict and not applied: the first final status the cloud accepted wins. Adopting
 * (an appliance taking the cloud's state): forward moves are taken, and a final status of the cloud
 * replaces a different local one.
 */
function mergedStatus(current: OrderStatus, wanted: OrderStatus, mode: ApplyContext['mode']): { status: OrderStatus; conflict?: string } {
  if (current === wanted) return { status: current };
  if (mode === 'adopt') {
    if (isFinal(wanted) && isFinal(current)) return { status: wanted };
    return { status: transition(current, wanted) === 'allowed' ? wanted : current };
  }
  if (isFinal(current) && isFinal(wanted)) return { status: current, conflict: `De bestelling was al '${current}'; '${wanted}' is niet toegepast.` };
  return { status: transition(current, wanted) === 'allowed' ? wanted : current };
}

export const ordersSync: EntityDescriptor[] = [
  {
    entity: 'order',
    merge: 'monotonic-status',
    // Others' effects on an order only go forward (paid by a bill or a payment): echoes may be skipped.
    echo: 'skip-equal',
    tables: ['orders', 'order_items', 'order_status_history', 'order_course_fires', 'order_item_voids', 'order_discounts'],
    async apply(trx, change, ctx) {
      // From a device: validated like an API request first, and then only the validated payload is used and recorded.
      if (ctx.side === 'cloud' && ctx.mode === 'merge') change = { ...change, payload: await validatePushed(trx, change, ctx) };
      const store = await orderStore.of(trx, ctx);
      let conflict: string | undefined;
      let merged: Record<string, unknown> = {};
      // The order's state after the op, which the cloud records as the op's payload. An appliance
      // never reads an apply's answer (sync/engine.ts), so there it is not made: undefined.
      const answers = ctx.side === 'cloud';
      let order: Order | undefined;
      if (change.kind === 'order.created') {
        const r = await applyCreated(trx, store, change, ctx);
        conflict = r.conflict;
        order = r.order ?? (answers ? await snapshot(store, change.entity_id) : undefined);
        if (r.idempotency_key !== undefined) merged = { idempotency_key: r.idempotency_key };
      } else if (change.kind === 'order.discounted' || change.kind === 'order.customer_attached') {
        // Rare ops as well (the till): pending orders written first, then the rows directly.
        if (store instanceof OrdersBatch) await store.flush(trx);
        const r = await applyTill(trx, change, ctx);
        order = r.order;
        conflict = r.conflict;
      } else if (change.kind === 'order.course_fired' || change.kind === 'order.item_voided') {
        // Rare ops: the batch's pending orders are written first, then the op works on the rows directly.
        if (store instanceof OrdersBatch) await store.flush(trx);
        const r = await applyFireOrVoid(trx, change, ctx);
        order = r.order;
        if (r.fire) merged = { fire: r.fire };
      } else if (change.kind === 'order.status_changed' || change.kind === 'order.paid') {
        const found = await store.get(change.entity_id);
        if (!found || found.row.tenant_id !== change.tenant_id) throw new RejectOp('Bestelling niet gevonden.');
        const { row } = found;
        const p = change.payload as StatusPayload;
        const patch: Partial<OrdersTable> = {};
        if (change.kind === 'order.status_changed') {
          const wanted = ctx.mode === 'adopt' ? p?.order?.status : p?.to;
          if (!isStatus(wanted)) throw new RejectOp('Ongeldige status.');
          await addHistory(trx, change, p.history, ctx);
          const merged = mergedStatus(row.status, wanted, ctx.mode);
          conflict = merged.conflict;
          if (merged.status !== row.status) patch.status = merged.status;
        } else if (row.payment_status !== 'paid') {
          patch.payment_status = 'paid'; // paid never reverts
        }
        if (ctx.mode === 'adopt' && p?.order?.payment_status === 'paid' && row.payment_status !== 'paid') patch.payment_status = 'paid';
        if (Object.keys(patch).length > 0) patch.updated_at = change.created_at > row.updated_at ? change.created_at : row.updated_at;
        // Adopting, the cloud's merged state is the truth also for updated_at (its last change may have
        // been a no-op here, e.g. a late backward move it ignored, while this side's row moved on).
        if (ctx.mode === 'adopt' && typeof p?.order?.updated_at === 'string') {
          if (p.order.updated_at !== row.updated_at) patch.updated_at = p.order.updated_at;
          else delete patch.updated_at;
        }
        // The resulting state: the row as read plus this patch; a status or payment change leaves the items as they are.
        if (Object.keys(patch).length > 0) {
          if (answers) order = orderState({ ...row, ...patch }, found.items);
          await store.update(row.id, patch);
        } else if (answers) {
          order = orderState(row, found.items);
        }
      } else if (change.kind === 'order.snapshot') {
        // Snapshot bootstrap: the cloud's current order with its items and whole status history.
        if (ctx.mode !== 'adopt') throw new RejectOp('Een momentopname van een bestelling komt alleen uit de cloud.');
        const p = change.payload as CreatedPayload & { history_rows?: OrderStatusHistoryTable[] };
        const created = await applyCreated(trx, store, change, ctx);
        if (created.inserted) {
          order = created.order;
        } else {
          // Already here (a page applied again): take the cloud's status and payment as a pull would.
          const found = (await store.get(change.entity_id))!;
          const patch: Partial<OrdersTable> = {};
          const status = isStatus(p.order.status) ? mergedStatus(found.row.status, p.order.status, 'adopt').status : found.row.status;
          if (status !== found.row.status) patch.status = status;
          if (p.order.payment_status === 'paid' && found.row.payment_status !== 'paid') patch.payment_status = 'paid';
          if (typeof p.order.updated_at === 'string' && p.order.updated_at !== found.row.updated_at) patch.updated_at = p.order.updated_at;
          Object.assign(patch, tillColumns(found.row, p));
          if (Object.keys(patch).length > 0) await store.update(change.entity_id, patch);
          if (answers) order = toOrderDto({ ...found.row, ...patch }, found.items);
        }
        for (const h of Array.isArray(p.history_rows) ? p.history_rows : []) await addHistory(trx, change, h, ctx);
        await adoptFiresAndVoids(trx, store, change, p);
      } else {
        throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      }
      const p = change.payload as Record<string, unknown>;
      return { payload: { ...p, ...merged, order }, ...(conflict ? { conflict } : {}) };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      if (rows.length === 0) return { changes: [], next: null };
      const ids = rows.map((r) => r.id);
      // The step's rows of each child table, read by the keyset range of the step's orders (their
      // first and last id) and kept to the tenant's orders in it, instead of an `in` list of up to
      // 250 ids: PostgreSQL planned each of those five reads in ≈ 2–3 ms and read the whole of
      // order_items and order_status_history for each (a sequential scan, 55 times in a week's
      // join); the range reads the child's `order_id` index (bench/README.md, session 17, snap).
      // A child of an order committed inside the range after `rows` was read is skipped (`?.`):
      // only the orders in `rows` travel, as before.
      const first = ids[0]!;
      const last = ids[ids.length - 1]!;
      const stepOrders = db.selectFrom('orders').select('id').where('tenant_id', '=', tenantId).where('id', '>=', first).where('id', '<=', last);
      // The five child tables below each name their order `order_id`.
      const ofStep = sql<boolean>`order_id >= ${first} and order_id <= ${last} and order_id in ${stepOrders}`;
      const items = new Map<string, OrderItemsTable[]>(ids.map((id) => [id, []]));
      for (const i of await db.selectFrom('order_items').selectAll().where(ofStep).orderBy('order_id').orderBy('position').execute()) items.get(i.order_id)?.push(i);
      const history = new Map<string, OrderStatusHistoryTable[]>(ids.map((id) => [id, []]));
      for (const h of await db.selectFrom('order_status_history').selectAll().where(ofStep).orderBy('created_at').orderBy('id').execute()) history.get(h.order_id)?.push(h);
      // Fires and voids travel with their order (a new appliance shows who fired and voided what).
      const wire = <T extends { tenant_id: string; order_id: string }>({ tenant_id: _t, order_id: _o, ...rest }: T) => rest;
      const fires = new Map<string, Array<Omit<OrderCourseFiresTable, 'tenant_id' | 'order_id'>>>(ids.map((id) => [id, []]));
      for (const f of await db.selectFrom('order_course_fires').selectAll().where(ofStep).orderBy('order_id').orderBy('course').execute()) fires.get(f.order_id)?.push(wire(f));
      const voids = new Map<string, Array<Omit<OrderItemVoidsTable, 'tenant_id' | 'order_id'>>>(ids.map((id) => [id, []]));
      for (const v of await db.selectFrom('order_item_voids').selectAll().where(ofStep).orderBy('order_id').orderBy('created_at').orderBy('id').execute()) voids.get(v.order_id)?.push(wire(v));
      const discounts = new Map<string, OrderDiscountsTable[]>(ids.map((id) => [id, []]));
      for (const d of await db.selectFrom('order_discounts').selectAll().where(ofStep).orderBy('order_id').orderBy('created_at').orderBy('id').execute()) discounts.get(d.order_id)?.push(d);
      const changes = rows.map((r) => ({
        entity: 'order',
        entity_id: r.id,
        kind: 'order.snapshot',
        payload: {
          order: toOrderDto(r, items.get(r.id)!, discounts.get(r.id)!),
          // The till (0025): the guest's loyalty id and the discounts as rows (the order's figures come with it).
          customer_id: r.customer_id,
          ...(discounts.get(r.id)!.length ? { discount_rows: discounts.get(r.id)!.map(({ tenant_id: _t, ...d }) => d) } : {}),
          business_day: r.business_day,
          origin: r.origin,
          idempotency_key: r.idempotency_key,
          request_hash: r.request_hash,
          created_by: r.created_by,
          history_rows: history.get(r.id)!,
          ...(fires.get(r.id)!.length ? { fire_rows: fires.get(r.id)! } : {}),
          ...(voids.get(r.id)!.length ? { void_rows: voids.get(r.id)! } : {}),
        },
        created_at: r.updated_at,
      }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
