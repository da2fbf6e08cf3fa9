import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { tenantRoom } from '../../server/plugins/realtime.js';
import { STATE_ID } from '../../sync/engine.js';
import { freshDb, type TestDb } from '../helpers/db.js';
import { describeBrowser, device, launch, SHOT_DIR } from '../helpers/browser.js';

/**
 * The staff app (app/ui) in a real browser: Debian's Chromium (/usr/bin/chromium) driven by
 * playwright-core, against a real server on a random port. Never a bundled browser download.
 */
describeBrowser('staff app in Chromium (sqlite lane only: the database is not the point)', () => {
  let rt: Runtime;
  let testDb: TestDb;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Requests a page tried to make to anything but this server (must stay empty). */
  const external: string[] = [];
  let tenant: { id: string; slug: string; name: string };
  const ADMIN = { email: 'beheer@proef.test', password: 'geheim-wachtwoord-1' };
  const PIN = '2468';

  beforeAll(async () => {
    testDb = await freshDb({ sqliteFile: ':memory:' });
    const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: path.join(tmpdir(), 'restaurant-ui-test') });
    rt = await createRuntime(config, { handle: testDb.handle });
    const s = rt.services;
    const created = await s.tenants.create({ slug: `proef-${Date.now().toString(36)}`, name: 'Eetcafé De Proef', admin_email: ADMIN.email, admin_password: ADMIN.password });
    tenant = created.tenant;
    await s.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: PIN, hourly_wage_cents: 1450 });
    const starters = await s.menu.createCategory(tenant.id, { name: 'Voorgerechten', position: 1 });
    const mains = await s.menu.createCategory(tenant.id, { name: 'Hoofdgerechten', position: 2 });
    const drinks = await s.menu.createCategory(tenant.id, { name: 'Dranken', position: 3 });
    await s.menu.createProduct(tenant.id, { name: 'Tomatensoep', description: 'Met balletjes', price_cents: 650, cost_cents: 120, category_id: starters.id });
    await s.menu.createProduct(tenant.id, { name: 'Carpaccio', price_cents: 1150, category_id: starters.id });
    await s.menu.createProduct(tenant.id, { name: 'Stamppot boerenkool', price_cents: 1450, category_id: mains.id });
    await s.menu.createProduct(tenant.id, { name: 'Biefstuk', price_cents: 2250, category_id: mains.id, available: false });
    await s.menu.createProduct(tenant.id, { name: 'Cola', price_cents: 300, category_id: drinks.id });
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

  /** A fresh "tablet": its own cookies, 1024×768 landscape, touch. */
  /** A fresh "tablet": its own cookies, 1024×768 landscape, touch; nothing fetched from outside this server. */
  const tablet = (): Promise<Page> => device(browser, { width: 1024, height: 768, external, contexts });

  async function pinLogin(page: Page): Promise<void> {
    await page.goto(`${base}/app/?slug=${tenant.slug}`);
    await expect.poll(() => page.inputValue('#slug')).toBe(tenant.slug);
    for (const d of PIN) await page.click(`.keypad [data-key="${d}"]`);
    await page.click('#pin-submit');
    await page.waitForSelector('#board:not([hidden])');
    await page.waitForSelector('#conn[data-state="live"]');
  }

  const column = (page: Page, status: string) => page.locator(`.column[data-status="${status}"] .card`);
  const liveOrders = async () => (await rt.services.orders.live(tenant.id)).length;

  it('PIN login, live board, an order placed on one tablet appears on another, an admin moves it, the sync banner', async () => {
    // --- two staff tablets log in with the keypad
    const a = await tablet();
    const b = await tablet();
    await pinLogin(a);
    await pinLogin(b);
    expect(await a.textContent('#tenant-name')).toBe('Eetcafé De Proef');
    expect(await a.isVisible('#board-empty')).toBe(true);
    expect(await a.isHidden('#sync-banner')).toBe(true); // stand-alone appliance: no banner

    // a wrong PIN says so in Dutch
    const c = await tablet();
    await c.goto(`${base}/app/?slug=${tenant.slug}`);
    for (const d of '9999') await c.click(`.keypad [data-key="${d}"]`);
    await c.click('#pin-submit');
    await expect.poll(() => c.textContent('#login-error')).toMatch(/pincode/i);
    await c.screenshot({ path: path.join(SHOT_DIR, '0-login.png') });

    // --- tablet A takes an order: the menu by category, quantities, a note
    await a.click('#new-order');
    await a.waitForSelector('#order-panel:not([hidden])');
    await expect.poll(() => a.locator('#category-tabs button').allTextContents()).toEqual(['Voorgerechten', 'Hoofdgerechten', 'Dranken']);
    await a.click('.product:has-text("Tomatensoep")');
    await a.click('.product:has-text("Tomatensoep")');
    await a.click('#category-tabs button:has-text("Hoofdgerechten")');
    expect(await a.isDisabled('.product:has-text("Biefstuk")')).toBe(true); // unavailable: greyed out
    await a.click('.product:has-text("Stamppot boerenkool")');
    await a.click('#draft-lines li:has-text("Stamppot") button[aria-label="Eén meer"]');
    await a.click('#draft-lines li:has-text("Tomatensoep") button[aria-label="Eén minder"]');
    await a.fill('#order-notes', 'Tafel 4, zonder ui');
    expect(await a.textContent('#submit-order')).toMatch(/Bestelling plaatsen \(€\s?35,50\)/);
    await a.screenshot({ path: path.join(SHOT_DIR, '2-new-order.png') });
    // a double tap creates one order (button disabled while sending, and one idempotency key per draft)
    await a.dblclick('#submit-order');
    await a.waitForSelector('#order-panel', { state: 'hidden' });
    await expect.poll(liveOrders).toBe(1);

    // --- tablet B sees it live, without a reload
    const cardB = column(b, 'new');
    await expect.poll(() => cardB.count(), { timeout: 5000 }).toBe(1);
    const text = await cardB.first().textContent();
    expect(text).toMatch(/K-\d{3}/);
    expect(text).toContain('1× Tomatensoep');
    expect(text).toContain('2× Stamppot boerenkool');
    expect(text).toContain('Tafel 4, zonder ui');
    expect(text).toMatch(/0 min/);
    // staff move orders forward (POST /orders/:id/advance); cancelling is for admins only
    expect(await cardB.first().locator('button[data-action="accepted"]').count()).toBe(1);
    expect(await cardB.first().locator('button[data-action="cancelled"]').count()).toBe(0);

    // --- an admin logs in (e-mail and password) and moves the order to 'preparing'
    const admin = await tablet();
    await admin.goto(`${base}/app/?slug=${tenant.slug}`);
    await admin.click('#show-admin');
    expect(await admin.inputValue('#admin-slug')).toBe(tenant.slug);
    await admin.fill('#admin-email', ADMIN.email);
    await admin.fill('#admin-password', ADMIN.password);
    await admin.click('#admin-form [type=submit]');
    await admin.waitForSelector('#conn[data-state="live"]');
    await admin.waitForSelector('.card button[data-action="accepted"]');
    await admin.screenshot({ path: path.join(SHOT_DIR, '3-admin-board.png') });
    await admin.click('.column[data-status="new"] .card button[data-action="accepted"]');
    await admin.click('.column[data-status="accepted"] .card button[data-action="preparing"]');
    await expect.poll(() => column(b, 'preparing').count(), { timeout: 5000 }).toBe(1);
    expect(await column(b, 'new').count()).toBe(0);
    await expect.poll(() => column(a, 'preparing').count(), { timeout: 5000 }).toBe(1);
    const order = (await rt.services.orders.live(tenant.id))[0]!;
    expect(order.status).toBe('preparing');
    expect((await rt.services.orders.history(tenant.id, order.id)).map((h) => h.to_status)).toEqual(['new', 'accepted', 'preparing']);

    // --- the sync banner: the appliance syncs with a cloud, and its oldest pending change waits > 5 min
    const oldest = new Date(Date.now() - 7 * 60_000).toISOString();
    const now = new Date().toISOString();
    await rt.handle.db
      .insertInto('sync_state')
      .values({ id: STATE_ID, tenant_id: tenant.id, device_id: rt.changes.origin, pull_cursor: 0, acked_seq: 0, lease_holder: null, lease_expires_at: null, last_success_at: null, last_error: null, last_error_at: null, stopped_reason: null, updated_at: now })
      .execute();
    await rt.handle.db.updateTable('change_log').set({ created_at: oldest }).where('tenant_id', '=', tenant.id).execute();
    const pending = (await rt.services.sync.board.status(tenant.id)).pending;
    expect(pending).toBeGreaterThan(0);
    // What the sync worker reports when the cloud cannot be reached: this emits `sync:status` to the tablets.
    await rt.services.sync.board.report(tenant.id, { enabled: true, started: true, online: false, lastError: 'Cloud niet bereikbaar (ECONNREFUSED)', lastErrorAt: now });
    await b.waitForSelector('#sync-banner:not([hidden])', { timeout: 5000 });
    const banner = await b.textContent('#sync-banner');
    expect(banner).toContain(`Nog niet gesynchroniseerd met de cloud: ${pending} wijzigingen, oudste 7 minuten`);
    expect(banner).toContain('Laatste fout: Cloud niet bereikbaar (ECONNREFUSED)');
    // ... and from GET /sync/status on load (a tablet that was not connected at the time)
    await a.reload();
    await a.waitForSelector('#sync-banner:not([hidden])', { timeout: 5000 });
    expect(await a.textContent('#sync-banner')).toContain('oudste 7 minuten');
    await a.waitForSelector('#conn[data-state="live"]');
    await b.screenshot({ path: path.join(SHOT_DIR, '1-board-banner.png') });

    // the queue drains: the banner goes away
    await rt.handle.db.updateTable('sync_state').set({ acked_seq: 1_000_000 }).where('id', '=', STATE_ID).execute();
    await rt.services.sync.board.report(tenant.id, { online: true, lastError: null, lastErrorAt: null, lastSuccessAt: new Date().toISOString() });
    await b.waitForSelector('#sync-banner', { state: 'hidden', timeout: 5000 });

    // no cloud configured (stand-alone): even a stale-looking status shows no banner
    rt.app.io.to(tenantRoom(tenant.id)).emit('sync:status', { ...(await rt.services.sync.board.status(tenant.id)), enabled: false, state: 'disabled', pending: 3, oldest_pending_age_seconds: 900, warning: true });
    await b.waitForTimeout(300);
    expect(await b.isHidden('#sync-banner')).toBe(true);

    // --- finishing an order takes it off every board
    await admin.click('.column[data-status="preparing"] .card button[data-action="ready"]');
    await admin.click('.column[data-status="ready"] .card button[data-action="completed"]');
    // A bump: off the admin's board at once, recallable for a minute; leaving the board sends it now.
    await admin.waitForSelector('#recall button:has-text("Terughalen")');
    expect(await admin.locator('.card').count()).toBe(0);
    await admin.click('nav a:has-text("Plattegrond")');
    await expect.poll(() => b.locator('.card').count(), { timeout: 5000 }).toBe(0);
    expect(await b.isVisible('#board-empty')).toBe(true);
    expect(external).toEqual([]);
    console.info(`staff app screenshots: ${SHOT_DIR}`);
  }, 120_000);

  it('a tablet that missed events while disconnected catches up on reconnect (last_seq)', async () => {
    const page = await tablet();
    await pinLogin(page);
    const before = await page.locator('.card').count();
    // New connections wait at this gate until the order below exists: the tablet is really away
    // when it is made, so it can only learn of it by the catch-up, not live.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    rt.app.io.use((_socket, next) => {
      held += 1;
      void gate.then(() => next());
    });
    try {
      // Drop the tablets' sockets from the server side (this one's among them).
      const sockets = await rt.app.io.in(tenantRoom(tenant.id)).fetchSockets();
      expect(sockets.length).toBeGreaterThan(0);
      for (const s of sockets) s.disconnect(false);
      await page.waitForSelector('#conn[data-state="offline"]', { timeout: 5000 });
      // socket.io does not reconnect after a server-side disconnect by itself; the app must (its attempt waits at the gate).
      await expect.poll(() => held, { timeout: 10_000 }).toBeGreaterThan(0);
      const product = (await rt.services.menu.staffMenu(tenant.id)).categories[0]!.products[0]!;
      await rt.services.orders.create({ tenantId: tenant.id, userId: null, via: 'pos' }, { items: [{ product_id: product.id, quantity: 3 }] });
      expect(await page.getAttribute('#conn', 'data-state')).not.toBe('live');
      expect(await page.locator('.card').count()).toBe(before);
    } finally {
      release();
    }
    await page.waitForSelector('#conn[data-state="live"]', { timeout: 15_000 });
    await expect.poll(() => page.locator('.card').count(), { timeout: 5000 }).toBe(before + 1);
  }, 60_000);

  it('is served by this server: / links to /app/, /app redirects, the socket.io client is local', async () => {
    const home = await (await fetch(`${base}/`)).text();
    expect(home).toContain('href="/app/"');
    const redirect = await fetch(`${base}/app?slug=x`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/app/?slug=x');
    const client = await fetch(`${base}/socket.io/socket.io.esm.min.js`);
    expect(client.status).toBe(200);
    const html = await (await fetch(`${base}/app/`)).text();
    expect(html).not.toMatch(/https?:\/\//);
  });
});
