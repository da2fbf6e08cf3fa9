import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { seedFloor } from '../floor/helpers.js';
import { seedMenu } from '../../../helpers/factories.js';

/**
 * The clock stands at Friday 20 November 2026, 13:00 in Amsterdam (12:00 UTC). Default opening hours:
 * Tue–Thu 17:00–22:00, Fri/Sat 12:00–14:30 and 17:00–23:00, Sun 12:00–21:00; slots of 30 minutes,
 * seating 90 minutes, parties up to 8. Tables: T1 (4), T2 (2), T3 (6).
 */
async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const floor = await seedFloor(t, r.id);
  return { t, r, floor, staff: await r.staffCookie(), admin: await r.adminCookie() };
}

const avail = (t: TestApp, slug: string, date: string) => t.req({ method: 'GET', url: `/api/v1/public/reservations/${slug}?date=${date}` });
const guest = { name: 'Fam. Jansen', phone: '06 12345678', email: 'jansen@example.nl' };
const book = (t: TestApp, slug: string, body: Record<string, unknown>) => t.req({ method: 'POST', url: `/api/v1/public/reservations/${slug}`, payload: { ...guest, ...body } });
const count = async (t: TestApp, tenantId: string) => (await t.handle.db.selectFrom('reservations').selectAll().where('tenant_id', '=', tenantId).execute()).length;

