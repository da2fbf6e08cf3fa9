import QRCode from 'qrcode';
import { describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { decodeQrPng } from '../../../helpers/qr.js';

/**
 * The table QR codes (issue 15): each decodes to its table's pay page on the guest pages, by the
 * table's unguessable public_code and never by its name (issue 28 point 4).
 */
describe('table QR codes', () => {
  async function setup(env: Record<string, string> = {}) {
    const t = await createTestApp({ env });
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const post = async (url: string, payload: object) => (await t.req({ method: 'POST', url: `/api/v1${url}`, cookie: admin, payload })).json();
    const binnen = await post('/floorplan/zones', { name: 'Binnen' });
    const terras = await post('/floorplan/zones', { name: 'Terras' });
    await post('/floorplan/tables', { zone_id: binnen.id, name: '1', seats: 4, x: 10, y: 10 });
    await post('/floorplan/tables', { zone_id: binnen.id, name: 'Bar 2', seats: 2, x: 120, y: 10 });
    await post('/floorplan/tables', { zone_id: terras.id, name: 'T3', seats: 6, x: 10, y: 10 });
    return { t, r, admin };
  }
  const dataUrlPng = (u: string) => Buffer.from(u.replace(/^data:image\/png;base64,/, ''), 'base64');

  it("every table's code decodes to its pay URL on this server; the printable sheet carries the same codes", async () => {
    const { t, r, admin } = await setup();
    const res = await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: admin, headers: { host: 'kassa.local:8080' } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { restaurant: { slug: string }; zones: Array<{ name: string; tables: Array<{ id: string; name: string; public_code: string; url: string; qr_png: string }> }> };
    const tables = body.zones.flatMap((z) => z.tables);
    expect(tables.map((x) => x.name).sort()).toEqual(['1', 'Bar 2', 'T3']);
    const plan = (await t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: admin })).json() as { zones: Array<{ tables: Array<{ id: string; public_code: string }> }> };
    const codeOf = new Map(plan.zones.flatMap((z) => z.tables).map((x) => [x.id, x.public_code]));
    for (const table of tables) {
      expect(table.public_code).toMatch(/^[a-km-np-z2-9]{16}$/);
      expect(table.public_code).toBe(codeOf.get(table.id));
      expect(table.url).toBe(`http://kassa.local:8080/g/${r.slug}/tafel/${table.public_code}`);
      expect(decodeQrPng(dataUrlPng(table.qr_png))).toBe(table.url);
    }
    expect(new Set(tables.map((x) => x.public_code)).size).toBe(3);
    const sheet = await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-sheet', cookie: admin, headers: { host: 'kassa.local:8080' } });
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-type']).toMatch(/text\/html/);
    const images = [...sheet.body.matchAll(/<figure class="card" data-table="([^"]+)"><img src="(data:image\/png;base64,[^"]+)"/g)];
    expect(images.map((m) => m[1]).sort()).toEqual(['1', 'Bar 2', 'T3']);
    const byName = new Map(tables.map((x) => [x.name, x.public_code]));
    for (const [, name, src] of images) expect(decodeQrPng(dataUrlPng(src!))).toBe(`http://kassa.local:8080/g/${r.slug}/tafel/${byName.get(name!)}`);
  });

  it('uses PUBLIC_BASE_URL when the operator set it (the cloud behind its domain)', async () => {
    const { t, r, admin } = await setup({ PUBLIC_BASE_URL: 'https://bestel.example.nl' });
    const body = (await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: admin })).json();
    const first = body.zones[0].tables[0];
    expect(first.url).toBe(`https://bestel.example.nl/g/${r.slug}/tafel/${first.public_code}`);
    expect(decodeQrPng(dataUrlPng(first.qr_png))).toBe(first.url);
  });

  it('is for admins: 401 without a session, 403 for staff; another restaurant sees only its own tables', async () => {
    const { t, r } = await setup();
    expect((await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-sheet' })).statusCode).toBe(401);
    const staff = await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: await r.staffCookie() });
    expect(staff.statusCode).toBe(403);
    expect(staff.json()).toMatchObject({ code: 'FORBIDDEN' });
    const other = await t.seedTenant();
    const theirs = (await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: await other.adminCookie() })).json();
    expect(theirs.zones).toEqual([]);
  });
});

/** Issue 28 point 10: the QR pages took ≈ 1 s a request (8 at once: > 5 s); codes are rendered once and cached. */
describe('issue 28 point 10: table QR codes are rendered once', () => {
  it('eight sheets at once and the codes list after them render each table’s code once; a renamed table keeps its code, a renewed code renders only itself', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const post = async (url: string, payload: object) => (await t.req({ method: 'POST', url: `/api/v1${url}`, cookie: admin, payload })).json();
    const zone = await post('/floorplan/zones', { name: 'Binnen' });
    const tables = [];
    for (let i = 1; i <= 6; i++) tables.push(await post('/floorplan/tables', { zone_id: zone.id, name: `${i}`, seats: 4, x: 10 * i, y: 10 }));
    const render = vi.spyOn(QRCode, 'toDataURL');
    const sheets = await Promise.all(Array.from({ length: 8 }, () => t.req({ method: 'GET', url: '/api/v1/floorplan/qr-sheet', cookie: admin })));
    expect(sheets.map((s) => s.statusCode)).toEqual(Array(8).fill(200));
    expect(new Set(sheets.map((s) => s.body)).size).toBe(1);
    expect(render).toHaveBeenCalledTimes(6);
    expect((await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: admin })).statusCode).toBe(200);
    expect(render).toHaveBeenCalledTimes(6);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${tables[0].id}`, cookie: admin, payload: { name: '1a' } })).statusCode).toBe(200);
    expect((await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: admin })).statusCode).toBe(200);
    expect(render).toHaveBeenCalledTimes(6);
    expect((await t.req({ method: 'POST', url: `/api/v1/floorplan/tables/${tables[0].id}/new-code`, cookie: admin })).statusCode).toBe(200);
    const after = (await t.req({ method: 'GET', url: '/api/v1/floorplan/qr-codes', cookie: admin })).json();
    expect(render).toHaveBeenCalledTimes(7);
    const renamed = after.zones[0].tables.find((x: { name: string }) => x.name === '1a');
    expect(decodeQrPng(Buffer.from(renamed.qr_png.replace(/^data:image\/png;base64,/, ''), 'base64'))).toBe(renamed.url);
  });
});
