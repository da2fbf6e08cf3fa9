import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { DayClosesTable, JournalEntriesTable } from '../../db/database.js';

export type CloseRow = DayClosesTable;

/** The only Kysely of the journal and the day close (docs/till.md). */
export const journalRepository = {
  /** The newest entry of an origin's chain (position and hash). */
  head: async (db: Executor, tenantId: string, origin: string): Promise<{ chain_seq: number; hash: string } | undefined> => {
    const row = await db
      .selectFrom('journal_entries')
      .select(['chain_seq', 'hash'])
      .where('tenant_id', '=', tenantId)
      .where('origin', '=', origin)
      .orderBy('chain_seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { chain_seq: Number(row.chain_seq), hash: row.hash } : undefined;
  },

  insert: (db: Executor, row: JournalEntriesTable) => db.insertInto('journal_entries').values(row).execute(),

  /** Entries of the business days from..to, in the order they were written per origin. */
  list: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('journal_entries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .orderBy('at')
      .orderBy('origin')
      .orderBy('chain_seq')
      .execute(),

  /** Every entry of every chain of a restaurant, for verification. */
  all: (db: Executor, tenantId: string) => db.selectFrom('journal_entries').selectAll().where('tenant_id', '=', tenantId).execute(),

  /** Entries of business days up to `to` (inclusive): what a close may count. */
  upTo: (db: Executor, tenantId: string, to: string) =>
    db.selectFrom('journal_entries').selectAll().where('tenant_id', '=', tenantId).where('business_day', '<=', to).where('kind', '!=', 'close').execute(),

  /** The restaurant's journal changes in this node's change log; the literal matches the partial index `change_log_journal` (0026). */
  logged: (db: Executor, tenantId: string) =>
    db
      .selectFrom('change_log')
      .select(['entity_id', 'payload'])
      .where('tenant_id', '=', tenantId)
      .where(sql<boolean>`entity = 'journal_entry'`)
      .orderBy('seq')
      .execute(),

  /** Sync: the restaurant of the entry with this id, of any restaurant. */
  entryTenant: (db: Executor, id: string) => db.selectFrom('journal_entries').select('tenant_id').where('id', '=', id).executeTakeFirst(),

  /** Sync: whether another entry holds this chain position. */
  positionTaken: async (db: Executor, tenantId: string, origin: string, chainSeq: number, id: string) =>
    (await db
      .selectFrom('journal_entries')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('origin', '=', origin)
      .where('chain_seq', '=', chainSeq)
      .where('id', '!=', id)
      .executeTakeFirst()) !== undefined,

  /** Sync snapshot: the restaurant's entries by id after `after`, at most `limit`. */
  snapshotPage: (db: Executor, tenantId: string, after: string | null, limit: number) => {
    let q = db.selectFrom('journal_entries').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  },

  // ---- day closes
  closeOfDay: (db: Executor, tenantId: string, day: string) =>
    db.selectFrom('day_closes').selectAll().where('tenant_id', '=', tenantId).where('business_date', '=', day).executeTakeFirst(),

  lastClose: (db: Executor, tenantId: string) =>
    db.selectFrom('day_closes').selectAll().where('tenant_id', '=', tenantId).orderBy('number', 'desc').limit(1).executeTakeFirst(),

  findClose: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('day_closes').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  listCloses: (db: Executor, tenantId: string, limit: number, offset: number) =>
    db.selectFrom('day_closes').selectAll().where('tenant_id', '=', tenantId).orderBy('number', 'desc').limit(limit).offset(offset).execute(),

  countCloses: async (db: Executor, tenantId: string) =>
    Number((await db.selectFrom('day_closes').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow()).n),

  insertClose: (db: Executor, row: CloseRow) => db.insertInto('day_closes').values(row).execute(),

  /** Sync: a close with this id, or another close holding the same number or day. */
  closeClash: (db: Executor, tenantId: string, id: string, number: number, day: string) =>
    db
      .selectFrom('day_closes')
      .select(['id', 'tenant_id'])
      .where((eb) => eb.or([eb('id', '=', id), eb.and([eb('tenant_id', '=', tenantId), eb.or([eb('number', '=', number), eb('business_date', '=', day)])])]))
      .execute(),

  closesSnapshotPage: (db: Executor, tenantId: string, after: string | null, limit: number) => {
    let q = db.selectFrom('day_closes').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  },
};

/**
 * Per order, its lines (in the order's own line order, as the order shows them) and its discounts:
 * what the day close and revenue split payments over VAT rates by (the lines after their discounts,
 * as on the order and its receipt). A long period's orders are read in chunks.
 */
export async function orderRates(
  db: Executor,
  orderIds: string[],
): Promise<{ lines: Array<{ order_id: string; id: string; vat_rate: number; total_cents: number }>; discounts: Array<{ order_id: string; item_id: string | null; amount_cents: number }> }> {
  const lines: Array<{ order_id: string; id: string; vat_rate: number; total_cents: number }> = [];
  const discounts: Array<{ order_id: string; item_id: string | null; amount_cents: number }> = [];
  for (let i = 0; i < orderIds.length; i += 1000) {
    const chunk = orderIds.slice(i, i + 1000);
    lines.push(...(await db.selectFrom('order_items').select(['order_id', 'id', 'vat_rate', 'total_cents']).where('order_id', 'in', chunk).orderBy('order_id').orderBy('position').execute()));
    discounts.push(...(await db.selectFrom('order_discounts').select(['order_id', 'item_id', 'amount_cents']).where('order_id', 'in', chunk).execute()));
  }
  return { lines, discounts };
}
