import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { toSocketEvent } from '../../../../server/plugins/realtime.js';
import { MODULE_LIVE_EVENTS } from '../../../../server/modules/live-events.js';

/** Shifts (CONTRACT §13, §16; docs/insights.md "Shifts"). Now: Friday 2026-11-20 11:00 in Amsterdam. */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-11-20T10:00:00.000Z');
  const r = await t.seedTenant();
  return { t, r, staff: await r.staffCookie(), admin: await r.adminCookie() };
}

type Req = Parameters<TestApp['req']>[0];
const call = (t: TestApp, cookie: string | undefined, method: Req['method'], url: string, payload?: unknown) =>
  t.req({ method, url: `/api/v1${url}`, cookie, ...(payload !== undefined ? { payload: payload as object } : {}) });
const shiftCount = async (t: TestApp, tenantId: string) =>
  Number((await t.handle.db.selectFrom('shifts').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow()).n);

describe('clock in and out (staff)', () => {
  it('clocks in once, out once; the hours are end − start − break', async () => {
    const { t, r, staff } = await setup();
    const res = await call(t, staff, 'POST', '/shifts/clock-in');
    expect(res.statusCode).toBe(201);
    const open = res.json();
    expect(open).toMatchObject({ user_id: r.staffId, user_name: 'Sanne', start: '2026-11-20T10:00:00.000Z', end: null, status: 'open', worked_minutes: null, source: 'clock', corrected: false, overlaps: false, created_by: r.staffId });

    const again = await call(t, staff, 'POST', '/shifts/clock-in');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Je bent al ingeklokt sinds 11:00.', code: 'CONFLICT' });

    const me = (await call(t, staff, 'GET', '/shifts/me')).json();
    expect(me.open.id).toBe(open.id);

    t.clock.advanceMinutes(8 * 60 + 30);
    const staff2 = await r.staffCookie();
    // A break as long as the shift is refused, and the shift stays open.
    const bad = await call(t, staff2, 'POST', '/shifts/clock-out', { break_minutes: 600 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION' });
    expect((await call(t, staff2, 'GET', '/shifts/me')).json().open.id).toBe(open.id);

    const out = await call(t, staff2, 'POST', '/shifts/clock-out', { break_minutes: 30 });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toMatchObject({ id: open.id, end: '2026-11-20T18:30:00.000Z', break_minutes: 30, status: 'closed', worked_minutes: 480, closed_by: r.staffId });

    const twice = await call(t, staff2, 'POST', '/shifts/clock-out');
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toEqual({ error: 'Je bent niet ingeklokt.', code: 'CONFLICT' });
    expect((await call(t, staff2, 'GET', '/shifts/me')).json()).toMatchObject({ open: null, data: [{ id: open.id, status: 'closed' }] });
    // One clock-in, one clock-out in the change log (what sync and webhooks read).
    const changes = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.kind.startsWith('shift.'));
    expect(changes.map((c) => c.kind)).toEqual(['shift.clocked_in', 'shift.clocked_out']);
    // Tablets of the restaurant hear who is at work now.
    expect(changes.map((c) => toSocketEvent(MODULE_LIVE_EVENTS, c))).toEqual([
      { name: 'shift:changed', payload: { seq: changes[0]!.seq, kind: 'shift.clocked_in', shift_id: open.id, user_id: r.staffId, status: 'open' } },
      { name: 'shift:changed', payload: { seq: changes[1]!.seq, kind: 'shift.clocked_out', shift_id: open.id, user_id: r.staffId, status: 'closed' } },
    ]);
  });

  it('two tablets clocking the same employee in at once: one shift, the other 409', async () => {
    const { t, r, staff } = await setup();
    const other = await r.staffCookie();
    const results = await Promise.all([call(t, staff, 'POST', '/shifts/clock-in'), call(t, other, 'POST', '/shifts/clock-in'), call(t, staff, 'POST', '/shifts/clock-in')]);
    expect(results.map((x) => x.statusCode).sort()).toEqual([201, 409, 409]);
    expect(await shiftCount(t, r.id)).toBe(1);
  });

  it('clocking in during a shift an admin already recorded is refused as an overlap', async () => {
    const { t, r, staff, admin } = await setup();
    const made = await call(t, admin, 'POST', '/shifts', { user_id: r.staffId, start: '2026-11-20T06:00:00Z', end: '2026-11-20T10:10:00Z' });
    expect(made.statusCode).toBe(201);
    const res = await call(t, staff, 'POST', '/shifts/clock-in');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/^Deze dienst overlapt met een andere dienst van Sanne \(vr 20 nov\.? 07:00–11:10\)\.$/);
    expect(await shiftCount(t, r.id)).toBe(1);
  });

  it('needs a session', async () => {
    const { t } = await setup();
    for (const url of ['/shifts/clock-in', '/shifts/clock-out']) expect((await call(t, undefined, 'POST', url)).statusCode).toBe(401);
    expect((await call(t, undefined, 'GET', '/shifts/me')).statusCode).toBe(401);
  });
});

