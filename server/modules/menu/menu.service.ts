import type { ChangeLog } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { menuRepository, type CategoryRow, type ProductRow } from './menu.repository.js';
import type { Category, CreateProductInput, Product, StaffMenu, StaffMenuCategory, UpdateProductInput } from './menu.schemas.js';
import { CreateProductBody } from './menu.schemas.js';

export const toCategoryDto = (r: CategoryRow): Category => ({
  id: r.id,
  name: r.name,
  position: r.position,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

export const toProductDto = (r: ProductRow): Product => ({
  id: r.id,
  name: r.name,
  description: r.description,
  category_id: r.category_id,
  price_cents: r.price_cents,
  cost_cents: r.cost_cents,
  vat_rate: r.vat_rate,
  unit: r.unit,
  min_level: r.min_level,
  available: r.available === 1,
  on_menu: r.on_menu !== 0,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

/** Name of the trailing group for products without a category, or whose category was archived. */
export const OTHER_CATEGORY_NAME = 'Overig';

/** Change-log payloads carry the full row (state down; last-writer-wins per field on sync). */
const categoryChange = (row: CategoryRow, kind: string, fields?: Partial<CategoryRow>) => ({ entity: 'category', entityId: row.id, kind, payload: { ...row, ...(fields ? { fields } : {}) } });
const productChange = (row: ProductRow, kind: string, fields?: Partial<ProductRow>) => ({ entity: 'product', entityId: row.id, kind, payload: { ...row, ...(fields ? { fields } : {}) } });

export function createMenuService(deps: { db: Db; changes: ChangeLog }) {
  const { db, changes } = deps;

  async function assertCategory(trx: Executor, tenantId: string, categoryId: string | null | undefined) {
    if (!categoryId) return;
    const c = await menuRepository.findCategory(trx, tenantId, categoryId);
    if (!c || c.archived_at) throw invalidField('category_id', 'verwijst naar een categorie die niet bestaat.');
  }

  return {
    async listCategories(tenantId: string, includeArchived = false): Promise<Category[]> {
      return (await menuRepository.listCategories(db, tenantId, includeArchived)).map(toCategoryDto);
    },

    async createCategory(tenantId: string, input: { name: string; position?: number }): Promise<Category> {
      return changes.write(tenantId, async (w) => {
        const row: CategoryRow = { id: newId(), tenant_id: tenantId, name: input.name, position: input.position ?? 0, created_at: w.now, updated_at: w.now, archived_at: null };
        await menuRepository.insertCategory(w.trx, row);
        await w.record(categoryChange(row, 'category.created'));
        return toCategoryDto(row);
      });
    },

    async updateCategory(tenantId: string, id: string, input: { name?: string; position?: number }): Promise<Category> {
      return changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findCategory(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Categorie');
        const fields: Partial<CategoryRow> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
        const row: CategoryRow = { ...cur, ...fields, updated_at: w.now };
        await menuRepository.updateCategory(w.trx, row);
        await w.record(categoryChange(row, 'category.updated', fields));
        return toCategoryDto(row);
      });
    },

    /** Archives the category; its products keep their category id so history and reports stay readable. */
    async archiveCategory(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findCategory(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Categorie');
        const row: CategoryRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await menuRepository.updateCategory(w.trx, row);
        await w.record(categoryChange(row, 'category.archived', { archived_at: w.now }));
      });
    },

    async listProducts(tenantId: string, includeArchived = false): Promise<Product[]> {
      return (await menuRepository.listProducts(db, tenantId, includeArchived)).map(toProductDto);
    },

    /**
     * The menu as staff see it (GET /menu): live categories in their order, each with its live
     * products; unavailable products stay listed (available:false) so a tablet can grey them out.
     * Products without a category, or in an archived one, are still orderable, so they are listed
     * last under "Overig" (id null) rather than hidden. Costs and stock fields never leave here.
     * Ingredients (`on_menu` false: stock items that are never sold) are left out.
     */
    async staffMenu(tenantId: string): Promise<StaffMenu> {
      const [cats, prods] = await Promise.all([menuRepository.listCategories(db, tenantId, false), menuRepository.listProducts(db, tenantId, false)]);
      const groups = new Map<string, StaffMenuCategory>(cats.map((c) => [c.id, { id: c.id, name: c.name, products: [] }]));
      const other: StaffMenuCategory = { id: null, name: OTHER_CATEGORY_NAME, products: [] };
      for (const p of prods) {
        if (p.on_menu === 0) continue;
        const item = { id: p.id, name: p.name, description: p.description, price_cents: p.price_cents, available: p.available === 1 };
        ((p.category_id ? groups.get(p.category_id) : undefined) ?? other).products.push(item);
      }
      return { categories: [...groups.values(), ...(other.products.length ? [other] : [])] };
    },

    async getProduct(tenantId: string, id: string): Promise<Product> {
      const row = await menuRepository.findProduct(db, tenantId, id);
      if (!row) throw notFound('Product');
      return toProductDto(row);
    },

    /** Rows for pricing an order: the caller checks availability. Ingredients (`on_menu` false) are never sold, so they are not found here. */
    async productsForOrder(trx: Executor, tenantId: string, ids: string[]): Promise<ProductRow[]> {
      return (await menuRepository.findProducts(trx, tenantId, ids)).filter((p) => p.on_menu !== 0);
    },

    /** Products by id (archived ones too), for areas that refer to products (stock, recipes). */
    async productsByIds(trx: Executor, tenantId: string, ids: string[]): Promise<Product[]> {
      return (await menuRepository.findProducts(trx, tenantId, ids)).map(toProductDto);
    },

    async createProduct(tenantId: string, raw: CreateProductInput): Promise<Product> {
      const input = CreateProductBody.parse(raw);
      return changes.write(tenantId, async (w) => {
        await assertCategory(w.trx, tenantId, input.category_id);
        const row: ProductRow = {
          id: newId(),
          tenant_id: tenantId,
          category_id: input.category_id ?? null,
          name: input.name,
          description: input.description ?? null,
          price_cents: input.price_cents,
          cost_cents: input.cost_cents ?? null,
          vat_rate: input.vat_rate ?? null,
          unit: input.unit ?? null,
          min_level: input.min_level ?? null,
          available: input.available ? 1 : 0,
          on_menu: input.on_menu ? 1 : 0,
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await menuRepository.insertProduct(w.trx, row);
        await w.record(productChange(row, 'product.created'));
        return toProductDto(row);
      });
    },

    async updateProduct(tenantId: string, id: string, input: UpdateProductInput): Promise<Product> {
      return changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findProduct(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Product');
        if (input.category_id !== undefined) await assertCategory(w.trx, tenantId, input.category_id);
        const { available, on_menu, ...rest } = input;
        const fields: Partial<ProductRow> = {
          ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
          ...(available === undefined ? {} : { available: available ? 1 : 0 }),
          ...(on_menu === undefined ? {} : { on_menu: on_menu ? 1 : 0 }),
        };
        const row: ProductRow = { ...cur, ...fields, updated_at: w.now };
        await menuRepository.updateProduct(w.trx, row);
        await w.record(productChange(row, 'product.updated', fields));
        return toProductDto(row);
      });
    },

    /** Always an archive: orders, stock and reports refer to products, and deletes must sync (ARCHITECTURE §3). */
    async archiveProduct(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findProduct(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Product');
        const row: ProductRow = { ...cur, archived_at: w.now, updated_at: w.now, available: 0 };
        await menuRepository.updateProduct(w.trx, row);
        await w.record(productChange(row, 'product.archived', { archived_at: w.now, available: 0 }));
      });
    },
  };
}

export type MenuService = ReturnType<typeof createMenuService>;
