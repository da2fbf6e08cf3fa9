import { z } from 'zod';
import { Days, Limit, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';

export const WASTE_REASONS = ['bederf', 'overproductie', 'retour', 'beschadigd', 'overig'] as const;
export const WasteReason = z.enum(WASTE_REASONS);
export const MAX_WASTE_QUANTITY = 100_000;
export const MAX_NOTE = 500;

const Instant = z.iso.datetime({ offset: true });

/** A waste entry row as it travels through sync: the API's atoms and limits. */
export const WasteRowSchema = z
  .object({
    id: z.uuid(),
    product_id: z.uuid(),
    location_id: z.uuid().nullable(),
    quantity: z.number().positive().max(MAX_WASTE_QUANTITY),
    reason: WasteReason,
    note: z.string().max(MAX_NOTE).nullable(),
    unit_cost_cents: z.number().int().min(0).max(100_000_000),
    cost_cents: z.number().int().min(0).max(1_000_000_000_000),
    photo_file: z.string().regex(/^[0-9a-f-]{36}\.(jpg|png|webp)$/).nullable(),
    photo_type: z.enum(['image/jpeg', 'image/png', 'image/webp']).nullable(),
    photo_bytes: z.number().int().min(1).max(5 * 1024 * 1024).nullable(),
    business_day: z.iso.date(),
    created_by: z.uuid().nullable(),
    created_at: Instant,
  })
  .loose();

export const WasteStatsQuery = z.object({ days: Days(30, 365) }).strict();

/** A photo: JPEG, PNG or WebP (decided from its bytes), at most 5 MB (5 × 1024 × 1024 bytes). */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
export const PHOTO_TYPES = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' } as const;
export type PhotoType = keyof typeof PHOTO_TYPES;

const wasteFields = {
  product_id: z.uuid(),
  reason: WasteReason,
  location_id: z.uuid().optional(),
  note: z.string().trim().min(1).max(MAX_NOTE).optional(),
};

export const WasteBody = z
  .object({ ...wasteFields, quantity: z.number().positive().max(MAX_WASTE_QUANTITY).meta({ description: 'In the product’s unit (stuk, kg, liter …); up to 3 decimals' }) })
  .strict()
  .meta({ id: 'WasteBody' });
export type WasteInput = z.infer<typeof WasteBody>;

/** The same fields as multipart form fields (text), beside the `photo` file. */
export const WasteFormFields = z
  .object({ ...wasteFields, quantity: z.string().trim().regex(/^\d+([.,]\d+)?$/, { message: 'moet een getal zijn.' }).transform((s) => Number(s.replace(',', '.'))).pipe(z.number().positive().max(MAX_WASTE_QUANTITY)) })
  .strict();

export const WasteEntry = z
  .object({
    id: z.string(),
    product_id: z.string(),
    product_name: z.string(),
    unit: z.string().nullable(),
    location_id: z.string().nullable(),
    quantity: z.number(),
    reason: WasteReason,
    note: z.string().nullable(),
    unit_cost_cents: z.number().int().meta({ description: 'The product’s cost at the time (its cost_cents, else its recipe’s ingredient cost)' }),
    cost_cents: z.number().int().meta({ description: 'quantity × unit cost, rounded to cents' }),
    photo: z
      .object({ type: z.string(), bytes: z.number().int(), url: z.string().meta({ description: 'GET it as an admin; the file is kept on the node that took it' }) })
      .nullable(),
    business_day: z.string(),
    created_by: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'WasteEntry' });
export type WasteEntry = z.infer<typeof WasteEntry>;

export const RecordedWaste = WasteEntry.extend({
  stock: z
    .object({ movement_id: z.string(), location_id: z.string(), level: z.number().meta({ description: 'Stock of the product at that location after the removal (may be below zero)' }) })
    .meta({ description: 'The stock removal booked in the same transaction' }),
}).meta({ id: 'RecordedWaste' });
export type RecordedWaste = z.infer<typeof RecordedWaste>;

export const WasteListQuery = z.object({ days: Days(30, 365), limit: Limit, offset: Offset }).strict();
export const WasteParams = z.object({ id: z.uuid() });

export const WasteStats = z
  .object({
    days: z.number().int(),
    from: z.string(),
    to: z.string(),
    total_cost_cents: z.number().int(),
    entries: z.number().int(),
    by_reason: z
      .array(z.object({ reason: WasteReason, entries: z.number().int(), cost_cents: z.number().int(), share_percent: z.number() }))
      .meta({ description: 'Every reason, in a fixed order (bederf, overproductie, retour, beschadigd, overig), zeros included: the pie chart' }),
    top_products: z
      .array(z.object({ product_id: z.string(), name: z.string(), unit: z.string().nullable(), quantity: z.number(), entries: z.number().int(), cost_cents: z.number().int() }))
      .meta({ description: 'The 10 products with the most waste cost, most first' }),
    by_day: z.array(z.object({ date: z.string(), cost_cents: z.number().int() })).meta({ description: 'Every day of the period, zeros included: the line chart' }),
  })
  .meta({ id: 'WasteStats' });
export type WasteStats = z.infer<typeof WasteStats>;
