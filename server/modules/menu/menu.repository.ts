import type { Executor } from '../../db/connection.js';
import type { CategoriesTable, ModifierGroupsTable, ProductsTable } from '../../db/database.js';

export type CategoryRow = CategoriesTable;
export type ProductRow = ProductsTable;
export type ModifierGroupRow = ModifierGroupsTable;

export const menuRepository = {
  listCategories: (db: Executor, tenantId: string, includeArchived: boolean) => {
    let q = db.selectFrom('categories').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('position').orderBy('name').execute();
  },
  findCategory: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('categories').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  insertCategory: (db: Executor, row: CategoryRow) => db.insertInto('categories').values(row).execute(),
  updateCategory: (db: Executor, row: CategoryRow) =>
    db.updateTable('categories').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),

  listProducts: (db: Executor, tenantId: string, includeArchived: boolean) => {
    let q = db.selectFrom('products').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').execute();
  },
  findProduct: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('products').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  findProducts: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([]) : db.selectFrom('products').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),
  insertProduct: (db: Executor, row: ProductRow) => db.insertInto('products').values(row).execute(),
  updateProduct: (db: Executor, row: ProductRow) =>
    db.updateTable('products').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),

  /** Each product's own station and its category's (CONTRACT §18), for tickets and the board's station filter. */
  stationsOf: (db: Executor, tenantId: string, productIds: string[]) =>
    productIds.length === 0
      ? Promise.resolve([] as { id: string; station: string | null; category_station: string | null }[])
      : db
          .selectFrom('products')
          .leftJoin('categories', 'categories.id', 'products.category_id')
          .select(['products.id as id', 'products.station as station', 'categories.station as category_station'])
          .where('products.tenant_id', '=', tenantId)
          .where('products.id', 'in', productIds)
          .execute(),

  listGroups: (db: Executor, tenantId: string, includeArchived: boolean) => {
    let q = db.selectFrom('modifier_groups').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').orderBy('id').execute();
  },
  findGroup: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('modifier_groups').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  findGroups: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([]) : db.selectFrom('modifier_groups').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),
  insertGroup: (db: Executor, row: ModifierGroupRow) => db.insertInto('modifier_groups').values(row).execute(),
  updateGroup: (db: Executor, row: ModifierGroupRow) =>
    db.updateTable('modifier_groups').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),
};
