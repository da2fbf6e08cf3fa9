import { describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { RATE_LIMIT_EXEMPT } from '../../../server/app.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';

/** A cheap mutation (no database) and an exempt one, as a payment callback or sync route would be. */
async function appWithRoutes(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await createTestApp({ env });
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'] as const) {
    t.app.route({ method, url: '/test/ping', config: { access: 'public' }, handler: async () => ({ ok: true }) });
  }
  t.app.post('/test/payment-callback', { config: { access: 'public', ...RATE_LIMIT_EXEMPT } }, async () => ({ ok: true }));
  return t;
}

async function times(n: number, send: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) codes.push((await send()).statusCode);
  return codes;
}

const post = (t: TestApp, extra: Partial<InjectOptions> = {}) => () => t.req({ method: 'POST', url: '/test/ping', payload: {}, ...extra } as InjectOptions);

function expectRateLimited(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(body).toEqual({ error: `Te veel verzoeken; probeer het over ${retryAfter} seconden opnieuw.`, code: 'RATE_LIMITED' });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

describe('rate limit on mutations (CONTRACT §4)', () => {
  it('the 6th mutation from one IP within a minute is 429 RATE_LIMITED with Retry-After', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    expect(await times(5, post(t))).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await post(t)());
    // Every mutating method draws on the same budget, and stays limited.
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      expectRateLimited(await t.req({ method, url: '/test/ping', payload: {} }));
    }
  });

  it('PUT, PATCH and DELETE count like POST', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    const methods = ['PUT', 'PATCH', 'DELETE', 'POST', 'PUT'] as const;
    for (const method of methods) expect((await t.req({ method, url: '/test/ping', payload: {} })).statusCode).toBe(200);
    expectRateLimited(await t.req({ method: 'DELETE', url: '/test/ping' }));
  });

  it('GETs are never counted, before or after the budget is spent', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    expect(new Set(await times(20, () => t.req({ method: 'GET', url: '/test/ping' })))).toEqual(new Set([200]));
    expect(new Set(await times(10, () => t.req({ method: 'GET', url: '/api/v1/health' })))).toEqual(new Set([200]));
    expect(await times(5, post(t))).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await post(t)());
    expect((await t.req({ method: 'GET', url: '/test/ping' })).statusCode).toBe(200);
    expect((await t.req({ method: 'HEAD', url: '/api/v1/health' })).statusCode).toBe(200);
  });

  it('each client IP has its own budget', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    const a = post(t, { remoteAddress: '192.168.1.10' });
    const b = post(t, { remoteAddress: '192.168.1.11' });
    expect(await times(5, a)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await a());
    expect(await times(5, b)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await b());
  });

  it('without TRUST_PROXY the X-Forwarded-For header is ignored: the socket address counts', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    let i = 0;
    const spoofing = () => post(t, { remoteAddress: '192.168.1.20', headers: { 'x-forwarded-for': `10.0.0.${++i}` } })();
    expect(await times(5, spoofing)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await spoofing());
  });

  it('with TRUST_PROXY=1 the address the load balancer put in X-Forwarded-For counts', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5', TRUST_PROXY: '1' });
    const lb = '10.1.0.2';
    const client1 = post(t, { remoteAddress: lb, headers: { 'x-forwarded-for': '203.0.113.7' } });
    const client2 = post(t, { remoteAddress: lb, headers: { 'x-forwarded-for': '203.0.113.8' } });
    expect(await times(5, client1)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await client1());
    // Another client behind the same load balancer is not affected.
    expect(await times(5, client2)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await client2());
  });

  it('with TRUST_PROXY=1 a client cannot escape its budget by writing its own X-Forwarded-For entries', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5', TRUST_PROXY: '1' });
    let i = 0;
    // The load balancer appends the real client address after whatever the client sent.
    const spoofing = () => post(t, { remoteAddress: '10.1.0.2', headers: { 'x-forwarded-for': `198.51.100.${++i}, 203.0.113.9` } })();
    expect(await times(5, spoofing)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await spoofing());
  });

  it('the default is 60 mutations per minute: the 61st is 429', async () => {
    const t = await appWithRoutes();
    expect(t.config.rateLimitPerMinute).toBe(60);
    const codes = await times(60, post(t));
    expect(codes.every((c) => c === 200)).toBe(true);
    expectRateLimited(await post(t)());
  });

  it('real API mutations are limited too (here: logins), with the same shape', async () => {
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    const r = await t.seedTenant();
    const login = () => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } });
    expect(await times(5, login)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await login());
  });

  it('a route configured with RATE_LIMIT_EXEMPT is never limited, and does not spend the budget', async () => {
    expect(RATE_LIMIT_EXEMPT).toEqual({ rateLimit: false });
    const t = await appWithRoutes({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' });
    const callback = () => t.req({ method: 'POST', url: '/test/payment-callback', payload: { id: 'tr_1' } });
    expect(new Set(await times(12, callback))).toEqual(new Set([200]));
    // The 12 callbacks did not count: the ordinary budget is still whole.
    expect(await times(5, post(t))).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await post(t)());
    // And with the budget spent, callbacks still get through.
    expect((await callback()).statusCode).toBe(200);
  });
});