describe('GET /public/reservations/:slug (availability)', () => {
  it('an open day: every slot from opening, as long as the seating ends by closing time, with the largest party that fits', async () => {
    const { t, r } = await setup();
    const res = await avail(t, r.slug, '2026-11-27');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.date).toBe('2026-11-27');
    expect(body.slots.map((s: { time: string }) => s.time)).toEqual([
      '12:00', '12:30', '13:00', '17:00', '17:30', '18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '21:00', '21:30',
    ]);
    expect(body.slots.every((s: { available: boolean; max_party_size: number }) => s.available && s.max_party_size === 6)).toBe(true);
  });

  it('a closed day has no slots; an exception closes a day or gives it other hours', async () => {
    const { t, r, admin } = await setup();
    expect((await avail(t, r.slug, '2026-11-23')).json()).toEqual({ date: '2026-11-23', slots: [] }); // Monday
    const patch = await t.req({
      method: 'PATCH',
      url: '/api/v1/settings',
      cookie: admin,
      payload: { opening_exceptions: [{ date: '2026-12-25', hours: [], note: 'Eerste Kerstdag' }, { date: '2026-12-24', hours: [['12:00', '16:00']] }, { date: '2026-11-23', hours: [['18:00', '21:00']] }] },
    });
    expect(patch.statusCode).toBe(200);
    expect((await avail(t, r.slug, '2026-12-25')).json().slots).toEqual([]); // a Friday, closed for Christmas
    expect((await avail(t, r.slug, '2026-12-24')).json().slots.map((s: { time: string }) => s.time)).toEqual(['12:00', '12:30', '13:00', '13:30', '14:00', '14:30']);
    expect((await avail(t, r.slug, '2026-11-23')).json().slots.map((s: { time: string }) => s.time)).toEqual(['18:00', '18:30', '19:00', '19:30']);
    const closed = await book(t, r.slug, { date: '2026-12-25', time: '18:00', party_size: 2 });
    expect(closed.statusCode).toBe(400);
    expect(closed.json().details).toEqual([{ field: 'date', error: "'date' is een dag waarop we gesloten zijn." }]);
    const bad = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { opening_exceptions: [{ date: '25-12-2026', hours: [] }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('opening_exceptions.0.date');
  });

  it('today: the slots already begun are not available; a past date, a bad date or an unknown restaurant is refused', async () => {
    const { t, r } = await setup();
    const today = (await avail(t, r.slug, '2026-11-20')).json().slots;
    expect(today.slice(0, 4)).toEqual([
      { time: '12:00', available: false, max_party_size: 0 },
      { time: '12:30', available: false, max_party_size: 0 },
      { time: '13:00', available: false, max_party_size: 0 },
      { time: '17:00', available: true, max_party_size: 6 },
    ]);
    const past = await avail(t, r.slug, '2026-11-19');
    expect(past.statusCode).toBe(400);
    expect(past.json()).toEqual({ error: "Ongeldige invoer: 'date' ligt in het verleden.", code: 'VALIDATION', details: [{ field: 'date', error: "'date' ligt in het verleden." }] });
    expect((await avail(t, r.slug, '2026-02-30')).json().details[0]).toEqual({ field: 'date', error: "'date' moet een bestaande datum zijn." });
    expect((await avail(t, r.slug, 'morgen')).json().details[0].field).toBe('date');
    expect((await avail(t, r.slug, '2028-01-01')).json().details[0].error).toMatch(/365 dagen vooruit/);
    expect((await t.req({ method: 'GET', url: `/api/v1/public/reservations/${r.slug}` })).json().details[0]).toEqual({ field: 'date', error: "'date' is verplicht." });
    const unknown = await avail(t, 'bestaat-niet', '2026-11-27');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Restaurant niet gevonden.', code: 'NOT_FOUND' });
  });

  it('around the DST changes in Europe/Amsterdam: no slot in the skipped hour, the repeated hour once, seatings in real minutes', async () => {
    const { t, r, admin, floor } = await setup();
    // One table of two: the night opening makes the skipped and repeated hours matter.
    for (const id of [floor.t1.id, floor.t3.id]) await t.services.floor.updateTable(r.id, id, { reservable: false });
    await t.req({
      method: 'PATCH',
      url: '/api/v1/settings',
      cookie: admin,
      payload: { opening_hours: { sat: [['17:00', '23:00']], sun: [['00:00', '06:00'], ['12:00', '21:00']] }, slot_minutes: 30, seating_minutes: 60 },
    });
    const times = async (date: string) => (await avail(t, r.slug, date)).json().slots.filter((s: { time: string }) => s.time < '06:00');
    const normal = ['00:00', '00:30', '01:00', '01:30', '02:00', '02:30', '03:00', '03:30', '04:00', '04:30', '05:00'];
    expect((await times('2027-03-21')).map((s: { time: string }) => s.time)).toEqual(normal);
    // 28 March 2027: 02:00 becomes 03:00. No 02:00 or 02:30; the night is an hour shorter.
    expect((await times('2027-03-28')).map((s: { time: string }) => s.time)).toEqual(['00:00', '00:30', '01:00', '01:30', '03:00', '03:30', '04:00', '04:30', '05:00']);
    // 31 October 2027: 03:00 becomes 02:00 again. Each time once (its first occurrence).
    expect((await times('2027-10-31')).map((s: { time: string }) => s.time)).toEqual(normal);

    // A seating of 60 minutes from 01:30 on the night of the jump ends at 03:30 on the clock: the 03:00 slot is taken.
    const jump = await book(t, r.slug, { date: '2027-03-28', time: '01:30', party_size: 2 });
    expect(jump.statusCode).toBe(201);
    const row = await t.services.reservations.get(r.id, jump.json().id);
    expect([row.starts_at, row.ends_at]).toEqual(['2027-03-28T00:30:00.000Z', '2027-03-28T01:30:00.000Z']);
    expect((await times('2027-03-28')).filter((s: { available: boolean }) => !s.available).map((s: { time: string }) => s.time)).toEqual(['01:00', '01:30', '03:00']);
    // The same booking a week earlier ends at 02:30: 03:00 stays free, 02:00 is taken.
    expect((await book(t, r.slug, { date: '2027-03-21', time: '01:30', party_size: 2 })).statusCode).toBe(201);
    expect((await times('2027-03-21')).filter((s: { available: boolean }) => !s.available).map((s: { time: string }) => s.time)).toEqual(['01:00', '01:30', '02:00']);
    // In autumn 02:00 means the first 02:00 (summer time, UTC+2).
    const autumn = await book(t, r.slug, { date: '2027-10-31', time: '02:00', party_size: 2 });
    expect((await t.services.reservations.get(r.id, autumn.json().id)).starts_at).toBe('2027-10-31T00:00:00.000Z');
    // Dinner at 18:00 is 17:00 UTC on the Saturday before and 16:00 UTC on the Sunday after the change.
    const sat = await book(t, r.slug, { date: '2027-03-27', time: '18:00', party_size: 2 });
    const sun = await book(t, r.slug, { date: '2027-03-28', time: '18:00', party_size: 2 });
    expect((await t.services.reservations.get(r.id, sat.json().id)).starts_at).toBe('2027-03-27T17:00:00.000Z');
    expect((await t.services.reservations.get(r.id, sun.json().id)).starts_at).toBe('2027-03-28T16:00:00.000Z');
    // A time in the skipped hour is no slot.
    const skipped = await book(t, r.slug, { date: '2027-03-28', time: '02:30', party_size: 2 });
    expect(skipped.statusCode).toBe(400);
    expect(skipped.json().details[0].field).toBe('time');
  });
});

describe('POST /public/reservations/:slug', () => {
  it('books the smallest free table that fits, answers 201 without internals, and emits reservation.created', async () => {
    const { t, r, floor } = await setup();
    const res = await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 3, notes: 'verjaardag' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id: expect.any(String), date: '2026-11-27', time: '19:00', party_size: 3, name: 'Fam. Jansen', status: 'booked', created_at: '2026-11-20T12:00:00.000Z' });
    const stored = await t.services.reservations.get(r.id, res.json().id);
    expect(stored).toMatchObject({ table_id: floor.t1.id, table_name: 'T1', phone: '+31612345678', email: 'jansen@example.nl', notes: 'verjaardag', source: 'web', starts_at: '2026-11-27T18:00:00.000Z', ends_at: '2026-11-27T19:30:00.000Z', conflict: null });
    const events = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.kind === 'reservation.created');
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ reservation: { id: res.json().id, date: '2026-11-27', time: '19:00', party_size: 3, status: 'booked' } });
  });

  it.each([
    ['party of 0', { party_size: 0 }, 'party_size', 'minimaal 1'],
    ['party above the maximum', { party_size: 9 }, 'party_size', 'moet tussen 1 en 8 personen zijn.'],
    ['fractional party', { party_size: 2.5 }, 'party_size', 'geheel getal'],
    ['a past date', { date: '2026-11-19' }, 'date', 'ligt in het verleden.'],
    ['a slot already begun today', { date: '2026-11-20', time: '12:30' }, 'time', 'ligt in het verleden.'],
    ['a time that is no slot', { time: '19:10' }, 'time', 'geen tijdstip waarop je kunt reserveren'],
    ['a time after the last seating', { time: '22:00' }, 'time', 'geen tijdstip waarop je kunt reserveren'],
    ['a bad time', { time: '7 uur' }, 'time', 'UU:MM'],
    ['a bad phone number', { phone: '12345678901' }, 'phone', 'geldig telefoonnummer'],
    // The right length but not in the Dutch number plan: refused here as by loyalty (server/shared/phone.ts).
    ['a phone number the number plan does not have', { phone: '+31 6 0000 0000' }, 'phone', 'geldig telefoonnummer'],
    ['a bad e-mail', { email: 'jansen' }, 'email', 'geldig e-mailadres'],
    ['no name', { name: '' }, 'name', 'mag niet leeg zijn'],
    ['an unknown field', { table_id: '0190a0a0-0000-7000-8000-000000000000' }, 'table_id', 'Onbekend veld'],
  ])('%s is 400 VALIDATION naming the field, and books nothing', async (_n, body, field, msg) => {
    const { t, r } = await setup();
    const res = await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 2, ...body });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toContain(msg);
    expect(res.json().error).toMatch(/^Ongeldige invoer: /);
    expect(await count(t, r.id)).toBe(0);
  });

  it('a full slot is 409 CONFLICT; an overlapping slot is full too, a later one is not; a party no table fits is 409', async () => {
    const { t, r } = await setup();
    for (const party of [6, 4, 2]) expect((await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: party })).statusCode).toBe(201);
    const full = await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 2 });
    expect(full.statusCode).toBe(409);
    expect(full.json()).toEqual({ error: 'Dit tijdstip is vol; kies een ander tijdstip.', code: 'CONFLICT' });
    expect((await book(t, r.slug, { date: '2026-11-27', time: '20:00', party_size: 2 })).statusCode).toBe(409);
    const slots = (await avail(t, r.slug, '2026-11-27')).json().slots;
    const at = (time: string) => slots.find((s: { time: string }) => s.time === time);
    expect([at('17:30'), at('18:00'), at('20:00'), at('20:30')]).toEqual([
      { time: '17:30', available: true, max_party_size: 6 },
      { time: '18:00', available: false, max_party_size: 0 },
      { time: '20:00', available: false, max_party_size: 0 },
      { time: '20:30', available: true, max_party_size: 6 },
    ]);
    expect((await book(t, r.slug, { date: '2026-11-27', time: '20:30', party_size: 2 })).statusCode).toBe(201);
    const big = await book(t, r.slug, { date: '2026-11-28', time: '19:00', party_size: 7 });
    expect(big.statusCode).toBe(409);
    expect(big.json().error).toBe('Voor 7 personen hebben we geen passende tafel; neem contact met ons op.');
    expect(await count(t, r.id)).toBe(4);
  });

  it('a table with guests at it now is not given to a booking that starts within one seating time', async () => {
    const { t, r, staff, floor } = await setup();
    const menu = await seedMenu(t, r.id);
    await t.services.orders.create({ tenantId: r.id, userId: null, via: 'pos' }, { items: [{ product_id: menu.cola.id, quantity: 2 }], table_id: floor.t3.id });
    const post = (payload: object) => t.req({ method: 'POST', url: '/api/v1/reservations', cookie: staff, payload });
    // 13:15, five people: only T3 (6) fits, and it has guests.
    expect((await post({ date: '2026-11-20', time: '13:15', party_size: 5, name: 'Vijf' })).json()).toEqual({ error: 'Dit tijdstip is vol; kies een ander tijdstip.', code: 'CONFLICT' });
    expect((await post({ date: '2026-11-20', time: '13:15', party_size: 4, name: 'Vier' })).json().table_name).toBe('T1');
    // Tonight is beyond one seating from now: T3 can be booked.
    expect((await avail(t, r.slug, '2026-11-20')).json().slots.find((x: { time: string }) => x.time === '17:00')).toEqual({ time: '17:00', available: true, max_party_size: 6 });
    expect((await book(t, r.slug, { date: '2026-11-20', time: '17:00', party_size: 5 })).statusCode).toBe(201);
  });

  it('30 concurrent bookings for the last 5 places: exactly 5 succeed, 25 get CONFLICT, no table twice', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const zone = await t.services.floor.createZone(r.id, { name: 'binnen' });
    for (let i = 1; i <= 5; i++) await t.services.floor.createTable(r.id, { zone_id: zone.id, name: `T${i}`, seats: 2, x: i * 10, y: 0 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => t.req({ method: 'POST', url: `/api/v1/public/reservations/${r.slug}`, payload: { date: '2026-11-27', time: '19:00', party_size: 2, name: `Gast ${i}`, phone: `06123456${String(i).padStart(2, '0')}` } })),
    );
    const codes = results.map((x) => x.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 409)).toHaveLength(25);
    for (const x of results.filter((y) => y.statusCode === 409)) expect(x.json().code).toBe('CONFLICT');
    const rows = await t.handle.db.selectFrom('reservations').selectAll().where('tenant_id', '=', r.id).execute();
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((x) => x.table_id)).size).toBe(5);
    expect((await avail(t, r.slug, '2026-11-27')).json().slots.find((s: { time: string }) => s.time === '19:00')).toEqual({ time: '19:00', available: false, max_party_size: 0 });
  });
});

