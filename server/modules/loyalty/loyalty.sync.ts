import { z } from 'zod';
import type { Tx } from '../../db/connection.js';
import { parsePayload } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyContext, type ApplyOutcome, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { eraseGroup, erasureScope, rootOf, sameTransaction } from './loyalty.ledger.js';
import { addLeaseIn, addTransactionIn, directStore, replaceTransactionIn, rootIn, settleBatch, storeFor, topUpIn, type LoyaltyStore } from './loyalty.store.js';
import { loyaltyRepository as repo, type CustomerRow, type LeaseRow, type PrivacyRow, type TransactionRow } from './loyalty.repository.js';
import { CustomerRowSchema, LeaseRowSchema, PrivacyRowSchema, TransactionRowSchema } from './loyalty.schemas.js';

/**
 * How loyalty travels between the appliance and the cloud (docs/loyalty.md, sync/README.md):
 *
 * - `loyalty_customer` (lww-fields + tombstone): the cloud merges a pushed customer whose phone a
 *   live customer already has (first seen by the cloud survives; the merge is a recorded conflict
 *   and both records are sent down); an erased customer's personal fields never come back.
 * - `loyalty_transaction` and `loyalty_lease` (escrow): unions by id; the cloud accepts a pushed
 *   decrement only from the appliance's own lease and tops up the leases after each change, sending
 *   the grants down with the op; only the cloud grants, only the appliance returns.
 * - `loyalty_privacy` (ledger): the export/erase log.
 *
 * Every apply reads and writes through a `LoyaltyStore` (loyalty.store.ts): inside a batch (the
 * cloud's push chunk, an appliance's pull or snapshot page) the batch's, which reads what the batch
 * names once and writes at the flush; otherwise the database directly. Same logic, same outcome.
 */

const CustomerPayload = z.looseObject({
  customer: CustomerRowSchema,
  survivor: CustomerRowSchema.optional(),
  fields: z.object({ name: z.string().max(120).nullable().optional(), email: z.string().max(200).nullable().optional() }).optional(),
});
const ErasedPayload = z.looseObject({
  customer_id: z.uuid(),
  customers: z.array(CustomerRowSchema).max(1000).default([]),
  order_ids: z.array(z.uuid()).max(100_000).default([]),
  reservation_ids: z.array(z.uuid()).max(100_000).default([]),
  erased_at: z.iso.datetime({ offset: true }),
});
const TransactionPayload = z.looseObject({ transaction: TransactionRowSchema, grants: z.array(LeaseRowSchema).max(1000).optional() });
const LeasePayload = z.looseObject({ lease: LeaseRowSchema });
const PrivacyPayload = z.looseObject({ entry: PrivacyRowSchema });

const stripTenant = <T extends { tenant_id: string }>(r: T): Omit<T, 'tenant_id'> => {
  const { tenant_id: _t, ...rest } = r;
  return rest;
};

async function ownRow<T extends { tenant_id: string }>(row: T | undefined, tenantId: string): Promise<T | undefined> {
  if (row && row.tenant_id !== tenantId) throw new RejectOp('Deze gegevens horen bij een ander restaurant.');
  return row;
}

const scrubbed = (c: CustomerRow): CustomerRow => ({ ...c, phone: null, name: null, email: null });

/**
 * Adopts a customer row as the cloud holds it. The local tombstone still wins (an erasure made here
 * and not yet pushed is not undone by an older pulled state); a newly merged record's accounts move
 * to its survivor.
 */
async function adoptCustomer(s: LoyaltyStore, tenantId: string, incoming: z.infer<typeof CustomerRowSchema>): Promise<void> {
  const local = await ownRow(await s.customer(incoming.id), tenantId);
  let next: CustomerRow = { ...incoming, tenant_id: tenantId };
  if (local?.erased_at && !next.erased_at) next = { ...scrubbed(next), erased_at: local.erased_at };
  if (local) {
    const { id, ...rest } = next;
    await s.updateCustomer(id, rest);
  } else {
    await s.insertCustomer(next);
  }
  if (next.merged_into && local?.merged_into !== next.merged_into) {
    const root = await rootIn(s, next.merged_into);
    await s.fold(next.id, root?.id ?? next.merged_into);
  }
}

