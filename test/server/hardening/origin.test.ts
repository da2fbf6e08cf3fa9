import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

/**
 * Issue 28 point 7: a cookie-authenticated mutation without a body and without a Content-Type was
 * accepted from anywhere, and Origin was not checked. Every cookie mutation now comes from this
 * server's own pages: `Sec-Fetch-Site` (sent by current browsers) must be `same-origin`, else an
 * `Origin` header must be this server's own address (or PUBLIC_BASE_URL's). Clients that are no
 * browser send neither and are not affected (they cannot carry a victim's cookie).
 */
describe(`issue 28 point 7: cookie mutations only from this server's own pages (${lane})`, () => {
  it('a bodiless cross-site POST with a staff cookie (clock-in) is 403 and changes nothing; same-origin and non-browser clients pass', async () => {
    const t = await createTestApp();
    t.clock.set('2026-11-20T10:00:00.000Z');
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const clockIn = (headers: Record<string, string>) => t.req({ method: 'POST', url: '/api/v1/shifts/clock-in', cookie: staff, headers });
    const shifts = async () => (await t.handle.db.selectFrom('shifts').select('id').where('tenant_id', '=', r.id).execute()).length;

    for (const headers of <Array<Record<string, string>>>[
      { origin: 'https://kwaadaardig.example' },
      { origin: 'null' },
      { origin: 'http://localhost:8081' }, // another port on the same host: same-site for SameSite=Lax cookies
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost:8081' },
      { 'sec-fetch-site': 'cross-site', origin: 'http://localhost:80' }, // the browser's verdict wins
    ]) {
      const res = await clockIn(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json()).toMatchObject({ code: 'FORBIDDEN', error: expect.stringMatching(/andere website/) });
    }
    expect(await shifts()).toBe(0);

    // DELETE and PATCH too (an admin's cookie), also with a JSON body.
    const admin = await r.adminCookie();
    const del = await t.req({ method: 'DELETE', url: `/api/v1/users/${r.staffId}`, cookie: admin, headers: { origin: 'https://kwaadaardig.example' } });
    expect(del.statusCode).toBe(403);
    const patch = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, headers: { 'sec-fetch-site': 'cross-site' }, payload: { name: 'Overgenomen' } });
    expect(patch.statusCode).toBe(403);
    expect((await t.handle.db.selectFrom('users').select('archived_at').where('id', '=', r.staffId).executeTakeFirstOrThrow()).archived_at).toBeNull();

    // This server's own pages: Sec-Fetch-Site same-origin, or an Origin equal to its own address.
    expect((await clockIn({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:80' })).statusCode).toBe(201);
    t.clock.advance(60_000);
    expect((await t.req({ method: 'POST', url: '/api/v1/shifts/clock-out', cookie: staff, headers: { origin: 'http://localhost:80' } })).statusCode).toBe(200);
    // A client that is no browser (no Origin, no Sec-Fetch-Site), and reads are never checked.
    t.clock.advance(60_000);
    expect((await clockIn({})).statusCode).toBe(201);
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: staff, headers: { 'sec-fetch-site': 'cross-site' } })).statusCode).toBe(200);
  });

  it('PUBLIC_BASE_URL is this server’s address too (a cloud behind a load balancer that rewrites Host)', async () => {
    const t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://bestellen.example' } });
    const r = await t.seedTenant();
    const staff = await r.staffCookie();
    const res = await t.req({ method: 'POST', url: '/api/v1/shifts/clock-in', cookie: staff, headers: { origin: 'https://bestellen.example', host: 'node-3.intern:9000' } });
    expect(res.statusCode).toBe(201);
  });
});
