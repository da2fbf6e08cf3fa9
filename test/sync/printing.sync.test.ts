import { afterEach, describe, expect, it } from 'vitest';
import { quiesce, twoNodes } from './harness.js';
import { startFakePrinter, type FakePrinter } from '../helpers/fake-printer.js';
import { decodeEscPos } from '../helpers/escpos.js';

/**
 * Issue 24 item 6: orders that reach the appliance through sync print there once, when they arrive;
 * the cloud never prints. A web pickup order prints when it is accepted (on the cloud or on the
 * appliance, or both: one ticket), a guest's round at a table and a staff order taken in the cloud
 * print on arrival; syncing again prints nothing twice.
 */
let printers: FakePrinter[] = [];
afterEach(async () => {
  for (const p of printers) await p.close();
  printers = [];
});

describe('sync: synced orders print on the appliance', () => {
  it('print once on arrival, never in the cloud', async () => {
    const { cloud, tenant, appliance } = await twoNodes();
    const kitchenCat = await cloud.services.menu.createCategory(tenant.id, { name: 'Keuken', station: 'keuken' });
    const dish = await cloud.services.menu.createProduct(tenant.id, { name: 'Kroket', price_cents: 450, category_id: kitchenCat.id } as never);
    const zone = await cloud.services.floor.createZone(tenant.id, { name: 'Zaal' } as never);
    const table = await cloud.services.floor.createTable(tenant.id, { zone_id: zone.id, name: '9', seats: 4, x: 0, y: 0 } as never);
    await appliance.engine.syncOnce(); // bootstrap: tenant, menu, tables
    const fake = await startFakePrinter();
    printers.push(fake);
    await appliance.services.printing.createPrinter(tenant.id, { name: 'Keuken', host: '127.0.0.1', port: fake.port, width_mm: 80, stations: ['keuken'], receipts: false });

    const web = (name: string, extra: object = {}) =>
      cloud.services.orders.create({ tenantId: tenant.id, userId: null, via: 'web' }, { items: [{ product_id: dish.id, quantity: 1 }], customer: { name, phone: '+31612345678' }, notes: '[Afhalen]', ...extra });
    const pickup = (await web('Jan Jansen')).order;
    const both = (await web('Piet Pieters')).order;
    const round = (await web('Tafel negen', { table_id: table.id, notes: '[Aan tafel 9]' })).order;
    const staff = (await cloud.services.orders.create({ tenantId: tenant.id, userId: tenant.staffId, via: 'pos' }, { items: [{ product_id: dish.id, quantity: 2 }] })).order;
    // Taken and finished in the cloud before the appliance hears of it: nothing to cook any more.
    const finished = (await cloud.services.orders.create({ tenantId: tenant.id, userId: tenant.staffId, via: 'pos' }, { items: [{ product_id: dish.id, quantity: 1 }] })).order;
    await cloud.services.orders.setStatus({ tenantId: tenant.id, userId: null, via: 'pos' }, finished.id, 'completed');
    await quiesce(appliance);

    const jobs = async () => appliance.services.printing.listJobs(tenant.id, {});
    const settled = async (n: number) => {
      const deadline = Date.now() + 10_000;
      while ((await jobs()).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 200)); // and nothing more comes
      return jobs();
    };
    // The table round and the staff order print on arrival; the pickup orders wait for acceptance.
    expect((await settled(2)).map((j) => j.order_id).sort()).toEqual([round.id, staff.id].sort());

    // Accepted in the cloud: prints when the change arrives. Accepted on both sides: one ticket.
    await cloud.services.orders.setStatus({ tenantId: tenant.id, userId: null, via: 'pos' }, pickup.id, 'accepted');
    await cloud.services.orders.setStatus({ tenantId: tenant.id, userId: null, via: 'pos' }, both.id, 'accepted');
    await appliance.services.orders.setStatus({ tenantId: tenant.id, userId: tenant.staffId, via: 'pos' }, both.id, 'accepted');
    await quiesce(appliance);
    const after = await settled(4);
    expect(after).toHaveLength(4);
    expect(after.filter((j) => j.order_id === both.id)).toHaveLength(1);

    // Sync again (a page seen twice, a sweep of the consumer): nothing prints twice.
    await quiesce(appliance);
    await appliance.app.consumers.sweep();
    expect(await settled(5)).toHaveLength(4);

    await appliance.services.printing.deliverDue();
    expect(fake.tickets).toHaveLength(4);
    const texts = fake.tickets.map((t) => decodeEscPos(t).lines);
    expect(texts.some((l) => l.includes('Afhalen - Jan Jansen'))).toBe(true);
    expect(texts.some((l) => l.includes('Tafel 9'))).toBe(true);
    expect(texts.some((l) => l.includes(`Bestelling ${staff.number}`) && l.includes('2x Kroket'))).toBe(true);

    // The cloud made no jobs and has no printers.
    expect(await cloud.services.printing.listJobs(tenant.id, {})).toEqual([]);
    expect(await cloud.services.printing.listPrinters(tenant.id)).toEqual([]);
  });
});
