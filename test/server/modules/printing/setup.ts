import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { startFakePrinter, type FakePrinter, type PrinterMode } from '../../../helpers/fake-printer.js';
import { decodeEscPos } from '../../../helpers/escpos.js';

/** A restaurant with a kitchen and a bar station, a held main course, and fake printers (issue 24 tests). */
export async function printingSetup(opts: { env?: Record<string, string> } = {}) {
  const t: TestApp = await createTestApp({ config: { printRetryBaseMs: 1000, printRetryCapMs: 4000, printTimeoutMs: 400 }, ...(opts.env ? { env: opts.env } : {}) });
  const r = await t.seedTenant({ name: 'Café De Zwaan' });
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, cookie: string | null = staff) =>
    t.req({ method, url: `/api/v1${url}`, ...(cookie ? { cookie } : {}), ...(payload ? { payload } : {}) });
  const post = async (url: string, payload: object) => {
    const res = await call('POST', url, payload, admin);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const food = await post('/categories', { name: 'Voorgerechten', course: 1 });
  const mains = await post('/categories', { name: 'Hoofdgerechten', course: 2 });
  const drinks = await post('/categories', { name: 'Dranken', station: 'bar' });
  const soup = await post('/products', { name: 'Tomatensoep', price_cents: 650, category_id: food.id });
  const pate = await post('/products', { name: 'Paté', price_cents: 850, category_id: food.id });
  const steak = await post('/products', { name: 'Entrecôte', price_cents: 2450, category_id: mains.id });
  const beer = await post('/products', { name: 'Bier', price_cents: 400, category_id: drinks.id });
  // A product's own station wins over its category's.
  const irish = await post('/products', { name: 'Irish coffee', price_cents: 750, category_id: food.id, station: 'bar' });

  const printers: FakePrinter[] = [];
  const fake = async (mode: PrinterMode = 'ok') => {
    const p = await startFakePrinter({ mode });
    printers.push(p);
    return p;
  };
  const addPrinter = async (name: string, p: FakePrinter, body: Record<string, unknown> = {}) =>
    post('/printers', { name, host: '127.0.0.1', port: p.port, stations: [name.toLowerCase()], ...body });
  const order = async (items: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/orders', { items, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; number: string; items: Array<{ id: string; name: string }> };
  };
  const jobs = async (q = '') => ((await call('GET', `/print-jobs${q}`)).json() as { data: Array<Record<string, unknown> & { id: string; status: string; kind: string; printer_id: string; attempts: number; moved_to: string | null; order_id: string | null; last_error: string | null; requested_by: string | null }> }).data;
  const deliver = () => t.services.printing.deliverDue();
  const text = (b: Buffer) => decodeEscPos(b);
  const close = async () => {
    for (const p of printers) await p.close();
  };
  return { t, r, admin, staff, call, post, fake, addPrinter, order, jobs, deliver, text, close, products: { soup, pate, steak, beer, irish } };
}
