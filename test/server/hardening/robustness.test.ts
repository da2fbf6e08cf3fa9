import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../../server/db/migrations/index.js';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

/**
 * Issue 28 point 9: what the OpenAPI-driven fuzzer found. Every answer to a client's mistake is the
 * contract's error shape `{error, code, details?}` in Dutch (CONTRACT §2), never a 500, never Fastify's
 * own English body, and nothing is accepted that the schema does not describe.
 */

const errorShape = (res: { statusCode: number; json(): unknown; headers: Record<string, unknown> }) => {
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body).sort().filter((k) => k !== 'details')).toEqual(['code', 'error']);
  expect(body.error).toMatch(/[a-z]/);
  expect(body.error).not.toMatch(/Bad Request|exceeding|Invalid time value|Unexpected end|Boundary/);
  return body as { error: string; code: string; details?: Array<{ field: string; error: string }> };
};

describe(`issue 28 point 9: robustness (${lane})`, () => {
  it('GET /stock/movements?to=9999-12-31 answers the movements (no upper bound past the last day), never a 500', async () => {
    const t = await createTestApp();
    t.clock.set('2026-11-20T10:00:00.000Z');
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const loc = (await t.services.stock.createLocation(r.id, { name: 'Koelcel', is_default: true })).id;
    const p = (await t.services.menu.createProduct(r.id, { name: 'Zalm', price_cents: 0, unit: 'kg', on_menu: false })).id;
    expect((await t.req({ method: 'POST', url: '/api/v1/stock', cookie: staff, payload: { productId: p, locationId: loc, type: 'INTAKE', quantity: 2 } })).statusCode).toBe(201);
    for (const to of ['9999-12-31', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999-05:00', '2026-11-20']) {
      const res = await t.req({ method: 'GET', url: `/api/v1/stock/movements?to=${encodeURIComponent(to)}`, cookie: staff });
      expect(res.statusCode, `${to}: ${res.body}`).toBe(200);
      expect(res.json().total, to).toBe(1);
    }
    const none = await t.req({ method: 'GET', url: `/api/v1/stock/movements?from=${encodeURIComponent('9999-12-31T23:59:59.999-05:00')}`, cookie: staff });
    expect(none.statusCode).toBe(200);
    expect(none.json().total).toBe(0);
  });

  it('a broken multipart body on POST /waste is a Dutch VALIDATION answer (400) and books nothing', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const bodies: Array<[string, string]> = [
      ['multipart/form-data; boundary=xx', '--xx\r\nContent-Disposition: form-data; name="reason"\r\n\r\nbederf'], // cut off
      ['multipart/form-data', 'geen multipart'], // no boundary
      ['multipart/form-data; boundary=xx', '--xx\r\nnonsense\r\n\r\n--xx--'],
    ];
    for (const [type, payload] of bodies) {
      const res = await t.req({ method: 'POST', url: '/api/v1/waste', cookie: staff, payload, headers: { 'content-type': type } });
      expect(res.statusCode, res.body).toBe(400);
      expect(errorShape(res)).toMatchObject({ code: 'VALIDATION' });
    }
    expect(await t.handle.db.selectFrom('waste_entries').select('id').execute()).toEqual([]);
  });

  it('a path segment over 100 characters, or a broken URL escape, answers in the contract shape (414 / 400), not Fastify’s English body', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const long = await t.req({ method: 'GET', url: `/api/v1/orders/${'a'.repeat(120)}`, cookie: staff });
    expect(long.statusCode).toBe(414);
    expect(errorShape(long)).toMatchObject({ code: 'VALIDATION', error: expect.stringContaining('100') });
    const longPublic = await t.req({ method: 'GET', url: `/api/v1/public/menu/${'x'.repeat(101)}` });
    expect(longPublic.statusCode).toBe(414);
    errorShape(longPublic);
    const bad = await t.req({ method: 'GET', url: '/api/v1/orders/%zz', cookie: staff });
    expect(bad.statusCode).toBe(400);
    expect(errorShape(bad)).toMatchObject({ code: 'VALIDATION' });
  });

  it('`null` is not a body of POST /shifts/suggest-week or /shifts/clock-out; no body at all still is', async () => {
    const t = await createTestApp();
    t.clock.set('2026-11-20T10:00:00.000Z');
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const json = { 'content-type': 'application/json' };
    const nul = await t.req({ method: 'POST', url: '/api/v1/shifts/suggest-week', cookie: admin, payload: 'null', headers: json });
    expect(nul.statusCode, nul.body).toBe(400);
    expect(errorShape(nul).code).toBe('VALIDATION');
    const none = await t.req({ method: 'POST', url: '/api/v1/shifts/suggest-week', cookie: admin });
    expect(none.statusCode, none.body).toBe(200);
    expect((await t.req({ method: 'POST', url: '/api/v1/shifts/suggest-week', cookie: admin, payload: {} })).statusCode).toBe(200);

    const staff = await r.staffCookie();
    expect((await t.req({ method: 'POST', url: '/api/v1/shifts/clock-in', cookie: staff })).statusCode).toBe(201);
    t.clock.advance(10 * 60_000);
    const out = await t.req({ method: 'POST', url: '/api/v1/shifts/clock-out', cookie: staff, payload: 'null', headers: json });
    expect(out.statusCode, out.body).toBe(400);
    expect((await t.req({ method: 'POST', url: '/api/v1/shifts/clock-out', cookie: staff })).statusCode).toBe(200);
  });

  it('the sync push takes only a number as protocol_version and schema_version (not true, [1] or "1")', async () => {
    const cloud = await createTestApp({ env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } });
    const r = await cloud.seedTenant();
    const { sync_key } = await cloud.services.sync.cloud.createDevice(r.id, 'Kassa');
    const push = (body: object) => cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${sync_key}` }, payload: body });
    expect((await push({ protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops: [] })).statusCode).toBe(200);
    for (const bad of [true, [PROTOCOL_VERSION], String(PROTOCOL_VERSION)]) {
      const a = await push({ protocol_version: bad, schema_version: SCHEMA_VERSION, ops: [] });
      expect(a.statusCode, JSON.stringify(bad)).toBe(400);
      expect(errorShape(a).details?.[0]?.field).toBe('protocol_version');
      const b = await push({ protocol_version: PROTOCOL_VERSION, schema_version: bad, ops: [] });
      expect(b.statusCode, JSON.stringify(bad)).toBe(400);
      expect(errorShape(b).details?.[0]?.field).toBe('schema_version');
    }
  });
});