describe('staff: GET/POST /reservations, PATCH /reservations/:id', () => {
  it('lists a date’s bookings by time with their table (session; default today); refuses a bad date; never another restaurant’s', async () => {
    const { t, r, staff } = await setup();
    await book(t, r.slug, { date: '2026-11-27', time: '20:00', party_size: 2, name: 'Bakker' });
    await book(t, r.slug, { date: '2026-11-27', time: '18:00', party_size: 5, name: 'De Vries' });
    await book(t, r.slug, { date: '2026-11-20', time: '19:00', party_size: 2, name: 'Vandaag' });
    const other = await t.seedTenant();
    await seedFloor(t, other.id);
    await book(t, other.slug, { date: '2026-11-27', time: '19:00', party_size: 2, name: 'Elders' });
    const res = await t.req({ method: 'GET', url: '/api/v1/reservations?date=2026-11-27', cookie: staff });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((x: { time: string; name: string; table_name: string }) => [x.time, x.name, x.table_name])).toEqual([['18:00', 'De Vries', 'T3'], ['20:00', 'Bakker', 'T2']]);
    expect((await t.req({ method: 'GET', url: '/api/v1/reservations', cookie: staff })).json().data.map((x: { name: string }) => x.name)).toEqual(['Vandaag']);
    expect((await t.services.reservations.listByDate(r.id, '2026-11-27')).map((x) => x.name)).toEqual(['De Vries', 'Bakker']);
    expect((await t.req({ method: 'GET', url: '/api/v1/reservations?date=27-11-2026', cookie: staff })).json().details[0].field).toBe('date');
    expect((await t.req({ method: 'GET', url: '/api/v1/reservations?date=2026-11-27' })).statusCode).toBe(401);
  });

  it('staff book a caller or a walk-in, on a table of their choice; a foreign table is 404, a small or taken one refused', async () => {
    const { t, r, staff, floor } = await setup();
    const post = (payload: object) => t.req({ method: 'POST', url: '/api/v1/reservations', cookie: staff, payload });
    // A walk-in now (13:00, the lunch service): no phone needed.
    const walkIn = await post({ date: '2026-11-20', time: '13:00', party_size: 2, name: 'Aan de bar', table_id: floor.t1.id });
    expect(walkIn.statusCode).toBe(201);
    expect(walkIn.json()).toMatchObject({ table_id: floor.t1.id, table_name: 'T1', source: 'staff', phone: null, status: 'booked' });
    expect((await post({ date: '2026-11-20', time: '13:15', party_size: 2, name: 'Twee', table_id: floor.t1.id })).json()).toEqual({ error: 'Tafel T1 is op dat moment al gereserveerd.', code: 'CONFLICT' });
    expect((await post({ date: '2026-11-20', time: '18:00', party_size: 3, name: 'Drie', table_id: floor.t2.id })).json().details[0]).toEqual({ field: 'table_id', error: "'table_id' heeft maar 2 plaatsen." });
    const other = await t.seedTenant();
    const theirs = await seedFloor(t, other.id);
    const foreign = await post({ date: '2026-11-20', time: '18:00', party_size: 2, name: 'Vier', table_id: theirs.t2.id });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Tafel niet gevonden.', code: 'NOT_FOUND' });
    expect((await post({ date: '2026-11-20', time: '15:00', party_size: 2, name: 'Vijf' })).json().details[0]).toEqual({ field: 'time', error: "'time' valt buiten de openingstijden." });
    expect((await post({ date: '2026-11-20', time: '12:30', party_size: 2, name: 'Zes' })).json().details[0]).toEqual({ field: 'time', error: "'time' ligt in het verleden." });
    expect((await t.req({ method: 'POST', url: '/api/v1/reservations', payload: { date: '2026-11-20', time: '18:00', party_size: 2, name: 'x' } })).statusCode).toBe(401);
    expect(await count(t, r.id)).toBe(1);
    expect(await count(t, other.id)).toBe(0);
  });

  it('PATCH: seated, cancelled, no-show by the status rule; moving to a free table; cancelling frees the table', async () => {
    const { t, r, staff, floor } = await setup();
    const a = (await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 2 })).json();
    const b = (await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 4 })).json();
    const patch = (id: string, payload: object, cookie = staff) => t.req({ method: 'PATCH', url: `/api/v1/reservations/${id}`, cookie, payload });
    expect((await t.services.reservations.get(r.id, a.id)).table_name).toBe('T2');
    const moved = await patch(a.id, { table_id: floor.t3.id });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ table_name: 'T3' });
    expect((await patch(b.id, { table_id: floor.t3.id })).json()).toEqual({ error: 'Tafel T3 is op dat moment al gereserveerd.', code: 'CONFLICT' });
    expect((await patch(a.id, { status: 'no_show' })).json().status).toBe('no_show');
    expect((await patch(a.id, { status: 'seated' })).json().status).toBe('seated'); // came late after all
    const back = await patch(a.id, { status: 'cancelled' });
    expect(back.statusCode).toBe(409);
    expect(back.json()).toEqual({ error: "Deze statuswijziging is niet toegestaan (van 'aan tafel' naar 'geannuleerd').", code: 'CONFLICT' });
    expect((await patch(b.id, { status: 'cancelled' })).json().status).toBe('cancelled');
    expect((await patch(b.id, { status: 'seated' })).statusCode).toBe(409);
    // T1 is free again at 19:00: a party of 4 fits (T1), the 6-seater is still seated.
    const slot = (await avail(t, r.slug, '2026-11-27')).json().slots.find((s: { time: string }) => s.time === '19:00');
    expect(slot).toEqual({ time: '19:00', available: true, max_party_size: 4 });
    for (const [body, field] of [[{}, '(body)'], [{ status: 'booked' }, 'status'], [{ table_id: 'T1' }, 'table_id']] as const) {
      const res = await patch(a.id, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const other = await t.seedTenant();
    const otherStaff = await other.staffCookie();
    expect((await patch(a.id, { status: 'no_show' }, otherStaff)).json()).toEqual({ error: 'Reservering niet gevonden.', code: 'NOT_FOUND' });
    expect((await t.req({ method: 'PATCH', url: `/api/v1/reservations/${a.id}`, payload: { status: 'no_show' } })).statusCode).toBe(401);
    expect((await t.services.reservations.get(r.id, a.id)).status).toBe('seated');
    // GET /reservations/:id: the booking; another restaurant's is 404; a malformed id 400.
    const one = await t.req({ method: 'GET', url: `/api/v1/reservations/${a.id}`, cookie: staff });
    expect(one.json()).toMatchObject({ id: a.id, status: 'seated', table_name: 'T3', party_size: 2 });
    expect((await t.req({ method: 'GET', url: `/api/v1/reservations/${a.id}`, cookie: otherStaff })).statusCode).toBe(404);
    expect((await t.req({ method: 'GET', url: '/api/v1/reservations/abc', cookie: staff })).json().details[0].field).toBe('id');
    expect((await t.req({ method: 'GET', url: `/api/v1/reservations/${a.id}` })).statusCode).toBe(401);
  });

  it('PATCH right after a settings change (the settings cache empty) answers on both lanes: a party or a moment change does not hang the write (issue 28 point 12)', async () => {
    const { t, r, staff, admin } = await setup();
    const patch = (id: string, payload: object) => t.req({ method: 'PATCH', url: `/api/v1/reservations/${id}`, cookie: staff, payload });
    const a = (await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 2, name: 'Jansen' })).json();
    // A settings change empties the cache; the PATCH used to read the settings inside its transaction,
    // which on SQLite waited for itself for good (and every other write of the restaurant behind it).
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5000))]);
    for (const [setting, body] of [[{ max_party_size: 7 }, { party_size: 1 }], [{ seating_minutes: 120 }, { date: '2026-11-28', time: '20:00' }]] as const) {
      expect((await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: setting })).statusCode).toBe(200);
      const res = await within(patch(a.id, body));
      expect(res).not.toBe('hung');
      expect(res !== 'hung' && res.statusCode).toBe(200);
    }
    expect(await t.services.reservations.get(r.id, a.id)).toMatchObject({ party_size: 1, date: '2026-11-28', time: '20:00', starts_at: '2026-11-28T19:00:00.000Z', ends_at: '2026-11-28T21:00:00.000Z' });
    // The limit that was just set holds.
    await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { max_party_size: 3 } });
    const over = await within(patch(a.id, { party_size: 4 }));
    expect(over !== 'hung' && over.json().details[0]).toEqual({ field: 'party_size', error: "'party_size' moet tussen 1 en 3 personen zijn." });
    // The restaurant's other writes go on.
    expect((await within(book(t, r.slug, { date: '2026-11-27', time: '20:00', party_size: 2, name: 'Bakker' }))) !== 'hung').toBe(true);
  });

  it('PATCH edits the guest (name, phone in any notation, party, notes) and the moment; the table must fit and be free then; bad input changes nothing', async () => {
    const { t, r, staff, floor } = await setup();
    const patch = (id: string, payload: object, cookie = staff) => t.req({ method: 'PATCH', url: `/api/v1/reservations/${id}`, cookie, payload });
    const a = (await book(t, r.slug, { date: '2026-11-27', time: '19:00', party_size: 2, name: 'Jansen' })).json();
    const b = (await book(t, r.slug, { date: '2026-11-27', time: '21:00', party_size: 4, name: 'Bakker' })).json();
    const before = await t.services.reservations.get(r.id, a.id);
    expect(before.table_name).toBe('T2');
    const edited = await patch(a.id, { name: 'Fam. Jansen', phone: '+31 6 8765 4321', party_size: 1, notes: 'kinderstoel' });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ name: 'Fam. Jansen', phone: '+31687654321', party_size: 1, notes: 'kinderstoel', table_name: 'T2', date: '2026-11-27', time: '19:00' });
    // Another moment: the booking keeps its table when it is free then; its window follows (seating 90 minutes).
    const later = await patch(a.id, { date: '2026-11-28', time: '20:00' });
    expect(later.statusCode).toBe(200);
    expect(later.json()).toMatchObject({ date: '2026-11-28', time: '20:00', starts_at: '2026-11-28T19:00:00.000Z', ends_at: '2026-11-28T20:30:00.000Z', table_name: 'T2' });
    // A move onto a table that is taken at the new moment, a party the table cannot seat, a closed moment, a bad phone: refused, nothing changes.
    const onB = await patch(a.id, { date: '2026-11-27', time: '21:00', table_id: (await t.services.reservations.get(r.id, b.id)).table_id });
    expect(onB.statusCode).toBe(409);
    expect(onB.json().error).toMatch(/is op dat moment al gereserveerd/);
    const tooBig = await patch(a.id, { party_size: 3 });
    expect(tooBig.json().details[0]).toEqual({ field: 'party_size', error: "'party_size' past niet aan tafel T2 (2 plaatsen); kies een andere tafel." });
    expect((await patch(a.id, { party_size: 9 })).json().details[0]).toEqual({ field: 'party_size', error: "'party_size' moet tussen 1 en 8 personen zijn." });
    expect((await patch(a.id, { time: '15:00' })).json().details[0]).toEqual({ field: 'time', error: "'time' valt buiten de openingstijden." });
    expect((await patch(a.id, { date: '2026-11-23' })).json().details[0]).toEqual({ field: 'date', error: "'date' is een dag waarop we gesloten zijn." });
    expect((await patch(a.id, { phone: '12' })).json().details[0].field).toBe('phone');
    expect((await patch(a.id, { name: '' })).json().details[0].field).toBe('name');
    expect(await t.services.reservations.get(r.id, a.id)).toMatchObject({ date: '2026-11-28', time: '20:00', party_size: 1, table_name: 'T2', phone: '+31687654321' });
    // Party and table together: to the six-seater for three.
    expect((await patch(a.id, { party_size: 3, table_id: floor.t3.id })).json()).toMatchObject({ party_size: 3, table_name: 'T3' });
    // Clearing the phone and the note; a seated booking keeps its moment.
    expect((await patch(a.id, { phone: null, notes: null })).json()).toMatchObject({ phone: null, notes: null });
    await patch(b.id, { status: 'seated' });
    expect((await patch(b.id, { time: '21:30' })).json()).toEqual({ error: 'Alleen een geboekte reservering kan naar een ander tijdstip.', code: 'CONFLICT' });
    // The change travels: the change log has the fields that changed, the window's four together.
    const logged = await t.handle.db.selectFrom('change_log').select(['kind', 'payload']).where('entity_id', '=', a.id).orderBy('seq').execute();
    const fields = logged.filter((c) => c.kind === 'reservation.updated').map((c) => Object.keys((JSON.parse(c.payload) as { fields: object }).fields).sort());
    expect(fields).toContainEqual(['date', 'ends_at', 'starts_at', 'time']);
    expect(fields).toContainEqual(['name', 'notes', 'party_size', 'phone']);
    // Another restaurant's staff: 404; without a session: 401.
    const other = await t.seedTenant();
    expect((await patch(a.id, { name: 'x' }, await other.staffCookie())).statusCode).toBe(404);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/reservations/${a.id}`, payload: { name: 'x' } })).statusCode).toBe(401);
  });
});
