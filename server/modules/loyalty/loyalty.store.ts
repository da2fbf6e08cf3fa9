import { sql } from 'kysely';
import { insertRows } from '../../db/bulk.js';
import { ROWS_PER_INSERT, type Tx } from '../../db/connection.js';
import { newId } from '../../shared/ids.js';
import { chunks, defineBatchStore } from '../../../sync/batch-store.js';
import type { ApplyContext, BatchState, SyncChange } from '../../../sync/types.js';
import { foldAccounts } from './loyalty.ledger.js';
import { loyaltyRepository as repo, type CustomerRow, type LeaseRow, type PrivacyRow, type TransactionRow } from './loyalty.repository.js';
import { holderOf, leaseEffects, POOL, topUpAmount } from './loyalty.rules.js';

/**
 * Where the loyalty sync descriptors (loyalty.sync.ts) read and write: straight to the database
 * (`directStore`: the cloud's op-by-op re-run, anything outside a batch), or, inside a batch
 * (`ApplyContext.batch`: the cloud's push chunk, an appliance's pull or snapshot page), through
 * `LoyaltyBatch`, which reads what the batch's changes name in a few statements when it is first
 * used, applies every op to what it holds (later ops see earlier ops' effects: a customer created,
 * an earn, the lease topped up, a redemption checked against it), and writes the new customers,
 * ledger and lease rows and the account changes in a few multi-row statements at the flush.
 *
 * The descriptor's logic is written once against this interface, so both give the same outcome.
 * The escrow check (a spend never beyond what the holder has) stays exact in a batch: the batch
 * runs inside `ChangeLog.write`, which holds the tenant's write lock to the commit (PostgreSQL: the
 * row lock on `change_seq`; SQLite: the single writer), and every other writer of a tenant's
 * accounts (the API's redemptions, adjustments, the lease jobs, the online redemption) writes
 * through `ChangeLog.write` of that tenant too; so the accounts read at the batch's start plus the
 * batch's own changes are the accounts.
 */
export interface LoyaltyStore {
  /** The tenant's customer with this id. */
  customer(id: string): Promise<CustomerRow | undefined>;
  /** The tenant's live (not merged, not erased) customers with this phone, oldest first. */
  liveByPhone(phone: string): Promise<CustomerRow[]>;
  insertCustomer(row: CustomerRow): Promise<void>;
  /** `id` must be a customer this store returned. */
  updateCustomer(id: string, patch: Partial<CustomerRow>): Promise<void>;
  /** The ledger row with this id (of any tenant: the caller checks). */
  transaction(id: string): Promise<TransactionRow | undefined>;
  /** The row with this id, and the tenant's earn of the order (when given), as `repo.transactionOrEarn`. */
  transactionOrEarn(id: string, orderId: string | null): Promise<TransactionRow[]>;
  /** The tenant of the order with this id, undefined when there is none. */
  orderTenant(orderId: string): Promise<string | undefined>;
  /** Insert if absent by id; true when added. */
  insertTransaction(row: TransactionRow): Promise<boolean>;
  replaceTransaction(row: TransactionRow): Promise<void>;
  /** The lease row with this id (of any tenant). */
  lease(id: string): Promise<LeaseRow | undefined>;
  /** Insert if absent by id; true when added. `fresh`: an id made just now (never stored). */
  insertLease(row: LeaseRow, fresh?: boolean): Promise<boolean>;
  /** The privacy log row with this id (of any tenant). */
  privacy(id: string): Promise<PrivacyRow | undefined>;
  insertPrivacy(row: PrivacyRow): Promise<void>;
  /** The account rows of a customer: holder → points. */
  accounts(customerId: string): Promise<Map<string, number>>;
  adjust(customerId: string, holder: string, delta: number): Promise<void>;
  /** Spends `points` of the holder's account only while it has that many (`repo.spend`); true when spent. */
  spend(customerId: string, holder: string, points: number): Promise<boolean>;
  /** `foldAccounts`: the loser's accounts added to the root's, the loser's rows removed. */
  fold(loserId: string, rootId: string): Promise<void>;
  /** The tenant's offline allowance and the devices that hold leases. */
  escrow(): Promise<{ allowance: number; devices: string[] }>;
}

