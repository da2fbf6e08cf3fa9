import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { createStockService } from '../modules/stock/stock.service.js';
import type { Order } from '../modules/orders/orders.schemas.js';
import { createWasteService } from '../modules/waste/waste.service.js';
import type { WasteInput } from '../modules/waste/waste.schemas.js';
import type { AllergenCode } from '../modules/menu/menu.schemas.js';
import type { DemoContext } from './seed.js';

/**
 * Stock for the demo restaurant (issue 8): four locations, the ingredients of the demo menu with
 * recipes for every dish, and eight weeks of movements that agree with the demo's sales: deliveries
 * on Tuesday and Friday mornings into the cold store, freezer and dry store, each service day's
 * working stock moved to the kitchen, every completed order's recipe consumption booked at the
 * moment it was completed, breakage and staff meals now and then, and a count on Mondays. The
 * purchase suggestion then has real consumption to work from, and tonight's count leaves a few
 * items on the purchase list.
 *
 * Written through the stock service (the one write path, the change log) on a clock set to each
 * moment, like the orders' history.
 */

type Unit = 'kg' | 'liter' | 'stuk' | 'fles' | 'portie';
type Store = 'Koelcel' | 'Vriezer' | 'Droge voorraad';
export interface DemoIngredient { id: string; unit: Unit; store: Store }

/**
 * name, unit, cost in cents per unit, where deliveries go, and its allergens (EU 1169/2011; every
 * ingredient says what it contains, an empty list when it contains none of the 14), which reach
 * every dish with the ingredient in its recipe or as an option (issue 23).
 */
export const INGREDIENTS: Array<[name: string, unit: Unit, cost_cents: number, store: Store, allergens: AllergenCode[]]> = [
  ['Rundergehakt', 'kg', 1100, 'Koelcel', []],
  ['Runderhaas', 'kg', 3600, 'Koelcel', []],
  ['Biefstuk (rund)', 'kg', 2800, 'Koelcel', []],
  ['Varkensschnitzel', 'kg', 1200, 'Koelcel', ['gluten', 'eggs']],
  ['Kipdijfilet', 'kg', 950, 'Koelcel', []],
  ['Zalmfilet', 'kg', 2400, 'Koelcel', ['fish']],
  ['Tomaten', 'kg', 250, 'Koelcel', []],
  ['Sla', 'kg', 600, 'Koelcel', []],
  ['Geitenkaas', 'kg', 1800, 'Koelcel', ['milk']],
  ['Cheddar', 'kg', 1400, 'Koelcel', ['milk']],
  ['Parmezaan', 'kg', 2600, 'Koelcel', ['milk']],
  ['Champignons', 'kg', 500, 'Koelcel', []],
  ['Slagroom', 'liter', 450, 'Koelcel', ['milk']],
  ['Roomboter', 'kg', 900, 'Koelcel', ['milk']],
  ['Appeltaart', 'portie', 120, 'Koelcel', ['gluten', 'eggs', 'milk']],
  ['Eieren', 'stuk', 25, 'Koelcel', ['eggs']],
  ['Melk', 'liter', 110, 'Koelcel', ['milk']],
  ['Handsinaasappels', 'kg', 180, 'Koelcel', []],
  ['Bacon', 'kg', 1300, 'Koelcel', []],
  ['Truffelmayonaise', 'liter', 1200, 'Koelcel', ['eggs', 'mustard']],
  ['Mayonaise', 'liter', 500, 'Droge voorraad', ['eggs', 'mustard']],
  ['Stroganoffsaus', 'liter', 700, 'Koelcel', ['milk', 'celery', 'mustard']],
  ['Pepersaus', 'liter', 750, 'Koelcel', ['milk']],
  ['Friet (diepvries)', 'kg', 180, 'Vriezer', []],
  ['Bitterballen (diepvries)', 'stuk', 22, 'Vriezer', ['gluten', 'milk', 'celery']],
  ['Vanille-ijs', 'liter', 500, 'Vriezer', ['milk', 'eggs']],
  ['Hamburgerbroodjes', 'stuk', 35, 'Droge voorraad', ['gluten', 'sesame']],
  ['Risottorijst', 'kg', 400, 'Droge voorraad', []],
  ['Pindasaus', 'liter', 600, 'Droge voorraad', ['peanuts', 'soybeans']],
  ['Walnoten', 'kg', 1600, 'Droge voorraad', ['nuts']],
  ['Grove mosterd', 'kg', 800, 'Droge voorraad', ['mustard']],
  ['Koffiebonen', 'kg', 2200, 'Droge voorraad', []],
  ['Cola (flesje)', 'fles', 55, 'Droge voorraad', []],
  ['Heineken (fust)', 'liter', 350, 'Droge voorraad', ['gluten']],
  ['Huiswijn rood', 'liter', 600, 'Droge voorraad', ['sulphites']],
  ['Huiswijn wit', 'liter', 600, 'Droge voorraad', ['sulphites']],
];

