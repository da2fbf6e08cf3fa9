import type { TestApp } from './app.js';
import type { Product } from '../../server/modules/menu/menu.schemas.js';

export interface SeededMenu {
  categoryId: string;
  friet: Product;
  burger: Product;
  cola: Product;
  /** Not available right now. */
  soep: Product;
  /** Archived. */
  oud: Product;
}

/** A small menu: set only what tests care about (prices in cents). */
export async function seedMenu(t: TestApp, tenantId: string): Promise<SeededMenu> {
  const menu = t.services.menu;
  const cat = await menu.createCategory(tenantId, { name: 'Hoofdgerechten' });
  const friet = await menu.createProduct(tenantId, { name: 'Friet', price_cents: 395, cost_cents: 90, category_id: cat.id });
  const burger = await menu.createProduct(tenantId, { name: 'Burger', price_cents: 1450, cost_cents: 420, category_id: cat.id });
  const cola = await menu.createProduct(tenantId, { name: 'Cola', price_cents: 300, cost_cents: 60 });
  const soep = await menu.createProduct(tenantId, { name: 'Soep van de dag', price_cents: 650, available: false });
  const oud = await menu.createProduct(tenantId, { name: 'Oud gerecht', price_cents: 999 });
  await menu.archiveProduct(tenantId, oud.id);
  return { categoryId: cat.id, friet, burger, cola, soep, oud };
}

export const orderBody = (m: SeededMenu, extra: Record<string, unknown> = {}) => ({
  items: [
    { product_id: m.friet.id, quantity: 2 },
    { product_id: m.burger.id, quantity: 1, notes: 'zonder ui' },
  ],
  ...extra,
});
