import type { Executor } from './connection.js';
import { newId } from '../shared/ids.js';

export async function getMeta(db: Executor, key: string): Promise<string | undefined> {
  return (await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

export async function setMeta(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/**
 * Sets `key` only if it is not set yet; true when this call set it. Inside a transaction on
 * PostgreSQL a concurrent claimer waits for this one to commit and then gets false, so exactly one
 * of several concurrent claims wins (used for once-only steps such as the first-run setup).
 */
export async function claimMeta(db: Executor, key: string, value: string): Promise<boolean> {
  const row = await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

/** This database's origin name in the change log: a stable id per appliance, or 'cloud'. */
export async function originName(db: Executor, role: 'local' | 'cloud'): Promise<string> {
  if (role === 'cloud') return 'cloud';
  const existing = await getMeta(db, 'device_id');
  if (existing) return existing;
  const id = newId();
  await db.insertInto('meta').values({ key: 'device_id', value: id }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return (await getMeta(db, 'device_id')) ?? id;
}
