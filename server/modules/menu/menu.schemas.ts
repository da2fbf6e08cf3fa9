import { z } from 'zod';
import '../../shared/validation.js';

/** The 14 allergens of Regulation (EU) 1169/2011 Annex II (CONTRACT §17); another code is VALIDATION. */
export const ALLERGENS = ['gluten', 'crustaceans', 'eggs', 'fish', 'peanuts', 'nuts', 'soybeans', 'milk', 'celery', 'mustard', 'sesame', 'sulphites', 'lupin', 'molluscs'] as const;
export type AllergenCode = (typeof ALLERGENS)[number];
/** Their Dutch names as a kitchen ticket prints them (the same as the screens': app/ui/lib/allergens.js). */
export const ALLERGEN_NL: Record<AllergenCode, string> = {
  gluten: 'Gluten',
  crustaceans: 'Schaaldieren',
  eggs: 'Eieren',
  fish: 'Vis',
  peanuts: "Pinda's",
  nuts: 'Noten',
  soybeans: 'Soja',
  milk: 'Melk',
  celery: 'Selderij',
  mustard: 'Mosterd',
  sesame: 'Sesamzaad',
  sulphites: 'Sulfiet',
  lupin: 'Lupine',
  molluscs: 'Weekdieren',
};
export const DIETARY = ['vegetarian', 'vegan'] as const;
export const Allergen = z.enum(ALLERGENS);
export const Dietary = z.enum(DIETARY);
/** A list of codes without repeats (the answer gives them in the list's own order). */
const codes = <T extends z.ZodType<string>>(code: T) =>
  z.array(code).max(20).refine((l) => new Set(l).size === l.length, { message: 'bevat een code twee keer.' });
export const AllergenList = codes(Allergen).meta({ description: `Allergenen (EU 1169/2011): ${ALLERGENS.join(', ')}` });
export const DietaryList = codes(Dietary).meta({ description: 'vegetarian, vegan' });
/** A line's course: 1 goes to the kitchen with the order, 2..5 wait until fired (CONTRACT §17). */
export const Course = z.number().int().min(1).max(5);
/** A kitchen station: a short lower-case name such as `keuken` or `bar` (CONTRACT §18). */
export const Station = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,23}$/, { message: 'moet een korte naam zijn (kleine letters, cijfers en streepjes, zoals keuken of bar).' });
/** Where a line goes when neither its product nor its category names a station. */
export const DEFAULT_STATION = 'keuken';

export const Category = z
  .object({
    id: z.string(),
    name: z.string(),
    position: z.number().int(),
    course: z.number().int().nullable().meta({ description: 'default course of its products’ lines (1..5); null: course 1' }),
    station: z.string().nullable().meta({ description: 'kitchen station of its products (keuken, bar, …); null: keuken' }),
    vat_rate: z.number().int().nullable().meta({ description: 'BTW-percentage of its products that have none of their own (CONTRACT §6, §19); null: the setting default_vat_rate' }),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'Category' });
export type Category = z.infer<typeof Category>;

/** A category's VAT rate (CONTRACT §6): what its products without a rate of their own are sold at (CONTRACT §19). */
const CategoryVat = z.union([z.literal(0), z.literal(9), z.literal(21)]).meta({ description: 'BTW-percentage: 0, 9 of 21' });

export const CreateCategoryBody = z
  .object({
    name: z.string().trim().min(1).max(80),
    position: z.number().int().min(0).max(10_000).optional(),
    course: Course.optional(),
    station: Station.optional(),
    vat_rate: CategoryVat.optional(),
  })
  .strict()
  .meta({ examples: [{ name: 'Hoofdgerechten', position: 2, course: 2 }] });
export const UpdateCategoryBody = z
  .object({ name: CreateCategoryBody.shape.name, position: CreateCategoryBody.shape.position.unwrap(), course: Course.nullable(), station: Station.nullable(), vat_rate: CategoryVat.nullable() })
  .partial()
  .strict();
export type UpdateCategoryInput = z.infer<typeof UpdateCategoryBody>;

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
    modifier_group_ids: z.array(z.string()).meta({ description: 'its modifier groups, in the order they are asked (CONTRACT §17)' }),
    allergens: z.array(Allergen).meta({ description: 'its own allergens ∪ those of its recipe’s ingredients (docs/menu.md)' }),
    own_allergens: z.array(Allergen).meta({ description: 'the allergens set on the product itself (what PATCH `allergens` sets)' }),
    dietary: z.array(Dietary),
    course: z.number().int().nullable().meta({ description: 'default course of its lines; null: the category’s, else 1' }),
    station: z.string().nullable().meta({ description: 'kitchen station of its lines; null: the category’s, else keuken (CONTRACT §18)' }),
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
    modifier_group_ids: z.array(z.uuid()).max(20).optional().meta({ description: 'live modifier groups of this restaurant, in the order they are asked' }),
    allergens: AllergenList.optional(),
    dietary: DietaryList.optional(),
    course: Course.optional(),
    station: Station.optional(),
  })
  .strict()
  .meta({ examples: [{ name: 'Biefstuk met friet', price_cents: 2250, category_id: '0190a8e2-7c1b-7000-8000-000000000001', modifier_group_ids: ['0190a8e2-7c1b-7000-8000-0000000000a1'], allergens: ['mustard'], course: 2 }] });
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
    modifier_group_ids: z.array(z.uuid()).max(20),
    allergens: AllergenList,
    dietary: DietaryList,
    course: Course.nullable(),
    station: Station.nullable(),
  })
  .partial()
  .strict();
