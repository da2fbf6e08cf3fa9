import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

/**
 * Issue 28 point 6: security headers on every HTML page (and the API): a Content-Security-Policy that
 * allows exactly the page's own inline scripts (by hash) and nothing from elsewhere, nosniff, a
 * Referrer-Policy and frame-ancestors. That the policy does not break the pages is shown by the
 * browser tests in test/ui (staff app, guest pages, HACCP page, simulator checkout), which run
 * under it; here: the headers, and every inline script of every page is allowed by its hash.
 */

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!, values] as [string, string[]];
      }),
  );
}

const inlineScripts = (html: string) => [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]!);
const sha256 = (s: string) => `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`;

async function page(t: TestApp, url: string, cookie?: string) {
  let res = await t.req({ method: 'GET', url, cookie });
  if (res.statusCode === 301 || res.statusCode === 302) res = await t.req({ method: 'GET', url: String(res.headers.location), cookie });
  expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
  expect(String(res.headers['content-type']), url).toMatch(/^text\/html/);
  return res;
}

function expectHardened(url: string, res: Awaited<ReturnType<typeof page>>, opts: { frameAncestors?: string } = {}) {
  const csp = String(res.headers['content-security-policy'] ?? '');
  expect(csp, `${url}: no Content-Security-Policy`).not.toBe('');
  const d = directives(csp);
  expect(d.get('default-src'), url).toEqual(["'self'"]);
  expect(d.get('object-src'), url).toEqual(["'none'"]);
  expect(d.get('base-uri'), url).toEqual(["'self'"]);
  expect(d.get('frame-ancestors'), url).toEqual([opts.frameAncestors ?? "'none'"]);
  const scripts = d.get('script-src') ?? [];
  expect(scripts, url).not.toContain("'unsafe-inline'");
  expect(scripts, url).not.toContain("'unsafe-eval'");
  expect(scripts.every((s) => s === "'self'" || s.startsWith("'sha256-")), `${url}: ${scripts.join(' ')}`).toBe(true);
  for (const body of inlineScripts(res.body)) expect(scripts, `${url}: inline script not allowed by hash`).toContain(sha256(body));
  expect(res.headers['x-content-type-options'], url).toBe('nosniff');
  expect(res.headers['referrer-policy'], url).toBe('strict-origin-when-cross-origin');
  expect(res.headers['x-frame-options'], url).toBe('DENY');
}

describe(`issue 28 point 6: security headers (${lane})`, () => {
  it('every HTML page carries the CSP, nosniff, Referrer-Policy and frame-ancestors; its inline scripts are allowed by hash', async () => {
    const t = await createTestApp();
    t.clock.set('2026-11-20T12:00:00.000Z');
    const setup = await page(t, '/');
    expect(inlineScripts(setup.body).length).toBeGreaterThan(0); // the first-run page's form script
    expectHardened('/', setup);
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    expectHardened('/ (home)', await page(t, '/'));
    expectHardened('/app/', await page(t, '/app/?slug=x'));
    expectHardened('/g/:slug/', await page(t, `/g/${r.slug}/`));
    expectHardened('/g/:slug/tafel/..', await page(t, `/g/${r.slug}/tafel/abc`));
    expectHardened('HACCP page', await page(t, '/api/v1/haccp/export?format=html', admin));
    expectHardened('QR sheet', await page(t, '/api/v1/floorplan/qr-sheet', admin));
    expectHardened('payment return page', await page(t, '/api/v1/public/betaling/00000000-0000-7000-8000-000000000000'));
    // Swagger UI keeps its own (hash-based) policy, also not to be framed by other sites.
    expectHardened('Swagger UI', await page(t, '/api/v1/docs/static/index.html'), { frameAncestors: "'none'" });
  });

  it('the simulator checkout page is hardened too', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const p = (await t.services.menu.createProduct(r.id, { name: 'Soep', price_cents: 650 })).id;
    const order = await t.req({
      method: 'POST',
      url: `/api/v1/public/order/${r.slug}`,
      payload: { items: [{ product_id: p, quantity: 1 }], customer: { name: 'Eva', phone: '0612345678' }, type: 'pickup' },
    });
    expect(order.statusCode, order.body).toBe(201);
    const checkout = new URL(order.json().checkout_url);
    expectHardened('simulator', await page(t, checkout.pathname));
  });

  it('every answer gets helmet’s full set, worked out once at start and set on each request (session 13: no longer helmet built per request)', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const HELMET = {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'strict-transport-security': 'max-age=15552000',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'DENY',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const answers = [
      await t.req({ method: 'GET', url: '/api/v1/orders/live', cookie: staff }),
      await t.req({ method: 'GET', url: '/api/v1/orders/live', cookie: staff }),
      await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [] } }), // a 400
      await t.req({ method: 'GET', url: '/api/v1/health' }),
      await page(t, '/'),
    ];
    const csp = String(answers[0]!.headers['content-security-policy']);
    expect(directives(csp).get('default-src')).toEqual(["'self'"]);
    for (const res of answers) {
      for (const [name, value] of Object.entries(HELMET)) expect(res.headers[name], `${res.statusCode} ${name}`).toBe(value);
      expect(res.headers['content-security-policy']).toBe(csp);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('JSON answers carry nosniff and no CSP of their own is needed to keep them from running', async () => {
    const t = await createTestApp();
    const res = await t.req({ method: 'GET', url: '/api/v1/health' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    const missing = await t.req({ method: 'GET', url: '/api/v1/bestaat-niet' });
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
  });
});