/** Reads and writes at once (what every apply did before batches; the same statements). */
export function directStore(trx: Tx, tenantId: string): LoyaltyStore {
  return {
    customer: (id) => repo.findCustomer(trx, tenantId, id),
    liveByPhone: (phone) => repo.liveByPhone(trx, tenantId, phone),
    insertCustomer: async (row) => void (await repo.insertCustomer(trx, row)),
    updateCustomer: async (id, patch) => void (await repo.updateCustomer(trx, id, patch)),
    transaction: (id) => repo.findTransaction(trx, id),
    transactionOrEarn: (id, orderId) => repo.transactionOrEarn(trx, tenantId, id, orderId),
    orderTenant: async (orderId) => (await trx.selectFrom('orders').select('tenant_id').where('id', '=', orderId).executeTakeFirst())?.tenant_id,
    insertTransaction: (row) => repo.insertTransaction(trx, row),
    replaceTransaction: async (row) => void (await repo.replaceTransaction(trx, row)),
    lease: (id) => repo.findLease(trx, id),
    insertLease: (row) => repo.insertLease(trx, row),
    privacy: (id) => trx.selectFrom('loyalty_privacy_log').selectAll().where('id', '=', id).executeTakeFirst(),
    insertPrivacy: async (row) => void (await repo.insertPrivacy(trx, row)),
    accounts: async (customerId) => new Map((await repo.accountsOf(trx, [customerId])).map((r) => [r.holder, Number(r.points)])),
    adjust: async (customerId, holder, delta) => void (await repo.adjustAccount(trx, tenantId, customerId, holder, delta)),
    spend: (customerId, holder, points) => repo.spend(trx, customerId, holder, points),
    fold: (loserId, rootId) => foldAccounts(trx, tenantId, loserId, rootId),
    escrow: () => repo.escrow(trx, tenantId),
  };
}

// ---- the ledger on a store (loyalty.ledger.ts's addTransaction, addLease, topUp, replaceTransaction) ----

/** The surviving customer of `id` (follows `merged_into`, at most 8 hops), as `rootOf`. */
export async function rootIn(s: LoyaltyStore, id: string): Promise<CustomerRow | undefined> {
  let row = await s.customer(id);
  for (let hops = 0; row && row.merged_into && hops < 8; hops++) {
    const next = await s.customer(row.merged_into);
    if (!next) break;
    row = next;
  }
  return row;
}

const rootIdIn = async (s: LoyaltyStore, customerId: string) => (await rootIn(s, customerId))?.id ?? customerId;

/** Adds a ledger row if absent and applies its effect on the accounts; true when added. */
export async function addTransactionIn(s: LoyaltyStore, row: TransactionRow, rootId?: string): Promise<boolean> {
  const inserted = await s.insertTransaction(row);
  if (inserted) await s.adjust(rootId ?? (await rootIdIn(s, row.customer_id)), holderOf(row), row.points);
  return inserted;
}

/** Adopting the cloud's version of a ledger row that differs here: undo, replace, redo. */
export async function replaceTransactionIn(s: LoyaltyStore, old: TransactionRow, row: TransactionRow): Promise<void> {
  await s.adjust(await rootIdIn(s, old.customer_id), holderOf(old), -old.points);
  await s.replaceTransaction(row);
  await s.adjust(await rootIdIn(s, row.customer_id), holderOf(row), row.points);
}

/** Adds a lease row if absent and moves its points between the pool and the device; true when added. */
export async function addLeaseIn(s: LoyaltyStore, row: LeaseRow, rootId?: string, fresh = false): Promise<boolean> {
  const inserted = await s.insertLease(row, fresh);
  if (inserted) {
    const root = rootId ?? (await rootIdIn(s, row.customer_id));
    for (const e of leaseEffects(row)) await s.adjust(root, e.holder, e.delta);
  }
  return inserted;
}

/** Cloud: tops up every active appliance's lease on this customer to the allowance, from the pool (as `topUp`); the grants written. */
export async function topUpIn(s: LoyaltyStore, tenantId: string, rootId: string, now: string): Promise<LeaseRow[]> {
  const { allowance, devices } = await s.escrow();
  if (allowance <= 0 || devices.length === 0) return [];
  const acc = await s.accounts(rootId);
  let pool = acc.get(POOL) ?? 0;
  const grants: LeaseRow[] = [];
  for (const device of devices) {
    const g = topUpAmount(allowance, acc.get(device) ?? 0, pool);
    if (g <= 0) continue;
    const row: LeaseRow = { id: newId(), tenant_id: tenantId, customer_id: rootId, device_id: device, points: g, origin: 'cloud', created_at: now };
    await addLeaseIn(s, row, rootId, true);
    pool -= g;
    grants.push(row);
  }
  return grants;
}

