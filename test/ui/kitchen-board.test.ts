import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { tenantRoom } from '../../server/plugins/realtime.js';
import { freshDb, type TestDb } from '../helpers/db.js';
import { DEMO_ADMIN, DEMO_STAFF, seedDemo } from '../../server/demo/seed.js';
import { axeCheck, describeBrowser, device, launch, shot } from '../helpers/browser.js';
import { screenReady } from '../helpers/ui-restaurant.js';

/**
 * The kitchen board a cook can trust (issue 24, docs/kitchen.md) in Chromium: the card shows options,
 * seat, allergy notes, voids and the held course apart; the course is fired from the board; a new
 * order appears at once with its flash (and a beep when the tablet has the sound on); a bump leaves
 * the board and can be recalled; the bar board shows only drinks; a failed print raises a banner on
 * the matching station's board until dismissed; a web order shows the guest, how it leaves and paid.
 */
describeBrowser('kitchen board in Chromium (sqlite lane only)', () => {
  let rt: Runtime;
  let testDb: TestDb;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const external: string[] = [];
  let tenant: { id: string; slug: string; name: string };
  let staffId: string;
  const PIN = '2468';
  const ids: Record<string, string> = {};
  let tableId: string;

  beforeAll(async () => {
    testDb = await freshDb({ sqliteFile: ':memory:' });
    const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: path.join(tmpdir(), 'restaurant-ui-kitchen') });
    rt = await createRuntime(config, { handle: testDb.handle });
    const s = rt.services;
    const created = await s.tenants.create({ slug: `keuken-${Date.now().toString(36)}`, name: 'Bistro Het Fornuis', admin_email: 'beheer@fornuis.test', admin_password: 'geheim-wachtwoord-1' });
    tenant = created.tenant;
    staffId = (await s.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: PIN, hourly_wage_cents: 1450 })).id;
    const starters = await s.menu.createCategory(tenant.id, { name: 'Voorgerechten', position: 1, course: 1 });
    const mains = await s.menu.createCategory(tenant.id, { name: 'Hoofdgerechten', position: 2, course: 2 });
    const drinks = await s.menu.createCategory(tenant.id, { name: 'Dranken', position: 3, station: 'bar' });
    const sauce = await s.menu.createGroup(tenant.id, { name: 'Saus (kies 1)', min_select: 1, max_select: 1, options: [{ name: 'Pepersaus', price_delta_cents: 150 }, { name: 'Stroganoffsaus' }] });
    const done = await s.menu.createGroup(tenant.id, { name: 'Garing', min_select: 1, max_select: 1, options: [{ name: 'Medium' }, { name: 'Rood' }] });
    ids.pepper = sauce.options[0]!.id;
    ids.medium = done.options[0]!.id;
    ids.soup = (await s.menu.createProduct(tenant.id, { name: 'Tomatensoep', price_cents: 650, category_id: starters.id, allergens: ['gluten', 'celery'] })).id;
    ids.satay = (await s.menu.createProduct(tenant.id, { name: 'Saté van kip', price_cents: 950, category_id: starters.id, allergens: ['peanuts', 'soybeans'] })).id;
    ids.steak = (await s.menu.createProduct(tenant.id, { name: 'Biefstuk', price_cents: 2250, category_id: mains.id, modifier_group_ids: [sauce.id, done.id], allergens: ['milk'] })).id;
    ids.cola = (await s.menu.createProduct(tenant.id, { name: 'Cola', price_cents: 300, category_id: drinks.id })).id;
    const zone = await s.floor.createZone(tenant.id, { name: 'Binnen' });
    tableId = (await s.floor.createTable(tenant.id, { zone_id: zone.id, name: '4', seats: 4, x: 10, y: 10 })).id;
    await rt.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = rt.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('geen adres');
    base = `http://127.0.0.1:${addr.port}`;
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close().catch(() => {});
    await rt?.close();
    await testDb?.drop();
  }, 60_000);

  const tablet = (width = 1024, height = 768): Promise<Page> => device(browser, { width, height, external, contexts });
  async function pinLogin(page: Page): Promise<void> {
    await page.goto(`${base}/app/?slug=${tenant.slug}`);
    await expect.poll(() => page.inputValue('#slug')).toBe(tenant.slug);
    for (const d of PIN) await page.click(`.keypad [data-key="${d}"]`);
    await page.click('#pin-submit');
    await page.waitForSelector('#board:not([hidden])');
    await page.waitForSelector('#conn[data-state="live"]');
  }
  const actor = () => ({ tenantId: tenant.id, userId: staffId, via: 'pos' as const });
  const tableOrder = () =>
    rt.services.orders.create(actor(), {
      table_id: tableId,
      notes: 'Allergie: pinda',
      items: [
        { product_id: ids.soup!, quantity: 1, seat: 1 },
        { product_id: ids.satay!, quantity: 1, seat: 2 },
        { product_id: ids.steak!, quantity: 2, seat: 1, modifiers: [{ option_id: ids.pepper!, quantity: 1 }, { option_id: ids.medium!, quantity: 1 }], notes: 'saus apart' },
        { product_id: ids.cola!, quantity: 3 },
      ],
    });

  it('a new order appears at once with its flash and a beep; options, seat, allergy, voids and the held course on the card; the course is fired from the board', async () => {
    const page = await tablet();
    await pinLogin(page);
    // The sound is switched on for this tablet and remembered.
    await page.click('#sound');
    expect(await page.getAttribute('#sound', 'aria-pressed')).toBe('true');
    expect(await page.evaluate(() => localStorage.getItem('kitchen.sound'))).toBe('1');
    const beeps = await page.evaluate(() => (window as unknown as { __kitchenBeeps?: number }).__kitchenBeeps ?? 0);

    const { order } = await tableOrder();
    const card = page.locator(`.card[data-order-id="${order.id}"]`);
    await card.waitFor({ timeout: 2000 });
    expect(await card.getAttribute('class')).toContain('fresh');
    await expect.poll(() => page.evaluate(() => (window as unknown as { __kitchenBeeps?: number }).__kitchenBeeps ?? 0)).toBe(beeps + 1);
    const text = (await card.textContent())!;
    expect(text).toContain('Tafel 4');
    expect(text).toContain('⚠ Allergie: pinda');
    expect(text).toContain('1× S1 Tomatensoep');
    expect(text).toContain('Pepersaus');
    expect(text).toContain('Medium');
    expect(text).toContain('saus apart');
    // The satay contains peanuts: the line says so beside the table's allergy note.
    expect(await card.locator(`.line:has-text("Saté") .allergy-hit`).textContent()).toBe("⚠ Bevat pinda's");
    expect(await card.locator('.line:has-text("Tomatensoep") .seat').textContent()).toBe('S1');
    expect(await card.locator('.line:has-text("Tomatensoep") .al').allTextContents()).toEqual(['Gl', 'Se']);
    // The mains (course 2) are held, apart, with the fire button; the soup went with the order.
    const held = card.locator('.course.held');
    expect(await held.locator('.course-head').textContent()).toBe('Gang 2 — wacht');
    expect(await held.locator('.line-name').allTextContents()).toEqual(['Biefstuk']);
    // A cola keyed in once too often: voided, struck through.
    const cola = order.items.find((i) => i.product_id === ids.cola)!;
    await rt.services.orders.voidItem(actor(), order.id, cola.id, { quantity: 1, reason: 'Verkeerd aangeslagen' });
    await expect.poll(() => card.locator('.line:has-text("Cola") .void-note').textContent()).toBe('1× geannuleerd');
    expect(await card.locator('.line:has-text("Cola") .qty').textContent()).toBe('2× ');
    await shot(page, 'kitchen-1-card-held');
    expect(await axeCheck(page)).toEqual([]);

    await held.locator('button[data-fire="2"]').click();
    await expect.poll(() => card.locator('.course.held').count()).toBe(0);
    await expect.poll(() => card.locator('.course[data-course="2"] .course-head').textContent()).toMatch(/^Gang 2 — gevuurd \d\d:\d\d door Sanne$/);
    const fired = await rt.services.orders.get(tenant.id, order.id);
    expect(fired.items.find((i) => i.product_id === ids.steak)!.held).toBe(false);
    await shot(page, 'kitchen-2-fired');
  }, 90_000);

  it('a bump leaves the board and can be recalled; leaving the board sends the completion', async () => {
    const page = await tablet();
    await pinLogin(page);
    const { order } = await tableOrder();
    await rt.services.orders.setStatus(actor(), order.id, 'ready');
    const card = page.locator(`.column[data-status="ready"] .card[data-order-id="${order.id}"]`);
    await card.waitFor({ timeout: 3000 });
    await card.locator('button[data-action="completed"]').click();
    await expect.poll(() => card.count()).toBe(0);
    const recall = page.locator(`#recall button[data-recall="${order.id}"]`);
    expect(await recall.textContent()).toMatch(/^Terughalen \((60|59) s\)$/);
    await shot(page, 'kitchen-3-bumped');
    // Still ready on the server during the minute: nothing to undo there.
    expect((await rt.services.orders.get(tenant.id, order.id)).status).toBe('ready');
    await recall.click();
    await card.waitFor({ timeout: 2000 });
    expect(await page.locator('#recall').count()).toBe(0);
    expect((await rt.services.orders.get(tenant.id, order.id)).status).toBe('ready');
    // Bumped again, and the cook goes to another screen: the completion is sent at once.
    await card.locator('button[data-action="completed"]').click();
    await page.click('nav a:has-text("Plattegrond")');
    await expect.poll(async () => (await rt.services.orders.get(tenant.id, order.id)).status).toBe('completed');
  }, 60_000);

  it('the bar board shows only drinks, remembered on the tablet; a failed print shows on its station until dismissed; at phone size too', async () => {
    const page = await tablet();
    await pinLogin(page);
    await page.click('#stations button[data-station="bar"]');
    expect(await page.evaluate(() => localStorage.getItem('kitchen.station'))).toBe('bar');
    const { order } = await tableOrder();
    const card = page.locator(`.card[data-order-id="${order.id}"]`);
    await card.waitFor({ timeout: 3000 });
    // The station's own load (started by the click) may show the card before the event's reload marks it new: the flash follows.
    await expect.poll(() => card.getAttribute('class'), { timeout: 3000 }).toContain('fresh');
    expect(await card.locator('.line-name').allTextContents()).toEqual(['Cola']);
    // A status move keeps the bar's lines only.
    await card.locator('button[data-action="accepted"]').click();
    await page.locator(`.column[data-status="accepted"] .card[data-order-id="${order.id}"]`).waitFor();
    expect(await page.locator(`.card[data-order-id="${order.id}"] .line-name`).allTextContents()).toEqual(['Cola']);
    // Remembered after a reload.
    await page.reload();
    await page.waitForSelector('#board:not([hidden])');
    expect(await page.getAttribute('#stations button[data-station="bar"]', 'aria-pressed')).toBe('true');
    await page.waitForSelector('#conn[data-state="live"]');

    // The printers' worker says a bar ticket failed: the bar board shows it; the kitchen's does not.
    // (emitted untyped: the event map gets print:failed with the printers' module)
    const room = rt.app.io.to(tenantRoom(tenant.id)) as unknown as { emit: (name: string, payload: unknown) => void };
    room.emit('print:failed', { job_id: 'job-1', printer_id: 'p-1', printer_name: 'Bar', order_id: order.id, stations: ['bar'], error: 'papier op' });
    const alert = page.locator('.print-alert[data-job-id="job-1"]');
    await alert.waitFor({ timeout: 3000 });
    expect(await alert.locator('span').textContent()).toMatch(/^Bon niet geprint op Bar: papier op \(bestelling K-\d{3}\)$/);
    await shot(page, 'kitchen-4-bar-alert');
    expect(await axeCheck(page)).toEqual([]);
    await page.click('#stations button[data-station="keuken"]');
    expect(await alert.count()).toBe(0);
    // The kitchen's board renders its cards again after the switch: wait for them, do not read mid-render.
    await expect.poll(() => page.locator(`.card[data-order-id="${order.id}"] .line-name`).allTextContents()).toEqual(['Tomatensoep', 'Saté van kip', 'Biefstuk']);
    await page.click('#stations button[data-station="bar"]');
    await alert.waitFor();
    await alert.locator('button.dismiss').click();
    expect(await alert.count()).toBe(0);

    // A phone: the same board, readable.
    const phone = await tablet(390, 844);
    await pinLogin(phone);
    await phone.locator(`.card[data-order-id="${order.id}"]`).waitFor();
    await shot(phone, 'kitchen-5-phone');
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }, 90_000);

  it('a web order shows the guest, how it leaves, the order time and whether it is paid', async () => {
    const page = await tablet();
    await pinLogin(page);
    await page.click('#stations button[data-station=""]');
    const { order } = await rt.services.orders.create({ tenantId: tenant.id, userId: null, via: 'web' }, { items: [{ product_id: ids.soup!, quantity: 2 }], customer: { name: 'Sophie de Wit', phone: '0612345678' }, notes: '[Afhalen] graag extra servetten' });
    await rt.services.orders.markPaid({ tenantId: tenant.id, userId: null, via: 'web' }, order.id, { provider: 'simulator' });
    const card = page.locator(`.card[data-order-id="${order.id}"]`);
    await card.waitFor({ timeout: 3000 });
    await expect.poll(() => card.locator('.paid').textContent()).toBe('✓ Betaald');
    expect(await card.locator('.guest-name').textContent()).toBe('Sophie de Wit');
    expect(await card.locator('.pickup').textContent()).toMatch(/^Afhalen · besteld \d\d:\d\d$/);
    expect(await card.locator('.source').textContent()).toBe('Web');
    expect(await card.locator('.notes').textContent()).toBe('graag extra servetten');
    await shot(page, 'kitchen-6-web');
    expect(external).toEqual([]);
  }, 60_000);

  it('on a busy board each new order comes into view at once; a later event does not pull the column back to it', async () => {
    // Enough tall cards that the Nieuw column scrolls at 1024×768.
    for (let i = 0; i < 5; i += 1) await tableOrder();
    const page = await tablet();
    await pinLogin(page);
    await page.click('#stations button[data-station=""]');
    const cards = page.locator('.column[data-status="new"] .cards');
    await expect.poll(() => cards.evaluate((el) => el.scrollHeight > el.clientHeight + 200)).toBe(true);
    /** The card lies whole inside its column's visible part and inside the window. */
    const inView = (id: string) =>
      page.evaluate((orderId) => {
        const card = document.querySelector(`#columns .card[data-order-id="${orderId}"]`);
        const col = card?.closest('.cards');
        if (!card || !col) return false;
        const c = card.getBoundingClientRect();
        const b = col.getBoundingClientRect();
        return c.top >= b.top - 1 && c.bottom <= b.bottom + 1 && c.bottom <= window.innerHeight + 1;
      }, id);
    const small = async () => (await rt.services.orders.create(actor(), { items: [{ product_id: ids.soup!, quantity: 1 }] })).order;
    const first = await small();
    await page.locator(`.card[data-order-id="${first.id}"].fresh`).waitFor({ timeout: 3000 });
    await expect.poll(() => inView(first.id), { timeout: 3000 }).toBe(true);
    // A second one right after: it lands below the first, and it is the one brought into view.
    const second = await small();
    await page.locator(`.card[data-order-id="${second.id}"].fresh`).waitFor({ timeout: 3000 });
    await expect.poll(() => inView(second.id), { timeout: 3000 }).toBe(true);
    await shot(page, 'kitchen-6b-busy-new');
    const third = await small();
    await expect.poll(() => inView(third.id), { timeout: 3000 }).toBe(true);
    // The cook scrolls back up to the oldest cards; another order moving on the board leaves it there.
    await cards.evaluate((el) => {
      el.scrollTop = 0;
    });
    await rt.services.orders.setStatus(actor(), third.id, 'accepted');
    await page.locator(`.column[data-status="accepted"] .card[data-order-id="${third.id}"]`).waitFor({ timeout: 3000 });
    await page.waitForTimeout(1000);
    expect(await cards.evaluate((el) => el.scrollTop)).toBe(0);
  }, 90_000);

  it('the demo board opens on tonight\'s orders only: the history ended finished, nothing under Niet afgerond', async () => {
    const saved = process.env.DEMO_HISTORY_WEEKS;
    process.env.DEMO_HISTORY_WEEKS = '1';
    let demo: Awaited<ReturnType<typeof seedDemo>>;
    try {
      demo = await seedDemo(rt);
    } finally {
      if (saved === undefined) delete process.env.DEMO_HISTORY_WEEKS;
      else process.env.DEMO_HISTORY_WEEKS = saved;
    }
    const demoId = demo.tenant.id;
    expect(await rt.services.orders.unfinished(demoId)).toEqual([]);
    const live = await rt.services.orders.live(demoId);
    expect(live.length).toBeGreaterThan(3);
    const page = await tablet();
    await page.goto(`${base}/app/?slug=${demo.tenant.slug}`);
    await expect.poll(() => page.inputValue('#slug')).toBe(demo.tenant.slug);
    for (const d of DEMO_STAFF[1]!.pin) await page.click(`.keypad [data-key="${d}"]`);
    await page.click('#pin-submit');
    await page.waitForSelector('#board:not([hidden])');
    await expect.poll(() => page.locator('#columns .card').count(), { timeout: 5000 }).toBe(live.length);
    // Every card is tonight's: minutes, not days.
    const ages = (await page.locator('#columns .card .age').allTextContents()).map((t) => Number.parseInt(t, 10));
    expect(Math.max(...ages)).toBeLessThan(24 * 60);
    // Tonight's first table: its mains held apart with the fire button; the paid web order shows its guest.
    expect(await page.locator('#columns .card .course.held button.fire').count()).toBeGreaterThan(0);
    expect(await page.locator('#columns .card.guest .paid.yes').count()).toBe(1);
    // Every timer has the colour of its minutes: amber from 10, red from 20 (docs/kitchen.md).
    const timers = await page.locator('#columns .card .age').evaluateAll((els) => els.map((e) => [Number.parseInt(e.textContent ?? '', 10), e.className] as const));
    for (const [min, cls] of timers) expect(cls, `${min} min`).toBe(min >= 20 ? 'age late' : min >= 10 ? 'age warn' : 'age');
    await shot(page, 'kitchen-7-demo');
    await page.click('#stations button[data-station="bar"]');
    await expect.poll(() => page.locator('#columns .card').count(), { timeout: 5000 }).toBe((await rt.services.orders.live(demoId, 'bar')).length);
    await shot(page, 'kitchen-8-demo-bar');
    const phone = await tablet(390, 844);
    await phone.goto(`${base}/app/?slug=${demo.tenant.slug}`);
    await expect.poll(() => phone.inputValue('#slug')).toBe(demo.tenant.slug);
    for (const d of DEMO_STAFF[1]!.pin) await phone.click(`.keypad [data-key="${d}"]`);
    await phone.click('#pin-submit');
    await phone.waitForSelector('#columns .card');
    await shot(phone, 'kitchen-9-demo-phone');

    // Beheer → Printers of the demo: Keuken and Bar, offline (nothing listens at their addresses), with
    // tonight's tickets in their queue, as the server counts them.
    await rt.services.printing.deliverDue();
    const printers = await rt.services.printing.listPrinters(demoId);
    expect(printers.map((p) => [p.name, p.status])).toEqual([
      ['Bar', 'offline'],
      ['Keuken', 'offline'],
    ]);
    expect(printers.find((p) => p.name === 'Keuken')!.queued).toBeGreaterThan(0);
    const admin = await tablet(1280, 800);
    await admin.goto(`${base}/app/?slug=${demo.tenant.slug}`);
    await admin.click('#show-admin');
    await admin.fill('#admin-email', DEMO_ADMIN.email);
    await admin.fill('#admin-password', DEMO_ADMIN.password);
    await admin.click('#admin-form [type=submit]');
    await admin.waitForSelector('#conn[data-state="live"]');
    await screenReady(admin, '/beheer/printers', base, demo.tenant.slug);
    for (const p of printers) {
      const row = admin.locator(`#printer-list tr[data-printer="${p.name}"]`);
      expect(await row.locator('td').nth(2).locator('.pill').textContent()).toBe('offline');
      expect(await row.locator('[data-role="last-error"]').textContent()).toMatch(/^Printer weigert de verbinding/);
      expect(await row.locator('[data-role="queued"]').textContent()).toBe(String(p.queued));
    }
    expect(await admin.locator('#job-list tbody tr').count()).toBeGreaterThan(0);
    await shot(admin, 'kitchen-10-demo-printers');
  }, 240_000);
});
