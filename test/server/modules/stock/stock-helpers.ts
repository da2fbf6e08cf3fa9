import { expect } from 'vitest';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import type { Product } from '../../../../server/modules/menu/menu.schemas.js';
import type { Location } from '../../../../server/modules/stock/stock.schemas.js';

export interface StockSetup {
  t: TestApp;
  r: SeededTenant;
  admin: string;
  staff: string;
  /** Ingredients (not on the menu). */
  beef: Product;
  buns: Product;
  /** A sold product with unit 'fles'. */
  beer: Product;
  /** A dish (sold). */
  burger: Product;
  koelcel: Location;
  bar: Location;
  vriezer: Location;
}

/** A restaurant with stock locations (Koelcel is the default), two ingredients, a drink and a dish. */
export async function stockSetup(env: Record<string, string> = {}): Promise<StockSetup> {
  const t = await createTestApp({ env });
  const r = await t.seedTenant();
  const { menu, stock } = t.services;
  const beef = await menu.createProduct(r.id, { name: 'Rundergehakt', price_cents: 0, cost_cents: 1200, unit: 'kg', min_level: 5, on_menu: false });
  const buns = await menu.createProduct(r.id, { name: 'Hamburgerbroodje', price_cents: 0, cost_cents: 35, unit: 'stuk', min_level: 24, on_menu: false });
  const beer = await menu.createProduct(r.id, { name: 'Speciaalbier', price_cents: 550, cost_cents: 180, unit: 'fles' });
  const burger = await menu.createProduct(r.id, { name: 'Burger', price_cents: 1450, cost_cents: 420, unit: 'portie' });
  const koelcel = await stock.createLocation(r.id, { name: 'Koelcel' });
  const bar = await stock.createLocation(r.id, { name: 'Bar' });
  const vriezer = await stock.createLocation(r.id, { name: 'Vriezer' });
  return { t, r, admin: await r.adminCookie(), staff: await r.staffCookie(), beef, buns, beer, burger, koelcel, bar, vriezer };
}

export const postStock = (t: TestApp, cookie: string | undefined, payload: unknown) => t.req({ method: 'POST', url: '/api/v1/stock', ...(cookie ? { cookie } : {}), payload: payload as object });

/** The quantity of a product at a location in GET /stock (0 when not listed). */
export async function levelOf(t: TestApp, tenantId: string, productId: string, locationId: string): Promise<number> {
  const { data } = await t.services.stock.list(tenantId);
  return data.find((i) => i.product_id === productId)?.locations.find((l) => l.location_id === locationId)?.quantity ?? 0;
}

/** Every ledger row and level of a tenant: "nothing changed" compares two of these. */
export async function stockState(t: TestApp, tenantId: string) {
  const db = t.handle.db;
  const movements = await db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();
  const levels = await db.selectFrom('stock_levels').selectAll().where('tenant_id', '=', tenantId).orderBy('product_id').orderBy('location_id').execute();
  const log = await db.selectFrom('change_log').select('op_id').where('tenant_id', '=', tenantId).where('entity', '=', 'stock').execute();
  return { movements, levels: levels.map((l) => ({ ...l, quantity_milli: Number(l.quantity_milli) })), log: log.length };
}

/** The contract's error shape with a Dutch message. */
export function expectError(res: { statusCode: number; json(): any }, status: number, code: string, message?: RegExp) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  const b = res.json();
  expect(b.code).toBe(code);
  expect(typeof b.error).toBe('string');
  if (message) expect(b.error).toMatch(message);
  return b;
}