// ---- the batch ----

/** Rows as the database returns them (column order), so a row this batch wrote reads back like one read from the table. */
const customerRow = (r: CustomerRow): CustomerRow => ({
  id: r.id,
  tenant_id: r.tenant_id,
  phone: r.phone,
  name: r.name,
  email: r.email,
  origin: r.origin,
  merged_into: r.merged_into,
  merged_at: r.merged_at,
  erased_at: r.erased_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});
const transactionRow = (r: TransactionRow): TransactionRow => ({
  id: r.id,
  tenant_id: r.tenant_id,
  customer_id: r.customer_id,
  type: r.type,
  points: r.points,
  pool: r.pool,
  device_id: r.device_id,
  order_id: r.order_id,
  note: r.note,
  user_id: r.user_id,
  origin: r.origin,
  created_at: r.created_at,
});
const leaseRow = (r: LeaseRow): LeaseRow => ({ id: r.id, tenant_id: r.tenant_id, customer_id: r.customer_id, device_id: r.device_id, points: r.points, origin: r.origin, created_at: r.created_at });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const E164 = /^\+[1-9]\d{5,14}$/;
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const uuidOf = (v: unknown): string | undefined => (typeof v === 'string' && UUID.test(v) ? v : undefined);
/** Ids per `in (...)` list. */
const IN = ROWS_PER_INSERT;

/** What a batch's loyalty changes name (a hint from unvalidated payloads: only well-formed ids and phones). */
function namedBy(changes: ReadonlyArray<SyncChange>, tenantId: string) {
  const customers = new Set<string>();
  const phones = new Set<string>();
  const transactions = new Set<string>();
  const earnOrders = new Set<string>();
  const orders = new Set<string>();
  const leases = new Set<string>();
  const privacy = new Set<string>();
  const add = (set: Set<string>, v: unknown) => {
    const id = uuidOf(v);
    if (id) set.add(id);
  };
  for (const c of changes) {
    if (c.tenant_id !== tenantId) continue;
    const p = obj(c.payload);
    if (!p) continue;
    if (c.entity === 'loyalty_customer') {
      add(customers, c.entity_id);
      for (const k of ['customer', 'survivor'] as const) {
        const row = obj(p[k]);
        add(customers, row?.id);
        add(customers, row?.merged_into);
        if (typeof row?.phone === 'string' && E164.test(row.phone)) phones.add(row.phone);
      }
      add(customers, p.customer_id);
      if (Array.isArray(p.customers)) for (const r of p.customers) add(customers, obj(r)?.id);
    } else if (c.entity === 'loyalty_transaction') {
      const t = obj(p.transaction);
      add(transactions, c.entity_id);
      add(transactions, t?.id);
      add(customers, t?.customer_id);
      add(orders, t?.order_id);
      if (t?.type === 'earn') add(earnOrders, t.order_id);
      if (Array.isArray(p.grants)) {
        for (const g of p.grants) {
          add(leases, obj(g)?.id);
          add(customers, obj(g)?.customer_id);
        }
      }
    } else if (c.entity === 'loyalty_lease') {
      add(leases, c.entity_id);
      add(leases, obj(p.lease)?.id);
      add(customers, obj(p.lease)?.customer_id);
    } else if (c.entity === 'loyalty_privacy') {
      add(privacy, c.entity_id);
      add(privacy, obj(p.entry)?.id);
    }
  }
  return { customers, phones, transactions, earnOrders, orders, leases, privacy };
}


/**
 * The batch form of the store (see the top of this file). What it knows is authoritative for the
 * batch: a customer, ledger row or lease this batch added is found here (not yet in the database),
 * an id looked up and not found is remembered as absent. What the batch's changes do not name is
 * read when asked, one statement, as outside a batch.
 */
