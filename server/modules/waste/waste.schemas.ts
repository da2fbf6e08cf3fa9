import { z } from 'zod';
import { Days } from '../../shared/schemas.js';
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
