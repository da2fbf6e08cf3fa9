import crypto from 'node:crypto';
import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, conflict, forbidden, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { businessDay, dayBounds } from '../../shared/zoned-time.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { DEFAULT_STATION } from '../menu/menu.schemas.js';
import type { MenuService } from '../menu/menu.service.js';
import type { JournalAppender } from '../journal/journal.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { ordersRepository, type DiscountRow, type HistoryRow, type OrderItemRow, type OrderRow, type OrderFilter } from './orders.repository.js';
import { orderFigures } from '../till/till.rules.js';
import { formatNumber, transition } from './orders.rules.js';
import { type CreateOrderInput, type Order, type OrderDiscount, type OrderItemModifier, type OrderSource, type OrderStatus } from './orders.schemas.js';
import { groupIdsOf, sortAllergens } from '../menu/menu.service.js';
import type { FieldError } from '../../shared/errors.js';

const parseList = <T>(text: string | null | undefined): T[] => {
  // Most lines have no options and no allergens: '[]' is a new empty list without the parser.
  if (!text || text === '[]') return [];
  const v = JSON.parse(text) as unknown;
  return Array.isArray(v) ? (v as T[]) : [];
};

export interface Actor {
  tenantId: string;
  userId: string | null;
  /** Who is acting, for the status history: pos, web, external, or sync. */
  via: OrderSource | 'sync';
}

/** The order's discounts as the answers show them. */
export const toDiscountDto = (d: DiscountRow): OrderDiscount => ({
  id: d.id,
  kind: d.kind,
  value: d.value,
  item_id: d.item_id,
  amount_cents: d.amount_cents,
  reason: d.reason,
  user_id: d.user_id,
  created_at: d.created_at,
});

/**
 * An order as the API shows it. `discounts` are its discount rows; without them (a caller that did
 * not read them) a `discount_cents` on the row counts as one discount on the whole order, so the VAT
 * still adds up to `total_cents`.
 */
export function toOrderDto(row: OrderRow, items: OrderItemRow[], discounts?: DiscountRow[]): Order {
  const applied = discounts ?? ((row.discount_cents ?? 0) > 0 ? [{ item_id: null, amount_cents: row.discount_cents }] : []);
  const figures = orderFigures(
    items.map((i) => ({ id: i.id, total_cents: i.total_cents, vat_rate: i.vat_rate ?? 9 })),
    applied,
  );
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    source: row.source,
    table_id: row.table_id,
    customer: row.customer_name || row.customer_phone ? { name: row.customer_name, phone: row.customer_phone } : null,
    notes: row.notes,
    items: items.map((i) => ({
      id: i.id,
      product_id: i.product_id,
      name: i.name,
      quantity: i.quantity,
      unit_price_cents: i.unit_price_cents,
      total_cents: i.total_cents,
      notes: i.notes,
      modifiers: parseList<OrderItemModifier>(i.modifiers),
      seat: i.seat ?? null,
      course: i.course ?? 1,
      allergens: parseList<string>(i.allergens),
      voided_quantity: i.voided_quantity ?? 0,
      held: (i.course ?? 1) > 1 && !i.fired_at,
      fired_at: i.fired_at ?? null,
      vat_rate: i.vat_rate ?? 9,
    })),
    discounts: (discounts ?? []).map(toDiscountDto),
    discount_cents: row.discount_cents ?? 0,
    total_cents: row.total_cents,
    vat: figures.vat,
    payment_status: row.payment_status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A stable fingerprint of what was asked, so a repeated key with a different body is told apart. */
function requestHash(input: CreateOrderInput, source: OrderSource): string {
  const canonical = {
    source,
    items: input.items.map((i) => [
      i.product_id,
      i.quantity,
      i.notes ?? null,
      // Options compared as a set with quantities (their order on the pad does not matter), then seat and course.
      (i.modifiers ?? []).map((m) => [m.option_id, m.quantity ?? 1] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])),
      i.seat ?? null,
      i.course ?? null,
    ]),
    table_id: input.table_id ?? null,
    notes: input.notes ?? null,
    customer: [input.customer?.name ?? null, input.customer?.phone ?? null],
  };
  return crypto.createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/**
 * What other areas do inside an order's own transaction (registered in the composition root,
 * server/modules/index.ts): the floor validates `table_id` and joins the order to the table's bill,
 * stock books a recipe's consumption when an order completes, loyalty earns points when it becomes
 * paid. A hook runs in the same transaction as the order change (its writes commit or roll back with
 * it, and go through the same change-log writer `w`); throwing an AppError refuses the whole change.
 * Hooks run only for changes made through this service (API, partner API, payments); changes that
 * arrive through sync carry the other side's own rows (ledger entries with stable ids), so a hook's
 * writes must be idempotent by id (e.g. a ledger row id derived from the order id).
 */