describe('worked shifts (admin)', () => {
  const body = (userId: string, extra: Record<string, unknown> = {}) => ({ user_id: userId, start: '2026-11-19T16:00:00+01:00', end: '2026-11-20T00:30:00+01:00', break_minutes: 30, note: 'Late dienst', ...extra });

  it('enters a shift across midnight; lists it; corrections keep the original times with who, when and why', async () => {
    const { t, r, admin } = await setup();
    const res = await call(t, admin, 'POST', '/shifts', body(r.staffId));
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(s).toMatchObject({ user_id: r.staffId, start: '2026-11-19T15:00:00.000Z', end: '2026-11-19T23:30:00.000Z', break_minutes: 30, worked_minutes: 480, source: 'admin', note: 'Late dienst', status: 'closed', corrected: false, corrections: [] });

    t.clock.advanceMinutes(5);
    const fix = await call(t, admin, 'PATCH', `/shifts/${s.id}`, { end: '2026-11-19T23:00:00Z', break_minutes: 45, reason: 'Eerder naar huis' });
    expect(fix.statusCode).toBe(200);
    expect(fix.json()).toMatchObject({ end: '2026-11-19T23:00:00.000Z', break_minutes: 45, worked_minutes: 435, corrected: true });
    expect(fix.json().corrections).toEqual([
      {
        id: expect.any(String),
        changed_by: r.adminId,
        changed_by_name: expect.any(String),
        reason: 'Eerder naar huis',
        before: { start: '2026-11-19T15:00:00.000Z', end: '2026-11-19T23:30:00.000Z', break_minutes: 30 },
        after: { start: '2026-11-19T15:00:00.000Z', end: '2026-11-19T23:00:00.000Z', break_minutes: 45 },
        created_at: '2026-11-20T10:05:00.000Z',
      },
    ]);
    // The same values again: nothing to correct, nothing recorded.
    const same = await call(t, admin, 'PATCH', `/shifts/${s.id}`, { end: '2026-11-19T23:00:00Z' });
    expect(same.json().corrections).toHaveLength(1);
    const second = (await call(t, admin, 'PATCH', `/shifts/${s.id}`, { start: '2026-11-19T15:30:00Z' })).json();
    expect(second.corrections.map((c: { before: { start: string } }) => c.before.start)).toEqual(['2026-11-19T15:00:00.000Z', '2026-11-19T15:00:00.000Z']);
    expect((await call(t, admin, 'GET', `/shifts/${s.id}`)).json()).toEqual(second);

    const list = (await call(t, admin, 'GET', '/shifts?from=2026-11-19&to=2026-11-19')).json();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: s.id, user_name: 'Sanne', worked_minutes: 405, corrected: true, overlaps: false });
    expect((await call(t, admin, 'GET', '/shifts?from=2026-11-21&to=2026-11-22')).json().data).toEqual([]);
    expect((await call(t, admin, 'GET', `/shifts?user_id=${r.adminId}`)).json().data).toEqual([]);
  });

  it('an admin closes an open shift by correcting its end', async () => {
    const { t, r, staff } = await setup();
    const open = (await call(t, staff, 'POST', '/shifts/clock-in')).json();
    t.clock.advanceMinutes(60);
    const closed = (await call(t, await r.adminCookie(), 'PATCH', `/shifts/${open.id}`, { end: '2026-11-20T10:45:00Z', reason: 'Vergeten uit te klokken' })).json();
    expect(closed).toMatchObject({ status: 'closed', end: '2026-11-20T10:45:00.000Z', closed_by: r.adminId, corrected: true });
    expect(closed.corrections[0].before.end).toBeNull();
  });

  it.each([
    ['end before start', { end: '2026-11-19T14:00:00Z' }, 'end', /moet na 'start' liggen/],
    ['longer than 24 hours', { start: '2026-11-18T10:00:00Z', end: '2026-11-19T10:30:00Z' }, 'end', /hoogstens 24 uur/],
    ['a break as long as the shift', { break_minutes: 510 }, 'break_minutes', /korter/],
    ['a negative break', { break_minutes: -5 }, 'break_minutes', /minimaal 0/],
    ['an end in the future', { start: '2026-11-20T09:00:00Z', end: '2026-11-20T12:00:00Z' }, 'end', /toekomst/],
    ['a start that is no time', { start: 'gisteren' }, 'start', /geldig tijdstip/],
    ['no start', { start: undefined }, 'start', /verplicht/],
    ['a bad user id', { user_id: 'sanne' }, 'user_id', /geldige id/],
    ['an unknown field', { hours: 8 }, 'hours', /Onbekend veld/],
  ])('%s is 400 VALIDATION and creates nothing', async (_n, extra, field, msg) => {
    const { t, r, admin } = await setup();
    const res = await call(t, admin, 'POST', '/shifts', body(r.staffId, extra));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await shiftCount(t, r.id)).toBe(0);
  });

  it('an overlapping shift is 409 and changes nothing, also as a correction', async () => {
    const { t, r, admin } = await setup();
    const a = (await call(t, admin, 'POST', '/shifts', body(r.staffId))).json();
    const clash = await call(t, admin, 'POST', '/shifts', body(r.staffId, { start: '2026-11-19T22:00:00Z', end: '2026-11-20T02:00:00Z' }));
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toMatch(/^Deze dienst overlapt met een andere dienst van Sanne/);
    // Touching is not overlapping: 23:30Z is where the first one ends.
    const b = (await call(t, admin, 'POST', '/shifts', body(r.staffId, { start: '2026-11-19T23:30:00Z', end: '2026-11-20T02:00:00Z', break_minutes: 0 }))).json();
    const move = await call(t, admin, 'PATCH', `/shifts/${b.id}`, { start: '2026-11-19T23:00:00Z' });
    expect(move.statusCode).toBe(409);
    expect((await call(t, admin, 'GET', `/shifts/${b.id}`)).json()).toMatchObject({ start: '2026-11-19T23:30:00.000Z', corrections: [] });
    expect((await call(t, admin, 'GET', `/shifts/${a.id}`)).json().corrections).toEqual([]);
    expect(await shiftCount(t, r.id)).toBe(2);
  });

  it('PATCH validation: an empty body, a reversed shift; nothing changes', async () => {
    const { t, r, admin } = await setup();
    const s = (await call(t, admin, 'POST', '/shifts', body(r.staffId))).json();
    const empty = await call(t, admin, 'PATCH', `/shifts/${s.id}`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/minstens start, end of break_minutes/);
    const reversed = await call(t, admin, 'PATCH', `/shifts/${s.id}`, { start: '2026-11-20T01:00:00Z' });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().details[0]).toEqual({ field: 'end', error: "'end' moet na 'start' liggen." });
    expect((await call(t, admin, 'GET', `/shifts/${s.id}`)).json()).toMatchObject({ start: s.start, end: s.end, corrections: [] });
    expect((await call(t, admin, 'PATCH', '/shifts/abc', { break_minutes: 0 })).statusCode).toBe(400);
  });

  it('another restaurant’s shifts and employees are 404, also inside the body', async () => {
    const { t, r, admin } = await setup();
    const other = await t.seedTenant();
    const theirs = (await call(t, await other.adminCookie(), 'POST', '/shifts', body(other.staffId))).json();
    const own = await call(t, admin, 'POST', '/shifts', body(other.staffId));
    expect(own.statusCode).toBe(404);
    expect(own.json()).toEqual({ error: 'Medewerker niet gevonden.', code: 'NOT_FOUND' });
    expect((await call(t, admin, 'GET', `/shifts/${theirs.id}`)).json()).toEqual({ error: 'Dienst niet gevonden.', code: 'NOT_FOUND' });
    expect((await call(t, admin, 'PATCH', `/shifts/${theirs.id}`, { break_minutes: 0 })).statusCode).toBe(404);
    expect((await call(t, admin, 'GET', '/shifts/0190a0a0-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await call(t, admin, 'GET', '/shifts?from=2026-11-01&to=2026-11-30')).json().data).toEqual([]);
    expect(await shiftCount(t, r.id)).toBe(0);
    // An archived employee gets no new shifts.
    await t.services.users.archive(r.id, r.staffId);
    expect((await call(t, admin, 'POST', '/shifts', body(r.staffId))).statusCode).toBe(404);
  });

  it('staff may not enter, correct or list shifts (403); without a session 401', async () => {
    const { t, r, staff, admin } = await setup();
    const s = (await call(t, admin, 'POST', '/shifts', body(r.staffId))).json();
    const forbidden = [
      await call(t, staff, 'POST', '/shifts', body(r.staffId, { start: '2026-11-18T10:00:00Z', end: '2026-11-18T12:00:00Z', break_minutes: 0 })),
      await call(t, staff, 'PATCH', `/shifts/${s.id}`, { break_minutes: 0 }),
      await call(t, staff, 'GET', '/shifts'),
      await call(t, staff, 'GET', `/shifts/${s.id}`),
    ];
    for (const res of forbidden) expect(res.json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
    expect((await call(t, undefined, 'GET', '/shifts')).statusCode).toBe(401);
    expect((await call(t, undefined, 'POST', '/shifts', body(r.staffId))).statusCode).toBe(401);
    expect((await call(t, admin, 'GET', `/shifts/${s.id}`)).json()).toMatchObject({ break_minutes: 30, corrections: [] });
    expect(await shiftCount(t, r.id)).toBe(1);
  });

  it('list validation: a reversed or too long period is 400', async () => {
    const { t, admin } = await setup();
    const reversed = await call(t, admin, 'GET', '/shifts?from=2026-11-10&to=2026-11-01');
    expect(reversed.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'to' }] });
    expect((await call(t, admin, 'GET', '/shifts?from=2024-01-01&to=2026-11-01')).statusCode).toBe(400);
    expect((await call(t, admin, 'GET', '/shifts?from=1-1-2026')).statusCode).toBe(400);
  });
});
