import net from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../server/db/connection.js';
import { Limit } from '../../../server/shared/schemas.js';
import { createTestApp } from '../../helpers/app.js';
import { createLoggedTestApp } from '../../helpers/logged-app.js';

const GENERIC_500 = 'Er ging iets mis aan onze kant. Probeer het opnieuw.';
const NOT_FOUND = { error: 'Deze pagina of functie bestaat niet.', code: 'NOT_FOUND' };
const SECRET = 'kapot in /srv/app/server/modules/orders.ts: SELECT pin_hash FROM users';

/** A plain-Dutch sentence: starts with a capital, ends with a full stop, no English framework text. */
function expectDutch(message: unknown): void {
  expect(typeof message).toBe('string');
  expect(message).toMatch(/^[A-Z'].*\.$/s);
  expect(message).not.toMatch(/\b(body|must|should|required|Invalid|Expected|Unexpected|Error)\b/);
}

/** Test-only routes, registered before the app's first inject (Fastify accepts routes until ready). */
function addTestRoutes(app: FastifyInstance, db: Db): void {
  app.post(
    '/test/orders/:tableId',
    {
      config: { access: 'public' },
      schema: {
        params: z.object({ tableId: z.uuid() }),
        querystring: z.object({ limit: Limit }),
        body: z
          .object({
            items: z.array(z.object({ product_id: z.uuid(), quantity: z.number().int().min(1).max(999) }).strict()).min(1),
            notes: z.string().max(200).optional(),
          })
          .strict(),
      },
    },
    async () => ({ ok: true }),
  );
  app.get('/test/boom', { config: { access: 'public' } }, async () => {
    throw new Error(SECRET);
  });
  app.get('/test/boom-async', { config: { access: 'public' } }, async () => {
    await new Promise((r) => setTimeout(r, 1));
    const o = undefined as unknown as { x: { y: number } };
    return o.x.y; // a real TypeError: "Cannot read properties of undefined"
  });
  app.post('/test/service-parse', { config: { access: 'public' } }, async (request) => {
    // A service that validates with zod itself instead of throwing a coded error.
    return z.object({ quantity: z.number().int().min(1), location_id: z.uuid() }).strict().parse(request.body);
  });
  app.get('/test/bad-response', { config: { access: 'public' }, schema: { response: { 200: z.object({ total_cents: z.number().int() }) } } }, async () => {
    return { total_cents: 'veel' } as unknown as { total_cents: number };
  });
  app.get('/test/sql', { config: { access: 'public' } }, async () => {
    await sql`select pin_hash from no_such_table where secret_column = 1`.execute(db);
    return { ok: true };
  });
}

async function appWithRoutes(env: Record<string, string> = {}) {
  const t = await createTestApp({ env });
  addTestRoutes(t.app, t.handle.db);
  return t;
}

const VALID_ID = '01920000-0000-7000-8000-000000000001';

describe('error shapes (CONTRACT §2)', () => {
  it('zod body errors are 400 VALIDATION with details naming the nested field', async () => {
    const t = await appWithRoutes();
    const res = await t.req({
      method: 'POST',
      url: `/test/orders/${VALID_ID}`,
      payload: { items: [{ product_id: VALID_ID, quantity: 2 }, { product_id: VALID_ID, quantity: 0 }] },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('VALIDATION');
    expect(body.details).toEqual([{ field: 'items.1.quantity', error: "'items.1.quantity' moet minimaal 1 zijn." }]);
    expect(body.error).toBe("Ongeldige invoer: 'items.1.quantity' moet minimaal 1 zijn.");
    expectDutch(body.error);
  });

  it('lists every problem in details and counts the rest in the message', async () => {
    const t = await appWithRoutes();
    const res = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}`, payload: { items: [{ product_id: 'x', quantity: 1.5 }] } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.details).toEqual([
      { field: 'items.0.product_id', error: "'items.0.product_id' moet een geldige id zijn." },
      { field: 'items.0.quantity', error: "'items.0.quantity' moet een geheel getal zijn." },
    ]);
    expect(body.error).toBe("Ongeldige invoer: 'items.0.product_id' moet een geldige id zijn (en nog 1 probleem).");
  });

  it('a missing required field and a wrong type are named in Dutch', async () => {
    const t = await appWithRoutes();
    const res = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}`, payload: { notes: 5 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { field: 'items', error: "'items' is verplicht." },
      { field: 'notes', error: "'notes' moet tekst zijn." },
    ]);
  });

  it('querystring errors are 400 VALIDATION naming the parameter (no silent clamping)', async () => {
    const t = await appWithRoutes();
    const payload = { items: [{ product_id: VALID_ID, quantity: 1 }] };
    for (const [limit, error] of [
      ['500', "'limit' mag maximaal 200 zijn."],
      ['abc', "'limit' moet een geheel getal zijn."],
      ['0', "'limit' moet minimaal 1 zijn."],
    ] as const) {
      const res = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}?limit=${limit}`, payload });
      expect(res.statusCode, limit).toBe(400);
      expect(res.json(), limit).toEqual({ error: `Ongeldige invoer: ${error.replace(/\.$/, '')}.`, code: 'VALIDATION', details: [{ field: 'limit', error }] });
    }
    const ok = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}?limit=200`, payload });
    expect(ok.statusCode).toBe(200);
  });

  it('params errors are 400 VALIDATION naming the parameter', async () => {
    const t = await appWithRoutes();
    const res = await t.req({ method: 'POST', url: '/test/orders/tafel-7', payload: { items: [{ product_id: VALID_ID, quantity: 1 }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: "Ongeldige invoer: 'tableId' moet een geldige id zijn.",
      code: 'VALIDATION',
      details: [{ field: 'tableId', error: "'tableId' moet een geldige id zijn." }],
    });
    // The same on a real route: a user id that is not a UUID.
    const r = await t.seedTenant();
    const real = await t.req({ method: 'PATCH', url: '/api/v1/users/abc', cookie: await r.adminCookie(), payload: { name: 'X' } });
    expect(real.statusCode).toBe(400);
    expect(real.json().details).toEqual([{ field: 'id', error: "'id' moet een geldige id zijn." }]);
  });

  it('unknown body fields are rejected by strict schemas, naming the field', async () => {
    const t = await appWithRoutes();
    const res = await t.req({
      method: 'POST',
      url: `/test/orders/${VALID_ID}`,
      payload: { items: [{ product_id: VALID_ID, quantity: 1, price_cents: 1 }], discount: 50 },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('VALIDATION');
    expect(body.details).toEqual(
      expect.arrayContaining([
        { field: 'items.0.price_cents', error: "Onbekend veld: 'items.0.price_cents'." },
        { field: 'discount', error: "Onbekend veld: 'discount'." },
      ]),
    );
    expectDutch(body.error);
    // And on a real route.
    const r = await t.seedTenant();
    const real = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: await r.adminCookie(), payload: { colour: 'blauw' } });
    expect(real.statusCode).toBe(400);
    expect(real.json()).toEqual({ error: "Ongeldige invoer: Onbekend veld: 'colour'.", code: 'VALIDATION', details: [{ field: 'colour', error: "Onbekend veld: 'colour'." }] });
  });

  it('malformed JSON is 400 VALIDATION in Dutch', async () => {
    const t = await appWithRoutes();
    for (const payload of ['{"items": [', '{items: 1}', 'undefined']) {
      const res = await t.req({ method: 'POST', url: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json(), payload).toEqual({ error: 'Ongeldige invoer: de body is geen geldige JSON.', code: 'VALIDATION' });
    }
  });

  it('JSON with a __proto__ key is refused, not merged', async () => {
    const t = await appWithRoutes();
    const res = await t.req({
      method: 'POST',
      url: `/test/orders/${VALID_ID}`,
      headers: { 'content-type': 'application/json' },
      payload: `{"items":[{"product_id":"${VALID_ID}","quantity":1}],"__proto__":{"admin":true}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
  });

  it('an empty body with a JSON content type is "no body": fine for DELETE, a named VALIDATION error where a body is needed', async () => {
    const t = await appWithRoutes();
    const r = await t.seedTenant();
    const cookie = await r.adminCookie();
    // Many HTTP clients send Content-Type: application/json on every request, also without a body.
    const del = await t.req({ method: 'DELETE', url: `/api/v1/users/${r.staffId}`, cookie, headers: { 'content-type': 'application/json' } });
    expect(del.statusCode).toBe(204);
    const post = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}`, headers: { 'content-type': 'application/json' }, payload: '' });
    expect(post.statusCode).toBe(400);
    expect(post.json().code).toBe('VALIDATION');
    expectDutch(post.json().error);
  });

  it('a body over the limit is 413 VALIDATION', async () => {
    const t = await appWithRoutes({ BODY_LIMIT_BYTES: '2048' });
    const big = { items: [{ product_id: VALID_ID, quantity: 1 }], notes: 'x'.repeat(3000) };
    const res = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}`, payload: big });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'De invoer is te groot.', code: 'VALIDATION' });
    // Just under the limit is parsed and validated normally.
    const small = await t.req({ method: 'POST', url: `/test/orders/${VALID_ID}`, payload: { ...big, notes: 'x'.repeat(150) } });
    expect(small.statusCode).toBe(200);
  });

  it('unknown routes are 404 NOT_FOUND in the same shape, for every method and under /api/v1', async () => {
    const t = await appWithRoutes();
    for (const [method, url] of [
      ['GET', '/bestaat-niet'],
      ['POST', '/bestaat-niet'],
      ['GET', '/api/v1/bestaat-niet'],
      ['POST', '/api/v1/orders-die-er-niet-zijn'],
      ['DELETE', '/api/v1/users'],
      ['GET', '/api/v2/health'],
    ] as const) {
      const res = await t.req({ method, url, payload: method === 'GET' ? undefined : {} });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json(), `${method} ${url}`).toEqual(NOT_FOUND);
    }
  });

  it('a wrong method on an existing path is 404 in the same shape', async () => {
    const t = await appWithRoutes();
    for (const [method, url] of [
      ['PUT', '/api/v1/users'],
      ['POST', '/api/v1/health'],
      ['GET', '/api/v1/auth/login'],
      ['PATCH', '/api/v1/setup'],
    ] as const) {
      const res = await t.req({ method, url, payload: method === 'GET' ? undefined : {} });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
  });

  it('a thrown bug is 500 INTERNAL with only the generic Dutch message', async () => {
    const t = await appWithRoutes();
    for (const url of ['/test/boom', '/test/boom-async']) {
      const res = await t.req({ method: 'GET', url });
      expect(res.statusCode, url).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json(), url).toEqual({ error: GENERIC_500, code: 'INTERNAL' });
      expect(res.body).not.toMatch(/SELECT|pin_hash|\/srv|\.ts|at .*:\d+|Cannot read|stack/i);
    }
  });

  it('a zod error thrown by a service is 400 VALIDATION with details, like a route schema error', async () => {
    const t = await appWithRoutes();
    const res = await t.req({ method: 'POST', url: '/test/service-parse', payload: { quantity: 0, location_id: 'x', foo: 1 } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: "Ongeldige invoer: 'quantity' moet minimaal 1 zijn (en nog 2 problemen).",
      code: 'VALIDATION',
      details: [
        { field: 'quantity', error: "'quantity' moet minimaal 1 zijn." },
        { field: 'location_id', error: "'location_id' moet een geldige id zijn." },
        { field: 'foo', error: "Onbekend veld: 'foo'." },
      ],
    });
  });

  it('a response that does not match its schema is a 500 (our bug), not sent half-right', async () => {
    const t = await appWithRoutes();
    const res = await t.req({ method: 'GET', url: '/test/bad-response' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: GENERIC_500, code: 'INTERNAL' });
    expect(res.body).not.toContain('veel');
  });

  it('a database error is 500 INTERNAL without SQL, table or driver details', async () => {
    const t = await appWithRoutes();
    const res = await t.req({ method: 'GET', url: '/test/sql' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: GENERIC_500, code: 'INTERNAL' });
    expect(res.body).not.toMatch(/select|no_such_table|secret_column|SQLITE|relation|42P01/i);
  });

  it('a 500 is logged with the real error and the request id, but not sent to the client', async () => {
    const rt = await createLoggedTestApp();
    rt.app.get('/test/boom', { config: { access: 'public' } }, async () => {
      throw new Error(SECRET);
    });
    const res = await rt.app.inject({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'req-boom-1' } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: GENERIC_500, code: 'INTERNAL' });
    expect(res.body).not.toContain('SELECT');
    const logged = rt.logs.find((l) => l.level >= 50 && l.err?.message === SECRET);
    expect(logged, JSON.stringify(rt.logs)).toBeDefined();
    expect(logged!.reqId).toBe('req-boom-1');
    expect(logged!.err!.stack).toContain('errors.test.ts');
    // Expected client errors are not logged as errors.
    const before = rt.logs.filter((l) => l.level >= 50).length;
    await rt.app.inject({ method: 'GET', url: '/api/v1/bestaat-niet' });
    await rt.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: 'x' } });
    expect(rt.logs.filter((l) => l.level >= 50).length).toBe(before);
  });

  it('a cookie-authenticated mutation with a non-JSON content type is 400 VALIDATION', async () => {
    const t = await appWithRoutes();
    const r = await t.seedTenant();
    const cookie = await r.adminCookie();
    // A cross-site HTML form can send these three types; none may act on a session (no route here takes uploads).
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await t.req({ method: 'POST', url: '/api/v1/auth/logout', cookie, headers: { 'content-type': type }, payload: type.startsWith('multipart') ? '--x--\r\n' : 'a=b' });
      expect(res.statusCode, type).toBe(400);
      expect(res.json(), type).toEqual({ error: 'Ongeldige invoer: stuur de gegevens als JSON (Content-Type: application/json).', code: 'VALIDATION' });
    }
    // The session survived: none of those requests logged the user out.
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).statusCode).toBe(200);
    const del = await t.req({ method: 'DELETE', url: `/api/v1/users/${r.staffId}`, cookie, headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(del.statusCode).toBe(400);
    expect(del.json().code).toBe('VALIDATION');
    expect((await t.req({ method: 'GET', url: '/api/v1/users', cookie })).json().data).toHaveLength(2);
  });

  it('401 and 403 have the contract shape', async () => {
    const t = await appWithRoutes();
    const r = await t.seedTenant();
    const anon = await t.req({ method: 'GET', url: '/api/v1/users' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
    const staff = await t.req({ method: 'GET', url: '/api/v1/settings', cookie: await r.staffCookie() });
    expect(staff.statusCode).toBe(403);
    expect(staff.json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
  });
});

describe('shutdown', () => {
  it('a request that arrives while the server closes (pipelined behind one in flight) gets a 503 in the contract shape; the one in flight completes', async () => {
    const t = await createTestApp({ autoClose: false });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const body = JSON.stringify({ slug: 'sluiting', name: 'Sluiting', admin_email: 'a@sluiting.example', admin_password: 'een-lang-wachtwoord' });
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // The first request is in flight (headers and half its body sent) when the server starts closing.
    socket.write(`POST /api/v1/setup HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 200));
    const closing = t.app.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(`${body.slice(10)}GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n`);
    await Promise.race([ended, new Promise((r) => setTimeout(r, 5_000))]);
    await closing;
    await t.close();
    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 201 /);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503 /);
    expect(answers[1]).toMatch(/\r\nconnection: close\r\n/i);
    expect(answers[1]).toMatch(/\r\nretry-after: 5\r\n/i);
    const json = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4)) as { error: string; code: string };
    expect(json).toEqual({ error: 'De server wordt afgesloten; probeer het over een paar seconden opnieuw.', code: 'INTERNAL' });
    expectDutch(json.error);
  });
});
