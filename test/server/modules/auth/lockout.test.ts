import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';

describe('login lockout under parallel attempts (CONTRACT §3)', () => {
  it('20 simultaneous wrong PINs from one IP: at most 5 are tried, the rest are 429, and the IP is locked', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const guesses = Array.from({ length: 20 }, (_, i) => String(9000 + i));
    const results = await Promise.all(guesses.map((pin) => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin } })));
    const codes = results.map((x) => x.statusCode);
    expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c !== 401 && c !== 429)).toEqual([]);
    for (const res of results.filter((x) => x.statusCode === 429)) expect(res.json().code).toBe('RATE_LIMITED');
    // Over the whole window no more than 5 wrong PINs are ever checked: keep guessing one by one.
    let checked = codes.filter((c) => c === 401).length;
    for (let i = 0; i < 10; i++) {
      const res = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: String(8000 + i) } });
      if (res.statusCode === 429) break;
      expect(res.statusCode).toBe(401);
      checked += 1;
    }
    expect(checked).toBe(5);
    // Locked now, even for the right PIN.
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } })).statusCode).toBe(429);
    // And the lockout lasts 15 minutes from the failures, not longer because of the refused attempts.
    t.clock.advanceMinutes(15);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } })).statusCode).toBe(200);
  });

  it('the same holds for admin logins', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail, password: `fout-${i}` } }),
      ),
    );
    let checked = results.filter((x) => x.statusCode === 401).length;
    expect(checked).toBeLessThanOrEqual(5);
    for (let i = 0; i < 10; i++) {
      const res = await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail, password: `nog-fout-${i}` } });
      if (res.statusCode === 429) break;
      checked += 1;
    }
    expect(checked).toBe(5);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail, password: r.adminPassword } })).statusCode).toBe(429);
  });

  it('failures below the limit do not lock, and a successful login clears them', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const wrong = () => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: '0000' } });
    for (let i = 0; i < 4; i++) expect((await wrong()).statusCode).toBe(401);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } })).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await wrong()).statusCode).toBe(401);
    expect((await wrong()).statusCode).toBe(429);
  });
});
