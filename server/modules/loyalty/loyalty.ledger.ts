import type { Executor } from '../../db/connection.js';
import { newId } from '../../shared/ids.js';
import { toE164 } from '../../shared/phone.js';
import { forgetOrderNotes, personOf, redactPerson, type ErasedPerson } from './loyalty.erasure.js';
import { loyaltyRepository as repo, type CustomerRow, type LeaseRow, type TransactionRow } from './loyalty.repository.js';
import { holderOf, leaseEffects, POOL, topUpAmount } from './loyalty.rules.js';

/**
 * The loyalty ledger and its escrow over one transaction: what the service (API, order hook, jobs)
 * and the sync descriptors (loyalty.sync.ts) both do to the database, so a row has the same effect
 * however it arrives. No services, no change-log records here: callers record.
 *
 * Accounts (`loyalty_accounts`, local-only, docs/loyalty.md "Escrow") are kept per SURVIVING
 * customer (the root of `merged_into`) and holder: 'pool' (what the cloud may redeem, or a
 * stand-alone appliance) or a device id (that appliance's lease). The balance is their sum.
 */

/** The surviving customer of `id` (follows `merged_into`), or undefined when the customer is unknown here. */
export async function rootOf(db: Executor, tenantId: string, id: string): Promise<CustomerRow | undefined> {
  let row = await repo.findCustomer(db, tenantId, id);
  for (let hops = 0; row && row.merged_into && hops < 8; hops++) {
    const next = await repo.findCustomer(db, tenantId, row.merged_into);
    if (!next) break;
    row = next;
  }
  return row;
}

async function rootIdOf(db: Executor, tenantId: string, customerId: string): Promise<string> {
  return (await rootOf(db, tenantId, customerId))?.id ?? customerId;
}

/** Adds a ledger row if absent (the union) and applies its effect on the accounts; true when added. `rootId`: the caller already knows the survivor. */
export async function addTransaction(db: Executor, row: TransactionRow, rootId?: string): Promise<boolean> {
  const inserted = await repo.insertTransaction(db, row);
  if (inserted) await repo.adjustAccount(db, row.tenant_id, rootId ?? (await rootIdOf(db, row.tenant_id, row.customer_id)), holderOf(row), row.points);
  return inserted;
}

/** Adopting the cloud's version of a ledger row that differs here (e.g. the same earn under another customer): undo, replace, redo. */
export async function replaceTransaction(db: Executor, old: TransactionRow, row: TransactionRow): Promise<void> {
  await repo.adjustAccount(db, old.tenant_id, await rootIdOf(db, old.tenant_id, old.customer_id), holderOf(old), -old.points);
  await repo.replaceTransaction(db, row);
  await repo.adjustAccount(db, row.tenant_id, await rootIdOf(db, row.tenant_id, row.customer_id), holderOf(row), row.points);
}

export const sameTransaction = (a: TransactionRow, b: TransactionRow): boolean =>
  a.customer_id === b.customer_id && a.type === b.type && a.points === b.points && a.pool === b.pool && a.device_id === b.device_id && a.order_id === b.order_id && a.note === b.note && a.user_id === b.user_id && a.origin === b.origin && a.created_at === b.created_at;

/** Adds a lease row if absent and moves its points between the pool and the device; true when added. */
export async function addLease(db: Executor, row: LeaseRow, rootId?: string): Promise<boolean> {
  const inserted = await repo.insertLease(db, row);
  if (inserted) {
    const root = rootId ?? (await rootIdOf(db, row.tenant_id, row.customer_id));
    for (const e of leaseEffects(row)) await repo.adjustAccount(db, row.tenant_id, root, e.holder, e.delta);
  }
  return inserted;
}

/** What a holder may spend for a customer's group, and the group's balance. */
export async function accountOf(db: Executor, rootId: string): Promise<{ balance: number; pool: number; byHolder: Map<string, number> }> {
  const rows = await repo.accountsOf(db, [rootId]);
  const byHolder = new Map(rows.map((r) => [r.holder, Number(r.points)]));
  return { balance: rows.reduce((s, r) => s + Number(r.points), 0), pool: byHolder.get(POOL) ?? 0, byHolder };
}

export async function balancesOf(db: Executor, rootIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(rootIds.map((id) => [id, 0]));
  for (const r of await repo.accountsOf(db, rootIds)) out.set(r.customer_id, (out.get(r.customer_id) ?? 0) + Number(r.points));
  return out;
}

/**
 * Records that `loser` is the same guest as `root` (same phone, created on two sides of an outage):
 * `merged_into`, and its accounts folded into the root's. Idempotent.
 */
