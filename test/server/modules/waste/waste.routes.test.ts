import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { jpeg, multipart, png, pngOfSize } from './multipart.js';

/** POST /waste, GET /waste, /waste/stats and the photo (CONTRACT §13, docs/insights.md "Waste"). Today: 2026-11-20. */
async function setup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waste-test-'));
  onTestFinished(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const t = await createTestApp({ env: { DATA_DIR: dataDir } });
  // The intake is booked five minutes before the waste, so "latest movement first" is the waste's
  // removal by time and never by a tie-break on the two ids (the removal's id is derived, not time-ordered).
  t.clock.set('2026-11-20T09:55:00.000Z');
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const koelcel = (await t.services.stock.createLocation(r.id, { name: 'Koelcel', is_default: true })).id;
  const zalm = (await t.services.menu.createProduct(r.id, { name: 'Zalm', price_cents: 0, cost_cents: 2400, unit: 'kg', on_menu: false })).id;
  const intake = await t.req({ method: 'POST', url: '/api/v1/stock', cookie: admin, payload: { productId: zalm, locationId: koelcel, type: 'INTAKE', quantity: 10 } });
  expect(intake.statusCode).toBe(201);
  t.clock.set('2026-11-20T10:00:00.000Z');
  return { t, r, dataDir, admin, staff: await r.staffCookie(), koelcel, zalm };
}

const post = (t: TestApp, cookie: string | undefined, payload: unknown) => t.req({ method: 'POST', url: '/api/v1/waste', cookie, payload: payload as object });
const postForm = (t: TestApp, cookie: string | undefined, form: ReturnType<typeof multipart>) => t.req({ method: 'POST', url: '/api/v1/waste', cookie, payload: form.payload, headers: form.headers });
const level = async (t: TestApp, cookie: string, productId: string) =>
  ((await t.req({ method: 'GET', url: '/api/v1/stock', cookie })).json().data as Array<{ product_id: string; total: number }>).find((x) => x.product_id === productId)?.total;
