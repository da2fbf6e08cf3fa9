import crypto from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Pay-at-table by an unguessable code (issue 28 point 4, CONTRACT §11): the guest page of a table
 * was reached by its name (`/tafel/6`), so anyone could read and pay any table's bill. Each table
 * gets `public_code`, 16 random characters (80 bits), printed in its QR code and renewable by an
 * admin. Existing tables get a random code here. Each node draws its own, so the migration leaves a
 * note per restaurant in `meta` (`floor.announce_codes:<tenant>`): the floor's job then records the
 * codes as table changes once (floor.refresh.ts), and sync makes every node agree (last writer wins
 * per field, in the cloud's order). Nullable, so a node one release behind still syncs its tables.
 *
 * The alphabet is repeated here (not imported from floor.rules.ts): a migration is frozen.
 */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const code = () => Array.from(crypto.randomBytes(16), (b) => ALPHABET[b & 31]).join('');

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('floor_tables').addColumn('public_code', 'text').execute();
  const rows = (await db.selectFrom('floor_tables').select('id').execute()) as { id: string }[];
  for (const r of rows) await db.updateTable('floor_tables').set({ public_code: code() }).where('id', '=', r.id).execute();
  const tenants = (await db.selectFrom('floor_tables').select('tenant_id').distinct().execute()) as { tenant_id: string }[];
  for (const t of tenants) await db.insertInto('meta').values({ key: `floor.announce_codes:${t.tenant_id}`, value: '0019' }).execute();
  await db.schema.createIndex('floor_tables_public_code').on('floor_tables').columns(['tenant_id', 'public_code']).unique().execute();
}
