import { z } from 'zod';
import { LeadDays, Limit, Lookback, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';
import { hasAtMost3Decimals, MAX_QUANTITY } from './stock.rules.js';

export const MOVEMENT_TYPES = ['ADDITION', 'REMOVAL', 'INTAKE', 'TRANSFER_OUT', 'TRANSFER_IN', 'ADJUSTMENT'] as const;
export const MovementType = z.enum(MOVEMENT_TYPES);
export type MovementType = z.infer<typeof MovementType>;
export const MOVEMENT_SOURCES = ['staff', 'sale', 'waste'] as const;

const DECIMALS = 'mag hoogstens 3 decimalen hebben.';

/** A quantity in the product's unit: decimals allowed for kg and litres, at most three (the ledger holds thousandths). */
export const Quantity = z.number().min(0).max(MAX_QUANTITY).refine(hasAtMost3Decimals, { message: DECIMALS });

// ───────────────────────────── locations (CONTRACT §16) ─────────────────────────────

export const Location = z
  .object({
    id: z.string(),
    name: z.string(),
    is_default: z.boolean().meta({ description: 'Exactly one live location is the default: recipe consumption is booked there.' }),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'Location' });
export type Location = z.infer<typeof Location>;

export const CreateLocationBody = z
  .object({
    name: z.string().trim().min(1).max(80),
    is_default: z.boolean().optional().meta({ description: 'Make it the default (the previous default stops being one). The first location is always the default.' }),
  })
  .strict();
export type CreateLocationInput = z.infer<typeof CreateLocationBody>;
export const UpdateLocationBody = z
  .object({ name: z.string().trim().min(1).max(80), is_default: z.literal(true).meta({ description: 'Only true: choose another default instead of un-setting this one.' }) })
  .partial()
  .strict();
export type UpdateLocationInput = z.infer<typeof UpdateLocationBody>;

export const IdParams = z.object({ id: z.uuid() });

// ───────────────────────────── movements (CONTRACT §7) ─────────────────────────────

/**
 * POST /stock. The specification names camelCase fields (`productId`, `locationId`); their
 * snake_case twins are accepted too. The transfer pair is one unit in either spelling:
 * `TRANSFER_OUT` + `toLocationId`, or `TRANSFER_IN` + `fromLocationId`.
 */
export const MoveStockBody = z
  .object({
    productId: z.uuid().optional(),
    product_id: z.uuid().optional(),
    locationId: z.uuid().optional(),
    location_id: z.uuid().optional(),
    type: MovementType,
    quantity: Quantity.meta({ description: 'Positive; for ADJUSTMENT the counted level (0 allowed). In the product’s unit, at most 3 decimals.' }),
    toLocationId: z.uuid().optional(),
    to_location_id: z.uuid().optional(),
    fromLocationId: z.uuid().optional(),
    from_location_id: z.uuid().optional(),
    note: z.string().trim().max(500).optional(),
    reason: z.string().trim().min(1).max(100).optional().meta({ description: 'Why, in the staff’s words (breuk, personeelsmaaltijd, levering ...)' }),
  })
  .strict()
  .superRefine((b, ctx) => {
    const twin = (camel: keyof typeof b, snake: keyof typeof b) => {
      if (b[camel] !== undefined && b[snake] !== undefined && b[camel] !== b[snake]) ctx.addIssue({ code: 'custom', path: [snake], message: `moet gelijk zijn aan '${camel}' (of laat het weg).` });
    };
    twin('productId', 'product_id');
    twin('locationId', 'location_id');
    twin('toLocationId', 'to_location_id');
    twin('fromLocationId', 'from_location_id');
    if (!b.productId && !b.product_id) ctx.addIssue({ code: 'custom', path: ['productId'], message: 'is verplicht.' });
    if (!b.locationId && !b.location_id) ctx.addIssue({ code: 'custom', path: ['locationId'], message: 'is verplicht.' });
    if (b.type !== 'ADJUSTMENT' && b.quantity === 0) ctx.addIssue({ code: 'custom', path: ['quantity'], message: 'moet groter dan 0 zijn.' });
    const to = b.toLocationId ?? b.to_location_id;
    const from = b.fromLocationId ?? b.from_location_id;
    const here = b.locationId ?? b.location_id;
    if (b.type === 'TRANSFER_OUT' && !to) ctx.addIssue({ code: 'custom', path: ['toLocationId'], message: 'is verplicht bij TRANSFER_OUT.' });
    if (b.type === 'TRANSFER_IN' && !from) ctx.addIssue({ code: 'custom', path: ['fromLocationId'], message: 'is verplicht bij TRANSFER_IN.' });
    if (b.type !== 'TRANSFER_OUT' && to) ctx.addIssue({ code: 'custom', path: ['toLocationId'], message: 'hoort alleen bij TRANSFER_OUT.' });
    if (b.type !== 'TRANSFER_IN' && from) ctx.addIssue({ code: 'custom', path: ['fromLocationId'], message: 'hoort alleen bij TRANSFER_IN.' });
    if (here && ((b.type === 'TRANSFER_OUT' && to === here) || (b.type === 'TRANSFER_IN' && from === here))) {
      ctx.addIssue({ code: 'custom', path: [b.type === 'TRANSFER_OUT' ? 'toLocationId' : 'fromLocationId'], message: 'moet een andere locatie zijn dan de locatie zelf.' });
    }
  })
  .transform((b) => ({
    product_id: (b.productId ?? b.product_id)!,
    location_id: (b.locationId ?? b.location_id)!,
    type: b.type,
    quantity: b.quantity,
    to_location_id: b.toLocationId ?? b.to_location_id ?? null,
    from_location_id: b.fromLocationId ?? b.from_location_id ?? null,
    note: b.note ?? null,
    reason: b.reason ?? null,
  }));
export type MoveStockInput = z.output<typeof MoveStockBody>;

export const Movement = z
  .object({
    id: z.string(),
    product_id: z.string(),
    location_id: z.string(),
    type: MovementType,
    quantity: z.number().meta({ description: 'The signed change of the level at this location (an ADJUSTMENT: the difference to the count).' }),
    counted: z.number().nullable().meta({ description: 'ADJUSTMENT only: the counted level.' }),
    level_after: z.number().meta({ description: 'The level at this location right after this movement, where and when it was booked.' }),
    transfer_id: z.string().nullable().meta({ description: 'Both legs of a transfer carry the same id.' }),
    source: z.enum(MOVEMENT_SOURCES).meta({ description: 'staff (POST /stock), sale (recipe of a completed order), waste (a waste entry)' }),
    ref_id: z.string().nullable().meta({ description: 'The order (sale) or waste entry (waste) behind the movement.' }),
    reason: z.string().nullable(),
    note: z.string().nullable(),
    user_id: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'StockMovement' });
export type Movement = z.infer<typeof Movement>;

export const Level = z.object({ product_id: z.string(), location_id: z.string(), quantity: z.number() }).meta({ id: 'StockLevel' });

export const MoveStockResult = z.object({ movements: z.array(Movement), levels: z.array(Level) }).meta({ id: 'StockMoveResult' });
export type MoveStockResult = z.infer<typeof MoveStockResult>;

export const StockLocationLevel = z.object({
  location_id: z.string(),
  name: z.string(),
  quantity: z.number(),
  below_zero: z.boolean().meta({ description: 'Sales (or two sides taking the last units during an outage) took it below zero: count and correct it.' }),
});
export const StockItem = z
  .object({
    product_id: z.string(),
    name: z.string(),
    unit: z.string().nullable(),
    total: z.number(),
    min_level: z.number().nullable(),
    below_min: z.boolean(),
    below_zero: z.boolean().meta({ description: 'Some location is below zero.' }),
    locations: z.array(StockLocationLevel),
  })
  .meta({ id: 'StockItem' });
export type StockItem = z.infer<typeof StockItem>;
export const StockList = z
  .object({
    data: z.array(StockItem),
    locations: z.array(z.object({ id: z.string(), name: z.string(), is_default: z.boolean() })).meta({ description: 'The live locations, for choosing one in POST /stock.' }),
  })
  .meta({ id: 'StockList' });
export type StockList = z.infer<typeof StockList>;

/** A period bound: an ISO timestamp, or a date (YYYY-MM-DD) in the restaurant's time zone. */
const PeriodBound = z.union([z.iso.date(), z.iso.datetime({ offset: true })]).meta({ description: 'ISO timestamp, or a date (YYYY-MM-DD) in the restaurant’s time zone' });
export const MovementsQuery = z
  .object({ product_id: z.uuid().optional(), location_id: z.uuid().optional(), from: PeriodBound.optional(), to: PeriodBound.optional(), limit: Limit, offset: Offset })
  .strict();

// ───────────────────────────── recipes (CONTRACT §16) ─────────────────────────────

export const RecipeParams = z.object({ product_id: z.uuid() });
export const PutRecipeBody = z
  .object({
    ingredients: z
      .array(z.object({ product_id: z.uuid(), quantity: Quantity.refine((q) => q > 0, { message: 'moet groter dan 0 zijn.' }).meta({ description: 'Per sold unit, in the ingredient’s unit' }) }).strict())
      .max(100)
      .superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((i, idx) => {
          if (seen.has(i.product_id)) ctx.addIssue({ code: 'custom', path: [idx, 'product_id'], message: 'staat al eerder in het recept.' });
          seen.add(i.product_id);
        });
      }),
  })
  .strict();
