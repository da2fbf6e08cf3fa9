import type { Executor } from '../../db/connection.js';
import type { TenantsTable } from '../../db/database.js';

export type TenantRow = TenantsTable;

export const tenantsRepository = {
  findBySlug: (db: Executor, slug: string) =>
    db.selectFrom('tenants').selectAll().where('slug', '=', slug).where('archived_at', 'is', null).executeTakeFirst(),
  findById: (db: Executor, id: string) => db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst(),
  count: async (db: Executor) => {
    const r = await db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  },
  insert: (db: Executor, row: TenantRow) => db.insertInto('tenants').values(row).execute(),
  update: (db: Executor, id: string, patch: Partial<Pick<TenantRow, 'name' | 'settings' | 'updated_at'>>) =>
    db.updateTable('tenants').set(patch).where('id', '=', id).execute(),
};