/** The demo's ingredients (products with `on_menu: false`), made once: the menu's options need them before stock does. */
export async function ensureIngredients(ctx: DemoContext): Promise<Map<string, DemoIngredient>> {
  if (ctx.ingredients) return ctx.ingredients;
  const made = new Map<string, DemoIngredient>();
  for (const [name, unit, cost_cents, store, allergens] of INGREDIENTS) {
    const p = await ctx.runtime.services.menu.createProduct(ctx.tenant.id, { name, price_cents: 0, cost_cents, unit, on_menu: false, allergens });
    made.set(name, { id: p.id, unit, store });
  }
  ctx.ingredients = made;
  return made;
}

/** Per sold dish of the demo menu (server/demo/menu.ts): ingredient and quantity per portion. */
export const DEMO_RECIPES: Record<string, Array<[ingredient: string, quantity: number]>> = {
  'Tomatensoep met balletjes': [['Tomaten', 0.25], ['Rundergehakt', 0.04], ['Slagroom', 0.03]],
  'Carpaccio van runderhaas': [['Runderhaas', 0.08], ['Parmezaan', 0.015], ['Sla', 0.02], ['Truffelmayonaise', 0.02]],
  'Bitterballen (8 stuks)': [['Bitterballen (diepvries)', 8], ['Grove mosterd', 0.02]],
  'Geitenkaas salade': [['Geitenkaas', 0.08], ['Sla', 0.08], ['Tomaten', 0.05], ['Walnoten', 0.02]],
  'Biefstuk met friet': [['Biefstuk (rund)', 0.2], ['Friet (diepvries)', 0.2], ['Roomboter', 0.02]],
  'Schnitzel met champignonroomsaus': [['Varkensschnitzel', 0.2], ['Champignons', 0.08], ['Slagroom', 0.05], ['Friet (diepvries)', 0.2]],
  'Gegrilde zalm': [['Zalmfilet', 0.18], ['Roomboter', 0.03], ['Sla', 0.05]],
  'Vegetarische risotto': [['Risottorijst', 0.1], ['Champignons', 0.12], ['Parmezaan', 0.03], ['Slagroom', 0.03], ['Roomboter', 0.02]],
  'Kipsaté': [['Kipdijfilet', 0.2], ['Pindasaus', 0.1], ['Friet (diepvries)', 0.2]],
  'Burger De Gouden Lepel': [['Rundergehakt', 0.18], ['Hamburgerbroodjes', 1], ['Cheddar', 0.03], ['Bacon', 0.03], ['Friet (diepvries)', 0.2], ['Sla', 0.02]],
  'Friet met mayonaise': [['Friet (diepvries)', 0.2], ['Mayonaise', 0.03]],
  'Gemengde salade': [['Sla', 0.1], ['Tomaten', 0.08]],
  'Dame blanche': [['Vanille-ijs', 0.15], ['Slagroom', 0.03]],
  'Appeltaart met slagroom': [['Appeltaart', 1], ['Slagroom', 0.03]],
  'Crème brûlée': [['Slagroom', 0.1], ['Eieren', 2]],
  Cola: [['Cola (flesje)', 1]],
  'Verse jus d’orange': [['Handsinaasappels', 0.5]],
  Koffie: [['Koffiebonen', 0.008]],
  Cappuccino: [['Koffiebonen', 0.008], ['Melk', 0.15]],
  'Heineken van de tap': [['Heineken (fust)', 0.25]],
  'Huiswijn rood (glas)': [['Huiswijn rood', 0.15]],
  'Huiswijn wit (glas)': [['Huiswijn wit', 0.15]],
};

