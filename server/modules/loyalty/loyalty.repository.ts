import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { LoyaltyCustomersTable, LoyaltyLeasesTable, LoyaltyPrivacyLogTable, LoyaltyTransactionsTable } from '../../db/database.js';
import { settingsOf } from '../tenants/tenants.service.js';
import { likeEscape } from './loyalty.rules.js';

export type CustomerRow = LoyaltyCustomersTable;
export type TransactionRow = LoyaltyTransactionsTable;
export type LeaseRow = LoyaltyLeasesTable;
export type PrivacyRow = LoyaltyPrivacyLogTable;

/** Kysely for the loyalty tables (and the two foreign reads/writes erasure needs, marked below). */
export const loyaltyRepository = {
  // ---- customers ----
  findCustomer: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('loyalty_customers').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  /** Live (not merged, not erased) customers with this E.164 phone, oldest first. */
  liveByPhone: (db: Executor, tenantId: string, phone: string) =>
    db
      .selectFrom('loyalty_customers')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('phone', '=', phone)
      .where('merged_into', 'is', null)
      .where('erased_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  /** The surviving customer and every record merged into it. */
  members: (db: Executor, tenantId: string, rootId: string) =>
    db
      .selectFrom('loyalty_customers')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where((eb) => eb.or([eb('id', '=', rootId), eb('merged_into', '=', rootId)]))
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  anyErased: async (db: Executor, tenantId: string): Promise<boolean> =>
    (await db.selectFrom('loyalty_customers').select('id').where('tenant_id', '=', tenantId).where('erased_at', 'is not', null).limit(1).executeTakeFirst()) !== undefined,

  insertCustomer: (db: Executor, row: CustomerRow) => db.insertInto('loyalty_customers').values(row).execute(),

  updateCustomer: (db: Executor, id: string, patch: Partial<CustomerRow>) => db.updateTable('loyalty_customers').set(patch).where('id', '=', id).execute(),

  /** Case-insensitive search over name and e-mail, and the phone (exact E.164, the start of an E.164 number, or a run of digits). */
  search: (db: Executor, tenantId: string, q: { text?: string; phone?: string; phonePrefix?: string; digits?: string }, limit: number) => {
    let query = db.selectFrom('loyalty_customers').selectAll().where('tenant_id', '=', tenantId).where('merged_into', 'is', null).where('erased_at', 'is', null);
    if (q.text || q.phone || q.phonePrefix || q.digits) {
      query = query.where((eb) => {
        const ors = [];
        if (q.text) {
          const pattern = `%${likeEscape(q.text.toLowerCase())}%`;
          ors.push(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
          ors.push(sql<boolean>`lower(email) like ${pattern} escape '\\'`);
        }
        if (q.phone) ors.push(eb('phone', '=', q.phone));
        // Only '+' and digits (phoneSearchPrefix): nothing LIKE would read as a wildcard.
        if (q.phonePrefix) ors.push(eb('phone', 'like', `${q.phonePrefix}%`));
        if (q.digits) ors.push(sql<boolean>`phone like ${`%${q.digits}%`}`);
        return eb.or(ors);
      });
    }
    return query.orderBy('name').orderBy('created_at').orderBy('id').limit(limit).execute();
  },

  // ---- ledger ----
  findTransaction: (db: Executor, id: string) => db.selectFrom('loyalty_transactions').selectAll().where('id', '=', id).executeTakeFirst(),

  /** Insert-if-absent by id (the ledger union); true when this call inserted it. */
  insertTransaction: async (db: Executor, row: TransactionRow): Promise<boolean> => {
    const r = await db.insertInto('loyalty_transactions').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  replaceTransaction: (db: Executor, row: TransactionRow) => {
    const { id, ...rest } = row;
    return db.updateTable('loyalty_transactions').set(rest).where('id', '=', id).execute();
  },

  /** The row with this id, and the earn row of the order (when given): what stands in the way of adding an earn, in one statement. */
  transactionOrEarn: (db: Executor, tenantId: string, id: string, orderId: string | null) =>
    db
      .selectFrom('loyalty_transactions')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', id), ...(orderId ? [eb.and([eb('tenant_id', '=', tenantId), eb('order_id', '=', orderId), eb('type', '=', 'earn')])] : [])]))
      .execute(),

  earnOfOrder: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('loyalty_transactions').selectAll().where('tenant_id', '=', tenantId).where('order_id', '=', orderId).where('type', '=', 'earn').executeTakeFirst(),

  transactionsOf: (db: Executor, customerIds: string[]) =>
    customerIds.length === 0
      ? Promise.resolve([] as TransactionRow[])
      : db.selectFrom('loyalty_transactions').selectAll().where('customer_id', 'in', customerIds).orderBy('created_at', 'desc').orderBy('id', 'desc').execute(),

  findLease: (db: Executor, id: string) => db.selectFrom('loyalty_leases').selectAll().where('id', '=', id).executeTakeFirst(),

  insertLease: async (db: Executor, row: LeaseRow): Promise<boolean> => {
    const r = await db.insertInto('loyalty_leases').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  insertPrivacy: async (db: Executor, row: PrivacyRow): Promise<boolean> => {
    const r = await db.insertInto('loyalty_privacy_log').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  privacyOf: (db: Executor, customerIds: string[]) =>
    customerIds.length === 0
      ? Promise.resolve([] as PrivacyRow[])
      : db.selectFrom('loyalty_privacy_log').selectAll().where('customer_id', 'in', customerIds).orderBy('created_at').orderBy('id').execute(),

  // ---- derived accounts (local-only) ----
  adjustAccount: (db: Executor, tenantId: string, customerId: string, holder: string, delta: number) =>
    db
      .insertInto('loyalty_accounts')
      .values({ tenant_id: tenantId, customer_id: customerId, holder, points: delta })
      .onConflict((oc) => oc.columns(['customer_id', 'holder']).doUpdateSet({ points: sql<number>`loyalty_accounts.points + ${delta}` }))
      .execute(),

  /**
   * The escrow's check and write in ONE statement: spends `points` of the holder's account only
   * while it has at least that many. Two concurrent spends cannot both pass (PostgreSQL re-checks
   * the condition on the locked row; SQLite has one writer). True when spent.
   */
  spend: async (db: Executor, customerId: string, holder: string, points: number): Promise<boolean> => {
    const r = await db
      .updateTable('loyalty_accounts')
      .set({ points: sql<number>`points - ${points}` })
      .where('customer_id', '=', customerId)
      .where('holder', '=', holder)
      .where('points', '>=', points)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  accountsOf: (db: Executor, customerIds: string[]) =>
    customerIds.length === 0
      ? Promise.resolve([] as Array<{ customer_id: string; holder: string; points: number }>)
      : db.selectFrom('loyalty_accounts').select(['customer_id', 'holder', 'points']).where('customer_id', 'in', customerIds).execute(),

  deleteAccounts: (db: Executor, customerId: string) => db.deleteFrom('loyalty_accounts').where('customer_id', '=', customerId).execute(),

  allAccounts: (db: Executor, tenantId: string) =>
    db.selectFrom('loyalty_accounts').select(['customer_id', 'holder', 'points']).where('tenant_id', '=', tenantId).orderBy('customer_id').orderBy('holder').execute(),

  /** Roots whose pool still has points: candidates for lease renewal. */
  poolsWithPoints: (db: Executor, tenantId: string) =>
    db.selectFrom('loyalty_accounts').select(['customer_id', 'points']).where('tenant_id', '=', tenantId).where('holder', '=', 'pool').where('points', '>', 0).execute(),

  /** What a device holds per customer, for the appliance's return job. */
  heldBy: (db: Executor, tenantId: string, holder: string) =>
    db.selectFrom('loyalty_accounts').select(['customer_id', 'points']).where('tenant_id', '=', tenantId).where('holder', '=', holder).where('points', '>', 0).execute(),

  /** Restaurants where some customer's pool has points (the cloud's lease renewal job). */
  tenantsWithPoolPoints: async (db: Executor): Promise<string[]> =>
    (await db.selectFrom('loyalty_accounts').select('tenant_id').where('holder', '=', 'pool').where('points', '>', 0).distinct().execute()).map((r) => r.tenant_id),

  clearAccounts: (db: Executor, tenantId: string) => db.deleteFrom('loyalty_accounts').where('tenant_id', '=', tenantId).execute(),

  allCustomers: (db: Executor, tenantId: string) => db.selectFrom('loyalty_customers').select(['id', 'merged_into']).where('tenant_id', '=', tenantId).execute(),
  allTransactions: (db: Executor, tenantId: string) =>
    db.selectFrom('loyalty_transactions').select(['customer_id', 'points', 'pool', 'device_id']).where('tenant_id', '=', tenantId).execute(),
  allLeases: (db: Executor, tenantId: string) => db.selectFrom('loyalty_leases').select(['customer_id', 'device_id', 'points']).where('tenant_id', '=', tenantId).execute(),

  // ---- foreign tables (read-only, or erasure) ----
  /** The tenant's loyalty settings inside a sync apply (which may not call the tenants service). */
  settings: async (db: Executor, tenantId: string): Promise<{ pointsPerEuro: number; allowance: number }> => {
    const t = await db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
    if (!t) return { pointsPerEuro: 1, allowance: 0 };
    const s = settingsOf(t);
    return { pointsPerEuro: s.loyalty_points_per_euro, allowance: s.loyalty_offline_allowance };
  },

  /**
   * Cloud: the tenant's offline allowance and, when it is above 0, the appliances that may hold
   * leases (`settings` and `activeDevices` in one statement: the tenant's row joined with its
   * devices that are not revoked).
   */
  escrow: async (db: Executor, tenantId: string): Promise<{ allowance: number; devices: string[] }> => {
    const rows = await db
      .selectFrom('tenants')
      .leftJoin('sync_devices', (j) => j.onRef('sync_devices.tenant_id', '=', 'tenants.id').on('sync_devices.revoked_at', 'is', null))
      .selectAll('tenants')
      .select('sync_devices.id as device_id')
      .where('tenants.id', '=', tenantId)
      .orderBy('sync_devices.id')
      .execute();
    if (rows.length === 0) return { allowance: 0, devices: [] };
    const { device_id: _d, ...tenant } = rows[0]!;
    const allowance = settingsOf(tenant).loyalty_offline_allowance;
    return { allowance, devices: allowance > 0 ? rows.map((r) => r.device_id).filter((id): id is string => id !== null) : [] };
  },

  /** Cloud: the tenant's appliances that may hold leases (sync/ device registry; read only). */
  activeDevices: async (db: Executor, tenantId: string): Promise<string[]> =>
    (await db.selectFrom('sync_devices').select('id').where('tenant_id', '=', tenantId).where('revoked_at', 'is', null).orderBy('id').execute()).map((r) => r.id),

  /** Appliance bound to a cloud (sync/engine.ts writes this row when it binds). */
  isBound: async (db: Executor, tenantId: string): Promise<boolean> =>
    (await db.selectFrom('sync_state').select('id').where('tenant_id', '=', tenantId).executeTakeFirst()) !== undefined,

  /** The restaurants this appliance is bound to a cloud for (sync_state; read only). */
  boundTenants: async (db: Executor): Promise<string[]> => (await db.selectFrom('sync_state').select('tenant_id').execute()).map((r) => r.tenant_id),

  ordersWithPhone: (db: Executor, tenantId: string) =>
    db.selectFrom('orders').select(['id', 'customer_phone']).where('tenant_id', '=', tenantId).where('customer_phone', 'is not', null).execute(),

  ordersByIds: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0
      ? Promise.resolve([])
      : db.selectFrom('orders').select(['id', 'number', 'total_cents', 'created_at', 'customer_name', 'customer_phone']).where('tenant_id', '=', tenantId).where('id', 'in', ids).orderBy('created_at').execute(),

  /**
   * Erasure only (docs/loyalty.md "Privacy"): the guest's name and phone on orders are personal data
   * of the customer being erased. The orders service has no such operation and a sync descriptor
   * may not call services, so the one statement lives here; it touches nothing else of the order.
   */
  forgetOrderCustomer: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0
      ? Promise.resolve()
      : db
          .updateTable('orders')
          .set({ customer_name: null, customer_phone: null })
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', ids)
          .where((eb) => eb.or([eb('customer_name', 'is not', null), eb('customer_phone', 'is not', null)]))
          .execute(),

  /** Erasure only: the change-log copies of those rows (the outbox keeps payloads; personal fields are redacted in place). */
  changesOf: (db: Executor, tenantId: string, entity: string, ids: string[]) =>
    ids.length === 0
      ? Promise.resolve([] as Array<{ op_id: string; payload: string }>)
      : db.selectFrom('change_log').select(['op_id', 'payload']).where('tenant_id', '=', tenantId).where('entity', '=', entity).where('entity_id', 'in', ids).execute(),

  /** A redacted payload is no longer what a device sent: `as_sent` cleared (a pull sends it with its payload, migration 0027). */
  setChangePayload: (db: Executor, opId: string, payload: string) => db.updateTable('change_log').set({ payload, as_sent: 0 }).where('op_id', '=', opId).execute(),
};