async function mergeCustomer(s: LoyaltyStore, change: SyncChange, ctx: ApplyContext, p: z.infer<typeof CustomerPayload>): Promise<ApplyOutcome | void> {
  const tenantId = change.tenant_id;
  const c = p.customer;
  const existing = await ownRow(await s.customer(c.id), tenantId);
  if (existing) {
    const target = (await rootIn(s, existing.id))!;
    if (target.erased_at || existing.erased_at) {
      // The tombstone wins over personal fields that arrive after the erasure.
      return { payload: { customer: scrubbed(existing), fields: {} }, conflict: 'Deze klant is gewist; de gewijzigde gegevens zijn niet bewaard.' };
    }
    const fields: Partial<Pick<CustomerRow, 'name' | 'email'>> = {};
    if (change.kind === 'loyalty.customer_updated') {
      if (p.fields?.name !== undefined) fields.name = p.fields.name;
      if (p.fields?.email !== undefined) fields.email = p.fields.email;
    }
    let row = target;
    if (Object.keys(fields).length > 0) {
      const updated_at = change.created_at > target.updated_at ? change.created_at : target.updated_at;
      row = { ...target, ...fields, updated_at };
      await s.updateCustomer(target.id, { ...fields, updated_at });
    }
    return { payload: { customer: row, fields } };
  }
  if (change.kind !== 'loyalty.customer_created') throw new RejectOp('Klant niet gevonden.');
  const row: CustomerRow = { ...c, tenant_id: tenantId, merged_into: null, merged_at: null, erased_at: c.erased_at };
  if (ctx.side === 'cloud' && row.phone && !row.erased_at) {
    const live = (await s.liveByPhone(row.phone)).filter((x) => x.id !== row.id);
    const survivor = live[0];
    if (survivor) {
      // The same phone created on two sides of an outage: the customer the cloud saw first survives;
      // this record joins it (its ledger rows count for the survivor) and fills the survivor's gaps.
      const merged: CustomerRow = { ...row, merged_into: survivor.id, merged_at: ctx.now };
      await s.insertCustomer(merged);
      const gaps: Partial<CustomerRow> = {};
      if (!survivor.name && row.name) gaps.name = row.name;
      if (!survivor.email && row.email) gaps.email = row.email;
      let after = survivor;
      if (Object.keys(gaps).length > 0) {
        after = { ...survivor, ...gaps, updated_at: ctx.now };
        await s.updateCustomer(survivor.id, { ...gaps, updated_at: ctx.now });
      }
      return {
        payload: { customer: merged, survivor: after },
        conflict: `Deze klant bestond al met hetzelfde telefoonnummer; de twee zijn samengevoegd tot klant ${survivor.id}.`,
      };
    }
  }
  await s.insertCustomer(row);
  return { payload: { customer: row } };
}

