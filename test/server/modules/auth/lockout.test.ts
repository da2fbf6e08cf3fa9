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

  it('failures below the limit do not lock', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const wrong = () => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: '0000' } });
    for (let i = 0; i < 4; i++) expect((await wrong()).statusCode).toBe(401);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } })).statusCode).toBe(200);
  });
});

/** Issue 28 points 1 and 2: what an outside probe found in the lock-out. */
describe('issue 28: login lock-out across successes and addresses', () => {
  it('1. a successful login does not clear the failures: one employee guessing colleagues’ PINs between own logins is locked after 5', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const login = (pin: string) => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin } });
    const codes: number[] = [];
    for (let i = 0; i < 20; i++) {
      codes.push((await login(String(7000 + i))).statusCode); // a colleague's PIN, guessed
      codes.push((await login(r.staffPin)).statusCode); // and an own login in between
    }
    const guesses = codes.filter((_, i) => i % 2 === 0);
    expect(guesses.filter((c) => c === 401)).toHaveLength(5);
    expect(guesses.slice(5).every((c) => c === 429)).toBe(true);
    // Locked for the own PIN too until the window has passed (CONTRACT §3); then in again.
    expect((await login(r.staffPin)).statusCode).toBe(429);
    t.clock.advanceMinutes(15);
    expect((await login(r.staffPin)).statusCode).toBe(200);
  });

  it('2. twelve addresses guessing PINs: after 20 failures in 15 minutes every PIN login of the restaurant is braked (one per 2 s), not locked out', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const login = (pin: string, ip: string) => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin }, remoteAddress: ip });
    const codes: number[] = [];
    for (let a = 1; a <= 12; a++) for (let g = 0; g < 5; g++) codes.push((await login(String(6000 + a * 10 + g), `203.0.113.${a}`)).statusCode);
    // At one moment: 20 guesses checked (the brake's threshold), the other 40 refused.
    expect(codes.filter((c) => c === 401)).toHaveLength(20);
    expect(codes.filter((c) => c === 429)).toHaveLength(40);
    // A colleague at the till (an address with no failures) is asked to wait a moment, not locked out.
    const braked = await login(r.staffPin, '198.51.100.7');
    expect(braked.statusCode).toBe(429);
    expect(braked.json()).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringMatching(/seconde/) });
    expect(Number(braked.headers['retry-after'])).toBeLessThanOrEqual(2);
    t.clock.advance(2_000);
    expect((await login(r.staffPin, '198.51.100.7')).statusCode).toBe(200);
    // Braked: one attempt per 2 s for the whole restaurant, whichever address it comes from.
    t.clock.advance(2_000);
    expect((await login('6999', '192.0.2.1')).statusCode).toBe(401);
    expect((await login('6998', '192.0.2.2')).statusCode).toBe(429);
    // Another restaurant is not braked.
    const other = await t.seedTenant();
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: other.slug, pin: other.staffPin }, remoteAddress: '192.0.2.3' })).statusCode).toBe(200);
    // Fifteen minutes after the failures the brake is off again.
    t.clock.advanceMinutes(15);
    expect((await login('6997', '192.0.2.4')).statusCode).toBe(401);
    expect((await login(r.staffPin, '192.0.2.5')).statusCode).toBe(200);
  });
});
