import type { ChangeLog } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import { perTenant } from '../../db/read-cache.js';
import type { TableVersions } from '../../db/table-watch.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { ModifierOptionJson } from '../../db/database.js';
import { AppError, type FieldError } from '../../shared/errors.js';
import { menuRepository, type CategoryRow, type ModifierGroupRow, type ProductRow } from './menu.repository.js';
import type {
  AllergenCode,
  Category,
  CreateModifierGroupInput,
  CreateProductInput,
  MenuModifierGroup,
  ModifierGroup,
  ModifierOptionInput,
  Product,
  StaffMenu,
  StaffMenuCategory,
  UpdateCategoryInput,
  UpdateModifierGroupInput,
  UpdateProductInput,
} from './menu.schemas.js';
import { ALLERGENS, CreateModifierGroupBody, CreateProductBody, DEFAULT_STATION } from './menu.schemas.js';

export const toCategoryDto = (r: CategoryRow): Category => ({
  id: r.id,
  name: r.name,
  position: r.position,
  course: r.course,
  station: r.station ?? null,
  vat_rate: r.vat_rate ?? null,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

const jsonList = <T = string>(text: string | null | undefined): T[] => {
  if (!text) return [];
  const v = JSON.parse(text) as unknown;
  return Array.isArray(v) ? (v as T[]) : [];
};
/** Allergen codes in the one canonical order (the regulation's list), without repeats. */
export const sortAllergens = (codes: Iterable<string>): AllergenCode[] => {
  const set = new Set(codes);
  return ALLERGENS.filter((a) => set.has(a));
};
export const ownAllergens = (r: Pick<ProductRow, 'allergens'>): AllergenCode[] => jsonList<AllergenCode>(r.allergens);
export const groupIdsOf = (r: Pick<ProductRow, 'modifier_group_ids'>): string[] => jsonList(r.modifier_group_ids);
export const optionsOf = (g: Pick<ModifierGroupRow, 'options'>): ModifierOptionJson[] => jsonList<ModifierOptionJson>(g.options);

/** A product as the admin API shows it; `allergens` is its own ∪ `extra` (its recipe's ingredients'). */
export const toProductDto = (r: ProductRow, extra: Iterable<string> = []): Product => ({
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
  modifier_group_ids: groupIdsOf(r),
  allergens: sortAllergens([...ownAllergens(r), ...extra]),
  own_allergens: sortAllergens(ownAllergens(r)),
  dietary: jsonList(r.dietary) as Product['dietary'],
  course: r.course,
  station: r.station ?? null,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

/** Name of the trailing group for products without a category, or whose category was archived. */
export const OTHER_CATEGORY_NAME = 'Overig';

/** Change-log payloads carry the full row (state down; last-writer-wins per field on sync). */
const categoryChange = (row: CategoryRow, kind: string, fields?: Partial<CategoryRow>) => ({ entity: 'category', entityId: row.id, kind, payload: { ...row, ...(fields ? { fields } : {}) } });
const productChange = (row: ProductRow, kind: string, fields?: Partial<ProductRow>) => ({ entity: 'product', entityId: row.id, kind, payload: { ...row, ...(fields ? { fields } : {}) } });

/**
 * A sold product's recipe ingredients (product ids), provided by stock (which owns recipes and
 * depends on the menu, so it is handed in by the composition root: `menu.useRecipes`).
 */
export type RecipeIngredients = (exec: Executor, tenantId: string, productIds: string[]) => Promise<Map<string, string[]>>;
/** Every recipe of the restaurant: product id → its ingredients' product ids (stock's per-tenant cache). */
export type AllRecipeIngredients = (exec: Executor, tenantId: string) => Promise<ReadonlyMap<string, readonly string[]>>;

/**
 * What an order's lines need from the menu (orders.service.ts `create`, the kitchen's stations):
 * the same answers as productsForOrder, liveGroups, dishAllergens and categoryDefaults. On the
 * appliance from the per-tenant cache (no statement while nothing in the menu was written); on
 * PostgreSQL read as before, only the rows asked for (`menu.forOrder`).
 */
export interface OrderMenu {
  /** The products with these ids that may be sold (on the menu; archived and unavailable ones too: the caller checks). */
  products(ids: string[]): Promise<ProductRow[]>;
  liveGroups(ids: string[]): Promise<Map<string, MenuModifierGroup>>;
  dishAllergens(rows: ProductRow[]): Promise<Map<string, AllergenCode[]>>;
  categoryDefaults(): Promise<{ courses: Map<string, number | null>; vat: Map<string, number | null> }>;
  /** Each product's station: its own, else its category's, else keuken; products of other restaurants are left out. */
  stations(ids: string[]): Promise<Map<string, string>>;
}

const MILLI = 1000;
const groupChange = (row: ModifierGroupRow, kind: string, fields?: Partial<ModifierGroupRow>) => ({ entity: 'modifier_group', entityId: row.id, kind, payload: { ...row, ...(fields ? { fields } : {}) } });

/** A group's option as the admin API shows it (quantities in the ingredient's unit). */
const toOptionDto = (o: ModifierOptionJson, allergens: Map<string, AllergenCode[]>) => ({
  id: o.id,
  name: o.name,
  price_delta_cents: o.price_delta_cents,
  ingredient_product_id: o.ingredient_product_id,
  ingredient_quantity: o.ingredient_quantity_milli === null ? null : o.ingredient_quantity_milli / MILLI,
  available: o.available,
  allergens: o.ingredient_product_id ? (allergens.get(o.ingredient_product_id) ?? []) : [],
});

const fail = (details: FieldError[]) => new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });

export function createMenuService(deps: { db: Db; changes: ChangeLog; tables?: TableVersions }) {
  const { db, changes } = deps;
  let recipeIngredients: RecipeIngredients = async () => new Map();
  let allRecipeIngredients: AllRecipeIngredients = async () => new Map();

  /**
   * The restaurant's whole menu (products, ingredients and archived ones included; categories;
   * option groups), read once and kept until one of its tables is written (db/read-cache.ts): every
   * order needs its products' prices, options, allergens and defaults, and a restaurant's menu is a
   * few hundred rows that change a few times a day. Rows are frozen: the cache shares them.
   */
  const catalog = perTenant(deps.tables, ['products', 'categories', 'modifier_groups'], async (exec, tenantId) => {
    const [products, categories, groups] = await Promise.all([
      menuRepository.listProducts(exec, tenantId, true),
      menuRepository.listCategories(exec, tenantId, true),
      menuRepository.listGroups(exec, tenantId, true),
    ]);
    return {
      products: new Map(products.map((p) => [p.id, Object.freeze(p)])),
      categories: new Map(categories.map((c) => [c.id, Object.freeze(c)])),
      groups: new Map(groups.map((g) => [g.id, Object.freeze(g)])),
    };
  });

  /** dishAllergens over known rows and recipes (no reads). */
  function allergensFrom(rows: readonly ProductRow[], recipes: ReadonlyMap<string, readonly string[]>, product: (id: string) => ProductRow | undefined): Map<string, AllergenCode[]> {
    return new Map(rows.map((r) => [r.id, sortAllergens([...ownAllergens(r), ...(recipes.get(r.id) ?? []).flatMap((i) => { const p = product(i); return p ? ownAllergens(p) : []; })])]));
  }

  /**
   * Every product's allergens as a dish shows them: its own ∪ those of its recipe's ingredients
   * (read at the moment of asking, so an ingredient added to a recipe adds its allergens at once).
   */
  async function dishAllergens(exec: Executor, tenantId: string, rows: ProductRow[]): Promise<Map<string, AllergenCode[]>> {
    const recipes = await recipeIngredients(exec, tenantId, rows.map((r) => r.id));
    const known = new Map(rows.map((r) => [r.id, r]));
    const missing = [...new Set([...recipes.values()].flat())].filter((id) => !known.has(id));
    for (const r of await menuRepository.findProducts(exec, tenantId, missing)) known.set(r.id, r);
    return new Map(
      rows.map((r) => [r.id, sortAllergens([...ownAllergens(r), ...(recipes.get(r.id) ?? []).flatMap((i) => (known.has(i) ? ownAllergens(known.get(i)!) : []))])]),
    );
  }

  async function productDtos(exec: Executor, tenantId: string, rows: ProductRow[]): Promise<Product[]> {
    const union = await dishAllergens(exec, tenantId, rows);
    return rows.map((r) => toProductDto(r, union.get(r.id)));
  }

  /** The allergens of the options' ingredients, by ingredient id. */
  async function ingredientAllergens(exec: Executor, tenantId: string, groups: ModifierGroupRow[]): Promise<Map<string, AllergenCode[]>> {
    const ids = [...new Set(groups.flatMap((g) => optionsOf(g).map((o) => o.ingredient_product_id)).filter((x): x is string => !!x))];
    if (ids.length === 0) return new Map();
    return dishAllergens(exec, tenantId, await menuRepository.findProducts(exec, tenantId, ids));
  }

  async function groupDtos(exec: Executor, tenantId: string, rows: ModifierGroupRow[]): Promise<ModifierGroup[]> {
    const allergens = await ingredientAllergens(exec, tenantId, rows);
    return rows.map((g) => ({
      id: g.id,
      name: g.name,
      min_select: g.min_select,
      max_select: g.max_select,
      options: optionsOf(g).map((o) => toOptionDto(o, allergens)),
      created_at: g.created_at,
      updated_at: g.updated_at,
      archived_at: g.archived_at,
    }));
  }

  /** `modifier_group_ids` must name live groups of the restaurant, each once. */
  async function assertGroups(trx: Executor, tenantId: string, ids: string[] | undefined) {
    if (!ids || ids.length === 0) return;
    if (new Set(ids).size !== ids.length) throw invalidField('modifier_group_ids', 'bevat een groep twee keer.');
    const live = new Set((await menuRepository.findGroups(trx, tenantId, ids)).filter((g) => !g.archived_at).map((g) => g.id));
    const bad = ids.findIndex((id) => !live.has(id));
    if (bad >= 0) throw invalidField(`modifier_group_ids.${bad}`, 'verwijst naar een optiegroep die niet bestaat.');
  }

  /**
   * A group's options as stored, checked as a whole (CONTRACT §17): min ≤ max, at least min options,
   * ingredients that are live products of the restaurant with a quantity, and (PATCH) option ids
   * that are this group's own.
   */
  async function checkedOptions(trx: Executor, tenantId: string, min: number, max: number, input: ModifierOptionInput[], current: ModifierOptionJson[] | null): Promise<ModifierOptionJson[]> {
    const details: FieldError[] = [];
    if (max < min) details.push({ field: 'max_select', error: "'max_select' moet minstens gelijk zijn aan 'min_select'." });
    if (input.length < min) details.push({ field: 'min_select', error: `'min_select' is ${min}, maar de groep heeft maar ${input.length} ${input.length === 1 ? 'optie' : 'opties'}.` });
    const own = new Set((current ?? []).map((o) => o.id));
    const seen = new Set<string>();
    const ingredientIds = [...new Set(input.map((o) => o.ingredient_product_id).filter((x): x is string => !!x))];
    const ingredients = new Map((await menuRepository.findProducts(trx, tenantId, ingredientIds)).filter((p) => !p.archived_at).map((p) => [p.id, p]));
    const out = input.map((o, n) => {
      const at = `options.${n}`;
      if (o.id !== undefined) {
        if (current === null) details.push({ field: `${at}.id`, error: `'${at}.id' kan alleen bij het wijzigen van een groep (PATCH) worden meegegeven.` });
        else if (!own.has(o.id)) details.push({ field: `${at}.id`, error: `'${at}.id' is geen optie van deze groep.` });
        else if (seen.has(o.id)) details.push({ field: `${at}.id`, error: `'${at}.id' staat twee keer in de lijst.` });
        seen.add(o.id);
      }
      const ingredient = o.ingredient_product_id ?? null;
      const quantity = o.ingredient_quantity ?? null;
      if (ingredient && !ingredients.has(ingredient)) details.push({ field: `${at}.ingredient_product_id`, error: `'${at}.ingredient_product_id' verwijst naar een product dat niet bestaat.` });
      if (ingredient && quantity === null) details.push({ field: `${at}.ingredient_quantity`, error: `'${at}.ingredient_quantity' is verplicht bij een ingrediënt.` });
      if (!ingredient && quantity !== null) details.push({ field: `${at}.ingredient_quantity`, error: `'${at}.ingredient_quantity' kan alleen samen met 'ingredient_product_id'.` });
      const milli = quantity === null ? null : Math.round(quantity * MILLI);
      if (milli === 0) details.push({ field: `${at}.ingredient_quantity`, error: `'${at}.ingredient_quantity' moet minstens 0,001 zijn.` });
      return { id: o.id ?? newId(), name: o.name, price_delta_cents: o.price_delta_cents, ingredient_product_id: ingredient, ingredient_quantity_milli: ingredient ? milli : null, available: o.available };
    });
    if (details.length) throw fail(details);
    return out;
  }

  /** The live groups by id with the allergens of their options' ingredients, for menus and orders. */
  async function liveGroups(exec: Executor, tenantId: string, ids: string[]) {
    const rows = (await menuRepository.findGroups(exec, tenantId, [...new Set(ids)])).filter((g) => !g.archived_at);
    const allergens = await ingredientAllergens(exec, tenantId, rows);
    return new Map(rows.map((g): [string, MenuModifierGroup] => [g.id, groupForMenu(g, allergens)]));
  }

  /** A live group as menus and orders show it, its options' allergens from `allergens` (by ingredient id). */
  function groupForMenu(g: ModifierGroupRow, allergens: Map<string, AllergenCode[]>): MenuModifierGroup {
    return {
      id: g.id,
      name: g.name,
      min_select: g.min_select,
      max_select: g.max_select,
      options: optionsOf(g).map((o) => ({ id: o.id, name: o.name, price_delta_cents: o.price_delta_cents, available: o.available, allergens: o.ingredient_product_id ? (allergens.get(o.ingredient_product_id) ?? []) : [] })),
    };
  }

  /** Each category's default course (archived: none) and VAT rate, for an order's new lines. */
  const defaultsOf = (rows: CategoryRow[]) => ({ courses: new Map(rows.map((c) => [c.id, c.archived_at ? null : c.course])), vat: new Map(rows.map((c) => [c.id, c.vat_rate ?? null])) });
  const categoryDefaults = async (exec: Executor, tenantId: string) => defaultsOf(await menuRepository.listCategories(exec, tenantId, true));

  async function assertCategory(trx: Executor, tenantId: string, categoryId: string | null | undefined) {
    if (!categoryId) return;
    const c = await menuRepository.findCategory(trx, tenantId, categoryId);
    if (!c || c.archived_at) throw invalidField('category_id', 'verwijst naar een categorie die niet bestaat.');
  }

  return {
    async listCategories(tenantId: string, includeArchived = false): Promise<Category[]> {
      return (await menuRepository.listCategories(db, tenantId, includeArchived)).map(toCategoryDto);
    },

    async createCategory(tenantId: string, input: { name: string; position?: number; course?: number; station?: string; vat_rate?: number }): Promise<Category> {
      return changes.write(tenantId, async (w) => {
        const row: CategoryRow = { id: newId(), tenant_id: tenantId, name: input.name, position: input.position ?? 0, course: input.course ?? null, station: input.station ?? null, vat_rate: input.vat_rate ?? null, created_at: w.now, updated_at: w.now, archived_at: null };
        await menuRepository.insertCategory(w.trx, row);
        await w.record(categoryChange(row, 'category.created'));
        return toCategoryDto(row);
      });
    },

    async updateCategory(tenantId: string, id: string, input: UpdateCategoryInput): Promise<Category> {
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

    /** Stock hands in how to read recipes (see RecipeIngredients), and all of a restaurant's (its cache). */
    useRecipes(fn: RecipeIngredients, all?: AllRecipeIngredients): void {
      recipeIngredients = fn;
      if (all) allRecipeIngredients = all;
    },

    /**
     * The menu as an order reads it (OrderMenu). With a table watch (the appliance's SQLite) from the
     * per-tenant caches of the menu (`catalog`) and of the recipes (stock's): no statement while
     * nothing in them was written, one read of each through `exec` after a write. Without one
     * (PostgreSQL) each answer is read as before, only the rows it needs.
     */
    async forOrder(exec: Executor, tenantId: string): Promise<OrderMenu> {
      if (!deps.tables) {
        return {
          products: async (ids) => (await menuRepository.findProducts(exec, tenantId, ids)).filter((p) => p.on_menu !== 0),
          liveGroups: (ids) => liveGroups(exec, tenantId, ids),
          dishAllergens: (rows) => dishAllergens(exec, tenantId, rows),
          categoryDefaults: () => categoryDefaults(exec, tenantId),
          stations: async (ids) => new Map((await menuRepository.stationsOf(exec, tenantId, ids)).map((r) => [r.id, r.station ?? r.category_station ?? DEFAULT_STATION])),
        };
      }
      const [c, recipes] = await Promise.all([catalog(exec, tenantId), allRecipeIngredients(exec, tenantId)]);
      const product = (id: string) => c.products.get(id);
      return {
        products: async (ids) =>
          ids.flatMap((id) => {
            const p = c.products.get(id);
            return p && p.on_menu !== 0 ? [p] : [];
          }),
        dishAllergens: async (rows) => allergensFrom(rows, recipes, product),
        liveGroups: async (ids) => {
          const rows = [...new Set(ids)].flatMap((id) => {
            const g = c.groups.get(id);
            return g && !g.archived_at ? [g] : [];
          });
          const ingredientIds = [...new Set(rows.flatMap((g) => optionsOf(g).map((o) => o.ingredient_product_id)).filter((x): x is string => !!x))];
          const allergens = allergensFrom(ingredientIds.flatMap((id) => (c.products.has(id) ? [c.products.get(id)!] : [])), recipes, product);
          return new Map(rows.map((g): [string, MenuModifierGroup] => [g.id, groupForMenu(g, allergens)]));
        },
        categoryDefaults: async () => defaultsOf([...c.categories.values()]),
        stations: async (ids) =>
          new Map(
            ids.flatMap((id) => {
              const p = c.products.get(id);
              if (!p) return [];
              const category = p.category_id ? c.categories.get(p.category_id) : undefined;
              return [[id, p.station ?? category?.station ?? DEFAULT_STATION] as const];
            }),
          ),
      };
    },

    async listProducts(tenantId: string, includeArchived = false): Promise<Product[]> {
      return productDtos(db, tenantId, await menuRepository.listProducts(db, tenantId, includeArchived));
    },

    /** Allergens of dishes as they are shown (own ∪ recipe's ingredients'), for order items. */
    dishAllergens: (exec: Executor, tenantId: string, rows: ProductRow[]) => dishAllergens(exec, tenantId, rows),

    /** Each live category's default course (null: 1), for new order lines. */
    async categoryCourses(exec: Executor, tenantId: string): Promise<Map<string, number | null>> {
      return new Map((await menuRepository.listCategories(exec, tenantId, true)).map((c) => [c.id, c.archived_at ? null : c.course]));
    },

    /** The VAT rate of each category (null: none set), for the rate an order line is sold at (CONTRACT §19). */
    async categoryVatRates(exec: Executor, tenantId: string): Promise<Map<string, number | null>> {
      return new Map((await menuRepository.listCategories(exec, tenantId, true)).map((c) => [c.id, c.vat_rate ?? null]));
    },

    /** categoryCourses and categoryVatRates from one read (an order's new lines). */
    async categoryDefaults(exec: Executor, tenantId: string): Promise<{ courses: Map<string, number | null>; vat: Map<string, number | null> }> {
      return categoryDefaults(exec, tenantId);
    },

    /** Live modifier groups by id, as the menus show them (for pricing and checking an order's options). */
    liveGroups: (exec: Executor, tenantId: string, ids: string[]) => liveGroups(exec, tenantId, ids),

    /** The live groups' rows (with each option's ingredient), for booking options' ingredients. */
    async groupRows(exec: Executor, tenantId: string, ids: string[]): Promise<ModifierGroupRow[]> {
      return menuRepository.findGroups(exec, tenantId, [...new Set(ids)]);
    },

    // ───────────── modifier groups (CONTRACT §17)
    async listGroups(tenantId: string, includeArchived = false): Promise<ModifierGroup[]> {
      return groupDtos(db, tenantId, await menuRepository.listGroups(db, tenantId, includeArchived));
    },

    async createGroup(tenantId: string, raw: CreateModifierGroupInput): Promise<ModifierGroup> {
      const input = CreateModifierGroupBody.parse(raw);
      return changes.write(tenantId, async (w) => {
        const max = input.max_select ?? Math.max(1, input.min_select);
        const options = await checkedOptions(w.trx, tenantId, input.min_select, max, input.options, null);
        const row: ModifierGroupRow = { id: newId(), tenant_id: tenantId, name: input.name, min_select: input.min_select, max_select: max, options: JSON.stringify(options), created_at: w.now, updated_at: w.now, archived_at: null };
        await menuRepository.insertGroup(w.trx, row);
        await w.record(groupChange(row, 'modifier_group.created'));
        return (await groupDtos(w.trx, tenantId, [row]))[0]!;
      });
    },

    async updateGroup(tenantId: string, id: string, input: UpdateModifierGroupInput): Promise<ModifierGroup> {
      return changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findGroup(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Optiegroep');
        const min = input.min_select ?? cur.min_select;
        const max = input.max_select ?? cur.max_select;
        const currentOptions = optionsOf(cur);
        const options = await checkedOptions(
          w.trx, tenantId, min, max,
          input.options ?? currentOptions.map((o) => ({ id: o.id, name: o.name, price_delta_cents: o.price_delta_cents, ingredient_product_id: o.ingredient_product_id, ingredient_quantity: o.ingredient_quantity_milli === null ? null : o.ingredient_quantity_milli / MILLI, available: o.available })),
          currentOptions,
        );
        const fields: Partial<ModifierGroupRow> = {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.min_select !== undefined ? { min_select: min } : {}),
          ...(input.max_select !== undefined ? { max_select: max } : {}),
          ...(input.options !== undefined ? { options: JSON.stringify(options) } : {}),
        };
        const row: ModifierGroupRow = { ...cur, ...fields, updated_at: w.now };
        await menuRepository.updateGroup(w.trx, row);
        await w.record(groupChange(row, 'modifier_group.updated', fields));
        return (await groupDtos(w.trx, tenantId, [row]))[0]!;
      });
    },

    /** Archives: sold items keep their options' names and prices; products that list it stop asking it. */
    async archiveGroup(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findGroup(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Optiegroep');
        const row: ModifierGroupRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await menuRepository.updateGroup(w.trx, row);
        await w.record(groupChange(row, 'modifier_group.archived', { archived_at: w.now }));
      });
    },

    /**
     * The menu as staff see it (GET /menu): live categories in their order, each with its live
     * products; unavailable products stay listed (available:false) so a tablet can grey them out.
     * Products without a category, or in an archived one, are still orderable, so they are listed
     * last under "Overig" (id null) rather than hidden. Costs and stock fields never leave here.
     * Ingredients (`on_menu` false: stock items that are never sold) are left out.
     */
    async staffMenu(tenantId: string): Promise<StaffMenu> {
      const [cats, all] = await Promise.all([menuRepository.listCategories(db, tenantId, false), menuRepository.listProducts(db, tenantId, false)]);
      const prods = all.filter((p) => p.on_menu !== 0);
      const [allergens, groups] = await Promise.all([dishAllergens(db, tenantId, prods), liveGroups(db, tenantId, prods.flatMap(groupIdsOf))]);
      const courseOf = new Map(cats.map((c) => [c.id, c.course]));
      const groupsOf = new Map<string | null, StaffMenuCategory>(cats.map((c) => [c.id, { id: c.id, name: c.name, products: [] }]));
      const other: StaffMenuCategory = { id: null, name: OTHER_CATEGORY_NAME, products: [] };
      for (const p of prods) {
        const item = {
          id: p.id,
          name: p.name,
          description: p.description,
          price_cents: p.price_cents,
          available: p.available === 1,
          allergens: allergens.get(p.id) ?? [],
          dietary: jsonList(p.dietary) as StaffMenuCategory['products'][number]['dietary'],
          course: p.course ?? (p.category_id ? courseOf.get(p.category_id) : null) ?? 1,
          modifier_groups: groupIdsOf(p).flatMap((g) => (groups.has(g) ? [groups.get(g)!] : [])),
        };
        ((p.category_id ? groupsOf.get(p.category_id) : undefined) ?? other).products.push(item);
      }
      return { categories: [...groupsOf.values(), ...(other.products.length ? [other] : [])] };
    },

    async getProduct(tenantId: string, id: string): Promise<Product> {
      const row = await menuRepository.findProduct(db, tenantId, id);
      if (!row) throw notFound('Product');
      return (await productDtos(db, tenantId, [row]))[0]!;
    },

    /** Rows for pricing an order: the caller checks availability. Ingredients (`on_menu` false) are never sold, so they are not found here. */
    async productsForOrder(trx: Executor, tenantId: string, ids: string[]): Promise<ProductRow[]> {
      return (await menuRepository.findProducts(trx, tenantId, ids)).filter((p) => p.on_menu !== 0);
    },

    /** Products by id (archived ones too), for areas that refer to products (stock, recipes). */
    async productsByIds(trx: Executor, tenantId: string, ids: string[]): Promise<Product[]> {
      return productDtos(trx, tenantId, await menuRepository.findProducts(trx, tenantId, ids));
    },

    async createProduct(tenantId: string, raw: CreateProductInput): Promise<Product> {
      const input = CreateProductBody.parse(raw);
      return changes.write(tenantId, async (w) => {
        await assertCategory(w.trx, tenantId, input.category_id);
        await assertGroups(w.trx, tenantId, input.modifier_group_ids);
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
          modifier_group_ids: JSON.stringify(input.modifier_group_ids ?? []),
          allergens: JSON.stringify(sortAllergens(input.allergens ?? [])),
          dietary: JSON.stringify(input.dietary ?? []),
          course: input.course ?? null,
          station: input.station ?? null,
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await menuRepository.insertProduct(w.trx, row);
        await w.record(productChange(row, 'product.created'));
        return (await productDtos(w.trx, tenantId, [row]))[0]!;
      });
    },

    async updateProduct(tenantId: string, id: string, input: UpdateProductInput): Promise<Product> {
      return changes.write(tenantId, async (w) => {
        const cur = await menuRepository.findProduct(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw notFound('Product');
        if (input.category_id !== undefined) await assertCategory(w.trx, tenantId, input.category_id);
        await assertGroups(w.trx, tenantId, input.modifier_group_ids);
        const { available, on_menu, modifier_group_ids, allergens, dietary, ...rest } = input;
        const fields: Partial<ProductRow> = {
          ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
          ...(available === undefined ? {} : { available: available ? 1 : 0 }),
          ...(on_menu === undefined ? {} : { on_menu: on_menu ? 1 : 0 }),
          ...(modifier_group_ids === undefined ? {} : { modifier_group_ids: JSON.stringify(modifier_group_ids) }),
          ...(allergens === undefined ? {} : { allergens: JSON.stringify(sortAllergens(allergens)) }),
          ...(dietary === undefined ? {} : { dietary: JSON.stringify(dietary) }),
        };
        const row: ProductRow = { ...cur, ...fields, updated_at: w.now };
        await menuRepository.updateProduct(w.trx, row);
        await w.record(productChange(row, 'product.updated', fields));
        return (await productDtos(w.trx, tenantId, [row]))[0]!;
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