/** An erasure works on the tables directly (customers, orders, change log): inside a batch, after the batch's loyalty writes so far. */
async function applyErasure(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<ApplyOutcome | void> {
  const tenantId = change.tenant_id;
  const p = parsePayload(ErasedPayload, change.payload, 'een gewiste klant');
  await settleBatch(trx, ctx, tenantId);
  const root = await rootOf(trx, tenantId, p.customer_id);
  if (root && root.tenant_id !== tenantId) throw new RejectOp('Deze gegevens horen bij een ander restaurant.');
  if (ctx.mode === 'adopt') {
    // Orders found by this node's copy of the phone, before the rows lose it.
    const local = root ? await erasureScope(trx, tenantId, root.id) : { orderIds: [] as string[] };
    const direct = directStore(trx, tenantId);
    for (const c of p.customers) await adoptCustomer(direct, tenantId, c);
    if (root) await eraseGroup(trx, tenantId, root.id, p.erased_at, [...p.order_ids, ...local.orderIds], p.customers.map((c) => c.id), p.reservation_ids, 'who' in local ? local.who : undefined);
    return;
  }
  if (!root) throw new RejectOp('Klant niet gevonden.');
  const r = await eraseGroup(trx, tenantId, root.id, p.erased_at, p.order_ids, p.customers.map((c) => c.id), p.reservation_ids);
  const customers: CustomerRow[] = [];
  for (const id of r.erasedIds) {
    const row = await repo.findCustomer(trx, tenantId, id);
    if (row) customers.push(row);
  }
  return { payload: { customer_id: root.id, customers: customers.map(stripTenant), order_ids: r.orderIds, reservation_ids: r.reservationIds, erased_at: r.erasedAt } };
}

const TYPE_OF_KIND: Record<string, TransactionRow['type'] | undefined> = {
  'loyalty.points_earned': 'earn',
  'loyalty.points_redeemed': 'redeem',
  'loyalty.points_adjusted': 'adjust',
};

async function applyTransaction(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<ApplyOutcome | void> {
  const tenantId = change.tenant_id;
  const p = parsePayload(TransactionPayload, change.payload, 'een puntenmutatie', ctx);
  const row: TransactionRow = { ...p.transaction, tenant_id: tenantId };
  if (row.id !== change.entity_id) throw new RejectOp('Ongeldige puntenmutatie.');
  const snapshot = change.kind === 'loyalty.transaction_snapshot';
  if (!snapshot && TYPE_OF_KIND[change.kind] !== row.type) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
  if (snapshot && ctx.mode !== 'adopt') throw new RejectOp('Een momentopname komt alleen uit de cloud.');
  const s = await storeFor(trx, ctx, tenantId);
  if (ctx.side === 'cloud' && ctx.mode === 'merge') return mergeTransaction(s, change, ctx, row);
  const existing = await ownRow(await s.transaction(row.id), tenantId);

  if (ctx.mode === 'adopt') {
    // The cloud's version is the truth (the same earn may have been written here under another customer).
    if (!existing) await addTransactionIn(s, row);
    else if (!sameTransaction(existing, row)) await replaceTransactionIn(s, existing, row);
    for (const g of p.grants ?? []) await addLeaseIn(s, { ...g, tenant_id: tenantId });
    return;
  }
  // Rebase of this appliance's own pending row: the union.
  if (!existing) await addTransactionIn(s, row);
}

/**
 * The cloud merging an appliance's ledger row: the union by id (the cloud's version wins and goes
 * back down), one earn per order, a decrement only from the pushing appliance's own lease and never
 * beyond it; then the leases of the customer topped up, the grants sent down with this op.
 */
async function mergeTransaction(s: LoyaltyStore, change: SyncChange, ctx: ApplyContext, row: TransactionRow): Promise<ApplyOutcome> {
  const tenantId = change.tenant_id;
  const found = await s.transactionOrEarn(row.id, row.type === 'earn' ? row.order_id : null);
  const existing = await ownRow(found.find((f) => f.id === row.id), tenantId);
  if (existing) return { payload: { transaction: stripTenant(existing) } };
  const root = await rootIn(s, row.customer_id);
  if (!root) throw new RejectOp('De klant bestaat niet bij dit restaurant.');
  if (row.order_id) {
    const orderTenant = await s.orderTenant(row.order_id);
    if (orderTenant !== undefined && orderTenant !== tenantId) throw new RejectOp('De bestelling bestaat niet bij dit restaurant.');
  }
  // The order's earn under another id (never made by this code; the unique index would refuse it): keep the first.
  const other = found.find((f) => f.id !== row.id);
  if (other) return { payload: { transaction: stripTenant(other) } };
  if (row.points < 0) {
    if (row.pool !== 'lease' || row.device_id !== change.origin) throw new RejectOp('Een kassa kan alleen punten uit haar eigen bewaring inwisselen.');
    if (!(await s.spend(root.id, row.device_id, -row.points))) throw new RejectOp('Deze kassa wisselde meer punten in dan zij in bewaring had.');
    await s.insertTransaction(row);
  } else {
    await addTransactionIn(s, row, root.id);
  }
  const grants = await topUpIn(s, tenantId, root.id, ctx.now);
  return { payload: { transaction: stripTenant(row), ...(grants.length ? { grants: grants.map(stripTenant) } : {}) } };
}

async function applyLease(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<ApplyOutcome | void> {
  const tenantId = change.tenant_id;
  const p = parsePayload(LeasePayload, change.payload, 'punten in bewaring');
  const row: LeaseRow = { ...p.lease, tenant_id: tenantId };
  if (row.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging van punten in bewaring.');
  const s = await storeFor(trx, ctx, tenantId);
  const existing = await ownRow(await s.lease(row.id), tenantId);
  if (ctx.mode === 'adopt' || ctx.side === 'appliance') {
    if (!existing) await addLeaseIn(s, row);
    return;
  }
  if (change.kind !== 'loyalty.lease_returned' || row.points >= 0 || row.device_id !== change.origin) {
    throw new RejectOp('Alleen de cloud geeft punten in bewaring; een kassa kan alleen haar eigen punten teruggeven.');
  }
  // The customer must be one of this restaurant's (also when the return itself was applied before).
  if (!(await s.customer(row.customer_id))) throw new RejectOp('De klant bestaat niet bij dit restaurant.');
  if (existing) return;
  const root = (await rootIn(s, row.customer_id))!;
  const held = (await s.accounts(root.id)).get(row.device_id) ?? 0;
  if (-row.points > held) throw new RejectOp('Deze kassa gaf meer punten terug dan zij in bewaring had.');
  await addLeaseIn(s, row);
}

async function applyPrivacy(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<void> {
  const p = parsePayload(PrivacyPayload, change.payload, 'het privacylogboek');
  const row: PrivacyRow = { ...p.entry, tenant_id: change.tenant_id };
  const s = await storeFor(trx, ctx, change.tenant_id);
  await ownRow(await s.privacy(row.id), change.tenant_id);
  await s.insertPrivacy(row);
}

function snapshotOf<K extends 'loyalty_customers' | 'loyalty_transactions' | 'loyalty_leases' | 'loyalty_privacy_log'>(table: K, entity: string, kind: string, key: string): EntityDescriptor['snapshot'] {
  return async (db, tenantId, after, limit) => {
    let q = db.selectFrom(table as 'loyalty_leases').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    const rows = (await q.orderBy('id').limit(limit).execute()) as Array<{ id: string; tenant_id: string; created_at: string; updated_at?: string }>;
    const changes = rows.map((r) => ({ entity, entity_id: r.id, kind, payload: { [key]: stripTenant(r) }, created_at: r.updated_at ?? r.created_at }));
    return { changes, next: snapshotNext(changes, limit) };
  };
}

export const loyaltySync: EntityDescriptor[] = [
  {
    entity: 'loyalty_customer',
    merge: 'lww-fields',
    tables: ['loyalty_customers'],
    async apply(trx, change, ctx) {
      if (change.kind === 'loyalty.customer_erased') return applyErasure(trx, change, ctx);
      if (!['loyalty.customer_created', 'loyalty.customer_updated', 'loyalty.customer_snapshot'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = parsePayload(CustomerPayload, change.payload, 'een klant');
      if (p.customer.id !== change.entity_id && change.kind !== 'loyalty.customer_updated') throw new RejectOp('Ongeldige klant.');
      const s = await storeFor(trx, ctx, change.tenant_id);
      if (ctx.mode === 'adopt') {
        if (p.survivor) await adoptCustomer(s, change.tenant_id, p.survivor);
        await adoptCustomer(s, change.tenant_id, p.customer);
        return;
      }
      if (change.kind === 'loyalty.customer_snapshot') throw new RejectOp('Een momentopname komt alleen uit de cloud.');
      return mergeCustomer(s, change, ctx, p);
    },
    snapshot: snapshotOf('loyalty_customers', 'loyalty_customer', 'loyalty.customer_snapshot', 'customer'),
  },
  {
    entity: 'loyalty_transaction',
    merge: 'escrow',
    tables: ['loyalty_transactions'],
    apply: applyTransaction,
    snapshot: snapshotOf('loyalty_transactions', 'loyalty_transaction', 'loyalty.transaction_snapshot', 'transaction'),
  },
  {
    entity: 'loyalty_lease',
    merge: 'escrow',
    tables: ['loyalty_leases'],
    apply: applyLease,
    snapshot: snapshotOf('loyalty_leases', 'loyalty_lease', 'loyalty.lease_snapshot', 'lease'),
  },
  {
    entity: 'loyalty_privacy',
    merge: 'ledger',
    tables: ['loyalty_privacy_log'],
    async apply(trx, change, ctx) {
      await applyPrivacy(trx, change, ctx);
    },
    snapshot: snapshotOf('loyalty_privacy_log', 'loyalty_privacy', 'loyalty.privacy_snapshot', 'entry'),
  },
];
