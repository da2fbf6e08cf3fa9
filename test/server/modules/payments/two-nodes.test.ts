import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { createRuntime, type Runtime } from '../../../../server/runtime.js';
import { ManualClock } from '../../../../server/shared/clock.js';
import { freshDb, lane } from '../../../helpers/db.js';
import { FakeMollie } from './fake-mollie.js';

/**
 * Two cloud nodes on one database (PostgreSQL in the postgres lane; in the sqlite lane two
 * connections to one SQLite file, the nearest an appliance gets) and twenty callbacks for one
 * payment split over both at the same moment: one order.paid, one paid hook (the loyalty award),
 * one payment status change. The conditional update on the payment row decides, on both engines.
 */
describe('exactly once across two nodes', () => {
  it('20 concurrent callbacks for one payment, half on each node: one order.paid and one award', async () => {
    const mollie = await FakeMollie.start();
    onTestFinished(() => mollie.close());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pay-two-nodes-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const testDb = await freshDb(lane === 'sqlite' ? { sqliteFile: path.join(dir, 'db.sqlite') } : { poolSize: 6 });
    const clock = new ManualClock();
    const config = loadConfig({
      ROLE: 'cloud',
      DATABASE_URL: 'postgres://127.0.0.1:5432/unused',
      LOG_LEVEL: 'silent',
      DATA_DIR: dir,
      MOLLIE_API_KEY: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM',
      PUBLIC_BASE_URL: 'https://bestel.example.test',
      MOLLIE_API_ENDPOINT: mollie.url,
    });
    const a: Runtime = await createRuntime(config, { clock, handle: testDb.handle });
    const b: Runtime = await createRuntime(config, { clock, handle: testDb.reopen() });
    onTestFinished(async () => {
      await a.close();
      await b.close();
      await testDb.drop();
    });
    const hooks: string[] = [];
    for (const node of [a, b]) node.services.orders.on('paid', async (_w, _actor, order) => void hooks.push(order.id));

    const { tenant } = await a.services.tenants.create({ slug: `twee-${Date.now().toString(36)}`, name: 'Twee Knopen', admin_email: 'a@b.test', admin_password: 'geheim-wachtwoord-1' });
    const friet = await a.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
    const placed = await b.app.inject({
      method: 'POST',
      url: `/api/v1/public/order/${tenant.slug}`,
      payload: { items: [{ product_id: friet.id, quantity: 3 }], customer: { name: 'Ada', phone: '0612345678' }, type: 'pickup' },
    });
    expect(placed.statusCode).toBe(201);
    const { order, payment_id } = placed.json();
    const at = mollie.paymentFor(payment_id);
    mollie.setStatus(at.id, 'paid');

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).app.inject({ method: 'POST', url: '/api/v1/payments/webhook', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `id=${at.id}` }),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(mollie.lookups.get(at.id)).toBe(20);
    const count = async (kind: string, id: string) =>
      Number((await a.handle.db.selectFrom('change_log').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', kind).where('entity_id', '=', id).executeTakeFirstOrThrow()).n);
    expect(await count('order.paid', order.id)).toBe(1);
    expect(await count('payment.status_changed', payment_id)).toBe(1);
    expect(hooks).toEqual([order.id]);
    expect((await b.services.orders.get(tenant.id, order.id)).payment_status).toBe('paid');
    expect((await a.services.payments.get(tenant.id, payment_id)).status).toBe('paid');
  }, 60_000);
});