export type PutRecipeInput = z.infer<typeof PutRecipeBody>;

export const Recipe = z
  .object({
    product_id: z.string(),
    ingredients: z.array(
      z.object({
        product_id: z.string(),
        name: z.string(),
        unit: z.string().nullable(),
        quantity: z.number(),
        cost_cents: z.number().nullable().meta({ description: 'quantity × the ingredient’s cost_cents (per unit); null when it has no cost' }),
      }),
    ),
    cost_cents: z.number().int().nullable().meta({ description: 'Ingredient cost of one sold unit, rounded to cents; null without a recipe' }),
    complete: z.boolean().meta({ description: 'false when an ingredient has no cost_cents (counted as 0)' }),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'Recipe' });
export type Recipe = z.infer<typeof Recipe>;

// ───────────────────────────── purchasing (CONTRACT §7) ─────────────────────────────

export const PurchaseItem = z
  .object({
    product_id: z.string(),
    name: z.string(),
    unit: z.string().nullable(),
    total: z.number(),
    min_level: z.number(),
    quantity_to_order: z.number().meta({ description: 'min_level − total, rounded up to whole units for counted units' }),
  })
  .meta({ id: 'PurchaseItem' });
export const PurchaseList = z.object({ data: z.array(PurchaseItem) }).meta({ id: 'PurchaseList' });
export type PurchaseList = z.infer<typeof PurchaseList>;

