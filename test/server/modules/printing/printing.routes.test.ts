import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { printingSetup } from './setup.js';

/** /printers and /print-jobs (CONTRACT §18): validation in Dutch, access, other restaurants, the cloud. */
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

describe('printers and print jobs', () => {
  it('an admin adds, changes and removes printers; GET shows status, last error and queue; staff may read, not change', async () => {
    const s = await printingSetup();
    cleanup.push(s.close);
    const res = await s.call('POST', '/printers', { name: 'Keuken', host: '192.168.1.50', stations: ['Keuken', 'dessert'] }, s.admin);
    expect(res.statusCode, res.body).toBe(201);
    const k = res.json() as { id: string };
    expect(res.json()).toMatchObject({ name: 'Keuken', host: '192.168.1.50', port: 9100, width_mm: 80, stations: ['keuken', 'dessert'], receipts: false, fallback_printer_id: null, status: 'unknown', last_error: null, queued: 0 });
    const bar = (await s.call('POST', '/printers', { name: 'Bar', host: 'bar-printer.local', port: 9101, width_mm: 58, stations: ['bar'], receipts: true }, s.admin)).json() as { id: string };
    const patched = await s.call('PATCH', `/printers/${k.id}`, { fallback_printer_id: bar.id, width_mm: 58 }, s.admin);
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ fallback_printer_id: bar.id, width_mm: 58 });
    const list = (await s.call('GET', '/printers')).json() as { data: Array<{ name: string }> };
    expect(list.data.map((p) => p.name)).toEqual(['Bar', 'Keuken']);
    expect((await s.call('POST', '/printers', { name: 'X', host: '10.0.0.1' })).statusCode).toBe(403);
    expect((await s.call('PATCH', `/printers/${k.id}`, { name: 'X' })).statusCode).toBe(403);
    expect((await s.call('DELETE', `/printers/${k.id}`)).statusCode).toBe(403);
    expect((await s.call('POST', `/printers/${k.id}/test`)).statusCode).toBe(403);
    expect((await s.call('GET', '/printers', undefined, null)).statusCode).toBe(401);
    expect((await s.call('GET', '/print-jobs', undefined, null)).statusCode).toBe(401);
    // Removing the bar printer: the kitchen printer no longer falls back to it.
    expect((await s.call('DELETE', `/printers/${bar.id}`, undefined, s.admin)).statusCode).toBe(204);
    expect((await s.call('GET', '/printers')).json()).toMatchObject({ data: [{ name: 'Keuken', fallback_printer_id: null }] });
    expect((await s.call('DELETE', `/printers/${bar.id}`, undefined, s.admin)).statusCode).toBe(404);
    // A test page is a job of kind test.
    const test = await s.call('POST', `/printers/${k.id}/test`, undefined, s.admin);
    expect(test.statusCode, test.body).toBe(202);
    expect(test.json()).toMatchObject({ kind: 'test', status: 'queued', printer_id: k.id, requested_by: s.r.adminId });
    expect((await s.call('GET', '/printers')).json()).toMatchObject({ data: [{ queued: 1 }] });
  });

  it('refuses bad input in Dutch and changes nothing', async () => {
    const s = await printingSetup();
    cleanup.push(s.close);
    const bad = async (body: object, field: string, re: RegExp) => {
      const res = await s.call('POST', '/printers', body, s.admin);
      expect(res.statusCode, res.body).toBe(400);
      const b = res.json() as { code: string; error: string; details: Array<{ field: string; error: string }> };
      expect(b.code).toBe('VALIDATION');
      expect(b.details.map((d) => d.field)).toContain(field);
      expect(JSON.stringify(b)).toMatch(re);
    };
    await bad({ host: '10.0.0.1' }, 'name', /name/);
    await bad({ name: 'K', host: 'http://10.0.0.1' }, 'host', /IP-adres of hostnaam/);
    await bad({ name: 'K', host: '10.0.0.1', width_mm: 72 }, 'width_mm', /58 of 80/);
    await bad({ name: 'K', host: '10.0.0.1', port: 70000 }, 'port', /port/);
    await bad({ name: 'K', host: '10.0.0.1', stations: ['Keuken!'] }, 'stations.0', /korte naam/);
    const k = (await s.call('POST', '/printers', { name: 'K', host: '10.0.0.1' }, s.admin)).json() as { id: string };
    const self = await s.call('PATCH', `/printers/${k.id}`, { fallback_printer_id: k.id }, s.admin);
    expect(self.statusCode).toBe(400);
    expect(self.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'fallback_printer_id' }] });
    const missing = await s.call('POST', '/printers', { name: 'L', host: '10.0.0.2', fallback_printer_id: '01a21d79-b1c2-7d3e-8f4a-5b6c7d8e9f0b' }, s.admin);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Reserveprinter niet gevonden.', code: 'NOT_FOUND' });
    expect(((await s.call('GET', '/printers')).json() as { data: unknown[] }).data).toHaveLength(1);
    expect((await s.call('GET', '/print-jobs?status=kapot')).statusCode).toBe(400);
    expect((await s.call('POST', '/print-jobs/nope/reprint')).statusCode).toBe(400);
  });

  it("another restaurant's printers and jobs are not found", async () => {
    const s = await printingSetup();
    cleanup.push(s.close);
    const other = await s.t.seedTenant();
    const otherAdmin = await other.adminCookie();
    const k = (await s.call('POST', '/printers', { name: 'K', host: '10.0.0.1', stations: ['keuken'] }, s.admin)).json() as { id: string };
    await s.order([{ product_id: s.products.soup.id, quantity: 1 }]);
    const [job] = await s.jobs();
    expect((await s.call('PATCH', `/printers/${k.id}`, { name: 'X' }, otherAdmin)).statusCode).toBe(404);
    expect((await s.call('DELETE', `/printers/${k.id}`, undefined, otherAdmin)).statusCode).toBe(404);
    expect((await s.call('POST', `/printers/${k.id}/test`, undefined, otherAdmin)).statusCode).toBe(404);
    expect((await s.call('POST', `/print-jobs/${job!.id}/reprint`, undefined, otherAdmin)).json()).toEqual({ error: 'Printopdracht niet gevonden.', code: 'NOT_FOUND' });
    expect((await s.call('POST', '/printers', { name: 'L', host: '10.0.0.2', fallback_printer_id: k.id }, otherAdmin)).statusCode).toBe(404);
    expect(((await s.call('GET', '/print-jobs', undefined, otherAdmin)).json() as { data: unknown[] }).data).toEqual([]);
    expect(((await s.call('GET', '/printers', undefined, otherAdmin)).json() as { data: unknown[] }).data).toEqual([]);
  });

  it('the cloud never prints: no printers can be added there, orders make no jobs', async () => {
    const t = await createTestApp({ env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused', PAYMENT_PROVIDER: 'simulator' } });
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const res = await t.req({ method: 'POST', url: '/api/v1/printers', cookie: admin, payload: { name: 'Keuken', host: '10.0.0.1' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/in het restaurant zelf/);
    expect((await t.req({ method: 'GET', url: '/api/v1/printers', cookie: admin })).json()).toEqual({ data: [] });
    expect(t.app.scheduler.names()).not.toContain('printing.deliver');
  });
});
