import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { freshDb, type TestDb } from './db.js';
import { device, launch } from './browser.js';

/**
 * A small restaurant on a real server (local role, in-memory SQLite) and one Chromium for a
 * browser test file (issue 26): a manager, a staff member, a menu with an ingredient, two zones of
 * tables, stock locations, a cold store and a bain-marie, a checklist, opening hours all day (so a
 * walk-in can be booked whenever the test runs), an address for the guest pages.
 */
export interface UiRestaurant {
  rt: Runtime;
  base: string;
  slug: string;
  tenantId: string;
  ids: Record<string, string>;
  ADMIN: { email: string; password: string };
  PIN: string;
  /** The API as the manager, in-process (set-up and checks; the screens are what is tested). */
  api: (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object) => Promise<any>;
  /** A fresh device (own cookies); page errors are collected in `pageErrors`. */
  open: (width?: number, height?: number) => Promise<Page>;
  staff: (width?: number, height?: number) => Promise<Page>;
  admin: (width?: number, height?: number) => Promise<Page>;
  /** Uncaught errors in any page ("Cannot read properties of null ..."): must stay empty. */
  pageErrors: string[];
  /** Requests to anything but this server: must stay empty. */
  external: string[];
  close: () => Promise<void>;
}

export async function startUiRestaurant(name: string): Promise<UiRestaurant> {
  const testDb: TestDb = await freshDb({ sqliteFile: ':memory:' });
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: path.join(tmpdir(), `restaurant-ui-${name}`), RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' });
  const rt = await createRuntime(config, { handle: testDb.handle });
  const ADMIN = { email: `beheer@${name}.test`, password: 'geheim-wachtwoord-1' };
  const PIN = '1357';
  const slug = `${name}-${Date.now().toString(36)}`;
  const { tenant } = await rt.services.tenants.create({ slug, name: 'Brasserie De Beheerder', admin_email: ADMIN.email, admin_password: ADMIN.password });
  await rt.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: PIN, hourly_wage_cents: 1450, job: 'bediening' });
  const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug, ...ADMIN } });
  const cookie = `ck_token=${login.cookies.find((c) => c.name === 'ck_token')!.value}`;
  const api: UiRestaurant['api'] = async (method, url, payload) => {
    const res = await rt.app.inject({ method, url: `/api/v1${url}`, headers: { cookie }, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.statusCode === 204 ? null : res.json();
  };
  const allDay = [['00:00', '23:59']];
  await api('PATCH', '/settings', {
    address: 'Lepelstraat 1, 1011 AB Amsterdam',
    phone: '020 123 4567',
    max_party_size: 6,
    opening_hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, allDay])),
  });
  const ids: Record<string, string> = {};
  const soups = await api('POST', '/categories', { name: 'Voorgerechten' });
  const mains = await api('POST', '/categories', { name: 'Hoofdgerechten' });
  ids.soup = (await api('POST', '/products', { name: 'Tomatensoep', price_cents: 650, cost_cents: 150, category_id: soups.id })).id;
  ids.steak = (await api('POST', '/products', { name: 'Biefstuk', price_cents: 2250, cost_cents: 900, category_id: mains.id })).id;
  ids.tomatoes = (await api('POST', '/products', { name: 'Tomaten', price_cents: 0, cost_cents: 250, unit: 'kg', on_menu: false })).id;
  await api('PUT', `/recipes/${ids.soup}`, { ingredients: [{ product_id: ids.tomatoes, quantity: 0.25 }] });
  const inside = await api('POST', '/floorplan/zones', { name: 'Binnen' });
  ids.zone = inside.id;
  ids.t1 = (await api('POST', '/floorplan/tables', { zone_id: inside.id, name: '1', seats: 2, x: 40, y: 30 })).id;
  ids.t2 = (await api('POST', '/floorplan/tables', { zone_id: inside.id, name: '2', seats: 4, x: 200, y: 30 })).id;
  ids.t3 = (await api('POST', '/floorplan/tables', { zone_id: inside.id, name: '3', seats: 6, x: 360, y: 30 })).id;
  ids.kitchen = (await api('POST', '/locations', { name: 'Keuken', is_default: true })).id;
  ids.store = (await api('POST', '/locations', { name: 'Koelcel' })).id;
  ids.coldStore = (await api('POST', '/haccp/units', { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 7 })).id;
  ids.bainMarie = (await api('POST', '/haccp/units', { name: 'Bain-marie', unit_type: 'warmhoud', target_max: 90, target_min: 60 })).id;
  await api('POST', '/haccp/checklists', { name: 'Opening keuken', frequency: 'daily', deadline: '23:58', items: [{ label: 'Handen wassen' }, { label: 'Werkbank schoon' }] });
  ids.customer = (await api('POST', '/loyalty/customer', { phone: '06 12345678', name: 'Jan de Boer' })).id;

  await rt.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = rt.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('geen adres');
  const base = `http://127.0.0.1:${addr.port}`;
  const browser: Browser = await launch();
  const contexts: BrowserContext[] = [];
  const external: string[] = [];
  const pageErrors: string[] = [];

  const open = async (width = 1280, height = 800) => {
    // A tablet in the restaurant keeps the restaurant's time (a walk-in is booked for "now").
    const page = await device(browser, { width, height, external, contexts, timezoneId: 'Europe/Amsterdam' });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return page;
  };
  const staff = async (width?: number, height?: number) => {
    const page = await open(width, height);
    await page.goto(`${base}/app/?slug=${slug}`);
    await expect.poll(() => page.inputValue('#slug')).toBe(slug);
    for (const d of PIN) await page.click(`.keypad [data-key="${d}"]`);
    await page.click('#pin-submit');
    await page.waitForSelector('#conn[data-state="live"]');
    return page;
  };
  const admin = async (width?: number, height?: number) => {
    const page = await open(width, height);
    await page.goto(`${base}/app/?slug=${slug}`);
    await page.click('#show-admin');
    await page.fill('#admin-email', ADMIN.email);
    await page.fill('#admin-password', ADMIN.password);
    await page.click('#admin-form [type=submit]');
    await page.waitForSelector('#conn[data-state="live"]');
    return page;
  };
  const close = async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close().catch(() => {});
    await rt.close();
    await testDb.drop();
  };
  return { rt, base, slug, tenantId: tenant.id, ids, ADMIN, PIN, api, open, staff, admin, pageErrors, external, close };
}

/** Waits until a staff-app screen has its data (no "Bezig met laden…" left). */
export async function screenReady(page: Page, hash: string, base: string, slug: string): Promise<void> {
  await page.goto(`${base}/app/?slug=${slug}#${hash}`);
  await page.waitForSelector('.content .screen-body, .content #board');
  await page.waitForFunction(() => !document.querySelector('.content .loading'));
}
