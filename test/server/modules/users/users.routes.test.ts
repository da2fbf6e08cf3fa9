import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../../server/shared/secrets.js';
import { cookieFrom, createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';

const login = (t: TestApp, slug: string, pin: string) => t.req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug, pin } });
const adminLogin = (t: TestApp, slug: string, email: string, password: string) =>
  t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug, email, password } });
const me = (t: TestApp, cookie: string) => t.req({ method: 'GET', url: '/api/v1/auth/me', cookie });

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const api = {
    list: () => t.req({ method: 'GET', url: '/api/v1/users', cookie: admin }),
    create: (payload: object, cookie = admin) => t.req({ method: 'POST', url: '/api/v1/users', cookie, payload }),
    patch: (id: string, payload: object, cookie = admin) => t.req({ method: 'PATCH', url: `/api/v1/users/${id}`, cookie, payload }),
    remove: (id: string, cookie = admin) => t.req({ method: 'DELETE', url: `/api/v1/users/${id}`, cookie }),
  };
  return { t, r, admin, api };
}

async function kinds(t: TestApp, r: SeededTenant, afterSeq = 0) {
  return (await t.changes.readSince(r.id, afterSeq)).map((c) => `${c.kind}:${c.entity_id}`);
}

describe('users (CONTRACT §16, §3)', () => {
  it('GET /users lists the tenant\'s users as {data}, without any secret', async () => {
    const { t, r, api } = await setup();
    const res = await api.list();
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toHaveLength(2);
    const staff = data.find((u: { id: string }) => u.id === r.staffId);
    expect(staff).toEqual({
      id: r.staffId,
      name: 'Sanne',
      role: 'staff',
      email: null,
      hourly_wage_cents: 1450,
      job: null,
      has_pin: true,
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
      archived_at: null,
    });
    const admin = data.find((u: { id: string }) => u.id === r.adminId);
    expect(admin).toMatchObject({ role: 'admin', email: r.adminEmail, has_pin: false });
    expect(res.body).not.toMatch(/hash|scrypt|password|geheim|"pin"/);
  });

  it('POST creates a staff member with a PIN (201), who can log in; the change log records it', async () => {
    const { t, r, api } = await setup();
    const before = await t.changes.lastSeq(r.id);
    const res = await api.create({ name: 'Joost', role: 'staff', pin: '73915', hourly_wage_cents: 1325, job: 'bediening' });
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user).toMatchObject({ name: 'Joost', role: 'staff', email: null, has_pin: true, hourly_wage_cents: 1325, job: 'bediening', archived_at: null });
    expect(user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const l = await login(t, r.slug, '73915');
    expect(l.statusCode).toBe(200);
    expect(l.json().user).toEqual({ id: user.id, name: 'Joost' });
    expect(await kinds(t, r, before)).toEqual([`user.created:${user.id}`]);
  });

  it('role defaults to staff; staff need a PIN of 4 to 8 digits', async () => {
    const { api } = await setup();
    const missing = await api.create({ name: 'Zonder pin' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      error: "Ongeldige invoer: 'pin' is verplicht voor een medewerker.",
      code: 'VALIDATION',
      details: [{ field: 'pin', error: "'pin' is verplicht voor een medewerker." }],
    });
    for (const pin of ['123', '123456789', '12a4', ' 1234', '']) {
      const res = await api.create({ name: 'Fout', role: 'staff', pin });
      expect(res.statusCode, pin).toBe(400);
      expect(res.json().details, pin).toEqual([{ field: 'pin', error: "'pin' moet uit 4 tot 8 cijfers bestaan." }]);
    }
    for (const pin of ['0000', '12345678']) expect((await api.create({ name: `Goed ${pin}`, pin })).statusCode, pin).toBe(201);
  });

  it('a PIN is unique within the tenant: 409 CONFLICT in Dutch, also when created at the same moment', async () => {
    const { t, r, api } = await setup();
    const dup = await api.create({ name: 'Kopie', role: 'staff', pin: r.staffPin });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'Deze pincode is al in gebruik door een andere medewerker.', code: 'CONFLICT' });
    const [a, b] = await Promise.all([api.create({ name: 'Eerste', pin: '8642' }), api.create({ name: 'Tweede', pin: '8642' })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
    expect((await api.list()).json().data.filter((u: { name: string }) => ['Eerste', 'Tweede'].includes(u.name))).toHaveLength(1);
    // Changing someone's PIN to a taken one is refused too.
    const p = await api.patch(r.staffId, { pin: '8642' });
    expect(p.statusCode).toBe(409);
    expect(p.json().code).toBe('CONFLICT');
    expect((await login(t, r.slug, r.staffPin)).statusCode).toBe(200);
  });

  it('an admin needs e-mail and password, can then log in, and an e-mail is unique', async () => {
    const { t, r, api } = await setup();
    const noPassword = await api.create({ name: 'Chef', role: 'admin', email: 'chef@example.nl' });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().details).toEqual([{ field: 'password', error: "'password' is verplicht voor een beheerder." }]);
    const noEmail = await api.create({ name: 'Chef', role: 'admin', password: 'een-lang-wachtwoord' });
    expect(noEmail.statusCode).toBe(400);
    expect(noEmail.json().details[0].field).toBe('email');
    const shortPw = await api.create({ name: 'Chef', role: 'admin', email: 'chef@example.nl', password: 'kort' });
    expect(shortPw.statusCode).toBe(400);
    expect(shortPw.json().details).toEqual([{ field: 'password', error: "'password' moet minimaal 10 tekens lang zijn." }]);
    const badEmail = await api.create({ name: 'Chef', role: 'admin', email: 'geen-email', password: 'een-lang-wachtwoord' });
    expect(badEmail.json().details).toEqual([{ field: 'email', error: "'email' moet een geldig e-mailadres zijn." }]);

    const ok = await api.create({ name: 'Chef', role: 'admin', email: 'Chef@Example.nl', password: 'een-lang-wachtwoord' });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ role: 'admin', email: 'chef@example.nl', has_pin: false });
    expect((await adminLogin(t, r.slug, 'chef@example.nl', 'een-lang-wachtwoord')).statusCode).toBe(200);
    const dup = await api.create({ name: 'Chef 2', role: 'admin', email: 'CHEF@example.nl', password: 'nog-een-wachtwoord' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'Dit e-mailadres is al in gebruik.', code: 'CONFLICT' });
  });

  it('unknown fields in create and update are 400', async () => {
    const { r, api } = await setup();
    const c = await api.create({ name: 'X', pin: '5678', is_owner: true });
    expect(c.statusCode).toBe(400);
    expect(c.json().details).toEqual([{ field: 'is_owner', error: "Onbekend veld: 'is_owner'." }]);
    const p = await api.patch(r.staffId, { pin_hash: 'x' });
    expect(p.statusCode).toBe(400);
    expect(p.json().details[0].field).toBe('pin_hash');
  });

  it('PATCH updates only the fields sent (200) and records the change; a name change keeps sessions', async () => {
    const { t, r, api } = await setup();
    const staffCookie = await r.staffCookie();
    const before = await t.changes.lastSeq(r.id);
    t.clock.advanceMinutes(1);
    const res = await api.patch(r.staffId, { name: 'Sanne de Vries', job: 'keuken' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: r.staffId, name: 'Sanne de Vries', job: 'keuken', hourly_wage_cents: 1450, has_pin: true });
    expect(res.json().updated_at).toBe(t.clock.now().toISOString());
    expect(await kinds(t, r, before)).toEqual([`user.updated:${r.staffId}`]);
    expect((await me(t, staffCookie)).statusCode).toBe(200);
    // Clearing a nullable field with null.
    expect((await api.patch(r.staffId, { job: null })).json().job).toBeNull();
  });

  it('a PATCH that changes nothing writes nothing (no change-log entry, updated_at kept)', async () => {
    const { t, r, api } = await setup();
    const before = await t.changes.lastSeq(r.id);
    const created = (await api.list()).json().data.find((u: { id: string }) => u.id === r.staffId);
    t.clock.advanceMinutes(5);
    for (const payload of [{}, { name: 'Sanne', hourly_wage_cents: 1450 }, { pin: r.staffPin }]) {
      const res = await api.patch(r.staffId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(200);
      expect(res.json(), JSON.stringify(payload)).toEqual(created);
    }
    expect(await t.changes.lastSeq(r.id)).toBe(before);
    expect((await login(t, r.slug, r.staffPin)).statusCode).toBe(200);
  });

  it('a new password ends the admin\'s sessions; the new password works, the old does not', async () => {
    const { t, r, admin, api } = await setup();
    const res = await api.patch(r.adminId, { password: 'een-nieuw-wachtwoord' });
    expect(res.statusCode).toBe(200);
    expect((await me(t, admin)).statusCode).toBe(401);
    expect((await adminLogin(t, r.slug, r.adminEmail, r.adminPassword)).statusCode).toBe(401);
    expect((await adminLogin(t, r.slug, r.adminEmail, 'een-nieuw-wachtwoord')).statusCode).toBe(200);
  });

  it('role changes keep the role rules: staff → admin needs e-mail and password; a staff member keeps a PIN', async () => {
    const { r, api } = await setup();
    const noEmail = await api.patch(r.staffId, { role: 'admin' });
    expect(noEmail.statusCode).toBe(400);
    expect(noEmail.json().details).toEqual([{ field: 'email', error: "'email' is verplicht voor een beheerder." }]);
    const noPin = await api.patch(r.staffId, { pin: null });
    expect(noPin.statusCode).toBe(400);
    expect(noPin.json().details).toEqual([{ field: 'pin', error: "'pin' is verplicht voor een medewerker." }]);
    const promoted = await api.patch(r.staffId, { role: 'admin', email: 'sanne@example.nl', password: 'sanne-wachtwoord' });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ role: 'admin', email: 'sanne@example.nl' });
  });

  it('a changed PIN ends that user\'s sessions (only theirs); the old PIN stops working, the new one works', async () => {
    const { t, r, admin, api } = await setup();
    const staffCookie = await r.staffCookie();
    const other = (await api.create({ name: 'Ali', pin: '24680' })).json();
    const otherCookie = cookieFrom(await login(t, r.slug, '24680'));
    const res = await api.patch(r.staffId, { pin: '97531' });
    expect(res.statusCode).toBe(200);
    expect((await me(t, staffCookie)).statusCode).toBe(401);
    expect((await me(t, otherCookie)).statusCode).toBe(200);
    expect((await me(t, admin)).statusCode).toBe(200);
    expect((await login(t, r.slug, r.staffPin)).statusCode).toBe(401);
    expect((await login(t, r.slug, '97531')).json().user.id).toBe(r.staffId);
    expect(other.id).toBeTruthy();
  });

  it('DELETE archives (204): gone from the list, sessions ended, PIN freed for someone else, change recorded', async () => {
    const { t, r, api } = await setup();
    const staffCookie = await r.staffCookie();
    const before = await t.changes.lastSeq(r.id);
    const del = await api.remove(r.staffId);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await api.list()).json().data.map((u: { id: string }) => u.id)).toEqual([r.adminId]);
    expect((await me(t, staffCookie)).statusCode).toBe(401);
    expect((await login(t, r.slug, r.staffPin)).statusCode).toBe(401);
    // The row stays (history refers to it), archived and without a PIN.
    const row = await t.handle.db.selectFrom('users').selectAll().where('id', '=', r.staffId).executeTakeFirstOrThrow();
    expect(row.archived_at).toBe(t.clock.now().toISOString());
    expect(row.pin_hash).toBeNull();
    expect(await kinds(t, r, before)).toEqual([`user.archived:${r.staffId}`]);
    // The PIN is free again.
    const reuse = await api.create({ name: 'Opvolger', pin: r.staffPin });
    expect(reuse.statusCode).toBe(201);
    expect((await login(t, r.slug, r.staffPin)).json().user.id).toBe(reuse.json().id);
    // An archived admin's e-mail address is free again as well.
    const second = (await api.create({ name: 'Vertrekt', role: 'admin', email: 'manager@example.nl', password: 'manager-wachtwoord' })).json();
    expect((await api.remove(second.id)).statusCode).toBe(204);
    const rehired = await api.create({ name: 'Komt terug', role: 'admin', email: 'manager@example.nl', password: 'manager-wachtwoord-2' });
    expect(rehired.statusCode).toBe(201);
    expect((await adminLogin(t, r.slug, 'manager@example.nl', 'manager-wachtwoord-2')).json().user.id).toBe(rehired.json().id);
    // An archived user is gone for PATCH and DELETE too.
    expect((await api.remove(r.staffId)).statusCode).toBe(404);
    expect((await api.patch(r.staffId, { name: 'Terug' })).statusCode).toBe(404);
  });

  it('the last admin cannot be removed or demoted (409); with a second admin it can', async () => {
    const { t, r, admin, api } = await setup();
    const del = await api.remove(r.adminId);
    expect(del.statusCode).toBe(409);
    expect(del.json()).toEqual({ error: 'Er moet minstens één beheerder overblijven.', code: 'CONFLICT' });
    const demote = await api.patch(r.adminId, { role: 'staff', pin: '13579' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().code).toBe('CONFLICT');
    expect((await me(t, admin)).json().role).toBe('admin');

    const second = (await api.create({ name: 'Tweede', role: 'admin', email: 'tweede@example.nl', password: 'tweede-wachtwoord' })).json();
    const demoted = await api.patch(r.adminId, { role: 'staff', pin: '13579' });
    expect(demoted.statusCode).toBe(200);
    expect(demoted.json()).toMatchObject({ role: 'staff', has_pin: true });
    // A role change ends the sessions: the demoted admin's admin session is gone.
    expect((await me(t, admin)).statusCode).toBe(401);
    const secondCookie = cookieFrom(await adminLogin(t, r.slug, 'tweede@example.nl', 'tweede-wachtwoord'));
    const last = await t.req({ method: 'DELETE', url: `/api/v1/users/${second.id}`, cookie: secondCookie });
    expect(last.statusCode).toBe(409);
  });

  it('two admins removing each other at the same moment still leave one admin', async () => {
    const { t, r, admin, api } = await setup();
    const second = (await api.create({ name: 'Tweede', role: 'admin', email: 'tweede@example.nl', password: 'tweede-wachtwoord' })).json();
    const secondCookie = cookieFrom(await adminLogin(t, r.slug, 'tweede@example.nl', 'tweede-wachtwoord'));
    const results = await Promise.all([api.remove(second.id, admin), api.remove(r.adminId, secondCookie)]);
    const codes = results.map((x) => x.statusCode).sort();
    const admins = await t.handle.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', r.id)
      .where('role', '=', 'admin')
      .where('archived_at', 'is', null)
      .execute();
    expect(admins).toHaveLength(1);
    // Either one removal won and the other was refused, or the first to commit ended the other's session.
    expect(codes[0]).toBe(204);
    expect([401, 409]).toContain(codes[1]);
  });

  it('another tenant\'s user is 404, exactly like an unknown id', async () => {
    const { t, api } = await setup();
    const other = await t.seedTenant();
    for (const id of [other.staffId, other.adminId, '01920000-0000-7000-8000-00000000beef']) {
      const p = await api.patch(id, { name: 'Gekaapt' });
      expect(p.statusCode).toBe(404);
      expect(p.json()).toEqual({ error: 'Medewerker niet gevonden.', code: 'NOT_FOUND' });
      const d = await api.remove(id);
      expect(d.statusCode).toBe(404);
      expect(d.json()).toEqual({ error: 'Medewerker niet gevonden.', code: 'NOT_FOUND' });
    }
    // Nothing changed on the other side.
    expect((await login(t, other.slug, other.staffPin)).statusCode).toBe(200);
  });

  it('staff get 403 on every users endpoint; without a session it is 401', async () => {
    const { t, r } = await setup();
    const staff = await r.staffCookie();
    const calls = [
      { method: 'GET', url: '/api/v1/users' },
      { method: 'POST', url: '/api/v1/users', payload: { name: 'X', pin: '4444' } },
      { method: 'PATCH', url: `/api/v1/users/${r.staffId}`, payload: { name: 'Ikzelf' } },
      { method: 'DELETE', url: `/api/v1/users/${r.adminId}` },
    ] as const;
    for (const call of calls) {
      const res = await t.req({ ...call, cookie: staff });
      expect(res.statusCode, `${call.method} ${call.url}`).toBe(403);
      expect(res.json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
      expect((await t.req({ ...call })).statusCode).toBe(401);
    }
  });

  it('passwords and PINs are stored only as scrypt hashes, and sessions only by the token\'s hash', async () => {
    const { t, r, admin, api } = await setup();
    await api.create({ name: 'Chef', role: 'admin', email: 'chef@example.nl', password: 'Zeer-Geheim-42!' });
    await api.patch(r.staffId, { pin: '48151623' });
    const staff = cookieFrom(await login(t, r.slug, '48151623'));
    const users = await t.handle.db.selectFrom('users').selectAll().where('tenant_id', '=', r.id).execute();
    const dump = JSON.stringify(users);
    for (const secret of ['Zeer-Geheim-42!', r.adminPassword, '48151623']) expect(dump).not.toContain(secret);
    for (const u of users) {
      if (u.password_hash) expect(u.password_hash).toMatch(/^scrypt\$\d{4,}\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      if (u.pin_hash) expect(u.pin_hash).toMatch(/^scrypt-pin\$[\w-]{43}$/);
    }
    // Two admins with the same password get different hashes (random salt).
    await api.create({ name: 'Chef 2', role: 'admin', email: 'chef2@example.nl', password: 'Zeer-Geheim-42!' });
    const pw = (await t.handle.db.selectFrom('users').select('password_hash').where('tenant_id', '=', r.id).where('email', 'like', 'chef%').execute()).map((u) => u.password_hash);
    expect(new Set(pw).size).toBe(2);
    // The change log (which syncs) carries no clear secrets either.
    expect(JSON.stringify(await t.changes.readSince(r.id, 0))).not.toMatch(/Zeer-Geheim|48151623|geheim-wachtwoord/);
    // Sessions: only sha256(token) is stored; no column holds the cookie value.
    const sessions = await t.handle.db.selectFrom('sessions').selectAll().where('tenant_id', '=', r.id).execute();
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    const sessionDump = JSON.stringify(sessions);
    for (const cookie of [admin, staff]) {
      const token = cookie.slice('ck_token='.length);
      expect(sessionDump).not.toContain(token);
      expect(sessions.map((s) => s.token_hash)).toContain(sha256(token));
    }
  });
});
