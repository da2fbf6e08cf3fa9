import { z } from 'zod';
import '../../shared/validation.js';

export const Category = z
  .object({ id: z.string(), name: z.string(), position: z.number().int(), created_at: z.string(), updated_at: z.string(), archived_at: z.string().nullable() })
  .meta({ id: 'Category' });
export type Category = z.infer<typeof Category>;

export const CreateCategoryBody = z.object({ name: z.string().trim().min(1).max(80), position: z.number().int().min(0).max(10_000).optional() }).strict();
export const UpdateCategoryBody = CreateCategoryBody.partial().strict();

const units = ['stuk', 'kg', 'gram', 'liter', 'ml', 'portie', 'fles', 'doos'] as const;

export const Product = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    category_id: z.string().nullable(),
    price_cents: z.number().int(),
    cost_cents: z.number().int().nullable(),
    vat_rate: z.number().int().nullable(),
    unit: z.string().nullable(),
    min_level: z.number().nullable(),
    available: z.boolean(),
    on_menu: z.boolean().meta({ description: 'false: a stock item that is never sold (an ingredient such as beef or buns): not on the menu, not orderable; stock, recipes and the purchase list use it (docs/stock.md)' }),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;

export const CreateProductBody = z
  .object({
    name: z.string().trim().min(1).max(120),
    description: z.string().trim().max(1000).optional(),
    category_id: z.uuid().optional(),
    price_cents: z.number().int().min(0).max(1_000_000),
    cost_cents: z.number().int().min(0).max(1_000_000).optional(),
    vat_rate: z.union([z.literal(0), z.literal(9), z.literal(21)]).optional().meta({ description: 'BTW-percentage: 0, 9 of 21' }),
    unit: z.enum(units).optional(),
    min_level: z.number().min(0).max(1_000_000).optional(),
    available: z.boolean().default(true),
    on_menu: z.boolean().default(true).meta({ description: 'false: an ingredient that is never sold; it stays off the menu (docs/stock.md)' }),
  })
  .strict();
export type CreateProductInput = z.input<typeof CreateProductBody>;

export const UpdateProductBody = z
  .object({
    name: z.string().trim().min(1).max(120),
    description: z.string().trim().max(1000).nullable(),
    category_id: z.uuid().nullable(),
    price_cents: z.number().int().min(0).max(1_000_000),
    cost_cents: z.number().int().min(0).max(1_000_000).nullable(),
    vat_rate: z.union([z.literal(0), z.literal(9), z.literal(21)]).nullable(),
    unit: z.enum(units).nullable(),
    min_level: z.number().min(0).max(1_000_000).nullable(),
    available: z.boolean(),
    on_menu: z.boolean(),
  })
  .partial()
  .strict();
export type UpdateProductInput = z.infer<typeof UpdateProductBody>;

export const IdParams = z.object({ id: z.uuid() });
export const IncludeArchivedQuery = z.object({ include_archived: z.enum(['true', 'false']).optional() }).strict();

/** What staff see on a tablet (GET /menu): no costs, VAT or stock fields; archived entries left out. */
export const StaffMenuProduct = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), price_cents: z.number().int(), available: z.boolean() })
  .strict()
  .meta({ id: 'StaffMenuProduct' });
export type StaffMenuProduct = z.infer<typeof StaffMenuProduct>;

export const StaffMenuCategory = z
  .object({
    id: z.string().nullable().meta({ description: 'null for the trailing "Overig" group: products without a (live) category' }),
    name: z.string(),
    products: z.array(StaffMenuProduct),
  })
  .strict()
  .meta({ id: 'StaffMenuCategory' });
export type StaffMenuCategory = z.infer<typeof StaffMenuCategory>;

export const StaffMenu = z.object({ categories: z.array(StaffMenuCategory) }).strict().meta({ id: 'StaffMenu' });
export type StaffMenu = z.infer<typeof StaffMenu>;
