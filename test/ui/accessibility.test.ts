import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeCheck, type AxeFinding, closeAfterAll, describeBrowser, shot } from '../helpers/browser.js';
import { screenReady, startUiRestaurant, type UiRestaurant } from '../helpers/ui-restaurant.js';

/**
 * Issue 26: axe-core (injected from node_modules) on every staff-app screen, its dialogs and every
 * guest page: no critical and no serious violation. Each screen also has its own title, and none
 * shows "Laden…" once its data is there.
 */
describeBrowser('accessibility of every screen (axe-core, issue 26)', () => {
  let r: UiRestaurant;
  /** Every screen of main.js's SCREENS (the admin sees them all). */
  const SCREENS = [
    ['/keuken', 'Keuken'], ['/bestellen', 'Nieuwe bestelling'], ['/vloer', 'Plattegrond'], ['/reserveringen', 'Reserveringen'], ['/haccp', 'Temperaturen'],
    ['/controlelijsten', 'Controlelijsten'], ['/voorraad', 'Voorraad'], ['/klanten', 'Klanten en punten'], ['/diensten', 'In- en uitklokken'],
    ['/beheer/inzichten', 'Inzichten'], ['/beheer/omzet', 'Omzet'], ['/beheer/dagafsluiting', 'Dagafsluiting'], ['/beheer/menu', 'Menu en recepten'], ['/beheer/opties', 'Keuzes en opties'], ['/beheer/tafels', 'Tafels'], ['/beheer/medewerkers', 'Medewerkers'],
    ['/beheer/diensten', 'Diensten en loon'], ['/beheer/voedselveiligheid', 'Koelcellen en lijsten'], ['/beheer/locaties', 'Locaties'], ['/beheer/printers', 'Printers'],
    ['/beheer/koppelingen', 'API-sleutels en webhooks'], ['/beheer/instellingen', 'Instellingen'],
  ] as const;
  const found: Record<string, AxeFinding[]> = {};
  const check = async (page: Page, name: string) => {
    const v = await axeCheck(page);
    if (v.length) found[name] = v;
  };

  beforeAll(async () => {
    r = await startUiRestaurant('toegang');
    // Something on every screen: a booking, an order on a table, a shift, a webhook-free key.
    await r.api('POST', '/reservations', { date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10), time: '19:00', party_size: 2, name: 'Familie Bakker', phone: '0612312312' });
    await r.api('POST', '/orders', { items: [{ product_id: r.ids.soup, quantity: 2 }], table_id: r.ids.t2 });
    await r.api('POST', '/api-keys', { name: 'Bezorgplatform', scopes: ['read'] });
    // Issue 23: a forced sauce group on the steak, allergens on the soup's tomatoes.
    const sauce = await r.api('POST', '/modifier-groups', { name: 'Saus (kies 1)', min_select: 1, max_select: 1, options: [{ name: 'Pepersaus', price_delta_cents: 150 }, { name: 'Kruidenboter', ingredient_product_id: r.ids.tomatoes, ingredient_quantity: 0.01 }] });
    await r.api('PATCH', `/products/${r.ids.steak}`, { modifier_group_ids: [sauce.id], allergens: ['mustard'], course: 2 });
    await r.api('PATCH', `/products/${r.ids.tomatoes}`, { allergens: ['celery'] });
  }, 120_000);
  closeAfterAll(() => r);

  it('the login page', async () => {
    const page = await r.open(1024, 768);
    await page.goto(`${r.base}/app/?slug=${r.slug}`);
    await page.waitForSelector('#pin-form');
    expect(await page.title()).toBe('Inloggen · Restaurant');
    // The checker itself finds what it should: an input without a label is a critical finding.
    const probe = await r.open(400, 300);
    await probe.setContent('<html lang="nl"><title>x</title><main><input></main></html>');
    expect((await axeCheck(probe)).map((f) => f.id)).toContain('label');
    await check(page, 'login');
    await page.click('#show-admin');
    await check(page, 'login-admin');
    expect(found).toEqual({});
  }, 60_000);

  it('every staff-app screen at tablet size: own title, no "Laden…", no critical or serious finding', async () => {
    const page = await r.admin(1280, 800);
    for (const [hash, label] of SCREENS) {
      if (hash === '/bestellen') {
        await page.goto(`${r.base}/app/?slug=${r.slug}#${hash}`);
        await page.waitForSelector('#order-panel #products .product');
      } else await screenReady(page, hash, r.base, r.slug);
      await page.waitForTimeout(150);
      expect(await page.title()).toBe(`${label} · Brasserie De Beheerder`);
      expect(await page.textContent('body'), hash).not.toContain('Laden…');
      await check(page, hash);
    }
    expect(found).toEqual({});
  }, 120_000);

  it('the dialogs: product, booking, table, shift, unit, PIN, a confirmation; and a form showing its errors', async () => {
    const page = await r.admin(1280, 800);
    const dialogs: Array<[string, string, string]> = [
      ['/beheer/menu', '#products-admin tr[data-product="Tomatensoep"] [data-action="edit"]', '#product-dialog'],
      ['/beheer/opties', '#new-group', '#group-dialog'],
      ['/beheer/opties', '#groups tr[data-group="Saus (kies 1)"] [data-action="edit"]', '#group-dialog'],
      ['/reserveringen', '#new-booking', '#booking-dialog'],
      ['/beheer/tafels', '#new-table', '#table-edit-dialog'],
      ['/beheer/printers', '#new-printer', '#printer-dialog'],
      ['/beheer/diensten', '#new-shift', '#shift-dialog'],
      ['/beheer/voedselveiligheid', '#new-unit', '#unit-dialog'],
      ['/beheer/medewerkers', '#user-list tr[data-user="Sanne"] [data-action="pin"]', '#pin-dialog'],
      ['/beheer/medewerkers', '#user-list tr[data-user="Sanne"] [data-action="delete"]', '#confirm-dialog'],
      ['/vloer', '.floor-table[data-table="2"]', '#table-dialog'],
    ];
    for (const [hash, opener, dialog] of dialogs) {
      await screenReady(page, hash, r.base, r.slug);
      await page.click(opener);
      await page.waitForSelector(dialog);
      await page.waitForFunction(() => !document.querySelector('.loading'));
      await check(page, `${hash} ${dialog}`);
      // Errors shown (an empty required field): still accessible, tied to the field.
      const submit = page.locator(`${dialog} form [type=submit]`);
      if ((await submit.count()) === 1 && !['#product-dialog', '#table-dialog'].includes(dialog) && !opener.includes('[data-action="edit"]')) {
        // Empty a required field: a dialog whose fields all have defaults (the shift's 17:00–23:00 today)
        // would otherwise be saved, or refused by the server depending on the time of day.
        const required = page.locator(`${dialog} form input[required]:not([type=date])`).first();
        if ((await required.count()) === 1) await required.fill('');
        await submit.click();
        await page.waitForSelector(`${dialog} .field-error, ${dialog} .error[role=alert]`);
        await check(page, `${hash} ${dialog} with errors`);
      }
      if (dialog === '#booking-dialog') await shot(page, 'a11y-booking-dialog-errors');
      await page.keyboard.press('Escape');
      await page.waitForSelector(dialog, { state: 'detached' });
    }
    // Issue 23: the order pad's choices for a dish with a forced sauce, and a line's seat, course and note.
    await page.goto(`${r.base}/app/?slug=${r.slug}#/bestellen`);
    await page.waitForSelector('#order-panel #products .product');
    await page.click('#category-tabs button:has-text("Hoofdgerechten")');
    await page.click('.product:has-text("Biefstuk")');
    await page.waitForSelector('#choices');
    await check(page, 'order pad choices');
    await page.click('#choices [data-option="Pepersaus"]');
    await page.click('#choices-add');
    await page.click('#draft-lines li:has-text("Biefstuk") button.link');
    await check(page, 'order pad line with seat, course and note');
    expect(found).toEqual({});
  }, 120_000);

  it('every guest page on a phone, in Dutch and in English', async () => {
    const page = await r.open(390, 844);
    const order = await r.rt.app.inject({ method: 'POST', url: `/api/v1/public/order/${r.slug}`, payload: { items: [{ product_id: r.ids.soup, quantity: 1 }], customer: { name: 'Gast', phone: '0612345678' }, type: 'pickup' } });
    const orderId = order.statusCode === 201 ? order.json().order.id : null;
    const table = (await r.api('GET', '/floorplan/qr-codes')).zones[0]?.tables[0];
    const pages = [`/g/${r.slug}/`, `/g/${r.slug}/reserveren`, ...(orderId ? [`/g/${r.slug}/bestelling/${orderId}`] : []), ...(table?.url ? [new URL(table.url, r.base).pathname] : [])];
    for (const lang of ['nl', 'en']) {
      for (const path of pages) {
        await page.goto(`${r.base}${path}`);
        await page.waitForSelector('main.page');
        await page.waitForFunction(() => !document.querySelector('#root .loading'));
        if (lang === 'en' && !(await page.textContent('#lang'))?.includes('Nederlands')) await page.click('#lang');
        expect(await page.textContent('body'), path).not.toContain('Laden…');
        expect(await page.title()).not.toBe('Bestellen');
        await check(page, `${lang} ${path}`);
      }
    }
    await page.goto(`${r.base}/g/${r.slug}/`);
    await page.waitForSelector('#menu-page');
    await shot(page, 'a11y-guest-menu-390');
    // Issue 23: the allergen filter in use and the options sheet before "add".
    await page.click('#allergen-filter [data-exclude="gluten"]');
    await page.waitForSelector('#filter-note');
    await page.click('.dish[data-dish="Biefstuk"] .add');
    await page.waitForSelector('#options-sheet');
    await check(page, 'guest options sheet');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#options-sheet', { state: 'detached' });
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(found).toEqual({});
  }, 120_000);
});