export interface OrderHooks {
  /** Before the order is inserted: validate (throw) or fill in columns of the row. */
  creating: (w: Writer, actor: Actor, row: OrderRow, input: CreateOrderInput) => Promise<void>;
  /** After the order and its items are inserted. */
  created: (w: Writer, actor: Actor, order: Order) => Promise<void>;
  /** After a status change (not for a repeated, unchanged status). */
  statusChanged: (w: Writer, actor: Actor, order: Order, from: OrderStatus, to: OrderStatus) => Promise<void>;
  /** After open → paid (once per order). */
  paid: (w: Writer, actor: Actor, order: Order, payment: PaymentInfo) => Promise<void>;
  /** After a held course was fired (not for a repeated fire). */
  courseFired: (w: Writer, actor: Actor, order: Order, course: number) => Promise<void>;
  /** After units of a line were voided (`order` shows the line as it was fired: `fired_at`). */
  itemVoided: (w: Writer, actor: Actor, order: Order, v: { id: string; item_id: string; quantity: number; reason: string }) => Promise<void>;
}
export interface PaymentInfo {
  provider?: string;
  payment_id?: string;
  amount_cents?: number;
}

/**
 * The order path's writes record their changes as one batch at the end (change-log.ts
 * `WriteOptions`): the order's, its bill round's, its table's status, its print jobs' hooks' and
 * the paid hooks' changes, two statements instead of two per change. Nothing in these writes reads
 * the change log or a record's seq before committing.
 */
const BATCH = { batch: true } as const;

const forbiddenMove = (from: OrderStatus, to: OrderStatus) => conflict(`Deze statuswijziging is niet toegestaan (van '${from}' naar '${to}').`);
const keyReused = () => conflict('Deze idempotency-sleutel is al gebruikt voor een andere bestelling.');

