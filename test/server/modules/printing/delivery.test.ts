import { afterEach, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import type { PrintEvent, PrintEventPayload } from '../../../../server/modules/printing/printing.service.js';
import type { TestApp } from '../../../helpers/app.js';
import { printingSetup } from './setup.js';

/** Tickets on fake network printers (issue 24 "Done when"): routing, bytes, retries, fallback, reprint, additions, voids. */
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});
async function setup() {
  const s = await printingSetup();
  cleanup.push(s.close);
  return s;
}

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}
/** A tablet on the restaurant's socket that records the printing events (what the kitchen board listens to). */
async function tablet(url: string, cookie: string) {
  const socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
  cleanup.push(async () => {
    socket.close();
  });
  const events: Array<{ name: string; payload: PrintEventPayload }> = [];
  socket.on('print:failed', (payload: PrintEventPayload) => events.push({ name: 'print:failed', payload }));
  socket.on('print:done', (payload: PrintEventPayload) => events.push({ name: 'print:done', payload }));
  await new Promise<void>((resolve, reject) => {
    socket.on('hello', () => resolve());
    socket.on('connect_error', reject);
  });
  return events;
}
async function until(cond: () => boolean, ms = 5000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('kitchen tickets on network printers', () => {
  it('each printer gets one ticket with only its stations’ lines; the bytes decode to the ticket', async () => {
    const s = await setup();
    const kitchen = await s.fake();
    const bar = await s.fake();
    await s.addPrinter('Keuken', kitchen);
    await s.addPrinter('Bar', bar);
    const tables = await s.post('/floorplan/zones', { name: 'Zaal' });
    const table = await s.post('/floorplan/tables', { zone_id: tables.id, name: '4', seats: 4, x: 0, y: 0 });
    // The soup's allergens (issue 23: on the tickets too), in Dutch under its line.
    expect((await s.call('PATCH', `/products/${s.products.soup.id}`, { allergens: ['gluten', 'celery'] }, s.admin)).statusCode).toBe(200);
    const o = await s.order(
      [
        { product_id: s.products.soup.id, quantity: 2, seat: 1, notes: 'Allergie: selderij' },
        { product_id: s.products.beer.id, quantity: 3 },
        { product_id: s.products.irish.id, quantity: 1 },
        { product_id: s.products.steak.id, quantity: 2 },
      ],
      { table_id: table.id },
    );
    expect((await s.jobs()).map((j) => [j.kind, j.status])).toEqual([
      ['ticket', 'queued'],
      ['ticket', 'queued'],
    ]);
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(1);
    expect(bar.tickets).toHaveLength(1);
    const k = s.text(kitchen.tickets[0]!);
    expect(k.lines).toContain('KEUKEN');
    expect(k.lines).toContain('Tafel 4');
    expect(k.lines).toContain(`Bestelling ${o.number}`);
    expect(k.lines).toContain('13:00  Sanne'); // 12:00 UTC is 13:00 in Amsterdam
    expect(k.lines).toContain('2x Tomatensoep');
    expect(k.lines).toContain('   Stoel 1');
    expect(k.lines).toContain('   Bevat: Gluten, Selderij');
    expect(k.lines.filter((l) => l.startsWith('   Bevat:'))).toHaveLength(1); // once, under the soup
    expect(k.inverse).toContain('! Allergie: selderij');
    // The held main course is not on it: it prints when fired.
    expect(k.text).not.toContain('Entrecôte');
    expect(k.text).not.toContain('Bier');
    expect(k.endsWithCut).toBe(true);
    const b = s.text(bar.tickets[0]!);
    expect(b.lines).toContain('BAR');
    expect(b.lines).toContain('3x Bier');
    expect(b.lines).toContain('1x Irish coffee');
    expect(b.text).not.toContain('Tomatensoep');
    const done = await s.jobs();
    expect(done.every((j) => j.status === 'done' && j.attempts === 0)).toBe(true);
    // Delivering again sends nothing: a done job is never sent again.
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(1);
    expect(bar.tickets).toHaveLength(1);
    const printers = (await s.call('GET', '/printers')).json() as { data: Array<{ name: string; status: string; queued: number }> };
    expect(printers.data.map((p) => [p.name, p.status, p.queued])).toEqual([
      ['Bar', 'online', 0],
      ['Keuken', 'online', 0],
    ]);

    // Firing the main course prints only that course, on the kitchen printer.
    expect((await s.call('POST', `/orders/${o.id}/fire`, { course: 2 })).statusCode).toBe(200);
    expect((await s.call('POST', `/orders/${o.id}/fire`, { course: 2 })).statusCode).toBe(200);
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(2);
    const fired = s.text(kitchen.tickets[1]!);
    expect(fired.lines).toContain('>> GANG 2 - NU <<');
    expect(fired.lines).toContain('2x Entrecôte');
    expect(fired.text).not.toContain('Tomatensoep');
    expect(bar.tickets).toHaveLength(1);
  });

  it('no lines, no ticket; no printers, no jobs; an addition to a table prints only the added round', async () => {
    const s = await setup();
    await s.order([{ product_id: s.products.soup.id, quantity: 1 }]); // no printers yet
    expect(await s.jobs()).toEqual([]);
    const bar = await s.fake();
    await s.addPrinter('Bar', bar);
    await s.order([{ product_id: s.products.soup.id, quantity: 1 }]); // nothing for the bar
    expect(await s.jobs()).toEqual([]);
    const kitchen = await s.fake();
    await s.addPrinter('Keuken', kitchen);
    const zone = await s.post('/floorplan/zones', { name: 'Terras' });
    const table = await s.post('/floorplan/tables', { zone_id: zone.id, name: '7', seats: 2, x: 0, y: 0 });
    await s.order([{ product_id: s.products.soup.id, quantity: 2 }], { table_id: table.id });
    await s.deliver();
    await s.order([{ product_id: s.products.pate.id, quantity: 1 }], { table_id: table.id });
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(2);
    const added = s.text(kitchen.tickets[1]!);
    expect(added.lines).toContain('Tafel 7');
    expect(added.lines).toContain('1x Paté');
    expect(added.text).not.toContain('Tomatensoep');
  });

  it('a web order prints when it is accepted (Afhalen and the guest’s name), not when it arrives', async () => {
    const s = await setup();
    const kitchen = await s.fake();
    await s.addPrinter('Keuken', kitchen);
    const { order } = await s.t.services.orders.create(
      { tenantId: s.r.id, userId: null, via: 'web' },
      { items: [{ product_id: s.products.pate.id, quantity: 1 }], customer: { name: 'Jan Jansen', phone: '+31612345678' }, notes: '[Afhalen]' },
    );
    expect(await s.jobs()).toEqual([]);
    expect((await s.call('POST', `/orders/${order.id}/advance`, { status: 'accepted' })).statusCode).toBe(200);
    expect((await s.call('POST', `/orders/${order.id}/advance`, { status: 'preparing' })).statusCode).toBe(200);
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(1);
    const k = s.text(kitchen.tickets[0]!);
    expect(k.lines).toContain('Afhalen - Jan Jansen');
    expect(k.lines).toContain('1x Paté');
  });

  it('a void of a line the kitchen has prints a void ticket; a void of a held line prints nothing', async () => {
    const s = await setup();
    const kitchen = await s.fake();
    await s.addPrinter('Keuken', kitchen);
    const o = await s.order([
      { product_id: s.products.soup.id, quantity: 3 },
      { product_id: s.products.steak.id, quantity: 1 },
    ]);
    await s.deliver();
    const soup = o.items.find((i) => i.name === 'Tomatensoep')!;
    const steak = o.items.find((i) => i.name === 'Entrecôte')!;
    expect((await s.call('POST', `/orders/${o.id}/items/${soup.id}/void`, { quantity: 2, reason: 'Gast wil minder' })).statusCode).toBe(200);
    expect((await s.call('POST', `/orders/${o.id}/items/${steak.id}/void`, { quantity: 1, reason: 'Verkeerd ingetoetst' })).statusCode).toBe(200);
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(2);
    const v = s.text(kitchen.tickets[1]!);
    expect(v.inverse).toContain('ANNULERING');
    expect(v.lines).toContain('-2x Tomatensoep');
    expect(v.lines).toContain('Reden: Gast wil minder');
    expect((await s.jobs(`?order_id=${o.id}`)).map((j) => j.kind)).toEqual(['void', 'ticket']);
  });

  it('a printer that is off gets the queued job once when it comes back; back-off is capped; status shows offline with its queue', async () => {
    const s = await setup();
    const kitchen = await s.fake('refuse');
    const k = await s.addPrinter('Keuken', kitchen);
    const events: PrintEvent[] = [];
    s.t.services.printing.onEvent((e) => events.push(e));
    await s.order([{ product_id: s.products.soup.id, quantity: 1 }]);
    await s.deliver();
    let [job] = await s.jobs();
    expect(job!.attempts).toBe(1);
    expect(job!.last_error).toMatch(/weigert de verbinding/);
    // Not due yet: nothing is tried.
    await s.deliver();
    expect((await s.jobs())[0]!.attempts).toBe(1);
    for (let i = 0; i < 5; i += 1) {
      s.t.clock.advance(4000);
      await s.deliver();
    }
    [job] = await s.jobs();
    expect(job!.attempts).toBe(6);
    expect(job!.status).toBe('failed'); // 3 failures and no fallback: failed, still retried
    expect(events.filter((e) => e.name === 'print:failed')).toHaveLength(1);
    const printers = (await s.call('GET', '/printers')).json() as { data: Array<{ id: string; status: string; queued: number; last_error: string }> };
    expect(printers.data[0]).toMatchObject({ id: k.id, status: 'offline', queued: 1 });
    expect(printers.data[0]!.last_error).toMatch(/weigert/);
    await kitchen.setMode('ok');
    s.t.clock.advance(4000); // the cap: never more than 4 s here (60 s by default)
    await s.deliver();
    await s.deliver();
    s.t.clock.advance(60_000);
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(1);
    [job] = await s.jobs();
    expect(job).toMatchObject({ status: 'done' });
    expect(events.filter((e) => e.name === 'print:done')).toHaveLength(1);
  });

  it('a printer that hangs or drops the connection mid-ticket is retried; the ticket arrives whole, once', async () => {
    const s = await setup();
    const kitchen = await s.fake('hang');
    await s.addPrinter('Keuken', kitchen);
    await s.order([{ product_id: s.products.soup.id, quantity: 1 }]);
    await s.deliver();
    let [job] = await s.jobs();
    expect(job!.attempts).toBe(1);
    expect(job!.last_error).toMatch(/time-out/);
    await kitchen.setMode('drop');
    s.t.clock.advance(4000);
    await s.deliver();
    [job] = await s.jobs();
    expect(job!.attempts).toBe(2);
    expect(job!.last_error).toMatch(/verbroken/);
    expect(kitchen.partial.length).toBe(1);
    await kitchen.setMode('ok');
    s.t.clock.advance(4000);
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(1);
    expect(s.text(kitchen.tickets[0]!).lines).toContain('1x Tomatensoep');
    expect((await s.jobs())[0]!.status).toBe('done');
  });

  it('after 3 failed attempts the job moves to the fallback printer, which prints it; print:failed tells the station', async () => {
    const s = await setup();
    const kitchen = await s.fake('refuse');
    const bar = await s.fake();
    const b = await s.addPrinter('Bar', bar);
    const k = await s.addPrinter('Keuken', kitchen, { fallback_printer_id: b.id });
    const events: PrintEvent[] = [];
    s.t.services.printing.onEvent((e) => events.push(e));
    const o = await s.order([{ product_id: s.products.soup.id, quantity: 1 }]);
    await s.deliver();
    s.t.clock.advance(4000);
    await s.deliver();
    expect(bar.tickets).toHaveLength(0);
    s.t.clock.advance(4000);
    await s.deliver(); // the third failure moves it, and the fallback is tried at once
    await s.deliver();
    expect(bar.tickets).toHaveLength(1);
    const t = s.text(bar.tickets[0]!);
    expect(t.lines).toContain('KEUKEN');
    expect(t.lines).toContain('1x Tomatensoep');
    const [job] = await s.jobs();
    expect(job).toMatchObject({ printer_id: k.id, moved_to: b.id, status: 'done', attempts: 3 });
    const failed = events.find((e) => e.name === 'print:failed')!;
    expect(failed.payload).toMatchObject({ job_id: job!.id, printer_id: k.id, printer_name: 'Keuken', order_id: o.id, stations: ['keuken'] });
    expect(failed.payload.error).toMatch(/Verplaatst naar 'Bar'/);
    expect(kitchen.tickets).toHaveLength(0);
  });

  it('print:failed and print:done reach the restaurant’s tablets over the socket; another restaurant hears nothing', async () => {
    const s = await setup();
    const kitchen = await s.fake('refuse');
    const k = await s.addPrinter('Keuken', kitchen);
    const other = await s.t.seedTenant();
    const url = await listen(s.t);
    const ours = await tablet(url, s.staff);
    const theirs = await tablet(url, await other.staffCookie());
    const o = await s.order([{ product_id: s.products.soup.id, quantity: 1 }]);
    await s.deliver();
    for (let i = 0; i < 2; i += 1) {
      s.t.clock.advance(4000);
      await s.deliver();
    }
    const [job] = await s.jobs();
    expect(job).toMatchObject({ status: 'failed', attempts: 3 });
    await until(() => ours.length >= 1);
    expect(ours).toEqual([
      { name: 'print:failed', payload: { job_id: job!.id, printer_id: k.id, printer_name: 'Keuken', order_id: o.id, stations: ['keuken'], error: expect.stringMatching(/^Printer weigert de verbinding/) } },
    ]);
    await kitchen.setMode('ok');
    s.t.clock.advance(4000);
    await s.deliver();
    await until(() => ours.length >= 2);
    expect(ours[1]).toEqual({ name: 'print:done', payload: { job_id: job!.id, printer_id: k.id, printer_name: 'Keuken', order_id: o.id, stations: ['keuken'], error: null } });
    expect(kitchen.tickets).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 100)); // nothing else arrives
    expect(ours).toHaveLength(2);
    expect(theirs).toEqual([]);
  });

  it('a reprint is a new job, logged with who asked, printed with HERDRUK; the original is not sent again', async () => {
    const s = await setup();
    const kitchen = await s.fake();
    await s.addPrinter('Keuken', kitchen);
    await s.order([{ product_id: s.products.soup.id, quantity: 1 }]);
    await s.deliver();
    const [orig] = await s.jobs();
    const res = await s.call('POST', `/print-jobs/${orig!.id}/reprint`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ kind: 'reprint', status: 'queued', requested_by: s.r.staffId, reprint_of: orig!.id });
    await s.deliver();
    expect(kitchen.tickets).toHaveLength(2);
    const again = s.text(kitchen.tickets[1]!);
    expect(again.inverse[0]).toBe('HERDRUK');
    expect(again.lines).toContain('1x Tomatensoep');
    expect((await s.jobs('?status=done')).map((j) => j.kind)).toEqual(['reprint', 'ticket']);
  });

  it('receipts go to the printer with receipts on; without one the till gets a clear 409', async () => {
    const s = await setup();
    await expect(s.t.services.printing.enqueueReceipt(s.r.id, { lines: ['Totaal € 5,00'] })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/geen bonprinter/) });
    const till = await s.fake();
    await s.addPrinter('Kassa', till, { stations: [], receipts: true });
    const job = await s.t.services.printing.enqueueReceipt(s.r.id, { lines: ['Café De Zwaan', 'Totaal € 5,00'] });
    expect(job.kind).toBe('receipt');
    await s.deliver();
    expect(s.text(till.tickets[0]!).lines).toEqual(['Café De Zwaan', 'Totaal € 5,00']);
  });
});