export class LoyaltyBatch implements LoyaltyStore, BatchState {
  /** The tenant's customers by id (null: no customer of this tenant has that id). */
  private customers = new Map<string, CustomerRow | null>();
  /** Phones whose every customer of the tenant is in `customers`. */
  private phones = new Set<string>();
  private newCustomers = new Map<string, CustomerRow>();
  private customerPatches = new Map<string, Partial<CustomerRow>>();
  /** Ledger rows by id (any tenant; null: none) and the tenant's earn row by order id (null: none). */
  private transactions = new Map<string, TransactionRow | null>();
  private earns = new Map<string, TransactionRow | null>();
  private newTransactions = new Map<string, TransactionRow>();
  private replaced = new Map<string, TransactionRow>();
  private leases = new Map<string, LeaseRow | null>();
  private newLeases = new Map<string, LeaseRow>();
  private privacyRows = new Map<string, PrivacyRow | null>();
  private newPrivacy = new Map<string, PrivacyRow>();
  private orders = new Map<string, string | null>();
  /** Account rows as read (customer → holder → points), the batch's changes to them, and customers whose rows a fold removed. */
  private base = new Map<string, Map<string, number>>();
  private delta = new Map<string, Map<string, number>>();
  private dropped = new Set<string>();
  private escrowOf?: { allowance: number; devices: string[] };

  constructor(
    private readonly trx: Tx,
    private readonly tenantId: string,
    private readonly side: ApplyContext['side'],
    private readonly changes: ReadonlyArray<SyncChange>,
  ) {}

  /** Reads, once, what the batch's changes name: customers with their accounts (and the customers they were merged into), ledger rows, leases, privacy rows and, in the cloud, the orders. */
  async prefetch(): Promise<void> {
    const named = namedBy(this.changes, this.tenantId);
    await this.loadCustomers([...named.customers], [...named.phones]);
    const txIds = [...named.transactions];
    const earnOrders = [...named.earnOrders];
    if (txIds.length > 0 || earnOrders.length > 0) {
      const n = Math.max(txIds.length, earnOrders.length);
      for (let i = 0; i < n; i += IN) await this.loadTransactions(txIds.slice(i, i + IN), earnOrders.slice(i, i + IN));
    }
    const leaseIds = [...named.leases].filter((id) => !this.leases.has(id));
    for (const ids of chunks(leaseIds, IN)) {
      const rows = await this.trx.selectFrom('loyalty_leases').selectAll().where('id', 'in', ids).execute();
      for (const id of ids) this.leases.set(id, null);
      for (const r of rows) this.leases.set(r.id, r);
    }
    for (const ids of chunks([...named.privacy], IN)) {
      const rows = await this.trx.selectFrom('loyalty_privacy_log').selectAll().where('id', 'in', ids).execute();
      for (const id of ids) this.privacyRows.set(id, null);
      for (const r of rows) this.privacyRows.set(r.id, r);
    }
    if (this.side === 'cloud') {
      // Only the cloud checks an earn's order and tops up leases (which reads the accounts).
      for (const ids of chunks([...named.orders], IN)) {
        const rows = await this.trx.selectFrom('orders').select(['id', 'tenant_id']).where('id', 'in', ids).execute();
        for (const id of ids) this.orders.set(id, null);
        for (const r of rows) this.orders.set(r.id, r.tenant_id);
      }
      // The accounts of the named customers that are not stored (yet: made by this chunk), as they are (empty, normally).
      await this.loadAccounts([...this.customers].filter(([, c]) => c === null).map(([id]) => id));
    }
  }

