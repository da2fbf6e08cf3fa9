import { describe, expect, it } from 'vitest';
import { createTestApp, cookieFrom, type TestApp } from '../helpers/app.js';

const body = (over: Record<string, unknown> = {}) => ({
  slug: 'de-gouden-lepel',
  name: 'De Gouden Lepel',
  admin_name: 'Fatima',
  admin_email: 'fatima@goudenlepel.nl',
  admin_password: 'lepel-wachtwoord-1',
  ...over,
});

const setup = (t: TestApp, payload: object) => t.req({ method: 'POST', url: '/api/v1/setup', payload });
const needed = async (t: TestApp) => (await t.req({ method: 'GET', url: '/api/v1/setup' })).json();

describe('first-run setup (CONTRACT §15)', () => {
  it('an empty appliance needs setup; POST creates the restaurant and its admin, who can log in', async () => {
    const t = await createTestApp();
    expect(await needed(t)).toEqual({ needed: true });
    const res = await setup(t, body({ timezone: 'Europe/Brussels' }));
    expect(res.statusCode).toBe(201);
    const tenant = res.json().tenant;
    expect(res.json()).toEqual({ tenant: { id: expect.any(String), slug: 'de-gouden-lepel', name: 'De Gouden Lepel' } });
    expect(res.body).not.toContain('lepel-wachtwoord-1');
    expect(await needed(t)).toEqual({ needed: false });

    const login = await t.req({
      method: 'POST',
      url: '/api/v1/auth/admin-login',
      payload: { slug: 'de-gouden-lepel', email: 'fatima@goudenlepel.nl', password: 'lepel-wachtwoord-1' },
    });
    expect(login.statusCode).toBe(200);
    expect(login.json()).toMatchObject({ role: 'admin', tenant, user: { name: 'Fatima', email: 'fatima@goudenlepel.nl' } });
    const settings = await t.req({ method: 'GET', url: '/api/v1/settings', cookie: cookieFrom(login) });
    expect(settings.json()).toMatchObject({ name: 'De Gouden Lepel', timezone: 'Europe/Brussels' });
    // The restaurant and its admin are in the change log (they sync to the cloud).
    expect((await t.changes.readSince(tenant.id, 0)).map((c) => c.kind)).toEqual(['tenant.created', 'user.created']);
  });

  it('a second setup is 409 CONFLICT and changes nothing', async () => {
    const t = await createTestApp();
    expect((await setup(t, body())).statusCode).toBe(201);
    const again = await setup(t, body({ slug: 'overname', admin_email: 'boef@example.nl' }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Dit apparaat is al ingesteld.', code: 'CONFLICT' });
    expect(await t.handle.db.selectFrom('tenants').select('slug').execute()).toEqual([{ slug: 'de-gouden-lepel' }]);
    expect((await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: 'overname', email: 'boef@example.nl', password: 'lepel-wachtwoord-1' } })).statusCode).toBe(401);
  });

  it('setup is refused once a restaurant exists from another path (the CLI)', async () => {
    const t = await createTestApp();
    await t.seedTenant();
    expect(await needed(t)).toEqual({ needed: false });
    const res = await setup(t, body());
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('CONFLICT');
  });

  it('concurrent setup requests: exactly one succeeds', async () => {
    const t = await createTestApp();
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => setup(t, body({ slug: `restaurant-${i}`, admin_email: `baas${i}@example.nl` }))),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 409, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json()).toEqual({ error: 'Dit apparaat is al ingesteld.', code: 'CONFLICT' });
    expect(await t.handle.db.selectFrom('tenants').select('id').execute()).toHaveLength(1);
    expect(await t.handle.db.selectFrom('users').select('id').execute()).toHaveLength(1);
  });

  it('invalid setup input is 400 VALIDATION with details, and the appliance still needs setup', async () => {
    const t = await createTestApp();
    const res = await setup(t, body({ slug: 'Met Spaties', admin_password: 'kort', admin_email: 'nee', extra: 1 }));
    expect(res.statusCode).toBe(400);
    const fields = res.json().details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['slug', 'admin_email', 'admin_password', 'extra']));
    expect((await setup(t, body({ timezone: 'Nergens/Niets' }))).json().details).toEqual([
      { field: 'timezone', error: "'timezone' moet een geldige tijdzone zijn, bijvoorbeeld Europe/Amsterdam." },
    ]);
    expect(await needed(t)).toEqual({ needed: true });
  });

  it('on the cloud (ROLE=cloud) there is no first-run setup: 403, and GET says not needed', async () => {
    const t = await createTestApp({ config: { role: 'cloud' } });
    expect(await needed(t)).toEqual({ needed: false });
    const res = await setup(t, body());
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'De eerste installatie kan alleen op het apparaat in het restaurant.', code: 'FORBIDDEN' });
    expect(await t.handle.db.selectFrom('tenants').select('id').execute()).toHaveLength(0);
    const page = await t.req({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('/api/v1/setup');
  });

  it('GET / serves the setup page on an empty appliance and a landing page afterwards', async () => {
    const t = await createTestApp();
    const empty = await t.req({ method: 'GET', url: '/' });
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['content-type']).toMatch(/^text\/html/);
    expect(empty.body).toMatch(/<html lang="nl">/);
    expect(empty.body).toContain('Stel je restaurant in');
    expect(empty.body).toContain('/api/v1/setup');
    for (const field of ['name', 'slug', 'admin_email', 'admin_password']) expect(empty.body).toContain(`name="${field}"`);

    expect((await setup(t, body())).statusCode).toBe(201);
    const after = await t.req({ method: 'GET', url: '/' });
    expect(after.statusCode).toBe(200);
    expect(after.headers['content-type']).toMatch(/^text\/html/);
    expect(after.body).not.toContain('/api/v1/setup');
    expect(after.body).toContain('/api/v1/docs');
  });
});
