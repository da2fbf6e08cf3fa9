import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  return { t, r, admin: await r.adminCookie(), staff: await r.staffCookie() };
}

describe('menu configuration (CONTRACT §6)', () => {
  it('admins create categories and products; lists answer {data}', async () => {
    const { t, admin } = await setup();
    const cat = await t.req({ method: 'POST', url: '/api/v1/categories', cookie: admin, payload: { name: 'Desserts', position: 3 } });
    expect(cat.statusCode).toBe(201);
    const p = await t.req({
      method: 'POST',
      url: '/api/v1/products',
      cookie: admin,
      payload: { name: 'Dame blanche', price_cents: 750, cost_cents: 160, vat_rate: 9, category_id: cat.json().id, unit: 'portie', min_level: 4 },
    });
    expect(p.statusCode).toBe(201);
    expect(p.json()).toMatchObject({ name: 'Dame blanche', price_cents: 750, cost_cents: 160, vat_rate: 9, available: true, archived_at: null, min_level: 4 });
    expect((await t.req({ method: 'GET', url: '/api/v1/categories', cookie: admin })).json().data.map((c: { name: string }) => c.name)).toEqual(['Desserts']);
    expect((await t.req({ method: 'GET', url: '/api/v1/products', cookie: admin })).json().data).toHaveLength(1);
  });

  it.each([
    [{ name: 'Gratis', price_cents: -1 }, 'price_cents'],
    [{ name: 'Halve cent', price_cents: 1.5 }, 'price_cents'],
    [{ name: '', price_cents: 100 }, 'name'],
    [{ price_cents: 100 }, 'name'],
    [{ name: 'Wijn', price_cents: 500, vat_rate: 19 }, 'vat_rate'],
    [{ name: 'Kaas', price_cents: 500, unit: 'ton' }, 'unit'],
    [{ name: 'Kaas', price_cents: 500, category_id: '0190a0a0-0000-7000-8000-000000000000' }, 'category_id'],
  ])('invalid product %j is 400 naming %s', async (payload, field) => {
    const { t, admin } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/products', cookie: admin, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe(field);
    expect((await t.req({ method: 'GET', url: '/api/v1/products', cookie: admin })).json().data).toHaveLength(0);
  });

  it('PATCH changes only what is sent; DELETE archives (hidden from lists, kept for history)', async () => {
    const { t, admin } = await setup();
    const p = (await t.req({ method: 'POST', url: '/api/v1/products', cookie: admin, payload: { name: 'Soep', price_cents: 650, description: 'Tomaat' } })).json();
    const patched = await t.req({ method: 'PATCH', url: `/api/v1/products/${p.id}`, cookie: admin, payload: { price_cents: 695, available: false } });
    expect(patched.json()).toMatchObject({ name: 'Soep', description: 'Tomaat', price_cents: 695, available: false });
    expect((await t.req({ method: 'DELETE', url: `/api/v1/products/${p.id}`, cookie: admin })).statusCode).toBe(204);
    expect((await t.req({ method: 'GET', url: '/api/v1/products', cookie: admin })).json().data).toHaveLength(0);
    const all = (await t.req({ method: 'GET', url: '/api/v1/products?include_archived=true', cookie: admin })).json().data;
    expect(all[0]).toMatchObject({ id: p.id, archived_at: expect.any(String) });
    expect((await t.req({ method: 'DELETE', url: `/api/v1/products/${p.id}`, cookie: admin })).statusCode).toBe(404);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/products/${p.id}`, cookie: admin, payload: { price_cents: 1 } })).statusCode).toBe(404);
  });

  it('is admin-only and tenant-isolated; every write is in the change log', async () => {
    const { t, r, admin, staff } = await setup();
    expect((await t.req({ method: 'GET', url: '/api/v1/products', cookie: staff })).statusCode).toBe(403);
    expect((await t.req({ method: 'POST', url: '/api/v1/categories', cookie: staff, payload: { name: 'X' } })).statusCode).toBe(403);
    const p = (await t.req({ method: 'POST', url: '/api/v1/products', cookie: admin, payload: { name: 'Cola', price_cents: 300 } })).json();
    const other = await t.seedTenant();
    const otherAdmin = await other.adminCookie();
    expect((await t.req({ method: 'PATCH', url: `/api/v1/products/${p.id}`, cookie: otherAdmin, payload: { price_cents: 1 } })).statusCode).toBe(404);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/products/${p.id}`, cookie: otherAdmin })).statusCode).toBe(404);
    expect((await t.req({ method: 'GET', url: '/api/v1/products', cookie: otherAdmin })).json().data).toHaveLength(0);
    const kinds = (await t.changes.readSince(r.id, 0, 100)).filter((c) => c.entity === 'product').map((c) => c.kind);
    expect(kinds).toEqual(['product.created']);
  });
});