export async function markMerged(db: Executor, tenantId: string, loserId: string, rootId: string, at: string): Promise<void> {
  if (loserId === rootId) return;
  const loser = await repo.findCustomer(db, tenantId, loserId);
  if (loser && loser.merged_into !== rootId) await repo.updateCustomer(db, loserId, { merged_into: rootId, merged_at: loser.merged_at ?? at });
  await foldAccounts(db, tenantId, loserId, rootId);
}

export async function foldAccounts(db: Executor, tenantId: string, loserId: string, rootId: string): Promise<void> {
  if (loserId === rootId) return;
  const rows = await repo.accountsOf(db, [loserId]);
  if (rows.length === 0) return;
  for (const r of rows) if (Number(r.points) !== 0) await repo.adjustAccount(db, tenantId, rootId, r.holder, Number(r.points));
  await repo.deleteAccounts(db, loserId);
}

/**
 * Cloud: tops up every active appliance's lease on this customer to the tenant's allowance, from
 * the pool (docs/loyalty.md "Escrow"). Returns the grant rows written (the caller records them, or
 * sends them down with the op it applied).
 */
export async function topUp(db: Executor, tenantId: string, rootId: string, allowance: number, now: string, knownDevices?: string[]): Promise<LeaseRow[]> {
  if (allowance <= 0) return [];
  const devices = knownDevices ?? (await repo.activeDevices(db, tenantId));
  if (devices.length === 0) return [];
  const acc = await accountOf(db, rootId);
  let pool = acc.pool;
  const grants: LeaseRow[] = [];
  for (const device of devices) {
    const g = topUpAmount(allowance, acc.byHolder.get(device) ?? 0, pool);
    if (g <= 0) continue;
    const row: LeaseRow = { id: newId(), tenant_id: tenantId, customer_id: rootId, device_id: device, points: g, origin: 'cloud', created_at: now };
    await addLease(db, row, rootId);
    pool -= g;
    grants.push(row);
  }
  return grants;
}

/**
 * The customer records, orders and phone numbers an erasure covers: the group, every order whose
 * customer phone is one of the group's numbers (in any notation), and every order the group earned on.
 */
export async function erasureScope(db: Executor, tenantId: string, rootId: string): Promise<{ members: CustomerRow[]; orderIds: string[]; who: ErasedPerson }> {
  const members = await repo.members(db, tenantId, rootId);
  const phones = new Set(members.map((m) => m.phone).filter((p): p is string => p !== null));
  const orderIds = new Set<string>();
  if (phones.size > 0) {
    for (const o of await repo.ordersWithPhone(db, tenantId)) {
      const p = o.customer_phone ? toE164(o.customer_phone) : undefined;
      if (p && phones.has(p)) orderIds.add(o.id);
    }
  }
  for (const t of await repo.transactionsOf(db, members.map((m) => m.id))) if (t.order_id) orderIds.add(t.order_id);
  return { members, orderIds: [...orderIds], who: personOf(members) };
}

/** Personal fields removed from a change-log payload of a customer or an order (erasure). */
export function redactPayload(entity: string, payload: unknown): unknown {
  if (!payload || typeof payload !== 'object') return payload;
  const p = { ...(payload as Record<string, unknown>) };
  const scrubCustomer = (c: unknown) => (c && typeof c === 'object' ? { ...(c as object), phone: null, name: null, email: null } : c);
  if (entity === 'loyalty_customer') {
    if ('customer' in p) p.customer = scrubCustomer(p.customer);
    if ('survivor' in p) p.survivor = scrubCustomer(p.survivor);
    if (p.fields && typeof p.fields === 'object') {
      const { name: _n, email: _e, phone: _p, ...rest } = p.fields as Record<string, unknown>;
      p.fields = rest;
    }
  } else if (entity === 'order') {
    // The order's free text too (issue 28 point 3): it may hold a name, a number, an address.
    if (p.order && typeof p.order === 'object') {
      const o = p.order as Record<string, unknown>;
      p.order = { ...o, customer: null, ...('notes' in o ? { notes: null } : {}), ...(Array.isArray(o.items) ? { items: o.items.map((i: unknown) => (i && typeof i === 'object' ? { ...(i as object), notes: null } : i)) } : {}) };
    }
  }
  return p;
}

/**
 * Erases the group's personal data on this node: the customer rows become tombstones (phone, name,
 * e-mail null; `erased_at`), the orders lose the guest's name, phone and notes, and the change-log
 * copies of both are redacted in place; beyond loyalty (loyalty.erasure.ts) their bookings, other
 * orders' notes that name them, and this node's webhook deliveries. The ledger rows stay (they hold
 * no personal data), so totals are unchanged. Idempotent; `extraOrderIds` and `extraReservationIds`
 * are what another node found, `whoBefore` the person as this node knew them before an adopt
 * replaced the rows with tombstones.
 */
