import type { Tx } from '../server/db/connection.js';
import type { TableName } from './types.js';

/**
 * Insert the row, or overwrite every given column of the row with that id (state down / LWW on
 * the whole snapshot). Idempotent. Columns not given are left as they are, so a snapshot from an
 * older peer does not null newer columns.
 */
export async function upsertById(trx: Tx, table: TableName, row: { id: string } & Record<string, unknown>): Promise<void> {
  const { id, ...rest } = row;
  const t = table as 'users';
  const existing = await trx.selectFrom(t).select('id').where('id', '=', id).executeTakeFirst();
  if (existing) {
    if (Object.keys(rest).length > 0) await trx.updateTable(t).set(rest as never).where('id', '=', id).execute();
  } else {
    await trx.insertInto(t).values(row as never).execute();
  }
}

/** Ledger rows: insert if no row with this id exists; never update (a union keyed by id). */
export async function insertIfAbsent(trx: Tx, table: TableName, row: { id: string } & Record<string, unknown>): Promise<boolean> {
  const t = table as 'users';
  const existing = await trx.selectFrom(t).select('id').where('id', '=', row.id).executeTakeFirst();
  if (existing) return false;
  await trx.insertInto(t).values(row as never).execute();
  return true;
}

/** Keeps only the keys that are columns of the table, so unknown fields from a newer peer do not break the insert. */
export function pick<T extends object>(source: Record<string, unknown>, keys: readonly (keyof T & string)[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in source) out[k] = source[k];
  return out as Partial<T>;
}