  /** The tenant's customers with these ids or phones, with their account rows (one statement per IN), then the customers they were merged into. */
  private async loadCustomers(ids: string[], phones: string[]): Promise<void> {
    let todo = ids.filter((id) => !this.customers.has(id));
    let byPhone = phones.filter((p) => !this.phones.has(p));
    // rootOf follows at most 8 hops.
    for (let round = 0; round < 10 && (todo.length > 0 || byPhone.length > 0); round++) {
      const found = new Map<string, CustomerRow>();
      const accounts = new Map<string, Map<string, number>>();
      for (let i = 0; i < Math.max(todo.length, byPhone.length); i += IN) {
        const idPart = todo.slice(i, i + IN);
        const phonePart = byPhone.slice(i, i + IN);
        const rows = await this.trx
          .selectFrom('loyalty_customers as c')
          .leftJoin('loyalty_accounts as a', 'a.customer_id', 'c.id')
          .selectAll('c')
          .select(['a.holder as a_holder', 'a.points as a_points'])
          .where('c.tenant_id', '=', this.tenantId)
          .where((eb) => eb.or([...(idPart.length ? [eb('c.id', 'in', idPart)] : []), ...(phonePart.length ? [eb('c.phone', 'in', phonePart)] : [])]))
          .execute();
        for (const { a_holder, a_points, ...c } of rows) {
          if (!found.has(c.id)) found.set(c.id, c);
          let m = accounts.get(c.id);
          if (!m) accounts.set(c.id, (m = new Map()));
          if (a_holder !== null) m.set(a_holder, Number(a_points));
        }
      }
      for (const id of todo) if (!this.customers.has(id)) this.customers.set(id, null);
      for (const r of found.values()) if (!this.customers.get(r.id)) this.customers.set(r.id, r);
      for (const [id, m] of accounts) if (!this.base.has(id)) this.base.set(id, m);
      for (const p of byPhone) this.phones.add(p);
      todo = [...new Set([...found.values()].map((r) => r.merged_into).filter((id): id is string => id !== null && !this.customers.has(id)))];
      byPhone = [];
    }
  }

  private async loadTransactions(ids: string[], earnOrders: string[]): Promise<void> {
    const rows = await this.trx
      .selectFrom('loyalty_transactions')
      .selectAll()
      .where((eb) =>
        eb.or([
          ...(ids.length ? [eb('id', 'in', ids)] : []),
          ...(earnOrders.length ? [eb.and([eb('tenant_id', '=', this.tenantId), eb('type', '=', 'earn'), eb('order_id', 'in', earnOrders)])] : []),
        ]),
      )
      .execute();
    for (const r of rows) if (!this.transactions.has(r.id)) this.transactions.set(r.id, r);
    for (const id of ids) if (!this.transactions.has(id)) this.transactions.set(id, null);
    // A row this batch replaced speaks in its new version.
    const current = rows.map((r) => this.transactions.get(r.id) ?? r);
    for (const o of earnOrders) if (!this.earns.has(o)) this.earns.set(o, current.find((r) => this.isEarnOf(r, o)) ?? null);
    for (const r of current) if (r.order_id && this.isEarnOf(r, r.order_id) && !this.earns.has(r.order_id)) this.earns.set(r.order_id, r);
  }

  private isEarnOf(r: TransactionRow, orderId: string): boolean {
    return r.tenant_id === this.tenantId && r.type === 'earn' && r.order_id === orderId;
  }

  private async loadAccounts(customerIds: string[]): Promise<void> {
    const todo = [...new Set(customerIds)].filter((id) => !this.base.has(id));
    for (const ids of chunks(todo, IN)) {
      const rows = await repo.accountsOf(this.trx, ids);
      for (const id of ids) this.base.set(id, new Map());
      for (const r of rows) this.base.get(r.customer_id)!.set(r.holder, Number(r.points));
    }
  }

  // ---- customers ----

  async customer(id: string): Promise<CustomerRow | undefined> {
    if (!this.customers.has(id)) this.customers.set(id, (await repo.findCustomer(this.trx, this.tenantId, id)) ?? null);
    return this.customers.get(id) ?? undefined;
  }

