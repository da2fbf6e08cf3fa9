import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const post = async (url: string, payload: object) => {
    const res = await t.req({ method: 'POST', url: `/api/v1${url}`, cookie: admin, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  return { t, r, admin, staff, post };
}

describe('GET /menu: the menu for staff tablets (docs/orders.md, Menu)', () => {
  it('any session gets live categories in order with their products; no costs, VAT or stock fields', async () => {
    const { t, staff, admin, post } = await setup();
    const mains = await post('/categories', { name: 'Hoofdgerechten', position: 2 });
    const starters = await post('/categories', { name: 'Voorgerechten', position: 1 });
    await post('/products', { name: 'Tomatensoep', description: 'Met balletjes', price_cents: 650, cost_cents: 120, vat_rate: 9, unit: 'portie', min_level: 3, category_id: starters.id });
    await post('/products', { name: 'Stamppot', price_cents: 1450, cost_cents: 400, category_id: mains.id });
    await post('/products', { name: 'Biefstuk', price_cents: 2250, category_id: mains.id, available: false });

    for (const cookie of [staff, admin]) {
      const res = await t.req({ method: 'GET', url: '/api/v1/menu', cookie });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        categories: [
          { id: starters.id, name: 'Voorgerechten', products: [{ id: expect.any(String), name: 'Tomatensoep', description: 'Met balletjes', price_cents: 650, available: true, allergens: [], dietary: [], course: 1, modifier_groups: [] }] },
          {
            id: mains.id,
            name: 'Hoofdgerechten',
            products: [
              { id: expect.any(String), name: 'Biefstuk', description: null, price_cents: 2250, available: false, allergens: [], dietary: [], course: 1, modifier_groups: [] },
              { id: expect.any(String), name: 'Stamppot', description: null, price_cents: 1450, available: true, allergens: [], dietary: [], course: 1, modifier_groups: [] },
            ],
          },
        ],
      });
      for (const field of ['cost_cents', 'vat_rate', 'unit', 'min_level', 'archived_at']) expect(res.body).not.toContain(field);
    }
  });

  it('archived products and categories are left out; products of an archived category or none go under "Overig"', async () => {
    const { t, staff, admin, post } = await setup();
    const drinks = await post('/categories', { name: 'Dranken' });
    const gone = await post('/categories', { name: 'Zomerkaart' });
    const cola = await post('/products', { name: 'Cola', price_cents: 300, category_id: drinks.id });
    const old = await post('/products', { name: 'Oude wijn', price_cents: 900, category_id: drinks.id });
    await post('/products', { name: 'IJsthee', price_cents: 350, category_id: gone.id });
    await post('/products', { name: 'Brood', price_cents: 250 });
    expect((await t.req({ method: 'DELETE', url: `/api/v1/products/${old.id}`, cookie: admin })).statusCode).toBe(204);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/categories/${gone.id}`, cookie: admin })).statusCode).toBe(204);

    const menu = (await t.req({ method: 'GET', url: '/api/v1/menu', cookie: staff })).json();
    expect(menu.categories.map((c: { id: string | null; name: string; products: { name: string }[] }) => [c.id, c.name, c.products.map((p) => p.name)])).toEqual([
      [drinks.id, 'Dranken', ['Cola']],
      [null, 'Overig', ['Brood', 'IJsthee']],
    ]);
    expect(JSON.stringify(menu)).not.toContain('Zomerkaart');
    expect(JSON.stringify(menu)).not.toContain(old.id);
    expect(menu.categories[0].products[0].id).toBe(cola.id);
  });

  it('an empty menu is an empty list (no "Overig" group)', async () => {
    const { t, staff } = await setup();
    expect((await t.req({ method: 'GET', url: '/api/v1/menu', cookie: staff })).json()).toEqual({ categories: [] });
  });

  it('needs a session: 401 with a Dutch message without a cookie or with a bad one', async () => {
    const { t } = await setup();
    for (const cookie of [undefined, 'ck_token=onzin']) {
      const res = await t.req({ method: 'GET', url: '/api/v1/menu', ...(cookie ? { cookie } : {}) });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/ingelogd/i) });
    }
  });

  it('is tenant-isolated: a restaurant sees only its own menu', async () => {
    const { t, post } = await setup();
    await post('/categories', { name: 'Pannenkoeken' });
    await post('/products', { name: 'Spek', price_cents: 900 });
    const other = await t.seedTenant();
    const otherStaff = await other.staffCookie();
    expect((await t.req({ method: 'GET', url: '/api/v1/menu', cookie: otherStaff })).json()).toEqual({ categories: [] });
  });

  it('is described in the OpenAPI document', async () => {
    const { t } = await setup();
    const doc = (await t.req({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/menu']?.get).toBeDefined();
  });
});
