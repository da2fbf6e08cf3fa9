import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';
import { seedMenu } from '../../helpers/factories.js';

/**
 * Issue 17, point 9: a NUL byte in a text field was a 500 on PostgreSQL (it cannot store one in text)
 * and was stored on SQLite. Now it is a 400 VALIDATION naming the field, before any route runs, for
 * the body, the query string and the path, on both databases.
 */
const nulError = (field: string) => ({
  error: `Ongeldige invoer: '${field}' bevat een ongeldig teken (een NUL-byte, \\u0000).`,
  code: 'VALIDATION',
  details: [{ field, error: `'${field}' bevat een ongeldig teken (een NUL-byte, \\u0000).` }],
});

describe(`NUL bytes in requests (${lane})`, () => {
  it('are a 400 VALIDATION naming the field, in bodies (also nested and in keys), query strings and paths; nothing is stored', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const menu = await seedMenu(t, r.id);
    const seqBefore = await t.changes.lastSeq(r.id);

    const category = await t.req({ method: 'POST', url: '/api/v1/categories', cookie: admin, payload: { name: 'Soep\u0000' } });
    expect(category.statusCode).toBe(400);
    expect(category.json()).toEqual(nulError('name'));

    const order = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: admin, payload: { items: [{ product_id: menu.friet.id, quantity: 1, notes: 'zonder\u0000zout' }] } });
    expect(order.statusCode).toBe(400);
    expect(order.json()).toEqual(nulError('items.0.notes'));

    const settings = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { name: '\u0000' } });
    expect(settings.statusCode).toBe(400);
    expect(settings.json().details[0].field).toBe('name');

    const key = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { ['na\u0000me']: 'x' } });
    expect(key.statusCode).toBe(400);
    expect(key.json().code).toBe('VALIDATION');

    const query = await t.req({ method: 'GET', url: '/api/v1/orders?status=new%00', cookie: admin });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toEqual(nulError('status'));

    const path = await t.req({ method: 'PATCH', url: `/api/v1/products/${menu.friet.id}%00`, cookie: admin, payload: { price_cents: 100 } });
    expect(path.statusCode).toBe(400);
    expect(path.json()).toEqual(nulError('id'));

    // Also where no session is needed, and before the credentials are looked at.
    const login = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: `${r.slug}\u0000`, pin: r.staffPin } });
    expect(login.statusCode).toBe(400);
    expect(login.json()).toEqual(nulError('slug'));

    // Nothing changed, and the same requests without the NUL byte are fine.
    expect(await t.changes.lastSeq(r.id)).toBe(seqBefore);
    expect((await t.req({ method: 'POST', url: '/api/v1/categories', cookie: admin, payload: { name: 'Soep' } })).statusCode).toBe(201);
    expect((await t.req({ method: 'GET', url: '/api/v1/orders?status=new', cookie: admin })).statusCode).toBe(200);
  });
});
