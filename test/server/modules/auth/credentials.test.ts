import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPin } from '../../../../server/shared/secrets.js';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import { lane } from '../../../helpers/db.js';

/** Issue 17, points 2 and 5: verification with bounded cost, and admins without a PIN. */
const pinLogin = (t: TestApp, r: SeededTenant, pin: string) => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin } });
const adminLogin = (t: TestApp, r: SeededTenant, password: string) =>
  t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail, password } });

describe(`credentials (issue 17, ${lane})`, () => {
  it('5. an admin carries no PIN: refused on create and update, dropped on promotion, and PIN login is for staff only', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const admin = await r.adminCookie();
    const create = await t.req({ method: 'POST', url: '/api/v1/users', cookie: admin, payload: { name: 'Chef', role: 'admin', email: 'chef@example.nl', password: 'een-lang-wachtwoord', pin: '24680' } });
    expect(create.statusCode).toBe(400);
    expect(create.json()).toEqual({
      error: "Ongeldige invoer: 'pin' hoort niet bij een beheerder: beheerders loggen in met e-mail en wachtwoord.",
      code: 'VALIDATION',
      details: [{ field: 'pin', error: "'pin' hoort niet bij een beheerder: beheerders loggen in met e-mail en wachtwoord." }],
    });
    expect((await pinLogin(t, r, '24680')).statusCode).toBe(401);
    const patch = await t.req({ method: 'PATCH', url: `/api/v1/users/${r.adminId}`, cookie: admin, payload: { pin: '24680' } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().details[0].field).toBe('pin');

    // Promoting a staff member drops their PIN.
    const promoted = await t.req({ method: 'PATCH', url: `/api/v1/users/${r.staffId}`, cookie: admin, payload: { role: 'admin', email: 'sanne@example.nl', password: 'sanne-wachtwoord-1' } });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ role: 'admin', has_pin: false });
    expect((await pinLogin(t, r, r.staffPin)).statusCode).toBe(401);

    // An admin row that still has a PIN (an older release, a database copy): PIN login refuses it.
    const tenant = await t.handle.db.selectFrom('tenants').select('pin_salt').where('id', '=', r.id).executeTakeFirstOrThrow();
    await t.handle.db.updateTable('users').set({ pin_hash: await hashPin('97531', tenant.pin_salt) }).where('id', '=', r.adminId).execute();
    const res = await pinLogin(t, r, '97531');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Onbekend restaurant of onjuiste pincode.', code: 'UNAUTHORIZED' });
    expect((await adminLogin(t, r, r.adminPassword)).statusCode).toBe(200);
  });

  it('2. a stored hash asking for more than the production cost is not computed: other restaurants\' PIN logins stay fast', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    // scrypt N=2^15, r=8, p=64: seconds per attempt when computed, on one of libuv's four threads.
    const slow = ['scrypt', 32768, 8, 64, crypto.randomBytes(16).toString('base64url'), crypto.randomBytes(32).toString('base64url')].join('$');
    await t.handle.db.updateTable('users').set({ password_hash: slow }).where('id', '=', a.adminId).execute();
    const started = performance.now();
    const attempts = Array.from({ length: 4 }, () => adminLogin(t, a, 'wat-dan-ook-1'));
    await new Promise((r) => setTimeout(r, 20));
    const pinStarted = performance.now();
    const other = await pinLogin(t, b, b.staffPin);
    const pinMs = performance.now() - pinStarted;
    const answers = await Promise.all(attempts);
    const allMs = performance.now() - started;
    expect(other.statusCode).toBe(200);
    expect(answers.map((x) => x.statusCode)).toEqual([401, 401, 401, 401]);
    expect(pinMs).toBeLessThan(1500);
    expect(allMs).toBeLessThan(3000);
    // A well-formed hash of the production cost is still verified (the normal admin of b).
    expect((await adminLogin(t, b, b.adminPassword)).statusCode).toBe(200);
  });
});
