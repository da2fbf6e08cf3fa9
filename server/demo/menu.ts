import type { DemoContext } from './seed.js';
import type { ModifierGroup, Product } from '../modules/menu/menu.schemas.js';
import { ensureIngredients } from './stock.js';

type Dish = [name: string, price_cents: number, cost_cents: number, vat: 9 | 21, description?: string];

/** A Dutch bistro menu with realistic prices and food costs (the spread matters for menu engineering). */
export const DEMO_MENU: Array<[category: string, dishes: Dish[]]> = [
  ['Voorgerechten', [
    ['Tomatensoep met balletjes', 650, 140, 9, 'Huisgemaakt, met verse basilicum'],
    ['Carpaccio van runderhaas', 1250, 410, 9, 'Truffelmayonaise, pijnboompitten, Parmezaan'],
    ['Bitterballen (8 stuks)', 850, 210, 9, 'Met grove mosterd'],
    ['Geitenkaas salade', 1150, 330, 9, 'Walnoten, honing, rode biet'],
  ]],
  ['Hoofdgerechten', [
    ['Biefstuk met friet', 2450, 890, 9, 'Stroganoffsaus of pepersaus'],
    ['Schnitzel met champignonroomsaus', 1950, 520, 9],
    ['Gegrilde zalm', 2350, 860, 9, 'Beurre blanc, seizoensgroenten'],
    ['Vegetarische risotto', 1750, 380, 9, 'Paddenstoelen en truffel'],
    ['Kipsaté', 1850, 480, 9, 'Pindasaus, atjar, kroepoek'],
    ['Burger De Gouden Lepel', 1795, 560, 9, 'Cheddar, bacon, huisgemaakte saus'],
  ]],
  ['Bijgerechten', [
    ['Friet met mayonaise', 450, 80, 9],
    ['Gemengde salade', 450, 110, 9],
  ]],
  ['Desserts', [
    ['Dame blanche', 750, 160, 9],
    ['Appeltaart met slagroom', 550, 120, 9],
    ['Crème brûlée', 850, 170, 9],
  ]],
  ['Dranken', [
    ['Cola', 330, 60, 9],
    ['Verse jus d’orange', 450, 130, 9],
    ['Koffie', 300, 35, 9],
    ['Cappuccino', 360, 45, 9],
    ['Heineken van de tap', 380, 90, 21],
    ['Huiswijn rood (glas)', 550, 140, 21],
    ['Huiswijn wit (glas)', 550, 140, 21],
  ]],
];

/**
 * Per category: its course (starters go with the order, mains wait until fired, desserts after
 * them; sides come with the mains) and its kitchen station (drinks are made at the bar, food in the
 * kitchen), CONTRACT §17 and §18.
 */
export const DEMO_CATEGORIES: Record<string, { course?: number; station: string }> = {
  Voorgerechten: { course: 1, station: 'keuken' },
  Hoofdgerechten: { course: 2, station: 'keuken' },
  Bijgerechten: { course: 2, station: 'keuken' },
  Desserts: { course: 3, station: 'keuken' },
  Dranken: { station: 'bar' },
};

type Option = [name: string, price_delta_cents: number, ingredient?: [name: string, quantity: number]];
/** The choices on the demo's dishes (issue 23): forced ones (min 1) and optional extras with their ingredients. */
export const DEMO_GROUPS: Array<{ name: string; min_select: number; max_select: number; options: Option[]; dishes: string[] }> = [
  { name: 'Saus (kies 1)', min_select: 1, max_select: 1, dishes: ['Biefstuk met friet'], options: [['Stroganoffsaus', 0, ['Stroganoffsaus', 0.05]], ['Pepersaus', 0, ['Pepersaus', 0.05]]] },
  { name: 'Bakwijze', min_select: 1, max_select: 1, dishes: ['Biefstuk met friet'], options: [['Rare', 0], ['Medium', 0], ['Doorbakken', 0]] },
  {
    name: "Extra's",
    min_select: 0,
    max_select: 5,
    dishes: ['Burger De Gouden Lepel'],
    options: [
      ['Extra bacon', 150, ['Bacon', 0.03]],
      ['Extra kaas', 100, ['Cheddar', 0.03]],
      ['Gebakken ei', 100, ['Eieren', 1]],
      ['Gebakken champignons', 125, ['Champignons', 0.05]],
    ],
  },
];