export async function eraseGroup(
  db: Executor,
  tenantId: string,
  rootId: string,
  at: string,
  extraOrderIds: string[] = [],
  extraIds: string[] = [],
  extraReservationIds: string[] = [],
  whoBefore?: ErasedPerson,
): Promise<{ erasedIds: string[]; orderIds: string[]; reservationIds: string[]; erasedAt: string }> {
  const { members, orderIds, who: found } = await erasureScope(db, tenantId, rootId);
  const who: ErasedPerson = whoBefore
    ? { phones: [...new Set([...found.phones, ...whoBefore.phones])], names: [...new Set([...found.names, ...whoBefore.names])], emails: [...new Set([...found.emails, ...whoBefore.emails])] }
    : found;
  const ids = new Set(members.map((m) => m.id));
  for (const id of extraIds) {
    const row = await repo.findCustomer(db, tenantId, id);
    if (row) ids.add(id);
  }
  const root = members.find((m) => m.id === rootId);
  const erasedAt = root?.erased_at ?? at;
  for (const id of ids) {
    const row = members.find((m) => m.id === id) ?? (await repo.findCustomer(db, tenantId, id));
    if (!row) continue;
    if (row.phone !== null || row.name !== null || row.email !== null || row.erased_at === null) {
      await repo.updateCustomer(db, id, { phone: null, name: null, email: null, erased_at: row.erased_at ?? erasedAt, updated_at: row.erased_at ? row.updated_at : at });
    }
  }
  const orders = [...new Set([...orderIds, ...extraOrderIds])];
  await redactStored(db, tenantId, [...ids], orders);
  const elsewhere = await redactPerson(db, tenantId, who, { customerIds: [...ids], orderIds: orders, reservationIds: extraReservationIds });
  return { erasedIds: [...ids].sort(), orderIds: orders.sort(), reservationIds: elsewhere.reservationIds, erasedAt };
}

/** Removes the personal fields of erased customers and their orders from rows and change-log payloads. */
export async function redactStored(db: Executor, tenantId: string, customerIds: string[], orderIds: string[]): Promise<void> {
  await repo.forgetOrderCustomer(db, tenantId, orderIds);
  await forgetOrderNotes(db, tenantId, orderIds);
  for (const [entity, ids] of [['loyalty_customer', customerIds], ['order', orderIds]] as const) {
    for (let i = 0; i < ids.length; i += 200) {
      for (const c of await repo.changesOf(db, tenantId, entity, ids.slice(i, i + 200))) {
        const next = JSON.stringify(redactPayload(entity, JSON.parse(c.payload) as unknown));
        if (next !== c.payload) await repo.setChangePayload(db, c.op_id, next);
      }
    }
  }
}

/** The accounts as they follow from the ledger (tests and repair): root → holder → points. */
export async function rebuildAccounts(db: Executor, tenantId: string): Promise<Map<string, Map<string, number>>> {
  const customers = await repo.allCustomers(db, tenantId);
  const parent = new Map(customers.map((c) => [c.id, c.merged_into]));
  const root = (id: string) => {
    let cur = id;
    for (let i = 0; i < 8; i++) {
      const next = parent.get(cur);
      if (!next) break;
      cur = next;
    }
    return cur;
  };
  const out = new Map<string, Map<string, number>>();
  const add = (customer: string, holder: string, delta: number) => {
    const r = root(customer);
    let m = out.get(r);
    if (!m) out.set(r, (m = new Map()));
    m.set(holder, (m.get(holder) ?? 0) + delta);
  };
  for (const t of await repo.allTransactions(db, tenantId)) add(t.customer_id, holderOf({ points: Number(t.points), pool: t.pool, device_id: t.device_id }), Number(t.points));
  for (const l of await repo.allLeases(db, tenantId)) for (const e of leaseEffects({ points: Number(l.points), device_id: l.device_id })) add(l.customer_id, e.holder, e.delta);
  return out;
}

/** Re-derives the accounts of a tenant from its ledger (repair; `npm run cli` could call it). */
export async function resetAccounts(db: Executor, tenantId: string): Promise<void> {
  await repo.clearAccounts(db, tenantId);
  for (const [customer, holders] of await rebuildAccounts(db, tenantId)) {
    for (const [holder, points] of holders) if (points !== 0) await repo.adjustAccount(db, tenantId, customer, holder, points);
  }
}
