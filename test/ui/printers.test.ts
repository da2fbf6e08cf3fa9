import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeCheck, describeBrowser, shot } from '../helpers/browser.js';
import { screenReady, startUiRestaurant, type UiRestaurant } from '../helpers/ui-restaurant.js';
import { startFakePrinter, type FakePrinter } from '../helpers/fake-printer.js';
import { decodeEscPos } from '../helpers/escpos.js';

/**
 * Issue 24, the printer screen (Beheer → Printers) in Chromium: a printer added with an error shown
 * beside its field in the form's Dutch label; the kitchen printer online, the bar printer offline
 * with its last error and queue; a test page and a reprint (HERDRUK) from the screen arrive on the
 * fake printer. Screenshots at tablet and phone size.
 */
describeBrowser('the printer screen (issue 24)', () => {
  let r: UiRestaurant;
  let kitchen: FakePrinter;
  let bar: FakePrinter;
  beforeAll(async () => {
    r = await startUiRestaurant('printers');
    kitchen = await startFakePrinter();
    bar = await startFakePrinter({ mode: 'refuse' });
  }, 120_000);
  afterAll(async () => {
    await kitchen?.close();
    await bar?.close();
    await r?.close();
    expect(r?.external ?? []).toEqual([]);
    expect(r?.pageErrors ?? []).toEqual([]);
  }, 60_000);

  it('adds a printer, shows status, last error and queue, prints a test page and a reprint', async () => {
    const page = await r.admin(1280, 800);
    await screenReady(page, '/beheer/printers', r.base, r.slug);
    expect(await page.textContent('#no-printers')).toContain('Nog geen printers');
    await page.click('#new-printer');
    const form = page.locator('#printer-form');
    await form.getByLabel('Naam', { exact: true }).fill('Keuken');
    await form.getByLabel('IP-adres of hostnaam').fill('http://printer');
    await form.getByLabel('Poort').fill(String(kitchen.port));
    await form.getByLabel('Stations').fill('keuken');
    await form.locator('[type=submit]').click();
    await expect.poll(() => form.locator('.field-error').first().textContent()).toMatch(/^IP-adres of hostnaam moet een IP-adres of hostnaam zijn/);
    await form.getByLabel('IP-adres of hostnaam').fill('127.0.0.1');
    await form.locator('[type=submit]').click();
    await page.waitForSelector('#printer-list tr[data-printer="Keuken"]');

    // The bar printer is off; a drink and a soup are ordered.
    const drinks = await r.api('POST', '/categories', { name: 'Dranken', station: 'bar' });
    const beer = await r.api('POST', '/products', { name: 'Bier', price_cents: 400, category_id: drinks.id });
    await r.api('POST', '/printers', { name: 'Bar', host: '127.0.0.1', port: bar.port, width_mm: 58, stations: ['bar'] });
    await r.api('POST', '/orders', { items: [{ product_id: r.ids.soup, quantity: 2 }, { product_id: beer.id, quantity: 3 }], table_id: r.ids.t2 });
    await kitchen.waitForTickets(1);
    expect(decodeEscPos(kitchen.tickets[0]!).lines).toContain('2x Tomatensoep');
    await screenReady(page, '/beheer/printers', r.base, r.slug);
    const barRow = page.locator('#printer-list tr[data-printer="Bar"]');
    await expect.poll(async () => (await barRow.textContent()) ?? '', { timeout: 15_000 }).toContain('offline');
    expect(await barRow.locator('[data-role="last-error"]').textContent()).toMatch(/weigert de verbinding/);
    expect(await barRow.locator('[data-role="queued"]').textContent()).toBe('1');
    const kitchenRow = page.locator('#printer-list tr[data-printer="Keuken"]');
    await expect.poll(async () => (await kitchenRow.textContent()) ?? '').toContain('online');
    await shot(page, 'printers-tablet');
    expect(await axeCheck(page)).toEqual([]);

    // A test page from the screen.
    await kitchenRow.locator('[data-action="test"]').click();
    await kitchen.waitForTickets(2);
    expect(decodeEscPos(kitchen.tickets[1]!).lines).toContain('TESTBON');
    // A reprint of the kitchen ticket: printed with HERDRUK.
    const ticketRow = page.locator('#job-list tr[data-kind="ticket"]').filter({ hasText: 'geprint' });
    await ticketRow.first().locator('[data-action="reprint"]').click();
    await kitchen.waitForTickets(3);
    const again = decodeEscPos(kitchen.tickets[2]!);
    expect(again.inverse[0]).toBe('HERDRUK');
    expect(again.lines).toContain('2x Tomatensoep');
    await expect.poll(async () => (await page.textContent('#job-list')) ?? '').toContain('Herdruk');

    const phone = await r.admin(390, 844);
    await screenReady(phone, '/beheer/printers', r.base, r.slug);
    // On a phone the menu comes first: the shot is of the printers themselves, and the page does not scroll sideways.
    await phone.locator('#printer-list').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    expect(await phone.locator('#printer-list tr[data-printer="Bar"] [data-role="last-error"]').isVisible()).toBe(true);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(phone, 'printers-phone');
  }, 120_000);
});
