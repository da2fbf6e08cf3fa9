import type { ChangeLog, ChangeRecord, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { AppError, conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { e164OrThrow, phoneSearchPrefix, toE164 } from '../../shared/phone.js';
import type { SyncTransport } from '../../../sync/transport.js';
import type { Order } from '../orders/orders.schemas.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import {
  accountOf,
  addLease,
  addTransaction,
  balancesOf,
  eraseGroup,
  erasureScope,
  redactStored,
  rootOf,
  topUp,
} from './loyalty.ledger.js';
import { NOBODY, redactPerson } from './loyalty.erasure.js';
import { loyaltyRepository as repo, type CustomerRow, type LeaseRow, type PrivacyRow, type TransactionRow } from './loyalty.repository.js';
import { earnId, excessOf, POOL, pointsForOrder } from './loyalty.rules.js';
import {
  OnlineRedeemResult,
  type AdjustInput,
  type BalanceByPhone,
  type Customer,
  type CustomerExport,
  type CustomerWithHistory,
  type OnlineRedeemInput,
  type RedeemInput,
  type RedeemResult,
  type Transaction,
  type UpsertCustomerInput,
} from './loyalty.schemas.js';

export interface LoyaltyActor {
  tenantId: string;
  userId: string | null;
}

/** Where this node stands in the escrow (docs/loyalty.md): the cloud and a stand-alone appliance spend the pool; a synced appliance its lease. */
type Role = 'cloud' | 'standalone' | 'appliance';

export const toTransactionDto = (t: TransactionRow): Transaction => ({
  id: t.id,
  type: t.type,
  points: Number(t.points),
  order_id: t.order_id,
  note: t.note,
  created_at: t.created_at,
});

const toCustomerDto = (c: CustomerRow, balance: number): Customer => ({
  id: c.id,
  phone: c.phone ?? '',
  name: c.name,
  email: c.email,
  balance,
  created_at: c.created_at,
  updated_at: c.updated_at,
});

/** Change-log inputs of the loyalty entities (kinds: docs/loyalty.md "Events"). */
export const customerChange = (row: CustomerRow, kind: 'loyalty.customer_created' | 'loyalty.customer_updated', extra: Record<string, unknown> = {}) => ({
  entity: 'loyalty_customer',
  entityId: row.id,
  kind,
  payload: { customer: row, ...extra },
});
const KIND_OF: Record<TransactionRow['type'], string> = { earn: 'loyalty.points_earned', redeem: 'loyalty.points_redeemed', adjust: 'loyalty.points_adjusted' };
export const transactionChange = (row: TransactionRow) => ({ entity: 'loyalty_transaction', entityId: row.id, kind: KIND_OF[row.type], payload: { transaction: row } });
export const leaseChange = (row: LeaseRow) => ({
  entity: 'loyalty_lease',
  entityId: row.id,
  kind: row.points > 0 ? 'loyalty.lease_granted' : 'loyalty.lease_returned',
  payload: { lease: row },
});
const privacyChange = (row: PrivacyRow) => ({ entity: 'loyalty_privacy', entityId: row.id, kind: 'loyalty.privacy_logged', payload: { entry: row } });

const customerNotFound = () => notFound('Klant');
const offlineUnreachable = () => conflict('Inwisselen is niet gelukt: de verbinding met de cloud viel weg. Probeer het zo opnieuw.');

function shortfall(balance: number, points: number, reserved = 0): AppError {
  if (reserved > 0 && balance >= points) {
    return conflict(`Onvoldoende punten: saldo ${balance}, waarvan ${reserved} gereserveerd voor de kassa in het restaurant; gevraagd ${points}.`);
  }
  return conflict(`Onvoldoende punten: saldo ${balance}, gevraagd ${points}.`);
}

/** The loyalty settings an earn read in a write (several orders paid in one transaction read them once). */
const earnSettings = new WeakMap<Writer, { pointsPerEuro: number; allowance: number }>();

export function createLoyaltyService(deps: { db: Db; changes: ChangeLog; tenants: TenantsService; cloudLink?: SyncTransport; onError?: (err: unknown) => void }) {
  const { db, changes, tenants } = deps;
  let cloudLink = deps.cloudLink;
  const bound = new Set<string>();
  /** Online redemptions whose answer was lost: a retry of the same request reuses the id, so the cloud answers the first outcome. */
  const inFlight = new Map<string, { id: string; at: number }>();

  async function roleOf(tenantId: string): Promise<Role> {
    if (changes.origin === 'cloud') return 'cloud';
    if (bound.has(tenantId)) return 'appliance';
    if (await repo.isBound(db, tenantId)) {
      bound.add(tenantId);
      return 'appliance';
    }
    return 'standalone';
  }

  /** The customer to show or use for a phone: on the cloud there is one; an appliance may briefly hold two (docs/loyalty.md "Duplicates"). */
  async function primaryByPhone(exec: Db | Writer['trx'], tenantId: string, phone: string): Promise<CustomerRow | undefined> {
    const live = await repo.liveByPhone(exec, tenantId, phone);
    if (live.length <= 1) return live[0];
    const balances = await balancesOf(exec, live.map((c) => c.id));
    return [...live].sort((a, b) => (balances.get(b.id) ?? 0) - (balances.get(a.id) ?? 0))[0];
  }

  async function liveRoot(exec: Db | Writer['trx'], tenantId: string, customerId: string): Promise<CustomerRow> {
    const root = await rootOf(exec, tenantId, customerId);
    if (!root || root.erased_at) throw customerNotFound();
    return root;
  }

  async function historyOf(exec: Db | Writer['trx'], tenantId: string, root: CustomerRow) {
    const members = await repo.members(exec, tenantId, root.id);
    return repo.transactionsOf(exec, members.map((m) => m.id));
  }

  /** Cloud: after a change of a customer's points, each appliance's lease is topped up and the grants recorded. */
  async function renew(w: Writer, tenantId: string, rootId: string): Promise<void> {
    if (changes.origin !== 'cloud') return;
    // Inside the transaction: read through it (on SQLite a read on another connection would wait for this one).
    const { allowance } = await repo.settings(w.trx, tenantId);
    for (const g of await topUp(w.trx, tenantId, rootId, allowance, w.now)) await w.record(leaseChange(g));
  }

  async function createCustomer(w: Writer, tenantId: string, phone: string, name: string | null, email: string | null): Promise<CustomerRow> {
    const row: CustomerRow = {
      id: newId(),
      tenant_id: tenantId,
      phone,
      name,
      email,
      origin: changes.origin,
      merged_into: null,
      merged_at: null,
      erased_at: null,
      created_at: w.now,
      updated_at: w.now,
    };
    await repo.insertCustomer(w.trx, row);
    await w.record(customerChange(row, 'loyalty.customer_created'));
    return row;
  }

  /** Spends points of one holder for the customer's group and writes the ledger row, in the caller's transaction. */
  async function spendAndWrite(
    w: Writer,
    actor: LoyaltyActor,
    root: CustomerRow,
    points: number,
    holder: string,
    type: 'redeem' | 'adjust',
    note: string | null,
    opts: { id?: string; askedBy?: string } = {},
  ): Promise<TransactionRow | undefined> {
    if (!(await repo.spend(w.trx, root.id, holder, points))) return undefined;
    const row: TransactionRow = {
      id: opts.id ?? newId(),
      tenant_id: actor.tenantId,
      customer_id: root.id,
      type,
      points: -points,
      pool: holder === POOL ? 'pool' : 'lease',
      // A lease spend names its appliance; a pool spend may name the appliance that asked online (audit only).
      device_id: holder === POOL ? (opts.askedBy ?? null) : holder,
      order_id: null,
      note,
      user_id: actor.userId,
      origin: changes.origin,
      created_at: w.now,
    };
    // The accounts were already changed by the spend: insert the row only.
    await repo.insertTransaction(w.trx, row);
    await w.record(transactionChange(row));
    return row;
  }

  /** The appliance asks the cloud (bearer SYNC_KEY) to redeem from the pool; undefined when the cloud could not be reached. */
  async function askCloud(body: OnlineRedeemInput): Promise<OnlineRedeemResult | undefined> {
    if (!cloudLink) return undefined;
    let reply;
    try {
      reply = await cloudLink.send({ method: 'POST', path: '/api/v1/sync/loyalty/redeem', body });
    } catch {
      return undefined;
    }
    if (reply.status === 200) {
      const parsed = OnlineRedeemResult.safeParse(reply.body);
      if (parsed.success) return parsed.data;
    }
    if (reply.status === 404 || reply.status === 409) {
      const b = reply.body as { error?: string; code?: string } | null;
      if (b?.code === 'NOT_FOUND') throw customerNotFound();
    }
    return undefined;
  }

  async function redeemOnAppliance(actor: LoyaltyActor, root: CustomerRow, points: number): Promise<RedeemResult> {
    const me = changes.origin;
    // 1. The lease: spent locally, online or not.
    const local = await changes.write(actor.tenantId, async (w) => {
      const row = await spendAndWrite(w, actor, root, points, me, 'redeem', null);
      return { row, acc: await accountOf(w.trx, root.id) };
    });
    if (local.row) return { customer_id: root.id, points_redeemed: points, balance: local.acc.balance, transaction: toTransactionDto(local.row) };
    const held = local.acc.byHolder.get(me) ?? 0;
    const offline = () =>
      local.acc.balance < points
        ? shortfall(local.acc.balance, points)
        : conflict(`Onvoldoende punten om zonder de cloud in te wisselen: op deze kassa beschikbaar ${held}, gevraagd ${points} (saldo ${local.acc.balance}).`);
    if (!cloudLink) throw offline();
    // 2. Online: the cloud redeems from its pool (balance minus every appliance's lease).
    const key = `${actor.tenantId}:${root.id}:${points}:${actor.userId ?? ''}`;
    const prior = inFlight.get(key);
    const id = prior && Date.now() - prior.at < 10 * 60_000 ? prior.id : newId();
    inFlight.set(key, { id, at: Date.now() });
    const done = (r: OnlineRedeemResult): RedeemResult => {
      inFlight.delete(key);
      return { customer_id: root.id, points_redeemed: points, balance: r.balance, transaction: toTransactionDto({ ...r.transaction!, tenant_id: actor.tenantId }) };
    };
    const first = await askCloud({ id, customer_id: root.id, points, user_id: actor.userId, returns: [] });
    // No answer: the request may or may not have reached the cloud. The id stays remembered, so
    // the staff's retry asks with the same id and the cloud answers the first outcome.
    if (!first) throw prior ? offlineUnreachable() : offline();
    if (first.ok && first.transaction) return done(first);
    // 3. Not enough in the pool alone: give this appliance's lease back (its own op, pushed like
    //    any other) and ask again with the return attached, so the cloud applies it first.
    if (held <= 0 || first.pool + held < points) {
      inFlight.delete(key);
      throw shortfall(first.balance, points, Math.max(0, first.balance - first.pool));
    }
    const returns = await changes.write(actor.tenantId, async (w) => {
      const now = (await accountOf(w.trx, root.id)).byHolder.get(me) ?? 0;
      if (now <= 0) return [];
      const row: LeaseRow = { id: newId(), tenant_id: actor.tenantId, customer_id: root.id, device_id: me, points: -now, origin: me, created_at: w.now };
      await addLease(w.trx, row);
      await w.record(leaseChange(row));
      return [row];
    });
    const second = await askCloud({ id, customer_id: root.id, points, user_id: actor.userId, returns: returns.map(({ tenant_id: _t, ...r }) => r) });
    if (!second) throw offlineUnreachable();
    if (second.ok && second.transaction) return done(second);
    inFlight.delete(key);
    throw shortfall(second.balance, points, Math.max(0, second.balance - second.pool));
  }

  /** Follow-up work after commit: erasures reach rows written after them (docs/loyalty.md "Privacy"). */
  let privacyChain: Promise<void> = Promise.resolve();
  function onCommitted(tenantId: string, records: ChangeRecord[]): void {
    const erasures = records.filter((r) => r.kind === 'loyalty.customer_erased');
    const earned = records.filter((r) => r.kind === 'loyalty.points_earned');
    if (erasures.length === 0 && earned.length === 0) return;
    privacyChain = privacyChain
      .then(async () => {
        const customerIds = new Set<string>();
        const orderIds = new Set<string>();
        for (const r of erasures) {
          const p = r.payload as { customers?: Array<{ id: string }>; order_ids?: string[] };
          for (const c of p.customers ?? []) customerIds.add(c.id);
          for (const o of p.order_ids ?? []) orderIds.add(o);
        }
        const earnedOrders = earned
          .map((r) => (r.payload as { transaction?: TransactionRow }).transaction)
          .filter((t): t is TransactionRow => Boolean(t && t.order_id));
        if (customerIds.size === 0 && orderIds.size === 0 && earnedOrders.length === 0) return;
        if (erasures.length === 0 && !(await repo.anyErased(db, tenantId))) return;
        await changes.write(tenantId, async (w) => {
          for (const t of earnedOrders) {
            const root = await rootOf(w.trx, tenantId, t.customer_id);
            if (root?.erased_at) orderIds.add(t.order_id!);
          }
          if (customerIds.size > 0 || orderIds.size > 0) {
            await redactStored(w.trx, tenantId, [...customerIds], [...orderIds]);
            // Webhook deliveries of orders whose earn row arrived after the erasure (issue 28 point 3).
            await redactPerson(w.trx, tenantId, NOBODY, { customerIds: [...customerIds], orderIds: [...orderIds], reservationIds: [] });
          }
        });
      })
      .catch((err: unknown) => deps.onError?.(err));
  }
  changes.on('committed', onCommitted);

  return {
    /** Production: the appliance's HTTP link to its cloud (CLOUD_URL, SYNC_KEY). Tests pass their transport. */
    useCloudLink(link: SyncTransport | undefined): void {
      cloudLink = link;
    },

    /** Resolves when the after-commit privacy work queued so far is done (tests, shutdown). */
    settled: () => privacyChain,

    /** POST /loyalty/customer: upsert by phone; created emits `loyalty.customer_created` once. */
    async upsert(actor: LoyaltyActor, input: UpsertCustomerInput): Promise<{ customer: Customer; created: boolean }> {
      // The route's schema normalised it already; other callers (another module, the demo) may pass any notation.
      const phone = e164OrThrow(input.phone, 'phone');
      return changes.write(actor.tenantId, async (w) => {
        const existing = await primaryByPhone(w.trx, actor.tenantId, phone);
        if (!existing) {
          const row = await createCustomer(w, actor.tenantId, phone, input.name ?? null, input.email ?? null);
          return { customer: toCustomerDto(row, 0), created: true };
        }
        const fields: Partial<Pick<CustomerRow, 'name' | 'email'>> = {};
        if (input.name !== undefined && input.name !== existing.name) fields.name = input.name;
        if (input.email !== undefined && input.email !== existing.email) fields.email = input.email;
        let row = existing;
        if (Object.keys(fields).length > 0) {
          row = { ...existing, ...fields, updated_at: w.now };
          await repo.updateCustomer(w.trx, row.id, { ...fields, updated_at: w.now });
          await w.record(customerChange(row, 'loyalty.customer_updated', { fields }));
        }
        return { customer: toCustomerDto(row, (await accountOf(w.trx, row.id)).balance), created: false };
      });
    },

    /** GET /loyalty/customer/:phone: the customer with balance and history, newest first. */
    async getByPhone(tenantId: string, rawPhone: string): Promise<CustomerWithHistory> {
      const phone = e164OrThrow(rawPhone, 'phone');
      const c = await primaryByPhone(db, tenantId, phone);
      if (!c) throw customerNotFound();
      const [acc, history, role] = await Promise.all([accountOf(db, c.id), historyOf(db, tenantId, c), roleOf(tenantId)]);
      const redeemable = role === 'appliance' ? (acc.byHolder.get(changes.origin) ?? 0) : acc.pool;
      return { ...toCustomerDto(c, acc.balance), redeemable_here: Math.max(0, redeemable), transactions: history.map(toTransactionDto) };
    },

    /** GET /loyalty/customers?search=: name or e-mail (case-insensitive), or a phone in any notation, or its start (`0612`), or a run of its digits. */
    async search(tenantId: string, q: { search?: string; limit: number }): Promise<Customer[]> {
      const text = q.search?.trim() || undefined;
      let phone: string | undefined;
      let phonePrefix: string | undefined;
      let digits: string | undefined;
      if (text) {
        phone = toE164(text);
        if (!phone && /^[\d\s+().-]+$/.test(text)) {
          phonePrefix = phoneSearchPrefix(text);
          const d = text.replace(/\D/g, '').replace(/^0+/, '');
          if (d.length >= 4) digits = d;
        }
      }
      const rows = await repo.search(db, tenantId, { text, phone, phonePrefix, digits }, q.limit);
      const balances = await balancesOf(db, rows.map((r) => r.id));
      return rows.map((r) => toCustomerDto(r, balances.get(r.id) ?? 0));
    },

    /** For GET /external/loyalty/:phone (issue 16): a phone in any notation → the customer's balance; NOT_FOUND, or VALIDATION for a number that is not one. */
    async balanceByPhone(tenantId: string, rawPhone: string): Promise<BalanceByPhone> {
      const phone = e164OrThrow(rawPhone, 'phone');
      const c = await primaryByPhone(db, tenantId, phone);
      if (!c) throw customerNotFound();
      return { customer_id: c.id, phone, name: c.name, balance: (await accountOf(db, c.id)).balance };
    },

    /**
     * POST /loyalty/redeem. The check and the write are one conditional UPDATE of the holder's
     * account (loyalty.repository `spend`) in the same transaction as the ledger row: concurrent
     * redemptions can never overdraw. The cloud and a stand-alone appliance spend the pool; a synced
     * appliance spends its lease, and online asks the cloud for more (docs/loyalty.md "Escrow").
     */
    async redeem(actor: LoyaltyActor, input: RedeemInput): Promise<RedeemResult> {
      const root = await liveRoot(db, actor.tenantId, input.customer_id);
      if ((await roleOf(actor.tenantId)) === 'appliance') return redeemOnAppliance(actor, root, input.points);
      return changes.write(actor.tenantId, async (w) => {
        const r = await liveRoot(w.trx, actor.tenantId, input.customer_id);
        const row = await spendAndWrite(w, actor, r, input.points, POOL, 'redeem', null);
        const acc = await accountOf(w.trx, r.id);
        if (!row) throw shortfall(acc.balance, input.points, acc.balance - acc.pool);
        return { customer_id: r.id, points_redeemed: input.points, balance: acc.balance, transaction: toTransactionDto(row) };
      });
    },

    /** POST /loyalty/adjust (admin): a correction, + to the pool, − spent like a redemption (never below zero). */
    async adjust(actor: LoyaltyActor, input: AdjustInput): Promise<{ customer_id: string; balance: number; transaction: Transaction }> {
      const role = await roleOf(actor.tenantId);
      return changes.write(actor.tenantId, async (w) => {
        const root = await liveRoot(w.trx, actor.tenantId, input.customer_id);
        let row: TransactionRow | undefined;
        if (input.points > 0) {
          row = { id: newId(), tenant_id: actor.tenantId, customer_id: root.id, type: 'adjust', points: input.points, pool: 'pool', device_id: null, order_id: null, note: input.note, user_id: actor.userId, origin: changes.origin, created_at: w.now };
          await addTransaction(w.trx, row);
          await w.record(transactionChange(row));
          await renew(w, actor.tenantId, root.id);
        } else {
          row = await spendAndWrite(w, actor, root, -input.points, role === 'appliance' ? changes.origin : POOL, 'adjust', input.note);
          if (!row) {
            const acc = await accountOf(w.trx, root.id);
            throw shortfall(acc.balance, -input.points, acc.balance - (role === 'appliance' ? (acc.byHolder.get(changes.origin) ?? 0) : acc.pool));
          }
        }
        return { customer_id: root.id, balance: (await accountOf(w.trx, root.id)).balance, transaction: toTransactionDto(row) };
      });
    },

    /**
     * The orders `paid` hook (composition root): in the order's own transaction, the customer with
     * the order's phone (created when new) earns the tenant's points per whole euro, once per order:
     * the earn row's id is derived from the order id. Orders that arrive paid through sync do not run
     * this; the side that marked them paid wrote the earn row and it travels as a ledger row.
     */
    async earnForOrder(w: Writer, actor: LoyaltyActor, order: Pick<Order, 'id' | 'total_cents' | 'customer'>): Promise<TransactionRow | undefined> {
      const phone = order.customer?.phone ? toE164(order.customer.phone) : undefined;
      if (!phone) return undefined;
      // One read per write: a bill closing marks several orders paid in one transaction.
      let settings = earnSettings.get(w);
      if (!settings) earnSettings.set(w, (settings = await repo.settings(w.trx, actor.tenantId)));
      const { pointsPerEuro } = settings;
      const points = pointsForOrder(order.total_cents, pointsPerEuro);
      if (points <= 0) return undefined;
      const id = earnId(order.id);
      if (await repo.findTransaction(w.trx, id)) return undefined;
      const customer = (await primaryByPhone(w.trx, actor.tenantId, phone)) ?? (await createCustomer(w, actor.tenantId, phone, order.customer?.name ?? null, null));
      const row: TransactionRow = {
        id,
        tenant_id: actor.tenantId,
        customer_id: customer.id,
        type: 'earn',
        points,
        pool: 'pool',
        device_id: null,
        order_id: order.id,
        note: null,
        user_id: actor.userId,
        origin: changes.origin,
        created_at: w.now,
      };
      // primaryByPhone and createCustomer answer a live customer that is merged into none: its own root.
      await addTransaction(w.trx, row, customer.id);
      await w.record(transactionChange(row));
      await renew(w, actor.tenantId, customer.id);
      return row;
    },

    /** GET /loyalty/customer/:id/export (admin): everything held about the customer; logged. */
    async exportCustomer(actor: LoyaltyActor, id: string): Promise<CustomerExport> {
      const tenant = await tenants.byId(actor.tenantId);
      return changes.write(actor.tenantId, async (w) => {
        const found = await repo.findCustomer(w.trx, actor.tenantId, id);
        if (!found) throw customerNotFound();
        const root = (await rootOf(w.trx, actor.tenantId, id))!;
        const { members, orderIds } = await erasureScope(w.trx, actor.tenantId, root.id);
        const history = await repo.transactionsOf(w.trx, members.map((m) => m.id));
        const orders = await repo.ordersByIds(w.trx, actor.tenantId, orderIds);
        const acc = await accountOf(w.trx, root.id);
        const entry: PrivacyRow = { id: newId(), tenant_id: actor.tenantId, customer_id: root.id, action: 'export', user_id: actor.userId, origin: changes.origin, created_at: w.now };
        await repo.insertPrivacy(w.trx, entry);
        await w.record(privacyChange(entry));
        const log = await repo.privacyOf(w.trx, members.map((m) => m.id));
        return {
          exported_at: w.now,
          tenant: { id: actor.tenantId, name: tenant?.name ?? '' },
          customer: { id: root.id, phone: root.phone, name: root.name, email: root.email, created_at: root.created_at, updated_at: root.updated_at, erased_at: root.erased_at },
          merged_records: members.filter((m) => m.id !== root.id).map((m) => ({ id: m.id, phone: m.phone, name: m.name, email: m.email, created_at: m.created_at, merged_at: m.merged_at })),
          balance: acc.balance,
          transactions: history.map(toTransactionDto),
          orders: orders.map((o) => ({ id: o.id, number: o.number, total_cents: Number(o.total_cents), created_at: o.created_at, customer_name: o.customer_name, customer_phone: o.customer_phone })),
          privacy_log: log.map((l) => ({ action: l.action, user_id: l.user_id, created_at: l.created_at })),
        };
      });
    },

    /**
     * DELETE /loyalty/customer/:id (admin): erasure. The group's phone, name and e-mail are removed
     * everywhere on this node (customer rows, orders, change-log copies); the points history stays,
     * anonymised, so totals are unchanged; logged. The change travels to the other side.
     */
    async erase(actor: LoyaltyActor, id: string): Promise<void> {
      await changes.write(actor.tenantId, async (w) => {
        const root = await liveRoot(w.trx, actor.tenantId, id);
        const { erasedIds, orderIds, reservationIds, erasedAt } = await eraseGroup(w.trx, actor.tenantId, root.id, w.now);
        const customers = [];
        for (const cid of erasedIds) customers.push((await repo.findCustomer(w.trx, actor.tenantId, cid))!);
        const entry: PrivacyRow = { id: newId(), tenant_id: actor.tenantId, customer_id: root.id, action: 'erase', user_id: actor.userId, origin: changes.origin, created_at: w.now };
        await repo.insertPrivacy(w.trx, entry);
        await w.record(privacyChange(entry));
        await w.record({ entity: 'loyalty_customer', entityId: root.id, kind: 'loyalty.customer_erased', payload: { customer_id: root.id, customers, order_ids: orderIds, reservation_ids: reservationIds, erased_at: erasedAt } });
      });
    },

    /**
     * Cloud, POST /sync/loyalty/redeem (an appliance online, bearer SYNC_KEY): first the lease
     * returns the appliance made for this request, then the redemption from the pool, then the
     * appliance's lease topped up again. A repeated id answers the first outcome.
     */
    async redeemOnline(device: { id: string; tenant_id: string }, input: OnlineRedeemInput): Promise<OnlineRedeemResult> {
      const tenantId = device.tenant_id;
      return changes.write(tenantId, async (w) => {
        const done = await repo.findTransaction(w.trx, input.id);
        const root = await liveRoot(w.trx, tenantId, input.customer_id);
        if (done) {
          if (done.tenant_id !== tenantId) throw customerNotFound();
          const acc = await accountOf(w.trx, root.id);
          return { ok: true, transaction: { ...done, points: Number(done.points) }, balance: acc.balance, pool: acc.pool, held: acc.byHolder.get(device.id) ?? 0, message: null };
        }
        for (const r of input.returns) {
          if (r.device_id !== device.id || r.points >= 0) throw conflict('Ongeldige teruggave van punten door deze kassa.');
          const lroot = await rootOf(w.trx, tenantId, r.customer_id);
          if (!lroot) throw customerNotFound();
          if (await repo.findLease(w.trx, r.id)) continue;
          const held = (await accountOf(w.trx, lroot.id)).byHolder.get(device.id) ?? 0;
          if (-r.points > held) throw conflict('Deze kassa geeft meer punten terug dan zij in bewaring heeft.');
          const row: LeaseRow = { ...r, tenant_id: tenantId };
          await addLease(w.trx, row);
          await w.record(leaseChange(row));
        }
        const spent = await spendAndWrite(w, { tenantId, userId: input.user_id ?? null }, root, input.points, POOL, 'redeem', null, { id: input.id, askedBy: device.id });
        await renew(w, tenantId, root.id);
        const acc = await accountOf(w.trx, root.id);
        const message = spent ? null : shortfall(acc.balance, input.points, acc.balance - acc.pool).message;
        const { tenant_id: _t, ...tx } = spent ?? ({} as TransactionRow);
        return { ok: Boolean(spent), transaction: spent ? (tx as OnlineRedeemResult['transaction']) : null, balance: acc.balance, pool: acc.pool, held: acc.byHolder.get(device.id) ?? 0, message };
      });
    },

    /** Cloud job: tops up every appliance's lease where the pool has points (a raised allowance, a new appliance). */
    async renewLeases(tenantId?: string): Promise<number> {
      if (changes.origin !== 'cloud') return 0;
      const tenantIds = tenantId ? [tenantId] : await repo.tenantsWithPoolPoints(db);
      let granted = 0;
      for (const t of tenantIds) {
        const { loyalty_offline_allowance } = await tenants.cachedSettings(t);
        const pools = await repo.poolsWithPoints(db, t);
        for (let i = 0; i < pools.length; i += 100) {
          granted += await changes.write(t, async (w) => {
            let n = 0;
            for (const p of pools.slice(i, i + 100)) {
              for (const g of await topUp(w.trx, t, p.customer_id, loyalty_offline_allowance, w.now)) {
                await w.record(leaseChange(g));
                n += 1;
              }
            }
            return n;
          });
        }
      }
      return granted;
    },

    /** Appliance job: gives back what it holds beyond the (lowered) allowance, as its own ops pushed through sync. */
    async returnExcess(tenantId?: string): Promise<number> {
      if (changes.origin === 'cloud') return 0;
      const tenantIds = tenantId ? [tenantId] : await repo.boundTenants(db);
      let returned = 0;
      for (const t of tenantIds) {
        if ((await roleOf(t)) !== 'appliance') continue;
        const { loyalty_offline_allowance } = await tenants.cachedSettings(t);
        returned += await changes.write(t, async (w) => {
          let n = 0;
          for (const h of await repo.heldBy(w.trx, t, changes.origin)) {
            const excess = excessOf(loyalty_offline_allowance, Number(h.points));
            if (excess <= 0) continue;
            const row: LeaseRow = { id: newId(), tenant_id: t, customer_id: h.customer_id, device_id: changes.origin, points: -excess, origin: changes.origin, created_at: w.now };
            await addLease(w.trx, row);
            await w.record(leaseChange(row));
            n += 1;
          }
          return n;
        });
      }
      return returned;
    },
  };
}

export type LoyaltyService = ReturnType<typeof createLoyaltyService>;