export type UpdateProductInput = z.infer<typeof UpdateProductBody>;

export const IdParams = z.object({ id: z.uuid() });

// ───────────── modifier groups (CONTRACT §17)
export const ModifierOption = z
  .object({
    id: z.string(),
    name: z.string(),
    price_delta_cents: z.number().int(),
    ingredient_product_id: z.string().nullable(),
    ingredient_quantity: z.number().nullable().meta({ description: 'in the ingredient’s unit, booked per chosen option when the order completes' }),
    available: z.boolean(),
    allergens: z.array(Allergen).meta({ description: 'its ingredient’s allergens' }),
  })
  .meta({ id: 'ModifierOption' });
export type ModifierOption = z.infer<typeof ModifierOption>;

export const ModifierGroup = z
  .object({
    id: z.string(),
    name: z.string(),
    min_select: z.number().int(),
    max_select: z.number().int(),
    options: z.array(ModifierOption),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'ModifierGroup' });
export type ModifierGroup = z.infer<typeof ModifierGroup>;

export const ModifierOptionInput = z
  .object({
    id: z.uuid().optional().meta({ description: 'PATCH: an existing option of this group keeps its id (orders refer to it); left out: a new option' }),
    name: z.string().trim().min(1).max(80),
    price_delta_cents: z.number().int().min(-100_000).max(100_000).default(0),
    ingredient_product_id: z.uuid().nullable().optional(),
    ingredient_quantity: z.number().gt(0).max(100_000).nullable().optional(),
    available: z.boolean().default(true),
  })
  .strict();
export type ModifierOptionInput = z.infer<typeof ModifierOptionInput>;

export const CreateModifierGroupBody = z
  .object({
    name: z.string().trim().min(1).max(80),
    min_select: z.number().int().min(0).max(20).default(0),
    max_select: z.number().int().min(1).max(20).optional().meta({ description: 'default: min_select, at least 1' }),
    options: z.array(ModifierOptionInput).max(50),
  })
  .strict()
  .meta({
    examples: [
      { name: 'Saus (kies 1)', min_select: 1, max_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }] },
      { name: "Extra's", min_select: 0, max_select: 5, options: [{ name: 'Extra kaas', price_delta_cents: 100, ingredient_product_id: '0190a8e2-7c1b-7000-8000-0000000000c1', ingredient_quantity: 0.03 }] },
    ],
  });
export type CreateModifierGroupInput = z.input<typeof CreateModifierGroupBody>;

export const UpdateModifierGroupBody = z
  .object({
    name: CreateModifierGroupBody.shape.name,
    min_select: z.number().int().min(0).max(20),
    max_select: z.number().int().min(1).max(20),
    options: z.array(ModifierOptionInput).max(50).meta({ description: 'the whole list, in order: options left out are removed; give an existing option’s id to keep it' }),
  })
  .partial()
  .strict()
  .meta({ examples: [{ options: [{ id: '0190a8e2-7c1b-7000-8000-0000000000b1', name: 'Stroganoffsaus', available: false }, { name: 'Champignonsaus', price_delta_cents: 150 }] }] });
export type UpdateModifierGroupInput = z.infer<typeof UpdateModifierGroupBody>;
export const IncludeArchivedQuery = z.object({ include_archived: z.enum(['true', 'false']).optional() }).strict();

/** What staff see on a tablet (GET /menu): no costs, VAT or stock fields; archived entries left out. */
/** An option as the menus show it: its ingredient's allergens, never the ingredient itself. */
export const MenuOption = z
  .object({ id: z.string(), name: z.string(), price_delta_cents: z.number().int(), available: z.boolean(), allergens: z.array(Allergen) })
  .strict()
  .meta({ id: 'MenuOption' });
export const MenuModifierGroup = z
  .object({ id: z.string(), name: z.string(), min_select: z.number().int(), max_select: z.number().int(), options: z.array(MenuOption) })
  .strict()
  .meta({ id: 'MenuModifierGroup' });
export type MenuModifierGroup = z.infer<typeof MenuModifierGroup>;

export const StaffMenuProduct = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    price_cents: z.number().int(),
    available: z.boolean(),
    allergens: z.array(Allergen).meta({ description: 'its own ∪ its recipe’s ingredients’' }),
    dietary: z.array(Dietary),
    course: z.number().int().meta({ description: 'the course a line gets unless the order says otherwise: the product’s, else its category’s, else 1' }),
    modifier_groups: z.array(MenuModifierGroup).meta({ description: 'live groups in the product’s order; forced ones have min_select ≥ 1' }),
  })
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
