import type { DemoContext } from './seed.js';

/**
 * Kitchen printers of the demo (issue 24, docs/kitchen.md): Keuken (station keuken, 80 mm) and Bar
 * (station bar, 58 mm, also the till's receipts), each the other's fallback, pointing at 127.0.0.1
 * ports where nothing listens (9100 and 9101): the printer screen shows them offline, with their
 * last error and the tickets of tonight's open orders waiting in their queue (the back-off is capped,
 * so a refused connection costs one attempt a minute per printer). Point them at real printers
 * (Beheer → Printers) and the queue prints.
 */
export async function seedPrinting(ctx: DemoContext): Promise<void> {
  const { runtime, tenant, admin } = ctx;
  const { printing, orders } = runtime.services;
  if (runtime.config.role === 'cloud') return; // the cloud never prints
  const kitchen = await printing.createPrinter(tenant.id, { name: 'Keuken', host: '127.0.0.1', port: 9100, width_mm: 80, stations: ['keuken'], receipts: false });
  const bar = await printing.createPrinter(tenant.id, { name: 'Bar', host: '127.0.0.1', port: 9101, width_mm: 58, stations: ['bar'], receipts: true, fallback_printer_id: kitchen.id });
  await printing.updatePrinter(tenant.id, kitchen.id, { fallback_printer_id: bar.id });
  // Tonight's open orders were taken before there were printers: their tickets wait in the queue now.
  let jobs = 0;
  for (const o of await orders.live(tenant.id)) {
    if (o.status === 'new' && o.source !== 'pos' && !o.table_id) continue; // a web order not accepted yet
    jobs += await printing.queueOrderTicket(tenant.id, o.id, admin.id);
  }
  ctx.counts.printers = 2;
  ctx.counts.print_jobs = jobs;
}