/**
 * Waste that happens in a bistro: [weekday, ingredient, quantity range, reason, chance, note]. Booked
 * after the evening's service from what lies in the kitchen (never more than is there), so that no
 * level goes below zero; a dish sent back is wasted as its main ingredient.
 */
const WASTE: Array<[weekday: number, product: string, min: number, max: number, reason: WasteInput['reason'], chance: number, note?: string]> = [
  [0, 'Appeltaart', 1, 4, 'overproductie', 0.8, 'Over na de zondag'],
  [5, 'Friet (diepvries)', 0.5, 1.5, 'overproductie', 0.6],
  [6, 'Friet (diepvries)', 0.5, 2, 'overproductie', 0.7],
  [4, 'Sla', 0.2, 0.6, 'bederf', 0.7, 'Slap geworden'],
  [6, 'Zalmfilet', 0.3, 0.8, 'bederf', 0.5, 'Over de datum'],
  [3, 'Tomaten', 0.3, 1, 'bederf', 0.5],
  [5, 'Biefstuk (rund)', 0.2, 0.2, 'retour', 0.35, 'Biefstuk te gaar, teruggestuurd'],
  [6, 'Zalmfilet', 0.18, 0.18, 'retour', 0.25, 'Gegrilde zalm: gast had iets anders besteld'],
  [6, 'Cola (flesje)', 1, 3, 'beschadigd', 0.5, 'Krat gevallen'],
  [4, 'Eieren', 2, 6, 'beschadigd', 0.4],
  [0, 'Melk', 1, 2, 'overig', 0.3, 'Zuur geworden na stroomstoring'],
];