export async function seedMenu(ctx: DemoContext): Promise<void> {
  const menu = ctx.runtime.services.menu;
  const products: Product[] = [];
  let position = 0;
  for (const [category, dishes] of DEMO_MENU) {
    const cat = await menu.createCategory(ctx.tenant.id, { name: category, position: position++, ...DEMO_CATEGORIES[category] });
    for (const [name, price_cents, cost_cents, vat_rate, description] of dishes) {
      products.push(await menu.createProduct(ctx.tenant.id, { name, price_cents, cost_cents, vat_rate, category_id: cat.id, description, unit: 'portie' }));
    }
  }
  // The day's soup ran out: a realistic "not available" item staff see on the tablets.
  const soup = products.find((p) => p.name.startsWith('Tomatensoep'))!;
  await menu.updateProduct(ctx.tenant.id, soup.id, { available: false });
  soup.available = false;

  // Choices: the options' ingredients are the stock's (made here, before the stock seeder needs them).
  const ingredients = await ensureIngredients(ctx);
  const groups = new Map<string, ModifierGroup>();
  const linked = new Map<string, string[]>();
  for (const g of DEMO_GROUPS) {
    const group = await menu.createGroup(ctx.tenant.id, {
      name: g.name,
      min_select: g.min_select,
      max_select: g.max_select,
      options: g.options.map(([name, price_delta_cents, ingredient]) => ({
        name,
        price_delta_cents,
        ...(ingredient ? { ingredient_product_id: ingredients.get(ingredient[0])!.id, ingredient_quantity: ingredient[1] } : {}),
      })),
    });
    groups.set(group.id, group);
    for (const dish of g.dishes) linked.set(dish, [...(linked.get(dish) ?? []), group.id]);
  }
  for (const [dish, ids] of linked) {
    const i = products.findIndex((p) => p.name === dish);
    products[i] = await menu.updateProduct(ctx.tenant.id, products[i]!.id, { modifier_group_ids: ids });
  }
  // What the description promises: the goat's cheese salad and the risotto are vegetarian.
  for (const dish of ['Geitenkaas salade', 'Vegetarische risotto']) {
    const i = products.findIndex((p) => p.name === dish);
    products[i] = await menu.updateProduct(ctx.tenant.id, products[i]!.id, { dietary: ['vegetarian'] });
  }
  ctx.products = products;
  ctx.modifierGroups = groups;
  ctx.counts.categories = DEMO_MENU.length;
  ctx.counts.products = products.length;
  ctx.counts.modifier_groups = groups.size;
}

/**
 * The options a demo line takes: one choice in every forced group and now and then an extra or
 * two (at most the group's maximum). `random` is the caller's own, so its other draws stay as they were.
 */
export function demoModifiers(
  groups: ReadonlyArray<Pick<ModifierGroup, 'min_select' | 'max_select'> & { options: ReadonlyArray<{ id: string; available: boolean }> }>,
  random: () => number,
): Array<{ option_id: string; quantity: number }> | undefined {
  const chosen: Array<{ option_id: string; quantity: number }> = [];
  for (const g of groups) {
    const open = g.options.filter((o) => o.available);
    const n = g.min_select > 0 ? g.min_select : random() < 0.4 ? 1 + Math.floor(random() * Math.min(2, g.max_select)) : 0;
    const pool = [...open];
    for (let k = 0; k < n && pool.length > 0; k++) chosen.push({ option_id: pool.splice(Math.floor(random() * pool.length), 1)[0]!.id, quantity: 1 });
  }
  return chosen.length ? chosen : undefined;
}

/** The groups a product of the demo context asks, in its order. */
export function groupsOf(ctx: DemoContext, product: Pick<Product, 'modifier_group_ids'>): ModifierGroup[] {
  return (product.modifier_group_ids ?? []).flatMap((id) => ctx.modifierGroups?.get(id) ?? []);
}
