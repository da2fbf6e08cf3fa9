import { z } from 'zod';
import type { CategoriesTable, ModifierGroupsTable, ProductsTable } from '../../db/database.js';
import type { Db, Tx } from '../../db/connection.js';
import { assertTenantRef, assertTenantRefs, parsePayload, pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyContext, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { CreateCategoryBody, CreateModifierGroupBody, CreateProductBody, ModifierOptionInput, UpdateCategoryBody, UpdateProductBody } from './menu.schemas.js';

const CATEGORY_COLUMNS = ['id', 'tenant_id', 'name', 'position', 'course', 'station', 'vat_rate', 'created_at', 'updated_at', 'archived_at'] as const satisfies readonly (keyof CategoriesTable)[];
const PRODUCT_COLUMNS = [
  'id', 'tenant_id', 'category_id', 'name', 'description', 'price_cents', 'cost_cents', 'vat_rate', 'unit', 'min_level', 'available', 'on_menu',
  'modifier_group_ids', 'allergens', 'dietary', 'course', 'station', 'created_at', 'updated_at', 'archived_at',
] as const satisfies readonly (keyof ProductsTable)[];
const GROUP_COLUMNS = ['id', 'tenant_id', 'name', 'min_select', 'max_select', 'options', 'created_at', 'updated_at', 'archived_at'] as const satisfies readonly (keyof ModifierGroupsTable)[];

type MenuTable = 'categories' | 'products' | 'modifier_groups';

const Timestamp = z.iso.datetime({ offset: true });
const Stamps = { created_at: Timestamp, updated_at: Timestamp, archived_at: Timestamp.nullable().optional() };

/** A category row as a device pushes it: the API's rules for each field (menu.schemas.ts). */
const CategoryRowSchema = z.object({ id: z.uuid(), name: CreateCategoryBody.shape.name, position: CreateCategoryBody.shape.position.unwrap(), course: UpdateCategoryBody.shape.course, station: UpdateCategoryBody.shape.station.optional(), vat_rate: UpdateCategoryBody.shape.vat_rate.optional(), ...Stamps });

/** A list the API takes as JSON array, in the row's form: the JSON text of a list that passes `list`. */
const jsonOf = (list: z.ZodType) =>
  z.string().max(100_000).refine(
    (text) => {
      try {
        return list.safeParse(JSON.parse(text)).success;
      } catch {
        return false;
      }
    },
    { message: 'heeft een ongeldige lijst.' },
  );
/**
 * A product row as a device pushes it: every field PATCH /products accepts, with its rules, in the
 * row's form (a boolean such as `available` is 0 or 1); name and price as required as on create.
 * Built from the API schema, so a field an area adds there (e.g. `on_menu`) is checked here too.
 */
const Bit = z.union([z.literal(0), z.literal(1)]);
const rowForm = (field: z.ZodType): z.ZodType => {
  const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
  if (inner instanceof z.ZodArray || (inner instanceof z.ZodPipe && inner.in instanceof z.ZodArray)) return jsonOf(inner).optional();
  return (inner instanceof z.ZodBoolean ? Bit : inner).optional();
};
const ProductRowSchema = z.object({
  ...Object.fromEntries(Object.entries(UpdateProductBody.shape).map(([k, v]) => [k, rowForm(v as z.ZodType)])),
  id: z.uuid(),
  name: CreateProductBody.shape.name,
  price_cents: CreateProductBody.shape.price_cents,
  ...Stamps,
});
/** A modifier group as a device pushes it: the API's rules, options in their stored form (JSON). */
const StoredOption = z.object({
  id: z.uuid(),
  name: ModifierOptionInput.shape.name,
  price_delta_cents: ModifierOptionInput.shape.price_delta_cents.unwrap(),
  ingredient_product_id: z.uuid().nullable(),
  ingredient_quantity_milli: z.number().int().min(1).max(100_000_000).nullable(),
  available: z.boolean(),
});
const GroupRowSchema = z.object({
  id: z.uuid(),
  name: CreateModifierGroupBody.shape.name,
  min_select: z.number().int().min(0).max(20).optional(),
  max_select: z.number().int().min(1).max(20).optional(),
  options: jsonOf(z.array(StoredOption).max(50)).optional(),
  ...Stamps,
});
const pushed = (row: z.ZodObject) => row.extend({ fields: row.omit({ id: true }).partial().optional() });
const PUSHED = { categories: pushed(CategoryRowSchema), products: pushed(ProductRowSchema), modifier_groups: pushed(GroupRowSchema) };
const WHAT = { categories: 'een categorie', products: 'een product', modifier_groups: 'een optiegroep' } as const;

/**
 * Menu rows: last-writer-wins per field in cloud apply order. An update carries `fields` (what the
 * writer changed); merging applies only those, so a price edited offline and a name edited online
 * both survive. Adopting the cloud's state (or a create) takes the whole snapshot. Archive is sticky:
 * once archived, a later field edit from another side does not bring the row back.
 */
function menuDescriptor(entity: 'category' | 'product' | 'modifier_group', table: MenuTable, columns: readonly string[]): EntityDescriptor {
  return {
    entity,
    merge: 'lww-fields',
    tables: [table],
    async apply(trx: Tx, change: SyncChange, ctx: ApplyContext) {
      let p = change.payload as Record<string, unknown> & { fields?: Record<string, unknown> };
      if (!p || p.id !== change.entity_id || !change.kind.startsWith(`${entity}.`)) throw new RejectOp('Ongeldige menuwijziging.');
      // From a device: the API's rules per field (unknown fields dropped), and references within the restaurant.
      const fromDevice = ctx.side === 'cloud';
      if (fromDevice) p = parsePayload(PUSHED[table], p, WHAT[table]) as typeof p;
      const t = table as 'products';
      const current = (await trx.selectFrom(t).selectAll().where('id', '=', change.entity_id).executeTakeFirst()) as Record<string, unknown> | undefined;
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Dit menu-item hoort bij een ander restaurant.');
      const snapshot = { ...pick<Record<string, unknown>>(p, columns as never), id: change.entity_id, tenant_id: change.tenant_id } as { id: string } & Record<string, unknown>;
      let next: Record<string, unknown>;
      if (!current || ctx.mode === 'adopt' || !p.fields) {
        next = snapshot;
      } else {
        const fields = pick<Record<string, unknown>>(p.fields, columns.filter((c) => c !== 'id' && c !== 'tenant_id') as never);
        next = { ...current, ...fields, updated_at: snapshot.updated_at ?? current.updated_at };
      }
      if (ctx.mode === 'merge' && current?.archived_at && !next.archived_at) next.archived_at = current.archived_at;
      if (fromDevice && table === 'products' && next.category_id && next.category_id !== current?.category_id) {
        await assertTenantRef(trx, 'categories', next.category_id as string, change.tenant_id, 'De categorie van dit product', ctx.batch);
      }
      if (fromDevice && table === 'products' && typeof next.modifier_group_ids === 'string' && next.modifier_group_ids !== current?.modifier_group_ids) {
        await assertTenantRefs(trx, 'modifier_groups', JSON.parse(next.modifier_group_ids) as string[], change.tenant_id, 'Een optiegroep van dit product', ctx.batch);
      }
      if (fromDevice && table === 'modifier_groups') {
        const min = Number(next.min_select ?? 0);
        const max = Number(next.max_select ?? 1);
        if (max < min) throw new RejectOp("Ongeldige optiegroep: 'max_select' moet minstens gelijk zijn aan 'min_select'.");
      }
      if (next.archived_at && table === 'products') next.available = 0;
      await upsertById(trx, table, next as { id: string } & Record<string, unknown>);
      return { payload: { ...next, fields: p.fields } };
    },
    async snapshot(db: Db, tenantId: string, after: string | null, limit: number) {
      const t = table as 'products';
      let q = db.selectFrom(t).selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = (await q.orderBy('id').limit(limit).execute()) as unknown as Array<Record<string, unknown> & { id: string; updated_at: string }>;
      const changes = rows.map((r) => ({ entity, entity_id: r.id, kind: `${entity}.updated`, payload: pick<Record<string, unknown>>(r, columns as never), created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  };
}

export const menuSync: EntityDescriptor[] = [
  menuDescriptor('category', 'categories', CATEGORY_COLUMNS),
  // Before products: a product lists its groups (CONTRACT §17), so a snapshot copies the groups first.
  menuDescriptor('modifier_group', 'modifier_groups', GROUP_COLUMNS),
  menuDescriptor('product', 'products', PRODUCT_COLUMNS),
];