  async liveByPhone(phone: string): Promise<CustomerRow[]> {
    if (!this.phones.has(phone)) await this.loadCustomers([], [phone]);
    const live: CustomerRow[] = [];
    for (const c of this.customers.values()) if (c && c.phone === phone && c.merged_into === null && c.erased_at === null) live.push(c);
    // As the statement orders them (created_at, then id; both databases compare these texts byte by byte).
    return live.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async insertCustomer(row: CustomerRow): Promise<void> {
    const r = customerRow(row);
    this.customers.set(r.id, r);
    this.newCustomers.set(r.id, r);
  }

  async updateCustomer(id: string, patch: Partial<CustomerRow>): Promise<void> {
    const current = this.customers.get(id);
    if (!current) {
      // Not a row this batch knows (callers update only rows they read): written at once, as outside a batch.
      await repo.updateCustomer(this.trx, id, patch);
      return;
    }
    const next = customerRow({ ...current, ...patch });
    this.customers.set(id, next);
    if (this.newCustomers.has(id)) this.newCustomers.set(id, next);
    else this.customerPatches.set(id, { ...this.customerPatches.get(id), ...patch });
  }

  // ---- ledger ----

  async transaction(id: string): Promise<TransactionRow | undefined> {
    if (!this.transactions.has(id)) await this.loadTransactions([id], []);
    return this.transactions.get(id) ?? undefined;
  }

  async transactionOrEarn(id: string, orderId: string | null): Promise<TransactionRow[]> {
    if (!this.transactions.has(id) || (orderId !== null && !this.earns.has(orderId))) await this.loadTransactions([id], orderId === null ? [] : [orderId]);
    const out: TransactionRow[] = [];
    const byId = this.transactions.get(id);
    if (byId) out.push(byId);
    const earn = orderId === null ? null : this.earns.get(orderId);
    if (earn && earn.id !== id) out.push(earn);
    return out;
  }

  async orderTenant(orderId: string): Promise<string | undefined> {
    if (!this.orders.has(orderId)) {
      this.orders.set(orderId, (await this.trx.selectFrom('orders').select('tenant_id').where('id', '=', orderId).executeTakeFirst())?.tenant_id ?? null);
    }
    return this.orders.get(orderId) ?? undefined;
  }

  async insertTransaction(row: TransactionRow): Promise<boolean> {
    if (await this.transaction(row.id)) return false;
    const r = transactionRow(row);
    this.transactions.set(r.id, r);
    this.newTransactions.set(r.id, r);
    if (r.order_id && this.isEarnOf(r, r.order_id)) this.earns.set(r.order_id, r);
    return true;
  }

  async replaceTransaction(row: TransactionRow): Promise<void> {
    const old = this.transactions.get(row.id);
    const r = transactionRow(row);
    this.transactions.set(r.id, r);
    if (this.newTransactions.has(r.id)) this.newTransactions.set(r.id, r);
    else this.replaced.set(r.id, r);
    // One earn per order and tenant (the unique index): the old row was the order's earn, if it was one.
    if (old?.order_id && this.isEarnOf(old, old.order_id)) this.earns.set(old.order_id, null);
    if (r.order_id && this.isEarnOf(r, r.order_id)) this.earns.set(r.order_id, r);
  }

  async lease(id: string): Promise<LeaseRow | undefined> {
    if (!this.leases.has(id)) this.leases.set(id, (await repo.findLease(this.trx, id)) ?? null);
    return this.leases.get(id) ?? undefined;
  }

  async insertLease(row: LeaseRow, fresh = false): Promise<boolean> {
    if (fresh ? this.leases.get(row.id) : await this.lease(row.id)) return false;
    const r = leaseRow(row);
    this.leases.set(r.id, r);
    this.newLeases.set(r.id, r);
    return true;
  }

  async privacy(id: string): Promise<PrivacyRow | undefined> {
    if (!this.privacyRows.has(id)) {
      this.privacyRows.set(id, (await this.trx.selectFrom('loyalty_privacy_log').selectAll().where('id', '=', id).executeTakeFirst()) ?? null);
    }
    return this.privacyRows.get(id) ?? undefined;
  }

  async insertPrivacy(row: PrivacyRow): Promise<void> {
    if (await this.privacy(row.id)) return;
    this.privacyRows.set(row.id, row);
    this.newPrivacy.set(row.id, row);
  }

  // ---- accounts ----

  async accounts(customerId: string): Promise<Map<string, number>> {
    await this.loadAccounts([customerId]);
    const out = new Map(this.base.get(customerId)!);
    for (const [holder, d] of this.delta.get(customerId) ?? []) out.set(holder, (out.get(holder) ?? 0) + d);
    return out;
  }

  async adjust(customerId: string, holder: string, delta: number): Promise<void> {
    let m = this.delta.get(customerId);
    if (!m) this.delta.set(customerId, (m = new Map()));
    m.set(holder, (m.get(holder) ?? 0) + delta);
  }

  async spend(customerId: string, holder: string, points: number): Promise<boolean> {
    // The conditional UPDATE's condition (`points >= p` on an existing row), on the accounts as they are now in this batch.
    const has = (await this.accounts(customerId)).get(holder);
    if (has === undefined || has < points) return false;
    await this.adjust(customerId, holder, -points);
    return true;
  }

  async fold(loserId: string, rootId: string): Promise<void> {
    if (loserId === rootId) return;
    const rows = await this.accounts(loserId);
    if (rows.size === 0) return;
    for (const [holder, points] of rows) if (points !== 0) await this.adjust(rootId, holder, points);
    if (this.base.get(loserId)!.size > 0) this.dropped.add(loserId);
    this.base.set(loserId, new Map());
    this.delta.delete(loserId);
  }

  async escrow(): Promise<{ allowance: number; devices: string[] }> {
    this.escrowOf ??= await repo.escrow(this.trx, this.tenantId);
    return this.escrowOf;
  }

  // ---- writing ----

  async flush(trx: Tx): Promise<void> {
    await this.write(trx);
  }

  /**
   * Writes what the batch holds and forgets everything it read, so the next op reads the database
   * again (before an erasure, which works on the tables directly).
   */
  async write(trx: Tx = this.trx): Promise<void> {
    for (const [id, patch] of this.customerPatches) await repo.updateCustomer(trx, id, patch);
    // Multi-row inserts without Kysely's build of every value (server/db/bulk.ts insertRows).
    await insertRows(trx, 'loyalty_customers', [...this.newCustomers.values()] as unknown as Array<Record<string, unknown>>);
    for (const row of this.replaced.values()) await repo.replaceTransaction(trx, row);
    await this.insertAll(trx, 'loyalty_transactions', [...this.newTransactions.values()]);
    await this.insertAll(trx, 'loyalty_leases', [...this.newLeases.values()]);
    await this.insertAll(trx, 'loyalty_privacy_log', [...this.newPrivacy.values()], false);
    // Accounts: the folded customers' rows removed, then every change added to its row (created when absent), as `adjustAccount` does.
    for (const ids of chunks([...this.dropped], IN)) await trx.deleteFrom('loyalty_accounts').where('customer_id', 'in', ids).execute();
    const changes = [...this.delta].flatMap(([customer_id, m]) => [...m].map(([holder, points]) => ({ tenant_id: this.tenantId, customer_id, holder, points })));
    for (const rows of chunks(changes, 200)) {
      await trx
        .insertInto('loyalty_accounts')
        .values(rows)
        .onConflict((oc) => oc.columns(['customer_id', 'holder']).doUpdateSet({ points: sql<number>`loyalty_accounts.points + excluded.points` }))
        .execute();
    }
    this.forget();
  }

  /** Insert-if-absent in multi-row statements (insertRows); the batch checked that none exists, so every row must be added. */
  private async insertAll(trx: Tx, table: 'loyalty_transactions' | 'loyalty_leases' | 'loyalty_privacy_log', rows: Array<{ id: string }>, strict = true): Promise<void> {
    const inserted = await insertRows(trx, table, rows as unknown as Array<Record<string, unknown>>, { columns: ['id'], action: 'nothing' });
    if (strict && inserted !== rows.length) throw new Error(`sync: a ${table} row of this batch exists already`);
  }

  private forget(): void {
    for (const m of [this.customers, this.newCustomers, this.customerPatches, this.transactions, this.earns, this.newTransactions, this.replaced, this.leases, this.newLeases, this.privacyRows, this.newPrivacy, this.orders, this.base, this.delta] as Array<Map<string, unknown>>) m.clear();
    this.phones.clear();
    this.dropped.clear();
  }
}

/** One batch form per restaurant of the batch's changes; it first reads what the batch's changes name. */
const loyaltyStore = defineBatchStore<LoyaltyStore, LoyaltyBatch>({
  key: 'loyalty',
  perTenant: true,
  direct: (trx, _ctx, tenantId) => directStore(trx, tenantId),
  create: (s) => new LoyaltyBatch(s.trx, s.tenantId, s.ctx.side, s.changes),
  prefetch: (b) => b.prefetch(),
});

/** The store for an apply: the batch's (which first reads what the batch's changes name), or the database directly. */
export const storeFor = (trx: Tx, ctx: ApplyContext, tenantId: string): Promise<LoyaltyStore> => loyaltyStore.of(trx, ctx, tenantId);

/** Before an apply that works on the tables directly (an erasure): the batch's writes so far made, what it read forgotten (read again at the next use). */
export async function settleBatch(trx: Tx, ctx: ApplyContext, tenantId: string): Promise<void> {
  const b = loyaltyStore.state(trx, ctx, tenantId);
  if (!b) return;
  await b.write(trx);
  loyaltyStore.refresh(ctx, tenantId);
}
