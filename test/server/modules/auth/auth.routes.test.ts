import { describe, expect, it } from 'vitest';
import { createTestApp, cookieFrom } from '../../../helpers/app.js';
import { PURGE_JOB } from '../../../../server/modules/auth/auth.jobs.js';

describe('sessions (CONTRACT §3)', () => {
  it('staff log in with slug and PIN and get session info and an HttpOnly cookie', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const res = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.tenant).toEqual({ id: r.id, slug: r.slug, name: expect.any(String) });
    expect(body.user).toEqual({ id: r.staffId, name: 'Sanne' });
    expect(body.role).toBe('staff');
    const cookie = res.cookies.find((c) => c.name === 'ck_token')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    expect(cookie.path).toBe('/');
    expect(cookie.value.length).toBeGreaterThanOrEqual(43); // 32 random bytes, base64url
  });

  it('admins log in with slug, e-mail and password; e-mail is case-insensitive', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const res = await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail.toUpperCase(), password: r.adminPassword } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ role: 'admin', user: { id: r.adminId, email: r.adminEmail } });
    const me = await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: cookieFrom(res) });
    expect(me.statusCode).toBe(200);
    expect(me.json().role).toBe('admin');
  });

  it.each([
    ['wrong PIN', '/api/v1/auth/login', (r: { slug: string }) => ({ slug: r.slug, pin: '9999' })],
    ['unknown restaurant (staff)', '/api/v1/auth/login', () => ({ slug: 'bestaat-niet', pin: '1234' })],
    ['wrong password', '/api/v1/auth/admin-login', (r: { slug: string; adminEmail: string }) => ({ slug: r.slug, email: r.adminEmail, password: 'fout-wachtwoord' })],
    ['unknown e-mail', '/api/v1/auth/admin-login', (r: { slug: string }) => ({ slug: r.slug, email: 'niemand@example.com', password: 'geheim-wachtwoord-1' })],
    ['unknown restaurant (admin)', '/api/v1/auth/admin-login', () => ({ slug: 'bestaat-niet', email: 'a@b.nl', password: 'x' })],
  ])('%s is 401 UNAUTHORIZED without a cookie', async (_name, url, body) => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const res = await t.req({ method: 'POST', url, payload: body(r) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: expect.stringMatching(/onjuist/i), code: 'UNAUTHORIZED' });
    expect(res.cookies.find((c) => c.name === 'ck_token')).toBeUndefined();
  });

  it('a staff PIN cannot be used for the admin login, nor an admin password by staff', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const res = await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail, password: r.staffPin } });
    expect(res.statusCode).toBe(401);
  });

  it('malformed login bodies are 400 VALIDATION with Dutch details', async () => {
    const t = await createTestApp();
    const res = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: 'x', pin: '12' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('VALIDATION');
    expect(body.details).toEqual([{ field: 'pin', error: "'pin' moet uit 4 tot 8 cijfers bestaan." }]);
    expect(body.error).toBe("Ongeldige invoer: 'pin' moet uit 4 tot 8 cijfers bestaan.");
  });

  it('GET /auth/me without a session, with a garbage cookie, is 401', async () => {
    const t = await createTestApp();
    for (const cookie of [undefined, 'ck_token=nonsense']) {
      const res = await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
    }
  });

  it('logout answers 204, clears the cookie and ends the session server-side', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const cookie = await r.staffCookie();
    const out = await t.req({ method: 'POST', url: '/api/v1/auth/logout', cookie });
    expect(out.statusCode).toBe(204);
    const cleared = out.cookies.find((c) => c.name === 'ck_token')!;
    expect(cleared.value).toBe('');
    // The old token no longer works even if a client kept it.
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).statusCode).toBe(401);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/logout', cookie })).statusCode).toBe(401);
  });

  it('the session slides: 14 minutes of quiet then activity keeps it alive, 15 minutes of quiet ends it', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const cookie = await r.staffCookie();
    for (let i = 0; i < 4; i++) {
      t.clock.advanceMinutes(14);
      expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).statusCode).toBe(200);
    }
    t.clock.advanceMinutes(15);
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).statusCode).toBe(401);
  });

  it('the session ends after 8 hours however active it is', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const cookie = await r.staffCookie();
    const me0 = (await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).json();
    expect(new Date(me0.absolute_expires_at).getTime() - t.clock.now().getTime()).toBe(8 * 3600_000);
    for (let minutes = 10; minutes < 8 * 60; minutes += 10) {
      t.clock.advanceMinutes(10);
      expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).statusCode, `at ${minutes} min`).toBe(200);
    }
    t.clock.advanceMinutes(10); // 8h00
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie })).statusCode).toBe(401);
  });

  it('locks a tenant+IP out after 5 failed logins for 15 minutes, even for the right PIN', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    for (let i = 0; i < 5; i++) {
      const res = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: '0000' } });
      expect(res.statusCode).toBe(401);
    }
    const locked = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // The admin login of that tenant from that IP is locked as well.
    const adminLocked = await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: r.slug, email: r.adminEmail, password: r.adminPassword } });
    expect(adminLocked.statusCode).toBe(429);
    // Another IP is not affected; another tenant from the same IP is not affected.
    const other = await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin }, remoteAddress: '10.9.8.7' });
    expect(other.statusCode).toBe(200);
    const r2 = await t.seedTenant();
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r2.slug, pin: r2.staffPin } })).statusCode).toBe(200);
    // When the window has passed, the right PIN works again.
    t.clock.advanceMinutes(15);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: r.slug, pin: r.staffPin } })).statusCode).toBe(200);
  });

  it('a session of one tenant never sees another tenant', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    const cookieA = await a.adminCookie();
    const me = (await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: cookieA })).json();
    expect(me.tenant.id).toBe(a.id);
    const users = (await t.req({ method: 'GET', url: '/api/v1/users', cookie: cookieA })).json();
    expect(users.data.map((u: { id: string }) => u.id).sort()).toEqual([a.adminId, a.staffId].sort());
    // B's user is "not found" for A's admin, exactly like a user that does not exist.
    const patch = await t.req({ method: 'PATCH', url: `/api/v1/users/${b.staffId}`, cookie: cookieA, payload: { name: 'Overgenomen' } });
    expect(patch.statusCode).toBe(404);
    expect(patch.json()).toEqual({ error: 'Medewerker niet gevonden.', code: 'NOT_FOUND' });
    // The same PIN may exist in two tenants; each logs into its own tenant.
    await t.services.users.create(b.id, { name: 'Piet', role: 'staff', pin: '4321' });
    await t.services.users.create(a.id, { name: 'Klaas', role: 'staff', pin: '4321' });
    const la = (await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: a.slug, pin: '4321' } })).json();
    const lb = (await t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: b.slug, pin: '4321' } })).json();
    expect([la.tenant.id, la.user.name]).toEqual([a.id, 'Klaas']);
    expect([lb.tenant.id, lb.user.name]).toEqual([b.id, 'Piet']);
  });

  it('staff sessions get 403 FORBIDDEN on admin endpoints', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const res = await t.req({ method: 'GET', url: '/api/v1/users', cookie: await r.staffCookie() });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
  });

  it('the hourly purge job drops ended sessions and old login failures, and keeps live ones', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const db = t.handle.db;
    const count = async (table: 'sessions' | 'login_failures') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', r.id).executeTakeFirstOrThrow()).n);
    const old = await r.staffCookie();
    await t.req({ method: 'POST', url: '/api/v1/auth/login', remoteAddress: '10.0.0.9', payload: { slug: r.slug, pin: '99999' } }); // one failure, from another tablet
    t.clock.advanceMinutes(16); // the first session idled out, the failure left the lock-out window
    const live = await r.staffCookie();
    expect(await count('sessions')).toBe(2);
    expect(await count('login_failures')).toBe(1);
    expect(t.app.scheduler.names()).toContain(PURGE_JOB);
    await t.app.scheduler.run(PURGE_JOB);
    expect(await count('sessions')).toBe(1);
    expect(await count('login_failures')).toBe(0);
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: live })).statusCode).toBe(200);
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: old })).statusCode).toBe(401);
  });
});