export function createOrdersService(deps: { db: Db; changes: ChangeLog; menu: MenuService; tenants: TenantsService; clock?: Clock; journal?: JournalAppender }) {
  const { db, changes, menu, tenants } = deps;
  const clock = deps.clock ?? systemClock;

  /**
   * The instant the current business day began (the restaurant's zone and `business_day_starts_at`).
   * Every kitchen board's read asks it: the day's bounds are kept per restaurant while the clock is
   * inside them and the settings are the same (cachedSettings answers a new object after a change).
   */
  const days = new Map<string, { settings: object; start: number; end: number; iso: string }>();
  async function todayStart(tenantId: string): Promise<string> {
    const settings = await tenants.cachedSettings(tenantId);
    const now = clock.now().getTime();
    const hit = days.get(tenantId);
    if (hit && hit.settings === settings && now >= hit.start && now < hit.end) return hit.iso;
    const { timezone, business_day_starts_at: startsAt } = settings;
    const { start, end } = dayBounds(businessDay(now, timezone, startsAt), timezone, startsAt);
    const day = { settings, start: start.getTime(), end: end.getTime(), iso: start.toISOString() };
    if (days.size >= 1000) days.delete(days.keys().next().value!);
    days.set(tenantId, day);
    return day.iso;
  }

  /** Only the lines of `station` (a product's own station, else its category's, else keuken); orders without any are left out. */
  async function forStation(tenantId: string, list: Order[], station: string): Promise<Order[]> {
    const ids = [...new Set(list.flatMap((o) => o.items.map((i) => i.product_id)))];
    const stationOf = await (await menu.forOrder(db, tenantId)).stations(ids);
    return list
      .map((o) => ({ ...o, items: o.items.filter((i) => (stationOf.get(i.product_id) ?? DEFAULT_STATION) === station) }))
      .filter((o) => o.items.length > 0);
  }
  /** K on an appliance, W in the cloud: numbers born on either side never collide (ARCHITECTURE §4). */
  const prefix = changes.origin === 'cloud' ? 'W' : 'K';
  const hooks: { [K in keyof OrderHooks]: OrderHooks[K][] } = { creating: [], created: [], statusChanged: [], paid: [], courseFired: [], itemVoided: [] };
  async function run<K extends keyof OrderHooks>(name: K, ...args: Parameters<OrderHooks[K]>): Promise<void> {
    for (const fn of hooks[name]) await (fn as (...a: Parameters<OrderHooks[K]>) => Promise<void>)(...args);
  }

  /** The order's figures from its lines (voids left out) and discounts (CONTRACT §19). */
  const figuresOf = (items: OrderItemRow[], discounts: DiscountRow[]) =>
    orderFigures(
      items.map((i) => ({ id: i.id, total_cents: i.total_cents, vat_rate: i.vat_rate })),
      discounts.map((d) => ({ item_id: d.item_id, amount_cents: d.amount_cents })),
    );

  async function load(tenantId: string, id: string, exec = db as Db | Writer['trx']): Promise<Order> {
    const row = await ordersRepository.find(exec, tenantId, id);
    if (!row) throw notFound('Bestelling');
    const [items, discounts] = await Promise.all([ordersRepository.itemsOf(exec, [id]), ordersRepository.discountsOf(exec, [id])]);
    return toOrderDto(row, items, discounts);
  }

  async function withItems(rows: OrderRow[]): Promise<Order[]> {
    const ids = rows.map((r) => r.id);
    const [items, discounts] = await Promise.all([ordersRepository.itemsOf(db, ids), rows.some((r) => r.discount_cents > 0) ? ordersRepository.discountsOf(db, ids) : Promise.resolve([])]);
    const byOrder = new Map<string, OrderItemRow[]>();
    for (const i of items) {
      const list = byOrder.get(i.order_id);
      if (list) list.push(i);
      else byOrder.set(i.order_id, [i]);
    }
    const discountsOf = new Map<string, DiscountRow[]>();
    for (const d of discounts) discountsOf.set(d.order_id, [...(discountsOf.get(d.order_id) ?? []), d]);
    return rows.map((r) => toOrderDto(r, byOrder.get(r.id) ?? [], discountsOf.get(r.id) ?? []));
  }

  async function repeatOf(tenantId: string, key: string, hash: string): Promise<Order | undefined> {
    const existing = await ordersRepository.findByIdempotencyKey(db, tenantId, key);
    if (!existing) return undefined;
    if (existing.request_hash !== hash) throw keyReused();
    return load(tenantId, existing.id);
  }

  /** A history row as a change carries it: its tenant and order are the change's own (as the cloud records a pushed one). */
  const wireHistory = ({ tenant_id: _t, order_id: _o, ...h }: HistoryRow) => h;

  const historyRow = (w: Writer, actor: Actor, orderId: string, from: OrderStatus | null, to: OrderStatus): HistoryRow => ({
    id: newId(),
    tenant_id: actor.tenantId,
    order_id: orderId,
    from_status: from,
    to_status: to,
    user_id: actor.userId,
    source: actor.via,
    created_at: w.now,
  });

  /**
   * markPaidIn for several orders in one pass (a bill closed as paid, floor.bills.ts): the orders,
   * their lines and discounts read with one statement each, the open ones marked paid with one
   * update; then, order by order in the given order, `order.paid` and the `paid` hooks, exactly as
   * markPaidIn records them one order at a time. NOT_FOUND or CONFLICT (a cancelled order) before
   * anything is written. Returns the ids it marked, in order.
   */
  async function markManyPaidIn(w: Writer, actor: Actor, ids: readonly string[], payment: PaymentInfo = {}): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = new Map((await ordersRepository.findMany(w.trx, actor.tenantId, [...new Set(ids)])).map((r) => [r.id, r]));
    const open: OrderRow[] = [];
    const seen = new Set<string>();
    for (const id of ids) {
      const row = rows.get(id);
      if (!row) throw notFound('Bestelling');
      if (row.payment_status === 'paid' || seen.has(id)) continue;
      if (row.status === 'cancelled') throw conflict('Een geannuleerde bestelling kan niet betaald worden.');
      seen.add(id);
      open.push({ ...row, payment_status: 'paid', updated_at: w.now });
    }
    if (open.length === 0) return [];
    const openIds = open.map((r) => r.id);
    await ordersRepository.markPaid(w.trx, actor.tenantId, openIds, w.now);
    const [items, discounts] = await Promise.all([ordersRepository.itemsOf(w.trx, openIds), ordersRepository.discountsOf(w.trx, openIds)]);
    const itemsOf = new Map<string, OrderItemRow[]>();
    for (const i of items) itemsOf.set(i.order_id, [...(itemsOf.get(i.order_id) ?? []), i]);
    const discountsOf = new Map<string, DiscountRow[]>();
    for (const d of discounts) discountsOf.set(d.order_id, [...(discountsOf.get(d.order_id) ?? []), d]);
    for (const row of open) {
      const order = toOrderDto(row, itemsOf.get(row.id) ?? [], discountsOf.get(row.id) ?? []);
      await w.record({ entity: 'order', entityId: row.id, kind: 'order.paid', payload: { order, payment: { ...payment, by: actor.userId, via: actor.via } } });
      await run('paid', w, actor, order, payment);
    }
    return openIds;
  }

  async function markPaidIn(w: Writer, actor: Actor, id: string, payment: PaymentInfo = {}): Promise<{ order: Order; changed: boolean }> {
    const row = await ordersRepository.find(w.trx, actor.tenantId, id);
    if (!row) throw notFound('Bestelling');
    if (row.payment_status === 'paid') return { order: await load(actor.tenantId, id, w.trx), changed: false };
    if (row.status === 'cancelled') throw conflict('Een geannuleerde bestelling kan niet betaald worden.');
    await ordersRepository.update(w.trx, actor.tenantId, id, { payment_status: 'paid', updated_at: w.now });
    const order = toOrderDto({ ...row, payment_status: 'paid', updated_at: w.now }, await ordersRepository.itemsOf(w.trx, [id]), await ordersRepository.discountsOf(w.trx, [id]));
    await w.record({ entity: 'order', entityId: id, kind: 'order.paid', payload: { order, payment: { ...payment, by: actor.userId, via: actor.via } } });
    await run('paid', w, actor, order, payment);
    return { order, changed: true };
  }

  /**
   * Adds a discount to an order inside `w` (the till's service decides kind, amount and limits,
   * CONTRACT §19): the row, then the order's `discount_cents` and `total_cents` (after discounts) from
   * all its discounts, and the change `order.discounted` `{ order, discount }`. A discount whose id
   * is there already changes nothing (`changed: false`). 409 for a cancelled or paid order.
   */
  async function addDiscountIn(w: Writer, actor: Actor, discount: DiscountRow): Promise<{ order: Order; changed: boolean }> {
    const row = await ordersRepository.find(w.trx, actor.tenantId, discount.order_id);
    if (!row) throw notFound('Bestelling');
    if (await ordersRepository.findDiscount(w.trx, discount.id)) return { order: await load(actor.tenantId, row.id, w.trx), changed: false };
    if (row.status === 'cancelled') throw conflict('Deze bestelling is geannuleerd; er kan geen korting meer op.');
    if (row.payment_status === 'paid') throw conflict('Deze bestelling is al betaald; er kan geen korting meer op.');
    await ordersRepository.insertDiscount(w.trx, discount);
    const [items, discounts] = await Promise.all([ordersRepository.itemsOf(w.trx, [row.id]), ordersRepository.discountsOf(w.trx, [row.id])]);
    const f = figuresOf(items, discounts);
    const next = { ...row, total_cents: f.total_cents, discount_cents: f.discount_cents, updated_at: w.now };
    await ordersRepository.update(w.trx, actor.tenantId, row.id, { total_cents: f.total_cents, discount_cents: f.discount_cents, updated_at: w.now });
    const order = toOrderDto(next, items, discounts);
    const { tenant_id: _t, ...wire } = discount;
    await w.record({ entity: 'order', entityId: row.id, kind: 'order.discounted', payload: { order, discount: wire } });
    return { order, changed: true };
  }

  const service = {
    addDiscountIn,

    /** The discounts of an order, oldest first. */
    async discountsOf(tenantId: string, id: string, exec: Db | Writer['trx'] = db): Promise<OrderDiscount[]> {
      await load(tenantId, id, exec);
      return (await ordersRepository.discountsOf(exec, [id])).map(toDiscountDto);
    },

    /** Attaches a customer (name, normalised phone, loyalty id) to an order at the till; points are earned for it when it is paid. */
    async attachCustomer(actor: Actor, id: string, customer: { customer_id: string; name: string | null; phone: string }): Promise<Order> {
      return changes.write(actor.tenantId, async (w) => {
        const row = await ordersRepository.find(w.trx, actor.tenantId, id);
        if (!row) throw notFound('Bestelling');
        if (row.payment_status === 'paid') throw conflict('Deze bestelling is al betaald; er kan geen klant meer aan gekoppeld worden.');
        const patch = { customer_id: customer.customer_id, customer_phone: customer.phone, customer_name: customer.name ?? row.customer_name, updated_at: w.now };
        await ordersRepository.update(w.trx, actor.tenantId, id, patch);
        const order = await load(actor.tenantId, id, w.trx);
        await w.record({ entity: 'order', entityId: id, kind: 'order.customer_attached', payload: { order, customer_id: customer.customer_id } });
        return order;
      });
    },

    /** Orders moved to another table with their bill (floor: POST /floorplan/bills/:id/move); the bill's change carries them. */
    async moveToTableIn(w: Writer, tenantId: string, ids: string[], tableId: string): Promise<void> {
      if (ids.length === 0) return;
      await ordersRepository.setTable(w.trx, tenantId, ids, tableId, w.now);
    },

    /** Registers a hook (see OrderHooks); the composition root wires the areas together with it. */
    on<K extends keyof OrderHooks>(name: K, fn: OrderHooks[K]): void {
      hooks[name].push(fn);
    },

    get: (tenantId: string, id: string) => load(tenantId, id),

    /**
     * These orders (read with one statement each for the orders, their lines and discounts), in
     * the order of `ids`; ids of orders that are not here are left out.
     */
    async getMany(tenantId: string, ids: readonly string[], exec: Db | Writer['trx'] = db): Promise<Order[]> {
      if (ids.length === 0) return [];
      const rows = new Map((await ordersRepository.findMany(exec, tenantId, [...new Set(ids)])).map((r) => [r.id, r]));
      const found = ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : []));
      const foundIds = found.map((r) => r.id);
      // Discounts always read (as `get` does): a discount row counts even when it comes to nothing.
      const [items, discounts] = await Promise.all([ordersRepository.itemsOf(exec, foundIds), ordersRepository.discountsOf(exec, foundIds)]);
      const itemsOf = new Map<string, OrderItemRow[]>();
      for (const i of items) itemsOf.set(i.order_id, [...(itemsOf.get(i.order_id) ?? []), i]);
      const discountsOf = new Map<string, DiscountRow[]>();
      for (const d of discounts) discountsOf.set(d.order_id, [...(discountsOf.get(d.order_id) ?? []), d]);
      return found.map((r) => toOrderDto(r, itemsOf.get(r.id) ?? [], discountsOf.get(r.id) ?? []));
    },

    async list(tenantId: string, filter: OrderFilter, limit: number, offset: number) {
      const [rows, total] = await Promise.all([
        ordersRepository.list(db, tenantId, filter, 'desc', limit, offset),
        ordersRepository.count(db, tenantId, filter),
      ]);
      return { data: await withItems(rows), total, limit, offset };
    },

    /**
     * The kitchen board: the current business day's active orders, oldest first; with a station,
     * each order with only that station's lines (orders without any left out). Older active orders
     * are never on the board: they are `unfinished` until an admin closes them.
     */
    async live(tenantId: string, station?: string): Promise<Order[]> {
      const list = await withItems(await ordersRepository.live(db, tenantId, 1000, { from: await todayStart(tenantId) }));
      return station ? forStation(tenantId, list, station) : list;
    },

    /** "Niet afgerond": active orders from before the current business day, oldest first. */
    async unfinished(tenantId: string): Promise<Order[]> {
      return withItems(await ordersRepository.live(db, tenantId, 1000, { before: await todayStart(tenantId) }));
    },

    /**
     * An admin clears the "Niet afgerond" list: every active order from before the current business
     * day (or only `ids` among them) moves to `status` (completed or cancelled, both allowed from any
     * active status by §5), each through setStatus: history, change log and hooks as any status change.
     */
    async closeUnfinished(actor: Actor, status: 'completed' | 'cancelled', ids?: readonly string[]): Promise<Order[]> {
      let rows = await ordersRepository.live(db, actor.tenantId, 1000, { before: await todayStart(actor.tenantId) });
      if (ids) {
        const wanted = new Set(ids);
        rows = rows.filter((r) => wanted.has(r.id));
      }
      const closed: Order[] = [];
      for (const r of rows) {
        // A paid order is never cancelled here: it was served and paid, so it completes.
        const to = status === 'cancelled' && r.payment_status === 'paid' ? 'completed' : status;
        closed.push((await service.setStatus(actor, r.id, to)).order);
      }
      return closed;
    },

    async history(tenantId: string, id: string) {
      await load(tenantId, id);
      return ordersRepository.historyOf(db, tenantId, id);
    },

    /**
     * Creates an order with menu prices. With an idempotency key, a repeat answers the original
     * (`created: false`); the unique index on (tenant, key) settles concurrent repeats.
     * `alongside` runs in the new order's own transaction, after its `order.created` is recorded
     * (not for a repeat): a caller's rows that belong with the order (the public order's row and
     * its payment) commit with it instead of in transactions of their own.
     */
    async create(
      actor: Actor & { via: OrderSource },
      input: CreateOrderInput,
      idempotencyKey?: string,
      alongside?: (w: Writer, order: Order) => Promise<void>,
    ): Promise<{ order: Order; created: boolean }> {
      const key = idempotencyKey ?? input.idempotency_key;
      if (idempotencyKey && input.idempotency_key && idempotencyKey !== input.idempotency_key) {
        throw new AppError('VALIDATION', "Ongeldige invoer: de Idempotency-Key-header en 'idempotency_key' verschillen.", {
          details: [{ field: 'idempotency_key', error: "'idempotency_key' moet gelijk zijn aan de Idempotency-Key-header." }],
        });
      }
      // Only an order with an idempotency key keeps (and compares) what was asked.
      const hash = key ? requestHash(input, actor.via) : '';
      if (key) {
        const repeat = await repeatOf(actor.tenantId, key, hash);
        if (repeat) return { order: repeat, created: false };
      }
      const { timezone, default_vat_rate: defaultVat } = await tenants.cachedSettings(actor.tenantId);
      try {
        const order = await changes.write(actor.tenantId, async (w) => {
          // The menu as an order reads it (menu.forOrder): on the appliance from its per-tenant cache.
          const menuNow = await menu.forOrder(w.trx, actor.tenantId);
          const products = await menuNow.products([...new Set(input.items.map((i) => i.product_id))]);
          const byId = new Map(products.map((p) => [p.id, p]));
          const details: FieldError[] = input.items.flatMap((item, idx) => {
            const p = byId.get(item.product_id);
            if (!p || p.archived_at) return [{ field: `items.${idx}.product_id`, error: `'items.${idx}.product_id' is geen product van deze menukaart.` }];
            if (p.available !== 1) return [{ field: `items.${idx}.product_id`, error: `'${p.name}' is op dit moment niet beschikbaar.` }];
            return [];
          });
          if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
          const live = [...byId.values()];
          // A category's course and VAT rate are only fallbacks for a product without its own.
          const needCategories = live.some((p) => p.category_id && (p.course == null || p.vat_rate == null));
          const [groups, dishAllergens, categories] = await Promise.all([
            menuNow.liveGroups(live.flatMap((p) => groupIdsOf(p))),
            menuNow.dishAllergens(live),
            needCategories ? menuNow.categoryDefaults() : Promise.resolve({ courses: new Map<string, number | null>(), vat: new Map<string, number | null>() }),
          ]);
          const { courses: categoryCourses, vat: categoryVat } = categories;
          // Options: each must belong to one of the product's live groups and be available; per group min..max (quantities counted).
          const chosen = input.items.map((item, idx) => {
            const p = byId.get(item.product_id)!;
            const field = `items.${idx}.modifiers`;
            const own = groupIdsOf(p).flatMap((g) => (groups.has(g) ? [groups.get(g)!] : []));
            const optionOf = new Map(own.flatMap((g) => g.options.map((o) => [o.id, { g, o }] as const)));
            const mods: Array<OrderItemModifier & { allergens: string[] }> = [];
            const seen = new Set<string>();
            for (const m of item.modifiers ?? []) {
              const found = optionOf.get(m.option_id);
              if (!found) return { error: { field, error: `'${field}' bevat een optie die niet bij '${p.name}' hoort.` } };
              if (!found.o.available) return { error: { field, error: `'${field}': '${found.o.name}' is op dit moment niet beschikbaar.` } };
              if (seen.has(m.option_id)) return { error: { field, error: `'${field}' bevat '${found.o.name}' twee keer; geef een aantal (quantity) op.` } };
              seen.add(m.option_id);
              mods.push({ option_id: found.o.id, group_id: found.g.id, group_name: found.g.name, name: found.o.name, price_delta_cents: found.o.price_delta_cents, quantity: m.quantity ?? 1, allergens: found.o.allergens });
            }
            for (const g of own) {
              const n = mods.filter((m) => m.group_id === g.id).reduce((sum, m) => sum + m.quantity, 0);
              if (n < g.min_select) return { error: { field, error: `'${field}': kies ${g.min_select === g.max_select ? '' : 'minstens '}${g.min_select} bij '${g.name}' voor '${p.name}'.` } };
              if (n > g.max_select) return { error: { field, error: `'${field}': kies hoogstens ${g.max_select} bij '${g.name}' voor '${p.name}'.` } };
            }
            if (p.price_cents + mods.reduce((sum, m) => sum + m.price_delta_cents * m.quantity, 0) < 0) return { error: { field, error: `'${field}': met deze opties komt de prijs van '${p.name}' onder nul.` } };
            return { mods };
          });
          const modErrors = chosen.flatMap((c) => (c.error ? [c.error] : []));
          if (modErrors.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${modErrors[0]!.error.replace(/\.$/, '')}.`, { details: modErrors });

          const id = newId();
          const day = businessDay(w.nowDate, timezone);
          const number = formatNumber(prefix, await ordersRepository.nextNumber(w.trx, actor.tenantId, prefix, day));
          const items: OrderItemRow[] = input.items.map((item, position) => {
            const p = byId.get(item.product_id)!;
            const mods = chosen[position]!.mods!;
            const unit = p.price_cents + mods.reduce((sum, m) => sum + m.price_delta_cents * m.quantity, 0);
            const course = item.course ?? p.course ?? (p.category_id ? categoryCourses.get(p.category_id) : null) ?? 1;
            return {
              id: newId(),
              tenant_id: actor.tenantId,
              order_id: id,
              position,
              product_id: item.product_id,
              name: p.name,
              quantity: item.quantity,
              unit_price_cents: unit,
              total_cents: unit * item.quantity,
              notes: item.notes ?? null,
              modifiers: JSON.stringify(mods.map(({ allergens: _a, ...m }) => m)),
              allergens: JSON.stringify(sortAllergens([...(dishAllergens.get(p.id) ?? []), ...mods.flatMap((m) => m.allergens)])),
              seat: item.seat ?? null,
              course,
              voided_quantity: 0,
              // Course 1 goes to the kitchen with the order; later courses wait until fired.
              fired_at: course === 1 ? w.now : null,
              // CONTRACT §19: the rate it is sold at: the product's, else its category's, else the restaurant's default.
              vat_rate: p.vat_rate ?? (p.category_id ? categoryVat.get(p.category_id) : null) ?? defaultVat,
            };
          });
          const row: OrderRow = {
            id,
            tenant_id: actor.tenantId,
            number,
            business_day: day,
            origin: changes.origin,
            status: 'new',
            source: actor.via,
            table_id: input.table_id ?? null,
            customer_name: input.customer?.name ?? null,
            customer_phone: input.customer?.phone ?? null,
            notes: input.notes ?? null,
            total_cents: items.reduce((s, i) => s + i.total_cents, 0),
            payment_status: 'open',
            idempotency_key: key ?? null,
            request_hash: key ? hash : null,
            created_by: actor.userId,
            created_at: w.now,
            updated_at: w.now,
            discount_cents: 0,
            customer_id: null,
          };
          await run('creating', w, actor, row, input);
          await ordersRepository.insert(w.trx, row);
          await ordersRepository.insertItems(w.trx, items);
          const history = historyRow(w, actor, id, null, 'new');
          await ordersRepository.insertHistory(w.trx, history);
          const order = toOrderDto(row, items);
          await run('created', w, actor, order);
          await w.record({
            entity: 'order',
            entityId: id,
            kind: 'order.created',
            payload: { order, history: wireHistory(history), business_day: day, origin: row.origin, idempotency_key: row.idempotency_key, request_hash: row.request_hash, created_by: row.created_by },
          });
          if (alongside) await alongside(w, order);
          return order;
        }, BATCH);
        return { order, created: true };
      } catch (err) {
        // A concurrent request with the same key won the race: answer with its order.
        if (key && isUniqueViolation(err)) {
          const repeat = await repeatOf(actor.tenantId, key, hash);
          if (repeat) return { order: repeat, created: false };
        }
        throw err;
      }
    },

    /** Moves the status forward (or to cancelled); setting the current status again changes nothing. */
    async setStatus(actor: Actor, id: string, to: OrderStatus): Promise<{ order: Order; from: OrderStatus; changed: boolean }> {
      return changes.write(actor.tenantId, async (w) => {
        const row = await ordersRepository.find(w.trx, actor.tenantId, id);
        if (!row) throw notFound('Bestelling');
        const verdict = transition(row.status, to);
        if (verdict === 'forbidden') throw forbiddenMove(row.status, to);
        if (verdict === 'noop') return { order: await load(actor.tenantId, id, w.trx), from: row.status, changed: false };
        await ordersRepository.update(w.trx, actor.tenantId, id, { status: to, updated_at: w.now });
        const history = historyRow(w, actor, id, row.status, to);
        await ordersRepository.insertHistory(w.trx, history);
        const order = toOrderDto({ ...row, status: to, updated_at: w.now }, await ordersRepository.itemsOf(w.trx, [id]));
        await w.record({ entity: 'order', entityId: id, kind: 'order.status_changed', payload: { order, from: row.status, to, history: wireHistory(history) } });
        await run('statusChanged', w, actor, order, row.status, to);
        return { order, from: row.status, changed: true };
      }, BATCH);
    },

    /**
     * The kitchen board (POST /orders/:id/advance, any session): a forward move by the one status
     * rule; cancelling is not a move forward and stays with admins (PATCH /orders/:id).
     */
    async advance(actor: Actor, id: string, to: OrderStatus) {
      if (to === 'cancelled') throw forbidden('Annuleren kan alleen een beheerder (PATCH /orders/:id).');
      return service.setStatus(actor, id, to);
    },

    /** Open → paid, once; paid never reverts. Emits order.paid the first time only. */
    async markPaid(actor: Actor, id: string, payment: PaymentInfo = {}): Promise<{ order: Order; changed: boolean }> {
      return changes.write(actor.tenantId, async (w) => {
        const r = await markPaidIn(w, actor, id, payment);
        // Paid at the counter (PATCH payment_status): the order's total is the payment, in the journal
        // (CONTRACT §19; refused in a closed business day). Payments through a bill or a provider are
        // journaled where they are recorded (floor, payments).
        if (r.changed && deps.journal) {
          await deps.journal.append(w, {
            tenant_id: actor.tenantId, kind: 'payment', ref_id: payment.payment_id ?? id, order_id: id, amount_cents: payment.amount_cents ?? r.order.total_cents,
            method: payment.provider ? 'online' : 'overig', user_id: actor.userId, detail: { source: payment.provider ?? 'counter', order_number: r.order.number },
          });
        }
        return r;
      });
    },

    /**
     * markPaid inside the caller's transaction (payments: the payment row's conditional update and
     * the order change commit together, issue 12). Throws CONFLICT before writing anything for a
     * cancelled order.
     */
    markPaidIn,
    markManyPaidIn,

    /**
     * Sends a held course to the kitchen (POST /orders/:id/fire, CONTRACT §17): its lines get
     * `fired_at`, the fire is kept with who and when. Firing a course again is a no-op answered with
     * the order; a course without lines, or an order that is final, is 409.
     */
    async fire(actor: Actor, id: string, course: number): Promise<{ order: Order; changed: boolean }> {
      return changes.write(actor.tenantId, async (w) => {
        const row = await ordersRepository.find(w.trx, actor.tenantId, id);
        if (!row) throw notFound('Bestelling');
        const items = await ordersRepository.itemsOf(w.trx, [id]);
        const lines = items.filter((i) => i.course === course && i.voided_quantity < i.quantity);
        if (lines.length === 0) throw conflict(`Deze bestelling heeft geen gang ${course}.`);
        if (lines.every((i) => i.fired_at)) return { order: toOrderDto(row, items), changed: false };
        if (row.status === 'completed' || row.status === 'cancelled') throw conflict(`Deze bestelling is al '${row.status}'; gang ${course} kan niet meer naar de keuken.`);
        const fire = { id: newId(), tenant_id: actor.tenantId, order_id: id, course, user_id: actor.userId, created_at: w.now };
        await w.trx.insertInto('order_course_fires').values(fire).execute();
        await w.trx.updateTable('order_items').set({ fired_at: w.now }).where('order_id', '=', id).where('course', '=', course).where('fired_at', 'is', null).execute();
        await ordersRepository.update(w.trx, actor.tenantId, id, { updated_at: w.now });
        const order = toOrderDto({ ...row, updated_at: w.now }, items.map((i) => (i.course === course && !i.fired_at ? { ...i, fired_at: w.now } : i)));
        const { tenant_id: _t, order_id: _o, ...wire } = fire;
        await w.record({ entity: 'order', entityId: id, kind: 'order.course_fired', payload: { order, fire: wire } });
        await run('courseFired', w, actor, order, course);
        return { order, changed: true };
      });
    },

    /**
     * Takes units off a line (POST /orders/:id/items/:item_id/void, CONTRACT §17), kept with who,
     * when and why; the line's and the order's totals leave them out, and so does the stock booked
     * at completion. More than is left is 409; so is a void on a completed, cancelled or paid order.
     */
    async voidItem(actor: Actor, id: string, itemId: string, input: { quantity: number; reason: string }): Promise<Order> {
      return changes.write(actor.tenantId, async (w) => {
        const row = await ordersRepository.find(w.trx, actor.tenantId, id);
        if (!row) throw notFound('Bestelling');
        const items = await ordersRepository.itemsOf(w.trx, [id]);
        const item = items.find((i) => i.id === itemId);
        if (!item) throw notFound('Bestelregel');
        if (row.status === 'completed' || row.status === 'cancelled') throw conflict(`Deze bestelling is al '${row.status}'; er kan niets meer geannuleerd worden.`);
        if (row.payment_status === 'paid') throw conflict('Deze bestelling is al betaald; er kan niets meer geannuleerd worden.');
        const left = item.quantity - item.voided_quantity;
        if (input.quantity > left) throw conflict(left === 0 ? `'${item.name}' is al helemaal geannuleerd.` : `Er ${left === 1 ? 'is' : 'zijn'} nog maar ${left} van '${item.name}' over om te annuleren.`);
        const voided = item.voided_quantity + input.quantity;
        const lineTotal = item.unit_price_cents * (item.quantity - voided);
        const v = { id: newId(), tenant_id: actor.tenantId, order_id: id, item_id: itemId, quantity: input.quantity, reason: input.reason, user_id: actor.userId, created_at: w.now };
        await w.trx.insertInto('order_item_voids').values(v).execute();
        await w.trx.updateTable('order_items').set({ voided_quantity: voided, total_cents: lineTotal }).where('id', '=', itemId).execute();
        const next = items.map((i) => (i.id === itemId ? { ...i, voided_quantity: voided, total_cents: lineTotal } : i));
        // Discounts stay as given, but never take off more than is left (a comped line voided takes its discount with it).
        const discounts = await ordersRepository.discountsOf(w.trx, [id]);
        const f = figuresOf(next, discounts);
        await ordersRepository.update(w.trx, actor.tenantId, id, { total_cents: f.total_cents, discount_cents: f.discount_cents, updated_at: w.now });
        const order = toOrderDto({ ...row, total_cents: f.total_cents, discount_cents: f.discount_cents, updated_at: w.now }, next, discounts);
        const { tenant_id: _t, order_id: _o, ...wire } = v;
        await w.record({ entity: 'order', entityId: id, kind: 'order.item_voided', payload: { order, void: wire } });
        await run('itemVoided', w, actor, order, { id: v.id, item_id: itemId, quantity: input.quantity, reason: input.reason });
        // The void in the journal (CONTRACT §19): refused in a closed business day, with everything above.
        await deps.journal?.append(w, {
          tenant_id: actor.tenantId, kind: 'void', ref_id: v.id, order_id: id, amount_cents: item.unit_price_cents * input.quantity, user_id: actor.userId,
          detail: { item_id: itemId, name: item.name, quantity: input.quantity, reason: input.reason },
        });
        return order;
      });
    },

    /** Who fired which course when, and every void (for the kitchen board and the day close). */
    async courseLog(tenantId: string, id: string) {
      await load(tenantId, id);
      const [fires, voids] = await Promise.all([ordersRepository.firesOf(db, [id]), ordersRepository.voidsOf(db, [id])]);
      return { fires: fires.map(({ tenant_id: _t, order_id: _o, ...f }) => f), voids: voids.map(({ tenant_id: _t, order_id: _o, ...v }) => v) };
    },

    /** Each product's station (its own, else its category's, else keuken), read through `exec` (printing, inside an order's transaction). */
    async stationsOf(exec: Db | Writer['trx'], tenantId: string, productIds: string[]): Promise<Map<string, string>> {
      return (await menu.forOrder(exec, tenantId)).stations(productIds);
    },

    /** One order, read inside the caller's transaction. */
    getIn: (w: Writer, tenantId: string, id: string) => load(tenantId, id, w.trx),
  };
  return service;
}

export type OrdersService = ReturnType<typeof createOrdersService>;