export const SuggestQuery = z
  .object({
    lookback: Lookback,
    lead_days: LeadDays,
    cover_days: z
      .string()
      .regex(/^\d+$/, { message: 'moet een geheel getal zijn.' })
      .transform(Number)
      .pipe(z.number().int().min(0).max(60))
      .optional()
      .transform((v) => v ?? 7)
      .meta({ description: 'Days the order must last after it arrives (default 7, 0..60)' }),
  })
  .strict();

export const SuggestionItem = z
  .object({
    product_id: z.string(),
    name: z.string(),
    unit: z.string().nullable(),
    total: z.number().meta({ description: 'Stock now, all locations' }),
    consumption: z
      .object({ sales: z.number(), removals: z.number(), waste: z.number(), total: z.number() })
      .meta({ description: 'Used over the lookback window, by source' }),
    daily_use: z.number(),
    days_of_cover: z.number().nullable().meta({ description: 'max(total, 0) / daily_use' }),
    target: z.number().meta({ description: 'daily_use × (lead_days + cover_days)' }),
    quantity_to_order: z.number().meta({ description: 'target − max(total, 0), rounded up to the unit' }),
  })
  .meta({ id: 'PurchaseSuggestion' });
export const SuggestionList = z
  .object({
    lookback: z.number().int(),
    lead_days: z.number().int(),
    cover_days: z.number().int(),
    from: z.string(),
    to: z.string(),
    data: z.array(SuggestionItem),
  })
  .meta({ id: 'PurchaseSuggestions' });
export type SuggestionList = z.infer<typeof SuggestionList>;

// ───────────────────────────── sync payloads ─────────────────────────────

const IsoTs = z.iso.datetime();
const Milli = z.number().int().min(-1e15).max(1e15);
const Text = (max: number) => z.string().max(max).nullable();

/** A ledger row as it travels (sync): the same limits as the API, in thousandths. */
export const MovementRow = z
  .object({
    id: z.uuid(),
    product_id: z.uuid(),
    location_id: z.uuid(),
    type: MovementType,
    quantity_milli: Milli,
    counted_milli: Milli.nullable(),
    level_after_milli: Milli,
    transfer_id: z.uuid().nullable(),
    source: z.enum(MOVEMENT_SOURCES),
    ref_id: z.uuid().nullable(),
    reason: Text(100),
    note: Text(500),
    user_id: z.uuid().nullable(),
    booked_at: IsoTs,
    created_at: IsoTs,
  })
  .loose();
export const MovementsPayload = z.object({ movements: z.array(MovementRow).min(1).max(200) }).loose();

export const LocationPayload = z
  .object({
    id: z.uuid(),
    name: z.string().trim().min(1).max(80),
    is_default: z.union([z.literal(0), z.literal(1)]),
    created_at: IsoTs,
    updated_at: IsoTs,
    archived_at: IsoTs.nullable(),
    fields: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const RecipePayload = z
  .object({
    id: z.uuid(),
    ingredients: z.array(z.object({ product_id: z.uuid(), quantity_milli: z.number().int().min(1).max(MAX_QUANTITY * 1000) }).loose()).max(100),
    created_at: IsoTs,
    updated_at: IsoTs,
  })
  .loose();