const DAY = 86_400_000;
const SUPPLIER: Record<Store, string> = { Koelcel: 'Levering groothandel (vers)', Vriezer: 'Levering diepvries', 'Droge voorraad': 'Levering groothandel (droog)' };
/** Counted units in whole numbers; weights and volumes to 0.1. */
const step = (unit: Unit) => (unit === 'kg' || unit === 'liter' ? 0.1 : 1);
const roundUp = (q: number, unit: Unit) => Math.ceil(q / step(unit) - 1e-9) * step(unit);
const round3 = (q: number) => Math.round(q * 1000) / 1000;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function seedStock(ctx: DemoContext): Promise<void> {
  const { runtime, tenant } = ctx;
  const { menu, orders } = runtime.services;
  const products = ctx.products ?? [];
  if (products.length === 0) return;
  const random = rng(8);
  const clock = new ManualClock(runtime.clock.now());
  const changes = new ChangeLog(runtime.handle.db, clock, runtime.changes.origin);
  const stock = createStockService({ db: runtime.handle.db, changes, clock, menu, tenants: runtime.services.tenants });
  const cook = ctx.staff.find((s) => s.job === 'kok') ?? ctx.staff[0];
  const staff = { tenantId: tenant.id, userId: cook?.id ?? null };
  const waste = createWasteService({ db: runtime.handle.db, changes, clock, tenants: runtime.services.tenants, menu, stock: runtime.services.stock, dataDir: runtime.config.dataDir });
  const random2 = rng(13_2026);
  let wasteCount = 0;
  const base = { to_location_id: null, from_location_id: null, note: null as string | null, reason: null as string | null };

  // The completed orders of the history, oldest first (the orders seeder completed them without hooks).
  const done: Order[] = [];
  for (let offset = 0; ; offset += 200) {
    const page = await orders.list(tenant.id, { statuses: ['completed'] }, 200, offset);
    done.push(...page.data);
    if (page.data.length < 200) break;
  }
  done.sort((a, b) => a.updated_at.localeCompare(b.updated_at));
  const first = done[0];
  clock.set(first ? new Date(Date.parse(first.created_at.slice(0, 10)) - 2 * DAY + 7 * 3_600_000) : runtime.clock.now());

  // Locations: the kitchen is where service draws from (the default), the rest are stores.
  const kitchen = await stock.createLocation(tenant.id, { name: 'Keuken', is_default: true });
  const stores = new Map<Store, string>();
  for (const name of ['Koelcel', 'Vriezer', 'Droge voorraad'] as const) stores.set(name, (await stock.createLocation(tenant.id, { name })).id);

  // Ingredients and recipes.
  const ingredient = await ensureIngredients(ctx);
  const byName = new Map(products.map((p) => [p.name, p]));
  const recipe = new Map<string, Array<{ id: string; quantity: number }>>();
  for (const [dish, lines] of Object.entries(DEMO_RECIPES)) {
    const p = byName.get(dish);
    if (!p) continue;
    const ingredients = lines.map(([name, quantity]) => ({ product_id: ingredient.get(name)!.id, quantity }));
    await stock.putRecipe(tenant.id, p.id, { ingredients });
    recipe.set(p.id, ingredients.map((i) => ({ id: i.product_id, quantity: i.quantity })));
    // The dish's cost is what its recipe costs (menu engineering's margins use the product's cost).
    const cost = await stock.recipeCost(tenant.id, p.id);
    if (cost !== null && cost !== p.cost_cents) await menu.updateProduct(tenant.id, p.id, { cost_cents: cost });
  }

  // What each day of service used, per ingredient (to size deliveries and the kitchen's stock).
  // Options with an ingredient (the burger's extras, the steak's sauce) are booked with the recipes.
  const optionUse = new Map<string, { id: string; quantity: number }>();
  for (const g of ctx.modifierGroups?.values() ?? []) for (const o of g.options) if (o.ingredient_product_id && o.ingredient_quantity) optionUse.set(o.id, { id: o.ingredient_product_id, quantity: o.ingredient_quantity });
  const use = (o: Order) => {
    const m = new Map<string, number>();
    for (const item of o.items) {
      const served = item.quantity - (item.voided_quantity ?? 0);
      for (const l of recipe.get(item.product_id) ?? []) m.set(l.id, (m.get(l.id) ?? 0) + l.quantity * served);
      for (const mod of item.modifiers ?? []) {
        const l = optionUse.get(mod.option_id);
        if (l) m.set(l.id, (m.get(l.id) ?? 0) + l.quantity * mod.quantity * served);
      }
    }
    return m;
  };
  const byDay = new Map<string, Order[]>();
  for (const o of done) {
    const day = o.updated_at.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), o]);
  }
  const days = [...byDay.keys()].sort();
  const dayUse = new Map<string, Map<string, number>>();
  for (const [day, list] of byDay) {
    const m = new Map<string, number>();
    for (const o of list) for (const [id, q] of use(o)) m.set(id, (m.get(id) ?? 0) + q);
    dayUse.set(day, m);
  }
  /** Average use per calendar day over the two weeks before `t` (what a manager would look at), else over the whole history. */
  const daily = (id: string, t?: number) => {
    const window = [...dayUse].filter(([day]) => t === undefined || (Date.parse(day) < t && Date.parse(day) >= t - 14 * DAY));
    const span = t === undefined || window.length === 0 ? Math.max(1, (Date.parse(days[days.length - 1] ?? '1970-01-01') - Date.parse(days[0] ?? '1970-01-01')) / DAY + 1) : 14;
    const from = window.length === 0 ? [...dayUse] : window;
    return from.reduce((sum, [, m]) => sum + (m.get(id) ?? 0), 0) / span;
  };
  /** Dishes the demo's guests never order still have their ingredients in stock: a pack of each. */
  const PACK: Record<Unit, number> = { kg: 5, liter: 5, stuk: 100, fles: 24, portie: 20 };

  // Minimum levels: a day and a half of recent use (a pack's 40 % for what hardly sells), so the purchase list speaks up in time.
  for (const [, ing] of ingredient) {
    const recent = daily(ing.id, Date.parse(days[days.length - 1] ?? '1970-01-01') + DAY);
    const min = recent > 0 ? roundUp(1.5 * recent, ing.unit) : PACK[ing.unit] * 0.4;
    await menu.updateProduct(tenant.id, ing.id, { min_level: round3(min) });
  }

  // What lies where (thousandths, as the ledger keeps it), from what each booking answered.
  const level = new Map<string, number>();
  const key = (productId: string, locationId: string) => `${productId}/${locationId}`;
  const have = (productId: string, locationId: string) => (level.get(key(productId, locationId)) ?? 0) / 1000;
  let movements = 0;
  const move = async (input: Parameters<typeof stock.recordMovement>[1]) => {
    const r = await stock.recordMovement(staff, input);
    for (const l of r.levels) level.set(key(l.product_id, l.location_id), Math.round(l.quantity * 1000));
    movements += r.movements.length;
  };

  const deliver = async (coverDays: number, skip: Set<string> = new Set()) => {
    const now = clock.now().getTime();
    for (const [name, ing] of ingredient) {
      if (skip.has(name)) continue;
      const store = stores.get(ing.store)!;
      const perDay = daily(ing.id, now) || daily(ing.id);
      const onHand = have(ing.id, store) + Math.max(0, have(ing.id, kitchen.id));
      const want = perDay > 0 ? perDay * coverDays - onHand : onHand < PACK[ing.unit] * 0.4 ? PACK[ing.unit] - onHand : 0;
      if (want <= 0) continue;
      await move({ ...base, product_id: ing.id, location_id: store, type: 'INTAKE', quantity: round3(roundUp(want, ing.unit)), note: SUPPLIER[ing.store], reason: 'levering' });
    }
  };

  // The opening stock, two days before the first service.
  await deliver(6);

  const firstDay = days[0] ? Date.parse(days[0]) : Date.parse(clock.now().toISOString().slice(0, 10));
  const lastDay = days.length ? Date.parse(days[days.length - 1]!) : firstDay;
  for (let t = firstDay; t <= lastDay; t += DAY) {
    const date = new Date(t);
    const weekday = date.getUTCDay();
    const day = date.toISOString().slice(0, 10);
    const todays = byDay.get(day) ?? [];
    // Tuesday and Friday mornings: the wholesaler delivers (enough for about five service days).
    if (weekday === 2 || weekday === 5) {
      clock.set(new Date(t + 7.5 * 3_600_000));
      await deliver(7, lastDay - t < 4 * DAY ? new Set(['Zalmfilet', 'Slagroom']) : new Set());
    }
    // Monday (closed): the weekly count of the kitchen's fresh stock finds a little less than booked.
    if (weekday === 1) {
      clock.set(new Date(t + 10 * 3_600_000));
      for (const name of ['Tomaten', 'Sla', 'Champignons', 'Slagroom', 'Melk', 'Handsinaasappels']) {
        const ing = ingredient.get(name)!;
        const booked = have(ing.id, kitchen.id);
        if (booked <= 0) continue;
        const counted = Math.max(0, Math.floor((booked * (0.94 + random() * 0.05)) * 10) / 10);
        await move({ ...base, product_id: ing.id, location_id: kitchen.id, type: 'ADJUSTMENT', quantity: round3(counted), note: 'Weektelling' });
      }
    }
    if (todays.length === 0) continue;
    // Before service: bring the kitchen up to the day's need (plus a margin) from the stores.
    const need = new Map<string, number>();
    for (const o of todays) for (const [id, q] of use(o)) need.set(id, (need.get(id) ?? 0) + q);
    clock.set(new Date(t + 9 * 3_600_000));
    for (const [name, ing] of ingredient) {
      const store = stores.get(ing.store)!;
      const short = roundUp((need.get(ing.id) ?? 0) * 1.15 - have(ing.id, kitchen.id), ing.unit);
      if (short <= 0) continue;
      // The store cannot cover the day (a short history sizes deliveries low): the wholesaler's
      // rush delivery comes first, so the kitchen never sells what it does not have.
      if (have(ing.id, store) < short) {
        await move({ ...base, product_id: ing.id, location_id: store, type: 'INTAKE', quantity: round3(roundUp(short - have(ing.id, store), ing.unit)), note: `Spoedlevering (${SUPPLIER[ing.store].toLowerCase()})`, reason: 'levering' });
      }
      const q = Math.min(short, have(ing.id, store));
      if (q <= 0) continue;
      await move({ ...base, product_id: ing.id, location_id: store, type: 'TRANSFER_OUT', to_location_id: kitchen.id, quantity: round3(q), note: `Werkvoorraad voor de dienst (${name})` });
    }
    // Service: each completed order books its recipes at the moment it was completed.
    for (const o of todays) {
      clock.set(o.updated_at);
      const booked = await changes.write(tenant.id, (w) => stock.consumeForOrder(w, tenant.id, o, null));
      for (const m of booked) level.set(key(m.product_id, m.location_id), Math.round(m.level_after * 1000));
      movements += booked.length;
    }
    // After service: what went to waste, from what lies in the kitchen.
    for (const [wd, name, min, max, reason, chance, note] of WASTE) {
      if (wd !== weekday || random2() >= chance) continue;
      const ing = ingredient.get(name);
      if (!ing) continue;
      const whole = ing.unit === 'stuk' || ing.unit === 'fles' || ing.unit === 'portie';
      const wanted = min === max ? min : Math.round((min + random2() * (max - min)) * (whole ? 1 : 10)) / (whole ? 1 : 10);
      const quantity = round3(Math.min(wanted, Math.floor(have(ing.id, kitchen.id) * (whole ? 1 : 10)) / (whole ? 1 : 10)));
      if (quantity <= 0) continue;
      clock.set(new Date(t + 22.75 * 3_600_000));
      const booked = await waste.record({ tenantId: tenant.id, userId: cook?.id ?? null }, { product_id: ing.id, quantity, reason, location_id: kitchen.id, ...(note ? { note } : {}) });
      level.set(key(ing.id, kitchen.id), Math.round((have(ing.id, kitchen.id) - quantity) * 1000));
      void booked;
      wasteCount++;
      movements++;
    }
    // Now and then: a broken bottle, a staff meal.
    if (weekday === 6) {
      clock.set(new Date(t + 22.5 * 3_600_000));
      const cola = ingredient.get('Cola (flesje)')!;
      if (have(cola.id, kitchen.id) >= 2) await move({ ...base, product_id: cola.id, location_id: kitchen.id, type: 'REMOVAL', quantity: 2, reason: 'breuk', note: 'Krat gevallen' });
      const fries = ingredient.get('Friet (diepvries)')!;
      if (have(fries.id, kitchen.id) >= 1) await move({ ...base, product_id: fries.id, location_id: kitchen.id, type: 'REMOVAL', quantity: 1, reason: 'personeelsmaaltijd' });
    }
  }

  // Tonight's count after service: salmon and cream are running low (the last delivery missed them).
  clock.set(new Date(lastDay + 23 * 3_600_000));
  for (const name of ['Zalmfilet', 'Slagroom']) {
    const ing = ingredient.get(name)!;
    const min = roundUp(1.5 * daily(ing.id, lastDay + DAY), ing.unit);
    const counted = round3(Math.floor(min * 0.4 * 10) / 10);
    await move({ ...base, product_id: ing.id, location_id: kitchen.id, type: 'ADJUSTMENT', quantity: counted, note: 'Telling na de dienst' });
    const store = stores.get(ing.store)!;
    if (have(ing.id, store) > 0) await move({ ...base, product_id: ing.id, location_id: store, type: 'ADJUSTMENT', quantity: 0, note: 'Telling na de dienst' });
  }

  // This morning: the kitchen's working stock for today's service (tonight's live orders complete
  // later, from the kitchen), from the stores, like every service day before.
  const now = runtime.clock.now().getTime();
  const morning = Math.min(now - 60_000, Math.max(lastDay + 23.5 * 3_600_000, Date.parse(new Date(now).toISOString().slice(0, 10)) + 9 * 3_600_000));
  clock.set(new Date(morning));
  for (const [name, ing] of ingredient) {
    if (name === 'Zalmfilet' || name === 'Slagroom') continue; // counted low last night: on the purchase list
    const store = stores.get(ing.store)!;
    const short = roundUp(daily(ing.id, now) * 2 - have(ing.id, kitchen.id), ing.unit);
    if (short > 0 && have(ing.id, store) < short) {
      await move({ ...base, product_id: ing.id, location_id: store, type: 'INTAKE', quantity: round3(roundUp(short - have(ing.id, store), ing.unit)), note: `Spoedlevering (${SUPPLIER[ing.store].toLowerCase()})`, reason: 'levering' });
    }
    const q = Math.min(short, have(ing.id, store));
    if (q <= 0) continue;
    await move({ ...base, product_id: ing.id, location_id: store, type: 'TRANSFER_OUT', to_location_id: kitchen.id, quantity: round3(q), note: `Werkvoorraad voor vandaag (${name})` });
  }

  ctx.counts.locations = stores.size + 1;
  ctx.counts.ingredients = ingredient.size;
  ctx.counts.recipes = recipe.size;
  ctx.counts.stock_movements = movements;
  ctx.counts.waste_entries = wasteCount;
}