const entries = async (t: TestApp, tenantId: string) =>
  Number((await t.handle.db.selectFrom('waste_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow()).n);
const photos = (dataDir: string) => {
  const dir = path.join(dataDir, 'uploads', 'waste');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe('POST /waste (JSON)', () => {
  it('logs waste with its cost (quantity × product cost) and removes the stock in the same transaction', async () => {
    const { t, r, staff, admin, koelcel, zalm } = await setup();
    const res = await post(t, staff, { product_id: zalm, quantity: 1.5, reason: 'bederf', location_id: koelcel, note: 'Koeling stond open' });
    expect(res.statusCode).toBe(201);
    const w = res.json();
    expect(w).toMatchObject({
      product_id: zalm,
      product_name: 'Zalm',
      unit: 'kg',
      location_id: koelcel,
      quantity: 1.5,
      reason: 'bederf',
      note: 'Koeling stond open',
      unit_cost_cents: 2400,
      cost_cents: 3600,
      photo: null,
      business_day: '2026-11-20',
      created_by: r.staffId,
      stock: { location_id: koelcel, level: 8.5 },
    });
    expect(await level(t, admin, zalm)).toBe(8.5);
    const moves = (await t.req({ method: 'GET', url: `/api/v1/stock/movements?product_id=${zalm}`, cookie: staff })).json().data;
    expect(moves[0]).toMatchObject({ id: w.stock.movement_id, type: 'REMOVAL', quantity: -1.5, source: 'waste' });
    // One change-log entry for the waste and one for its stock removal, in one transaction.
    const kinds = (await t.changes.readSince(r.id, 0, 1000)).map((c) => c.kind);
    expect(kinds.slice(-2).sort()).toEqual(['stock.wasted', 'waste.recorded']);
    // Without a location: the default one.
    const w2 = (await post(t, staff, { product_id: zalm, quantity: 0.25, reason: 'overig' })).json();
    expect(w2).toMatchObject({ location_id: koelcel, cost_cents: 600, stock: { level: 8.25 } });
    expect((await t.req({ method: 'GET', url: '/api/v1/waste', cookie: staff })).json()).toMatchObject({ total: 2, data: [{ id: w2.id }, { id: w.id }] });
  });

  it('a dish without its own cost is costed by its recipe; stock may go below zero like a sale', async () => {
    const { t, r, staff } = await setup();
    const menu = t.services.menu;
    const brood = (await menu.createProduct(r.id, { name: 'Broodje', price_cents: 0, cost_cents: 40, unit: 'stuk', on_menu: false })).id;
    const vlees = (await menu.createProduct(r.id, { name: 'Rundvlees', price_cents: 0, cost_cents: 1200, unit: 'kg', on_menu: false })).id;
    const burger = (await menu.createProduct(r.id, { name: 'Burger', price_cents: 1500 })).id;
    await t.services.stock.putRecipe(r.id, burger, { ingredients: [{ product_id: brood, quantity: 1 }, { product_id: vlees, quantity: 0.15 }] });
    // 40 + 0.15 × 1200 = 220 a burger.
    const w = (await post(t, staff, { product_id: burger, quantity: 2, reason: 'retour' })).json();
    expect(w).toMatchObject({ unit_cost_cents: 220, cost_cents: 440, stock: { level: -2 } });
  });

  it.each([
    ['an unknown reason', { reason: 'gevallen' }, 'reason', /bederf, overproductie, retour, beschadigd, overig/],
    ['quantity 0', { quantity: 0 }, 'quantity', /groter dan 0/],
    ['a negative quantity', { quantity: -1 }, 'quantity', /groter dan 0/],
    ['more than 3 decimals', { quantity: 0.0001 }, 'quantity', /3 decimalen/],
    ['no product', { product_id: undefined }, 'product_id', /verplicht/],
    ['a product id that is no id', { product_id: 'zalm' }, 'product_id', /geldige id/],
    ['an unknown field', { kleur: 'rood' }, 'kleur', /Onbekend veld/],
    ['a note too long', { note: 'x'.repeat(501) }, 'note', /500/],
  ])('%s is 400 VALIDATION in Dutch and changes nothing', async (_n, extra, field, msg) => {
    const { t, r, staff, admin, zalm } = await setup();
    const res = await post(t, staff, { product_id: zalm, quantity: 1, reason: 'bederf', ...extra });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await entries(t, r.id)).toBe(0);
    expect(await level(t, admin, zalm)).toBe(10);
  });

  it('an empty body is 400', async () => {
    const { t, staff } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/waste', cookie: staff, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
  });

  it('another restaurant’s product or location, or an archived product, is 404 and changes nothing', async () => {
    const { t, r, staff, admin, zalm } = await setup();
    const other = await t.seedTenant();
    const theirProduct = (await t.services.menu.createProduct(other.id, { name: 'Kaas', price_cents: 0, cost_cents: 900, unit: 'kg', on_menu: false })).id;
    const theirLocation = (await t.services.stock.createLocation(other.id, { name: 'Kelder' })).id;
    const a = await post(t, staff, { product_id: theirProduct, quantity: 1, reason: 'bederf' });
    expect(a.statusCode).toBe(404);
    expect(a.json()).toEqual({ error: 'Product niet gevonden.', code: 'NOT_FOUND' });
    const b = await post(t, staff, { product_id: zalm, quantity: 1, reason: 'bederf', location_id: theirLocation });
    expect(b.statusCode).toBe(404);
    expect(b.json()).toEqual({ error: 'Locatie niet gevonden.', code: 'NOT_FOUND' });
    const old = (await t.services.menu.createProduct(r.id, { name: 'Oud', price_cents: 100 })).id;
    await t.services.menu.archiveProduct(r.id, old);
    expect((await post(t, staff, { product_id: old, quantity: 1, reason: 'bederf' })).statusCode).toBe(404);
    expect(await entries(t, r.id)).toBe(0);
    expect(await level(t, admin, zalm)).toBe(10);
  });

  it('ten tablets logging waste at once: ten entries, ten removals, the level adds up', async () => {
    const { t, r, staff, admin, zalm } = await setup();
    const results = await Promise.all(Array.from({ length: 10 }, () => post(t, staff, { product_id: zalm, quantity: 0.5, reason: 'overproductie' })));
    expect(results.map((x) => x.statusCode)).toEqual(Array(10).fill(201));
    expect(await entries(t, r.id)).toBe(10);
    expect(await level(t, admin, zalm)).toBe(5);
    expect((await t.req({ method: 'GET', url: '/api/v1/waste/stats', cookie: staff })).json()).toMatchObject({ total_cost_cents: 12000, entries: 10 });
  });

  it('needs a session', async () => {
    const { t, zalm } = await setup();
    const res = await post(t, undefined, { product_id: zalm, quantity: 1, reason: 'bederf' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
  });
});

describe('POST /waste (multipart with a photo)', () => {
  it('stores a photo whose type comes from its bytes, and serves it back to admins only', async () => {
    const { t, r, staff, admin, dataDir, zalm } = await setup();
    const image = png();
    const res = await postForm(t, staff, multipart({ product_id: zalm, quantity: '2,5', reason: 'beschadigd' }, { filename: 'IMG_0001.jpg', type: 'image/jpeg', data: image }));
    expect(res.statusCode).toBe(201);
    const w = res.json();
    expect(w).toMatchObject({ quantity: 2.5, reason: 'beschadigd', cost_cents: 6000, photo: { type: 'image/png', bytes: image.length, url: `/api/v1/waste/${w.id}/photo` } });
    expect(photos(dataDir)).toEqual([`${w.id}.png`]);

    const back = await t.req({ method: 'GET', url: w.photo.url, cookie: admin });
    expect(back.statusCode).toBe(200);
    expect(back.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(back.rawPayload, image)).toBe(0);
    expect((await t.req({ method: 'GET', url: w.photo.url, cookie: staff })).json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
    expect((await t.req({ method: 'GET', url: w.photo.url })).statusCode).toBe(401);
    const other = await t.seedTenant();
    expect((await t.req({ method: 'GET', url: w.photo.url, cookie: await other.adminCookie() })).statusCode).toBe(404);
    // An entry without a photo, or a photo missing on this node: 404.
    const plain = (await post(t, staff, { product_id: zalm, quantity: 1, reason: 'bederf' })).json();
    expect((await t.req({ method: 'GET', url: `/api/v1/waste/${plain.id}/photo`, cookie: admin })).json()).toEqual({ error: 'Foto niet gevonden.', code: 'NOT_FOUND' });
    fs.rmSync(path.join(dataDir, 'uploads', 'waste', `${w.id}.png`));
    expect((await t.req({ method: 'GET', url: w.photo.url, cookie: admin })).json().error).toMatch(/^Foto niet gevonden: die staat op het apparaat/);
    expect(await entries(t, r.id)).toBe(2);
  });

  it('a JPEG sent under a PNG name is stored as JPEG; the form works without a photo too', async () => {
    const { t, staff, dataDir, zalm } = await setup();
    const w = (await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'retour' }, { filename: 'foto.png', type: 'image/png', data: jpeg() }))).json();
    expect(w.photo.type).toBe('image/jpeg');
    expect(photos(dataDir)).toEqual([`${w.id}.jpg`]);
    const noPhoto = await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'retour' }));
    expect(noPhoto.statusCode).toBe(201);
    expect(noPhoto.json().photo).toBeNull();
  });

  it('a photo of exactly 5 MB is accepted; 5 MB + 1 byte is refused with VALIDATION and nothing is kept', async () => {
    const { t, r, staff, admin, dataDir, zalm } = await setup();
    const five = 5 * 1024 * 1024;
    const ok = await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'bederf' }, { filename: 'groot.png', type: 'image/png', data: pngOfSize(five) }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json().photo.bytes).toBe(five);
    const res = await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'bederf' }, { filename: 'te-groot.png', type: 'image/png', data: pngOfSize(five + 1) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      error: 'Ongeldige invoer: de foto is groter dan 5 MB.',
      code: 'VALIDATION',
      details: [{ field: 'photo', error: "'photo' mag hoogstens 5 MB (5.242.880 bytes) groot zijn." }],
    });
    expect(await entries(t, r.id)).toBe(1);
    expect(photos(dataDir)).toHaveLength(1);
    expect(await level(t, admin, zalm)).toBe(9);
  });

  it('a file that is not an image is refused with VALIDATION, whatever its name and type say; nothing is kept', async () => {
    const { t, r, staff, admin, dataDir, zalm } = await setup();
    for (const data of [Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'), Buffer.from('dit is gewoon tekst, geen foto'), Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;')]) {
      const res = await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'bederf' }, { filename: 'foto.jpg', type: 'image/jpeg', data }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'photo', error: expect.stringMatching(/JPEG, PNG of WebP/) }] });
    }
    expect(await entries(t, r.id)).toBe(0);
    expect(photos(dataDir)).toEqual([]);
    expect(await level(t, admin, zalm)).toBe(10);
  });

  it('form fields are validated like JSON; a second file or an unknown file field is refused; a refused entry leaves no photo', async () => {
    const { t, r, staff, dataDir, zalm } = await setup();
    const bad = await postForm(t, staff, multipart({ product_id: zalm, quantity: 'veel', reason: 'bederf' }, { filename: 'a.png', type: 'image/png', data: png() }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toEqual({ field: 'quantity', error: "'quantity' moet een getal zijn." });
    const unknown = await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'bederf' }, { field: 'bijlage', filename: 'a.png', type: 'image/png', data: png() }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].field).toBe('bijlage');
    // Refused after the photo was stored (another restaurant's location): the photo goes too.
    const other = await t.seedTenant();
    const theirs = (await t.services.stock.createLocation(other.id, { name: 'Kelder' })).id;
    const late = await postForm(t, staff, multipart({ product_id: zalm, quantity: '1', reason: 'bederf', location_id: theirs }, { filename: 'a.png', type: 'image/png', data: png() }));
    expect(late.statusCode).toBe(404);
    expect(photos(dataDir)).toEqual([]);
    expect(await entries(t, r.id)).toBe(0);
  });
});

