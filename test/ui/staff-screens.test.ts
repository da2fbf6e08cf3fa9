import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { freshDb, type TestDb } from '../helpers/db.js';
import { describeBrowser, device, launch, shot } from '../helpers/browser.js';

/**
 * The staff app's area screens in a real browser (issue 14), against a real server with a seeded
 * restaurant: the board moving an order, the floor plan turning a table bezet, a kritiek temperature,
 * a redemption at the till, an admin chart, and no sideways scrolling in landscape and portrait.
 */
describeBrowser('staff app screens in Chromium', () => {
  let rt: Runtime;
  let testDb: TestDb;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const external: string[] = [];
  const ADMIN = { email: 'beheer@scherm.test', password: 'geheim-wachtwoord-1' };
  const PIN = '1357';
  let slug = '';
  let tenantId = '';
  let adminCookie = '';
  const ids: Record<string, string> = {};

  /** The API as an admin, in-process (the screens are what is tested; this is set-up). */
  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object) => {
    const res = await rt.app.inject({ method, url: `/api/v1${url}`, headers: { cookie: adminCookie }, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  beforeAll(async () => {
    testDb = await freshDb({ sqliteFile: ':memory:' });
    const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: path.join(tmpdir(), 'restaurant-ui-screens'), RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' });
    rt = await createRuntime(config, { handle: testDb.handle });
    slug = `scherm-${Date.now().toString(36)}`;
    const { tenant } = await rt.services.tenants.create({ slug, name: 'Brasserie Het Scherm', admin_email: ADMIN.email, admin_password: ADMIN.password });
    tenantId = tenant.id;
    await rt.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: PIN, hourly_wage_cents: 1450 });
    const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug, ...ADMIN } });
    adminCookie = `ck_token=${login.cookies.find((c) => c.name === 'ck_token')!.value}`;
    const cat = await api('POST', '/categories', { name: 'Hoofdgerechten' });
    ids.soup = (await api('POST', '/products', { name: 'Tomatensoep', price_cents: 650, cost_cents: 150, category_id: cat.id })).id;
    ids.steak = (await api('POST', '/products', { name: 'Biefstuk', price_cents: 2250, cost_cents: 900, category_id: cat.id })).id;
    const zone = await api('POST', '/floorplan/zones', { name: 'Binnen' });
    ids.table = (await api('POST', '/floorplan/tables', { zone_id: zone.id, name: '7', seats: 4, x: 40, y: 30 })).id;
    await api('POST', '/floorplan/tables', { zone_id: zone.id, name: '8', seats: 2, x: 200, y: 30 });
    await api('POST', '/haccp/units', { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 7 });
    const customer = await api('POST', '/loyalty/customer', { phone: '06 12345678', name: 'Jan de Boer' });
    ids.customer = customer.id;
    await api('POST', '/loyalty/adjust', { customer_id: customer.id, points: 200, note: 'welkomstpunten' });
    // Sales for the charts: completed orders today.
    for (const [product, qty] of [[ids.soup, 3], [ids.steak, 1], [ids.soup, 2]] as const) {
      const o = await api('POST', '/orders', { items: [{ product_id: product, quantity: qty }] });
      await api('PATCH', `/orders/${o.id}`, { status: 'completed' });
    }
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
    expect(external).toEqual([]);
  }, 60_000);

  async function staffTablet(width = 1280, height = 800): Promise<Page> {
    const page = await device(browser, { width, height, external, contexts });
    await page.goto(`${base}/app/?slug=${slug}`);
    await expect.poll(() => page.inputValue('#slug')).toBe(slug);
    for (const d of PIN) await page.click(`.keypad [data-key="${d}"]`);
    await page.click('#pin-submit');
    await page.waitForSelector('#conn[data-state="live"]');
    return page;
  }

  async function adminTablet(width = 1280, height = 800): Promise<Page> {
    const page = await device(browser, { width, height, external, contexts });
    await page.goto(`${base}/app/?slug=${slug}`);
    await page.click('#show-admin');
    await page.fill('#admin-email', ADMIN.email);
    await page.fill('#admin-password', ADMIN.password);
    await page.click('#admin-form [type=submit]');
    await page.waitForSelector('#conn[data-state="live"]');
    return page;
  }

  it('an order created through the API is on the kitchen board within a second, and a staff member moves it along', async () => {
    const page = await staffTablet();
    await page.waitForSelector('#board');
    const order = await api('POST', '/orders', { items: [{ product_id: ids.soup, quantity: 2 }], notes: 'Extra brood' });
    const started = Date.now();
    const card = page.locator(`.card[data-order-id="${order.id}"]`);
    await card.waitFor({ timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await card.textContent()).toContain('2× Tomatensoep');
    await card.locator('button[data-action="accepted"]').click();
    await page.locator(`.column[data-status="accepted"] .card[data-order-id="${order.id}"]`).waitFor({ timeout: 3000 });
    await page.locator(`.card[data-order-id="${order.id}"] button[data-action="preparing"]`).click();
    await expect.poll(async () => (await rt.services.orders.get(tenantId, order.id)).status).toBe('preparing');
    expect((await rt.services.orders.history(tenantId, order.id)).map((h) => h.to_status)).toEqual(['new', 'accepted', 'preparing']);
    await shot(page, 'screens-1-kitchen');
  }, 60_000);

  it('the floor plan shows a table turn bezet the moment an order is placed on it, with its bill', async () => {
    const page = await staffTablet();
    await page.goto(`${base}/app/?slug=${slug}#/vloer`);
    const table = page.locator('.floor-table[data-table="7"]');
    await expect.poll(() => table.getAttribute('data-status')).toBe('vrij');
    await api('POST', '/orders', { items: [{ product_id: ids.steak, quantity: 2 }], table_id: ids.table });
    await expect.poll(() => table.getAttribute('data-status'), { timeout: 3000 }).toBe('bezet');
    await table.click();
    await page.waitForSelector('#table-bill');
    expect(await page.textContent('#bill-open')).toMatch(/45,00/);
    await shot(page, 'screens-2-floor');
  }, 60_000);

  it('a temperature above target plus margin shows kritiek and opens an incident to act on', async () => {
    const page = await staffTablet();
    await page.goto(`${base}/app/?slug=${slug}#/haccp`);
    await page.waitForSelector('#temperature-form');
    await page.getByLabel('Koelcel, vriezer of bain-marie').selectOption({ label: 'Koelcel 1 (≤ 7 °C) · nog 2 metingen' });
    await page.getByLabel('Temperatuur (°C)').fill('9');
    await page.click('#temperature-form [type=submit]');
    await expect.poll(() => page.getAttribute('#temperature-result', 'data-status')).toBe('waarschuwing'); // 7 + 2.0 is still a warning
    await page.getByLabel('Temperatuur (°C)').fill('9,5');
    await page.click('#temperature-form [type=submit]');
    await page.click('#confirm-yes'); // a kritiek reading is asked first (issue 26)
    await expect.poll(() => page.getAttribute('#temperature-result', 'data-status')).toBe('kritiek');
    expect(await page.textContent('#temperature-result')).toMatch(/Kritiek/);
    await page.waitForSelector('#incidents .incident');
    await shot(page, 'screens-3-kritiek');
    await page.locator('#incidents .incident').getByLabel('Corrigerende maatregel').fill('Deur stond open; producten gecontroleerd');
    await page.click('#incidents .incident [type=submit]');
    await page.waitForSelector('#no-incidents');
    const incidents = await api('GET', '/haccp/incidents');
    expect(incidents.data[0].open).toBe(false);
  }, 60_000);

  it('a loyalty redemption at the till: found by phone in another notation, points spent, balance shown', async () => {
    const page = await staffTablet();
    await page.goto(`${base}/app/?slug=${slug}#/klanten`);
    await page.fill('#loyalty-search', '+31 6 1234 5678');
    await page.click('#loyalty form [type=submit]');
    await page.waitForSelector('#customer');
    expect(await page.textContent('#balance')).toBe('200');
    await page.fill('#redeem-points', '250');
    await page.click('#redeem-form [type=submit]');
    await expect.poll(() => page.textContent('#customer .error')).toMatch(/Onvoldoende punten/);
    await page.fill('#redeem-points', '50');
    await page.click('#redeem-form [type=submit]');
    await expect.poll(() => page.textContent('#balance')).toBe('150');
    const c = await api('GET', `/loyalty/customer/${encodeURIComponent('+31612345678')}`);
    expect(c.balance).toBe(150);
    await shot(page, 'screens-4-loyalty');
  }, 60_000);

  it('an admin sees the charts drawn with data', async () => {
    const page = await adminTablet();
    await page.goto(`${base}/app/?slug=${slug}#/beheer/inzichten`);
    await page.waitForSelector('#chart-top[data-rendered="true"]', { timeout: 10_000 });
    await page.waitForSelector('#chart-forecast[data-rendered="true"]', { timeout: 10_000 });
    await page.waitForSelector('#menu-engineering tbody tr');
    expect(await page.locator('#menu-engineering tbody tr').count()).toBe(2);
    // the bar chart has drawn pixels, not an empty canvas
    const painted = await page.evaluate(() => {
      const c = document.getElementById('chart-top') as HTMLCanvasElement;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(1000);
    await shot(page, 'screens-5-insights');
  }, 60_000);

  it.each([
    [1280, 800],
    [800, 1280],
  ])('at %i×%i no screen scrolls sideways', async (width, height) => {
    const page = await adminTablet(width, height);
    for (const screen of ['/keuken', '/vloer', '/haccp', '/voorraad', '/klanten', '/reserveringen', '/diensten', '/beheer/inzichten', '/beheer/menu', '/beheer/tafels', '/beheer/medewerkers', '/beheer/diensten', '/beheer/voedselveiligheid', '/beheer/koppelingen', '/beheer/instellingen']) {
      await page.goto(`${base}/app/?slug=${slug}#${screen}`);
      await page.waitForSelector('.content > *:not(.muted)');
      await page.waitForTimeout(300);
      const sizes = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      expect(sizes.scroll, `${screen} at ${width}×${height}`).toBeLessThanOrEqual(sizes.inner);
    }
    await page.goto(`${base}/app/?slug=${slug}#/keuken`);
    await page.waitForSelector('#board');
    await shot(page, `screens-6-${width}x${height}`);
  }, 90_000);
});
