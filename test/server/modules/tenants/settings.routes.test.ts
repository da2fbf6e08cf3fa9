import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../../server/modules/tenants/tenants.schemas.js';
import { createTestApp } from '../../../helpers/app.js';

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant({ name: 'Eetcafé De Hoek' });
  const admin = await r.adminCookie();
  const get = (cookie = admin) => t.req({ method: 'GET', url: '/api/v1/settings', cookie });
  const patch = (payload: unknown, cookie = admin) => t.req({ method: 'PATCH', url: '/api/v1/settings', cookie, payload: payload as object });
  return { t, r, admin, get, patch };
}

describe('settings (CONTRACT §16)', () => {
  it('GET answers the name and every setting with its default', async () => {
    const { get } = await setup();
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'Eetcafé De Hoek', ...DEFAULT_SETTINGS });
    expect(res.json()).toMatchObject({ timezone: 'Europe/Amsterdam', haccp_margin: 2, loyalty_points_per_euro: 1, pause_public_orders_after_minutes: null });
  });

  it('PATCH changes only the fields sent, keeps the others, and records the change', async () => {
    const { t, r, get, patch } = await setup();
    const before = await t.changes.lastSeq(r.id);
    const res = await patch({ haccp_margin: 1.5, slot_minutes: 15 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'Eetcafé De Hoek', ...DEFAULT_SETTINGS, haccp_margin: 1.5, slot_minutes: 15 });
    const second = await patch({ timezone: 'Europe/London', name: 'De Hoek', opening_hours: { mon: [['09:00', '17:00']] }, pause_public_orders_after_minutes: 20 });
    expect(second.statusCode).toBe(200);
    const now = (await get()).json();
    expect(now).toEqual({
      ...DEFAULT_SETTINGS,
      name: 'De Hoek',
      haccp_margin: 1.5,
      slot_minutes: 15,
      timezone: 'Europe/London',
      opening_hours: { mon: [['09:00', '17:00']] },
      pause_public_orders_after_minutes: 20,
    });
    // null clears a nullable setting again.
    expect((await patch({ pause_public_orders_after_minutes: null })).json().pause_public_orders_after_minutes).toBeNull();
    const log = await t.changes.readSince(r.id, before);
    expect(log.map((c) => [c.entity, c.entity_id, c.kind])).toEqual([
      ['tenant', r.id, 'settings.updated'],
      ['tenant', r.id, 'settings.updated'],
      ['tenant', r.id, 'settings.updated'],
    ]);
    expect((log[0]!.payload as { fields: unknown }).fields).toEqual({ haccp_margin: 1.5, slot_minutes: 15 });
    // The new name is what sessions show.
    expect((await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: await r.staffCookie() })).json().tenant.name).toBe('De Hoek');
  });

  it('invalid values are 400 VALIDATION with details per field, and change nothing', async () => {
    const { t, r, get, patch } = await setup();
    const before = await t.changes.lastSeq(r.id);
    const res = await patch({ timezone: 'Europe/Amsterdamm', haccp_margin: -1, slot_minutes: 2.5, max_party_size: 0 });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('VALIDATION');
    expect(body.details).toEqual([
      { field: 'timezone', error: "'timezone' moet een geldige tijdzone zijn, bijvoorbeeld Europe/Amsterdam." },
      { field: 'haccp_margin', error: "'haccp_margin' moet minimaal 0 zijn." },
      { field: 'slot_minutes', error: "'slot_minutes' moet een geheel getal zijn." },
      { field: 'max_party_size', error: "'max_party_size' moet minimaal 1 zijn." },
    ]);
    expect(body.error).toBe("Ongeldige invoer: 'timezone' moet een geldige tijdzone zijn, bijvoorbeeld Europe/Amsterdam (en nog 3 problemen).");
    for (const [payload, field] of [
      [{ loyalty_points_per_euro: -5 }, 'loyalty_points_per_euro'],
      [{ loyalty_offline_allowance: -1 }, 'loyalty_offline_allowance'],
      [{ seating_minutes: '90' }, 'seating_minutes'],
      [{ name: '   ' }, 'name'],
      [{ opening_hours: { mon: [['25:00', '17:00']] } }, 'opening_hours.mon.0.0'],
      [{ opening_hours: { maandag: [['09:00', '17:00']] } }, 'opening_hours.maandag'],
    ] as const) {
      const bad = await patch(payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().details.map((d: { field: string }) => d.field), JSON.stringify(payload)).toContain(field);
    }
    expect((await get()).json()).toEqual({ name: 'Eetcafé De Hoek', ...DEFAULT_SETTINGS });
    expect(await t.changes.lastSeq(r.id)).toBe(before);
  });

  it('an unknown field is 400, even next to valid ones', async () => {
    const { get, patch } = await setup();
    const res = await patch({ haccp_margin: 3, currency: 'EUR' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "Ongeldige invoer: Onbekend veld: 'currency'.", code: 'VALIDATION', details: [{ field: 'currency', error: "Onbekend veld: 'currency'." }] });
    expect((await get()).json().haccp_margin).toBe(2);
    // The tenant's internals are not settings either.
    expect((await patch({ pin_salt: 'x' })).statusCode).toBe(400);
    expect((await patch({ slug: 'andere-naam' })).statusCode).toBe(400);
  });

  it('staff get 403, no session is 401', async () => {
    const { r, get, patch } = await setup();
    const staff = await r.staffCookie();
    for (const res of [await get(staff), await patch({ haccp_margin: 5 }, staff)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
    }
    for (const res of [await get(''), await patch({ haccp_margin: 5 }, '')]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHORIZED');
    }
    expect((await get()).json().haccp_margin).toBe(2);
  });

  it('an empty patch answers the settings and writes nothing', async () => {
    const { t, r, patch } = await setup();
    const before = await t.changes.lastSeq(r.id);
    const res = await patch({});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'Eetcafé De Hoek', ...DEFAULT_SETTINGS });
    expect(await t.changes.lastSeq(r.id)).toBe(before);
  });

  it('settings are per tenant', async () => {
    const { t, patch } = await setup();
    const other = await t.seedTenant({ name: 'Pizzeria Roma' });
    expect((await patch({ max_party_size: 20 })).statusCode).toBe(200);
    const theirs = (await t.req({ method: 'GET', url: '/api/v1/settings', cookie: await other.adminCookie() })).json();
    expect(theirs).toEqual({ name: 'Pizzeria Roma', ...DEFAULT_SETTINGS });
    expect(await t.changes.readSince(other.id, 0)).not.toContainEqual(expect.objectContaining({ kind: 'settings.updated' }));
  });
});