describe('GET /waste/stats', () => {
  it('total cost, every reason, the top products and every day of the period, computed by hand', async () => {
    const { t, r, staff, zalm } = await setup();
    const brood = (await t.services.menu.createProduct(r.id, { name: 'Brood', price_cents: 0, cost_cents: 150, unit: 'stuk', on_menu: false })).id;
    const log = async (at: string, product_id: string, quantity: number, reason: string) => {
      t.clock.set(at);
      const res = await t.services.waste.record({ tenantId: r.id, userId: r.staffId }, { product_id, quantity, reason: reason as 'bederf' });
      return res;
    };
    await log('2026-11-18T20:00:00.000Z', zalm, 1, 'bederf'); // 2400
    await log('2026-11-18T21:00:00.000Z', brood, 10, 'overproductie'); // 1500
    await log('2026-11-19T09:00:00.000Z', zalm, 0.5, 'overproductie'); // 1200
    await log('2026-11-20T08:00:00.000Z', brood, 4, 'beschadigd'); // 600
    await log('2026-11-13T08:00:00.000Z', zalm, 3, 'bederf'); // 7200, outside days=7 (11-14 … 11-20)
    const other = await t.seedTenant();
    const kaas = (await t.services.menu.createProduct(other.id, { name: 'Kaas', price_cents: 0, cost_cents: 900, unit: 'kg', on_menu: false })).id;
    await t.services.waste.record({ tenantId: other.id, userId: other.staffId }, { product_id: kaas, quantity: 1, reason: 'bederf' });
    t.clock.set('2026-11-20T10:00:00.000Z');

    const res = await t.req({ method: 'GET', url: '/api/v1/waste/stats?days=7', cookie: await r.staffCookie() });
    expect(res.statusCode).toBe(200);
    const s = res.json();
    // 2400 + 1500 + 1200 + 600 = 5700.
    expect(s).toMatchObject({ days: 7, from: '2026-11-14', to: '2026-11-20', total_cost_cents: 5700, entries: 4 });
    expect(s.by_reason).toEqual([
      { reason: 'bederf', entries: 1, cost_cents: 2400, share_percent: 42.11 },
      { reason: 'overproductie', entries: 2, cost_cents: 2700, share_percent: 47.37 },
      { reason: 'retour', entries: 0, cost_cents: 0, share_percent: 0 },
      { reason: 'beschadigd', entries: 1, cost_cents: 600, share_percent: 10.53 },
      { reason: 'overig', entries: 0, cost_cents: 0, share_percent: 0 },
    ]);
    expect(s.top_products).toEqual([
      { product_id: zalm, name: 'Zalm', unit: 'kg', quantity: 1.5, entries: 2, cost_cents: 3600 },
      { product_id: brood, name: 'Brood', unit: 'stuk', quantity: 14, entries: 2, cost_cents: 2100 },
    ]);
    expect(s.by_day).toEqual([
      { date: '2026-11-14', cost_cents: 0 },
      { date: '2026-11-15', cost_cents: 0 },
      { date: '2026-11-16', cost_cents: 0 },
      { date: '2026-11-17', cost_cents: 0 },
      { date: '2026-11-18', cost_cents: 3900 },
      { date: '2026-11-19', cost_cents: 1200 },
      { date: '2026-11-20', cost_cents: 600 },
    ]);
    // The default 30 days include 11-13.
    expect((await t.req({ method: 'GET', url: '/api/v1/waste/stats', cookie: staff })).json()).toMatchObject({ days: 30, total_cost_cents: 12900, entries: 5 });
    void staff;
  });

  it.each(['days=0', 'days=366', 'days=een', 'periode=7'])('?%s is 400 VALIDATION', async (q) => {
    const { t, staff } = await setup();
    const res = await t.req({ method: 'GET', url: `/api/v1/waste/stats?${q}`, cookie: staff });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
  });

  it('needs a session', async () => {
    const { t } = await setup();
    expect((await t.req({ method: 'GET', url: '/api/v1/waste/stats' })).statusCode).toBe(401);
    expect((await t.req({ method: 'GET', url: '/api/v1/waste' })).statusCode).toBe(401);
  });
});
