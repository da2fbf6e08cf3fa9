import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';
import { multipart, png } from '../modules/waste/multipart.js';

/**
 * Issue 28 point 16: waste photos in the cloud lived on one node's disk, so a second node answered
 * 404. In the cloud they are kept in the database (every node reads them); files an older release
 * left on a node's disk move into the database the first time they are asked for there. The
 * appliance keeps its disk (test/server/modules/waste/waste.routes.test.ts).
 */
async function cloudNode(dataDir: string) {
  const t = await createTestApp({ env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused', PAYMENT_PROVIDER: 'simulator', DATA_DIR: dataDir } });
  t.clock.set('2026-11-20T10:00:00.000Z');
  return t;
}
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uploads-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const onDisk = (dataDir: string) => {
  const dir = path.join(dataDir, 'uploads', 'waste');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe(`issue 28 point 16: cloud uploads every node can read (${lane})`, () => {
  it('a photo taken through one cloud node is in the database, not on that node’s disk, and served from there', async () => {
    const dataDir = tempDir();
    const t = await cloudNode(dataDir);
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const admin = await r.adminCookie();
    const loc = (await t.services.stock.createLocation(r.id, { name: 'Koelcel', is_default: true })).id;
    const p = (await t.services.menu.createProduct(r.id, { name: 'Zalm', price_cents: 0, cost_cents: 2400, unit: 'kg', on_menu: false })).id;
    expect((await t.req({ method: 'POST', url: '/api/v1/stock', cookie: admin, payload: { productId: p, locationId: loc, type: 'INTAKE', quantity: 10 } })).statusCode).toBe(201);
    const image = png();
    const form = multipart({ product_id: p, quantity: '1', reason: 'bederf' }, { filename: 'foto.png', type: 'image/png', data: image });
    const res = await t.req({ method: 'POST', url: '/api/v1/waste', cookie: staff, payload: form.payload, headers: form.headers });
    expect(res.statusCode, res.body).toBe(201);
    const w = res.json();
    expect(onDisk(dataDir)).toEqual([]);
    const back = await t.req({ method: 'GET', url: w.photo.url, cookie: admin });
    expect(back.statusCode).toBe(200);
    expect(back.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(back.rawPayload, image)).toBe(0);
    // Another restaurant still sees nothing of it.
    const other = await t.seedTenant();
    expect((await t.req({ method: 'GET', url: w.photo.url, cookie: await other.adminCookie() })).statusCode).toBe(404);
  });

  it('a photo an older release left on this node’s disk is served and moved into the database, then served without the file', async () => {
    const dataDir = tempDir();
    const t = await cloudNode(dataDir);
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const loc = (await t.services.stock.createLocation(r.id, { name: 'Koelcel', is_default: true })).id;
    const p = (await t.services.menu.createProduct(r.id, { name: 'Zalm', price_cents: 0, cost_cents: 2400, unit: 'kg', on_menu: false })).id;
    const w = await t.services.waste.record({ tenantId: r.id, userId: r.staffId }, { product_id: p, quantity: 1, reason: 'bederf', location_id: loc });
    // What an older cloud wrote: the row names a file under DATA_DIR/uploads/waste on this node.
    const image = png();
    fs.mkdirSync(path.join(dataDir, 'uploads', 'waste'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'uploads', 'waste', `${w.id}.png`), image);
    await t.handle.db.updateTable('waste_entries').set({ photo_file: `${w.id}.png`, photo_type: 'image/png', photo_bytes: image.length }).where('id', '=', w.id).execute();
    const url = `/api/v1/waste/${w.id}/photo`;
    const first = await t.req({ method: 'GET', url, cookie: admin });
    expect(first.statusCode).toBe(200);
    expect(Buffer.compare(first.rawPayload, image)).toBe(0);
    fs.rmSync(path.join(dataDir, 'uploads', 'waste', `${w.id}.png`));
    const again = await t.req({ method: 'GET', url, cookie: admin });
    expect(again.statusCode).toBe(200);
    expect(Buffer.compare(again.rawPayload, image)).toBe(0);
  });
});
