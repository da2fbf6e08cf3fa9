import type { DemoContext } from './seed.js';
import type { Product } from '../modules/menu/menu.schemas.js';

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

export async function seedMenu(ctx: DemoContext): Promise<void> {
  const menu = ctx.runtime.services.menu;
  const products: Product[] = [];
  let position = 0;
  for (const [category, dishes] of DEMO_MENU) {
    const cat = await menu.createCategory(ctx.tenant.id, { name: category, position: position++ });
    for (const [name, price_cents, cost_cents, vat_rate, description] of dishes) {
      products.push(await menu.createProduct(ctx.tenant.id, { name, price_cents, cost_cents, vat_rate, category_id: cat.id, description, unit: 'portie' }));
    }
  }
  // The day's soup ran out: a realistic "not available" item staff see on the tablets.
  const soup = products.find((p) => p.name.startsWith('Tomatensoep'))!;
  await menu.updateProduct(ctx.tenant.id, soup.id, { available: false });
  ctx.products = products;
  ctx.counts.categories = DEMO_MENU.length;
  ctx.counts.products = products.length;
}
