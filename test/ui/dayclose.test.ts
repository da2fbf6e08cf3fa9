import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { axeCheck, closeAfterAll, describeBrowser, shot, SHOT_DIR } from '../helpers/browser.js';
import { screenReady, startUiRestaurant, type UiRestaurant } from '../helpers/ui-restaurant.js';

/**
 * Issue 25 in Chromium: the manager's revenue dashboard shows the figures the API gives, and the
 * manager closes the day: three orders paid through the API (two in cash), a different amount
 * counted in the screen shows the difference while typing, the appliance's sync is behind so the
 * close is refused with the reason and closed anyway ("Toch afsluiten"), and the history shows the
 * close with its difference and its printable page headed by the restaurant. Screenshots at tablet
 * and phone size; axe finds nothing critical or serious.
 */
describeBrowser('revenue and the day close in the back office (issue 25)', () => {
  let r: UiRestaurant;
  const euroFmt = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR' });
  const euro = (cents: number) => euroFmt.format(cents / 100).replace(/\u00a0/g, ' ');
  /** Each row's cells as a person reads them, joined by '|'. */
  const cells = (page: Page, selector: string) =>
    page.evaluate((sel) => Array.from(document.querySelectorAll(sel)).map((tr) => Array.from(tr.children).map((c) => (c.textContent ?? '').replace(/\u00a0/g, ' ').trim()).join('|')), selector);
  const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim();

  /** The whole screen body (on a phone the menu stays on top and the screen scrolls beneath it). */
  const bodyShot = async (page: Page, name: string) => {
    const size = page.viewportSize()!;
    const tall = await page.evaluate(() => document.querySelector('.content')!.scrollHeight);
    await page.setViewportSize({ width: size.width, height: Math.min(6000, size.height + tall) });
    await page.waitForTimeout(100);
    await page.locator('.content .screen-body').screenshot({ path: path.join(SHOT_DIR, `${name}.png`) });
    await page.setViewportSize(size);
  };

  beforeAll(async () => {
    r = await startUiRestaurant('kassa');
    await r.api('PATCH', '/settings', { vat_number: 'NL001234567B01', kvk_number: '12345678' });
    const pay = async (items: Array<{ product_id: string; quantity: number }>, payment: object) => {
      const order = await r.api('POST', '/orders', { items });
      await r.api('POST', `/orders/${order.id}/payments`, payment);
    };
    // Cash expected: 13,00 + 6,50 + 0,50 tip = 20,00; the pin payment is not in the drawer.
    await pay([{ product_id: r.ids.soup!, quantity: 2 }], { amount_cents: 1300, method: 'contant', received_cents: 2000 });
    await pay([{ product_id: r.ids.steak!, quantity: 1 }], { amount_cents: 2250, tip_cents: 200, method: 'pin' });
    await pay([{ product_id: r.ids.soup!, quantity: 1 }], { amount_cents: 650, tip_cents: 50, method: 'contant', received_cents: 1000 });
    // Sanne worked two hours that ended an hour ago (labour for the dashboard).
    const users = await r.api('GET', '/users');
    const sanne = users.data.find((u: { name: string }) => u.name === 'Sanne');
    const now = Date.now();
    await r.api('POST', '/shifts', { user_id: sanne.id, start: new Date(now - 3 * 3_600_000).toISOString(), end: new Date(now - 3_600_000).toISOString() });
  }, 120_000);
  closeAfterAll(() => r);

  it('the revenue dashboard shows the API’s figures: totals, labour %, VAT, methods and the bars’ texts', async () => {
    for (const [w, h] of [[1280, 800], [390, 844]] as const) {
      const page = await r.admin(w, h);
      await screenReady(page, '/beheer/omzet', r.base, r.slug);
      await page.waitForSelector('#chart-hour');
      await page.waitForSelector('#chart-weekday');
      await shot(page, `dayclose-1-revenue-${w}-top`);
      await bodyShot(page, `dayclose-1-revenue-${w}-all`);
      const from = await page.inputValue('#revenue-from');
      const to = await page.inputValue('#revenue-to');
      const api = await r.api('GET', `/analytics/revenue?from=${from}&to=${to}`);
      expect(api.totals.gross_cents).toBe(4200);
      expect(await text(page, '#kpi-gross .kpi-value')).toBe(euro(api.totals.gross_cents));
      expect(await text(page, '#kpi-net .kpi-value')).toBe(euro(api.totals.net_cents));
      expect(await text(page, '#kpi-orders .kpi-value')).toBe('3');
      expect(await text(page, '#kpi-avg .kpi-value')).toBe(euro(api.totals.avg_ticket_cents));
      expect(await text(page, '#kpi-tips .kpi-value')).toBe(euro(250));
      expect(api.labour_cents).toBe(2900);
      expect(await text(page, '#kpi-labour .kpi-value')).toBe(euro(2900));
      expect(await text(page, '#kpi-labour-percent .kpi-value')).toBe(`${String(api.labour_percent).replace('.', ',')} %`);
      expect(await text(page, '#revenue-vat tbody')).toContain(euro(api.vat[0].vat_cents));
      expect(await cells(page, '#revenue-methods tbody tr')).toEqual([`Contant|2|${euro(1950)}|${euro(50)}`, `Pin|1|${euro(2250)}|${euro(200)}`]);
      // Every bar's figure is text for a screen reader, equal to the API's per hour.
      const hours = await r.api('GET', `/analytics/revenue?from=${from}&to=${to}&group=hour`);
      for (const row of hours.data.filter((x: { orders: number }) => x.orders > 0)) {
        expect(await text(page, `#chart-hour li[data-key="${row.key}"] .sr-only`)).toContain(euro(row.gross_cents));
      }
      const today = await text(page, `#chart-day li:last-child .sr-only`);
      expect(today).toContain(euro(api.data[api.data.length - 1].gross_cents));
      // A preset changes the period; the table alternative opens.
      await page.click('.presets button:has-text("Vandaag")');
      await expect.poll(() => page.inputValue('#revenue-from')).toBe(to);
      await page.click('#chart-weekday summary');
      await shot(page, `dayclose-1-revenue-${w}-today-table`);
      expect(await axeCheck(page)).toEqual([]);
      await page.context().close();
    }
  }, 90_000);

  it('the manager counts a different amount, sees the difference, closes despite the sync being behind, and finds the close in the history', async () => {
    const page = await r.admin(1280, 800);
    await screenReady(page, '/beheer/dagafsluiting', r.base, r.slug);
    expect(await text(page, '#x-gross .kpi-value')).toBe(euro(4200));
    expect(await text(page, '#x-orders .kpi-value')).toBe('3');
    expect(await text(page, '#cash-expected .kpi-value')).toBe(euro(2000));
    expect(await text(page, '#close-history-empty')).toBe('Nog geen dag afgesloten.');
    // The difference while typing.
    const counted = page.getByLabel('Geteld contant geld (€)');
    await counted.fill('18,50');
    await expect.poll(() => text(page, '#cash-difference .kpi-value')).toBe(`− ${euro(150)} (te weinig)`);
    await counted.fill('20');
    await expect.poll(() => text(page, '#cash-difference .kpi-value')).toBe(`${euro(0)} (klopt)`);
    await counted.fill('');
    await page.click('#close-submit');
    await expect.poll(() => text(page, '#close-form')).toContain('Geteld contant geld (€) is verplicht.');
    await counted.fill('18,50');
    expect(await axeCheck(page)).toEqual([]);
    await shot(page, 'dayclose-2-count-1280');
    const counting = await r.admin(390, 844);
    await screenReady(counting, '/beheer/dagafsluiting', r.base, r.slug);
    await counting.getByLabel('Geteld contant geld (€)').fill('18,50');
    await bodyShot(counting, 'dayclose-2-count-390');
    expect(await axeCheck(counting)).toEqual([]);
    await counting.context().close();

    // The appliance's sync with the cloud is two hours behind: refused with the reason, then forced.
    await r.rt.services.sync.board.report(r.tenantId, { enabled: true, started: true, online: false, lastSuccessAt: new Date(Date.now() - 2 * 3_600_000).toISOString() });
    await page.click('#close-submit');
    await page.waitForSelector('#confirm-dialog');
    expect(await text(page, '#confirm-dialog')).toContain(`verschil − ${euro(150)} (te weinig)`);
    await page.click('#confirm-yes');
    await page.waitForSelector('#close-behind');
    expect(await text(page, '#close-behind')).toMatch(/De dag kan nog niet worden afgesloten: de laatste geslaagde synchronisatie met de cloud is van 120 minuten geleden/);
    expect(await r.api('GET', '/day-closes')).toMatchObject({ total: 0 });
    await shot(page, 'dayclose-3-behind-1280');
    await page.click('#close-force');
    await page.waitForSelector('#confirm-dialog');
    await page.click('#confirm-yes');
    const row = page.locator('#close-history tr[data-close="1"]');
    await row.waitFor();
    expect((await row.textContent())!.replace(/\u00a0/g, ' ')).toContain(`− ${euro(150)} (te weinig)`);
    expect(await row.textContent()).toContain('met voorrang');
    // The closed day shows its Z report (not a preview that would count only what came after it).
    await page.waitForSelector('#close-done');
    expect(await text(page, '#x-title')).toContain('Afgesloten (Z-rapport nr. 1)');
    expect(await text(page, '#x-gross .kpi-value')).toBe(euro(4200));
    expect(await text(page, '#close-done')).toContain(`geteld ${euro(1850)}, kasverschil − ${euro(150)} (te weinig)`);
    const closes = await r.api('GET', '/day-closes');
    expect(closes.data[0]).toMatchObject({ number: 1, forced: true, cash_expected_cents: 2000, cash_counted_cents: 1850, cash_difference_cents: -150, orders: { count: 3, gross_cents: 4200 } });
    // The printable page and the CSV behind the links: headed by the restaurant, not "Kassa".
    const printHref = await row.locator('a:has-text("Afdruk")').getAttribute('href');
    const printed = await page.evaluate(async (href) => (await fetch(href!)).text(), printHref);
    expect(printed).toContain('<h1>Brasserie De Beheerder</h1>');
    expect(printed).toContain('Lepelstraat 1, 1011 AB Amsterdam');
    expect(printed).toContain('BTW NL001234567B01');
    const csv = await page.evaluate(async (href) => (await fetch(href!)).text(), await row.locator('a:has-text("CSV")').getAttribute('href'));
    expect(csv).toContain('Kasverschil;-1,50');
    expect(await axeCheck(page)).toEqual([]);
    await shot(page, 'dayclose-4-closed-1280');

    // The printable page as the accountant sees it.
    const paper = await r.admin(420, 1100);
    await paper.goto(`${r.base}${printHref}`);
    await paper.waitForSelector('h1');
    await shot(paper, 'dayclose-6-print');
    await paper.context().close();

    const phone = await r.admin(390, 844);
    await screenReady(phone, '/beheer/dagafsluiting', r.base, r.slug);
    await phone.waitForSelector('#close-history tr[data-close="1"]');
    await bodyShot(phone, 'dayclose-5-closed-390');
    expect(await axeCheck(phone)).toEqual([]);
  }, 90_000);
});
