import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeCheck, closeAfterAll, describeBrowser, shot } from '../helpers/browser.js';
import { screenReady, startUiRestaurant, type UiRestaurant } from '../helpers/ui-restaurant.js';

/**
 * The manager's and the staff's screens on a phone (390×844) and still right on a tablet
 * (1024×768, 768×1024) (docs/staff-app.md "Phones"): on a phone the menu is closed behind the top
 * bar's "Menu" button and the screen's heading is in view; the restaurant's and the person's names
 * are readable; no screen is wider than the phone (the page, the screen's scroll area and every table
 * region), tables (the day-close history among them) showing each row as a card; the menu opens and
 * closes by keyboard with aria-expanded and the focus where it belongs. On a landscape tablet the
 * menu is the column on the left.
 */
describeBrowser('the staff app on a phone and a tablet', () => {
  let r: UiRestaurant;
  /** Every screen in the menu (main.js SCREENS with nav), as the admin sees it. */
  const SCREENS = [
    ['/keuken', 'Keuken'], ['/vloer', 'Plattegrond'], ['/reserveringen', 'Reserveringen'], ['/haccp', 'Temperaturen'], ['/controlelijsten', 'Controlelijsten'],
    ['/voorraad', 'Voorraad'], ['/klanten', 'Klanten en punten'], ['/diensten', 'In- en uitklokken'],
    ['/beheer/inzichten', 'Inzichten'], ['/beheer/omzet', 'Omzet'], ['/beheer/dagafsluiting', 'Dagafsluiting'], ['/beheer/menu', 'Menu en recepten'], ['/beheer/opties', 'Keuzes en opties'],
    ['/beheer/tafels', 'Tafels'], ['/beheer/medewerkers', 'Medewerkers'], ['/beheer/diensten', 'Diensten en loon'], ['/beheer/voedselveiligheid', 'Koelcellen en lijsten'],
    ['/beheer/locaties', 'Locaties'], ['/beheer/printers', 'Printers'], ['/beheer/koppelingen', 'API-sleutels en webhooks'], ['/beheer/instellingen', 'Instellingen'],
  ] as const;

  /** What a person sees of the frame: the menu, its button, the heading, the names, anything wider than the screen. */
  const frame = (page: Page) =>
    page.evaluate(() => {
      const box = (sel: string) => {
        const el = document.querySelector(sel);
        if (!el) return null;
        const b = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        return { top: b.top, bottom: b.bottom, left: b.left, right: b.right, width: b.width, visible: style.display !== 'none' && style.visibility !== 'hidden' && b.width > 0 && b.height > 0 };
      };
      /** How many characters of an element's text can be seen (an ellipsized name shows the part that fits). */
      const shown = (sel: string) => {
        const el = document.querySelector(sel) as HTMLElement;
        const text = (el.textContent ?? '').trim();
        return { shown: el.scrollWidth <= el.clientWidth ? text.length : Math.floor((text.length * el.clientWidth) / el.scrollWidth), of: text.length };
      };
      // Anything wider than its box: the page, the screen's scroll area, a table's region.
      const wide = [document.documentElement, ...Array.from(document.querySelectorAll('.content, .table-wrap'))]
        .filter((el) => el.scrollWidth > el.clientWidth + 1)
        .map((el) => `${el === document.documentElement ? 'page' : el.className} ${el.scrollWidth} > ${el.clientWidth}`);
      if (document.documentElement.scrollWidth > window.innerWidth) wide.push(`page ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
      return {
        inner: { width: window.innerWidth, height: window.innerHeight },
        nav: box('#nav'),
        button: box('#menu-button'),
        expanded: document.querySelector('#menu-button')?.getAttribute('aria-expanded'),
        heading: box('.content :is(h1, h2)'), // the screen's first heading (the kitchen board's first column has no h1 above it)
        tenant: shown('#tenant-name'),
        user: shown('.who-user'),
        who: shown('.who'),
        wide,
        focus: document.activeElement ? `${document.activeElement.tagName.toLowerCase()}${document.activeElement.id ? `#${document.activeElement.id}` : ''} ${(document.activeElement.textContent ?? '').trim().slice(0, 40)}` : '',
      };
    });

  beforeAll(async () => {
    r = await startUiRestaurant('telefoon');
    // Something in every table: a closed day in the history, shifts, a key, a booking, stock.
    await r.api('POST', '/orders', { items: [{ product_id: r.ids.soup, quantity: 1 }], table_id: r.ids.t2 });
    const order = await r.api('POST', '/orders', { items: [{ product_id: r.ids.soup, quantity: 2 }, { product_id: r.ids.steak, quantity: 1 }] });
    await r.api('POST', `/orders/${order.id}/payments`, { amount_cents: 3550, tip_cents: 150, method: 'contant', received_cents: 4000 });
    await r.api('POST', '/day-closes', { cash_counted_cents: 3650 });
    const users = await r.api('GET', '/users');
    const sanne = users.data.find((u: { name: string }) => u.name === 'Sanne');
    const now = Date.now();
    await r.api('POST', '/shifts', { user_id: sanne.id, start: new Date(now - 5 * 3_600_000).toISOString(), end: new Date(now - 3_600_000).toISOString() });
    await r.api('POST', '/api-keys', { name: 'Bezorgplatform', scopes: ['read'] });
    await r.api('POST', '/reservations', { date: new Date(now + 86_400_000).toISOString().slice(0, 10), time: '19:00', party_size: 2, name: 'Familie Bakker', phone: '0612312312' });
    await r.api('POST', '/stock', { product_id: r.ids.tomatoes, location_id: r.ids.kitchen, type: 'INTAKE', quantity: 5, note: 'levering van de groenteboer' });
  }, 120_000);
  closeAfterAll(() => r);

  it('390×844: the menu is closed, the heading in view, the names readable, and nothing wider than the phone on any screen', async () => {
    const page = await r.admin(390, 844);
    const problems: string[] = [];
    for (const [hash] of SCREENS) {
      await screenReady(page, hash, r.base, r.slug);
      if (hash === '/beheer/dagafsluiting') await page.waitForSelector('#close-history tr[data-close="1"]');
      await page.waitForTimeout(200);
      const f = await frame(page);
      expect(f.expanded, hash).toBe('false');
      expect(f.nav?.visible, `${hash}: the menu is closed`).toBe(false);
      expect(f.button?.visible, `${hash}: the Menu button`).toBe(true);
      expect(f.heading, `${hash}: a heading`).not.toBeNull();
      expect(f.heading!.top, `${hash}: the heading starts in view`).toBeGreaterThanOrEqual(0);
      expect(f.heading!.bottom, `${hash}: the heading is in view`).toBeLessThanOrEqual(f.inner.height / 2);
      // The names: never cut to a letter or two.
      expect(f.tenant.of).toBe('Brasserie De Beheerder'.length);
      expect(f.tenant.shown, `${hash}: the restaurant's name`).toBeGreaterThanOrEqual(12);
      expect(f.user.shown, `${hash}: the person's name`).toBeGreaterThanOrEqual('Beheerder'.length);
      if (f.wide.length) problems.push(`${hash}: ${f.wide.join(', ')}`);
      await shot(page, `phone-${hash.replace(/^\//, '').replace(/\//g, '-')}-390`);
    }
    expect(problems).toEqual([]);
    // The day-close history as cards: each cell with its column's name beside it, for a person (not read twice by a screen reader).
    await screenReady(page, '/beheer/dagafsluiting', r.base, r.slug);
    const row = page.locator('#close-history tr[data-close="1"]');
    await row.waitFor();
    expect(await row.evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
    const cells = await row.evaluate((tr) => Array.from(tr.children).map((c) => `${c.getAttribute('data-label')}=${(c.textContent ?? '').replace(/\s+/g, ' ').trim()}`));
    expect(cells[0]).toBe('Nr.=Nr. 1');
    expect(cells).toContainEqual(expect.stringMatching(/^Verschil=/));
    expect(cells).toContainEqual(expect.stringMatching(/^Stukken=Afdruk · CSV$/));
    const box = await row.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await axeCheck(page)).toEqual([]);
    await page.context().close();
  }, 180_000);

  it('390×844: the menu opens from its button, takes the focus, closes with Escape, a tap beside it or tabbing out, and choosing a screen shows it', async () => {
    const page = await r.admin(390, 844);
    await screenReady(page, '/beheer/omzet', r.base, r.slug);
    // By keyboard: the button opens it, the focus goes to the current screen's entry.
    await page.focus('#menu-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#nav.open');
    let f = await frame(page);
    expect(f.expanded).toBe('true');
    expect(f.nav!.visible).toBe(true);
    const bar = (await page.locator('.topbar').boundingBox())!;
    expect(f.nav!.top).toBeGreaterThanOrEqual(bar.y + bar.height - 1); // under the top bar, which stays in view
    expect(f.nav!.right).toBeLessThanOrEqual(390);
    expect(f.focus).toBe('a Omzet');
    expect(await page.getAttribute('#nav a[aria-current="page"]', 'href')).toBe('#/beheer/omzet');
    await shot(page, 'phone-menu-open-390');
    expect(await axeCheck(page)).toEqual([]);
    // Escape: closed, the focus back on the button.
    await page.keyboard.press('Escape');
    f = await frame(page);
    expect([f.expanded, f.nav!.visible, f.focus]).toEqual(['false', false, 'button#menu-button Menu']);
    // A tap beside it closes it.
    await page.click('#menu-button');
    await page.waitForSelector('#nav.open');
    await page.mouse.click(380, 600);
    await page.waitForSelector('#nav.open', { state: 'detached' });
    expect((await frame(page)).expanded).toBe('false');
    // Tabbing past its last entry closes it.
    await page.click('#menu-button');
    await page.waitForSelector('#nav.open');
    await page.focus('#nav a:last-child');
    await page.keyboard.press('Tab');
    await page.waitForSelector('#nav.open', { state: 'detached' });
    // The button toggles.
    await page.click('#menu-button');
    await page.waitForSelector('#nav.open');
    await page.click('#menu-button');
    await page.waitForSelector('#nav.open', { state: 'detached' });
    // Choosing a screen: the menu closes, the screen shows with its heading in view, the focus on the screen.
    await page.click('#menu-button');
    await page.click('#nav a:has-text("Dagafsluiting")');
    await page.waitForSelector('.content h1:has-text("Dagafsluiting")');
    f = await frame(page);
    expect([f.expanded, f.nav!.visible]).toEqual(['false', false]);
    expect(f.focus).toMatch(/^main#main/);
    expect(f.heading!.bottom).toBeLessThanOrEqual(844 / 2);
    expect(new URL(page.url()).hash).toBe('#/beheer/dagafsluiting');
    // A staff member's menu on a phone: the same button, only the floor's screens.
    const staff = await r.staff(390, 844);
    await staff.click('#menu-button');
    await staff.waitForSelector('#nav.open');
    expect(await staff.locator('#nav a').allTextContents()).toEqual(['Keuken', 'Plattegrond', 'Reserveringen', 'Temperaturen', 'Controlelijsten', 'Voorraad', 'Klanten en punten', 'In- en uitklokken']);
    await shot(staff, 'phone-staff-menu-open-390');
    await staff.keyboard.press('Escape');
    f = await frame(staff);
    expect(f.user).toEqual({ shown: 5, of: 5 });
    expect(f.heading!.bottom).toBeLessThanOrEqual(844 / 2);
    await page.context().close();
    await staff.context().close();
  }, 120_000);

  it('1024×768: the menu is the column on the left, no Menu button; 768×1024: closed behind the button; nothing wider than the tablet', async () => {
    const landscape = await r.admin(1024, 768);
    const portrait = await r.admin(768, 1024);
    const problems: string[] = [];
    for (const [hash] of SCREENS) {
      for (const page of [landscape, portrait]) {
        await screenReady(page, hash, r.base, r.slug);
        if (hash === '/beheer/dagafsluiting') await page.waitForSelector('#close-history tr[data-close="1"]');
        await page.waitForTimeout(100);
        const f = await frame(page);
        if (f.inner.width === 1024) {
          expect(f.nav?.visible, `${hash}: the menu at 1024`).toBe(true);
          expect(f.nav!.left).toBe(0);
          expect(f.button?.visible, `${hash}: no Menu button at 1024`).toBe(false);
          expect(f.heading!.left, hash).toBeGreaterThanOrEqual(f.nav!.right);
        } else {
          expect([f.nav?.visible, f.button?.visible, f.expanded], `${hash} at 768`).toEqual([false, true, 'false']);
        }
        expect(f.heading!.bottom, hash).toBeLessThanOrEqual(f.inner.height / 2);
        expect(f.who.shown, `${hash} at ${f.inner.width}: the restaurant's name in full`).toBeGreaterThanOrEqual('Brasserie De Beheerder'.length);
        // On a tablet a wide table still scrolls inside its own region (the day-close history at 768 px); the page and the screen never do.
        const page_ = f.wide.filter((w) => !w.startsWith('table-wrap'));
        if (page_.length) problems.push(`${hash} at ${f.inner.width}: ${page_.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
    await screenReady(landscape, '/beheer/dagafsluiting', r.base, r.slug);
    await landscape.waitForSelector('#close-history tr[data-close="1"]');
    // A tablet keeps the history as a table.
    expect(await landscape.locator('#close-history tr[data-close="1"]').evaluate((tr) => getComputedStyle(tr).display)).toBe('table-row');
    await shot(landscape, 'phone-dagafsluiting-1024');
    await screenReady(portrait, '/beheer/dagafsluiting', r.base, r.slug);
    await shot(portrait, 'phone-dagafsluiting-768');
    await portrait.click('#menu-button');
    await portrait.waitForSelector('#nav.open');
    await shot(portrait, 'phone-menu-open-768');
    // Turned to landscape with the menu open: the column, and the button's state no longer open.
    await portrait.setViewportSize({ width: 1024, height: 768 });
    await expect.poll(async () => (await frame(portrait)).expanded).toBe('false');
    expect((await frame(portrait)).nav!.visible).toBe(true);
  }, 180_000);
});
