import { describe, expect, it } from 'vitest';
import { api, haccpCounts, setup } from './helpers.js';

const log = (t: Parameters<typeof api>[0], cookie: string, body: Record<string, unknown>) => api(t, 'POST', '/haccp/temperature', cookie, body);

describe('POST /haccp/temperature: the status of CONTRACT §9', () => {
  // [temperature, expected] per unit: just below, at and just above each boundary.
  const table: Array<{ name: string; unit: Record<string, unknown>; margin?: number; cases: Array<[number, string]> }> = [
    {
      name: 'koelcel, target 4, default margin 2.0',
      unit: { unit_type: 'koelcel', target_max: 4 },
      cases: [[3.99, 'ok'], [4, 'ok'], [4.01, 'waarschuwing'], [5.99, 'waarschuwing'], [6, 'waarschuwing'], [6.01, 'kritiek'], [12, 'kritiek']],
    },
    {
      name: 'vriezer, target -18, default margin 2.0',
      unit: { unit_type: 'vriezer', target_max: -18 },
      cases: [[-18.01, 'ok'], [-18, 'ok'], [-17.99, 'waarschuwing'], [-16, 'waarschuwing'], [-15.99, 'kritiek']],
    },
    {
      name: 'target 3.3 (3.3 + 0.7 is exactly 4, not 3.9999…)',
      unit: { unit_type: 'koelkast', target_max: 3.3 },
      margin: 0.7,
      cases: [[3.3, 'ok'], [3.31, 'waarschuwing'], [4, 'waarschuwing'], [4.01, 'kritiek']],
    },
    {
      name: 'koelkast, target 7, custom margin 0.5',
      unit: { unit_type: 'koelkast', target_max: 7 },
      margin: 0.5,
      cases: [[6.99, 'ok'], [7, 'ok'], [7.01, 'waarschuwing'], [7.49, 'waarschuwing'], [7.5, 'waarschuwing'], [7.51, 'kritiek']],
    },
    {
      name: 'margin 0: anything above the target is kritiek',
      unit: { unit_type: 'koelcel', target_max: 4 },
      margin: 0,
      cases: [[4, 'ok'], [4.01, 'kritiek']],
    },
    {
      name: 'warmhoud: a minimum of 60 judged downwards with the margin',
      unit: { unit_type: 'warmhoud', target_max: 100, target_min: 60 },
      cases: [[60.01, 'ok'], [60, 'ok'], [59.99, 'waarschuwing'], [58, 'waarschuwing'], [57.99, 'kritiek'], [100, 'ok'], [102, 'waarschuwing'], [102.01, 'kritiek']],
    },
  ];

  it.each(table)('$name', async ({ unit, margin, cases }) => {
    const { t, r, staff, admin } = await setup();
    if (margin !== undefined) expect((await api(t, 'PATCH', '/settings', admin, { haccp_margin: margin })).statusCode).toBe(200);
    for (const [i, [temperature, expected]] of cases.entries()) {
      // A unit per reading, so each is judged on its own (the first log registers the unit).
      const res = await log(t, staff, { unit_name: `Meetpunt ${i}`, ...unit, temperature });
      expect(res.statusCode, `${temperature} °C`).toBe(201);
      const body = res.json();
      expect({ temperature, status: body.status }).toEqual({ temperature, status: expected });
      expect(body.margin).toBe(margin ?? 2);
      expect(body.incident_id === null).toBe(expected !== 'kritiek');
    }
    const open = (await api(t, 'GET', '/haccp/incidents?status=open', staff)).json();
    expect(open.total).toBe(cases.filter(([, s]) => s === 'kritiek').length);
    expect((await t.services.haccp.verify(r.id)).verified).toBe(true);
  });

  it('a log registers an unknown unit, matches a known one by name (any case or spacing), and keeps who logged it', async () => {
    const { t, r, staff } = await setup();
    const first = await log(t, staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 3.5, target_max: 4, note: 'na levering' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      unit_name: 'Koelcel 1',
      unit_type: 'koelcel',
      temperature: 3.5,
      target_max: 4,
      target_min: null,
      status: 'ok',
      user_id: r.staffId,
      note: 'na levering',
      business_day: '2026-11-20',
      origin: expect.any(String),
      chain_seq: 1,
      prev_hash: '0'.repeat(64),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      incident_id: null,
    });
    const second = await log(t, staff, { unit_name: '  koelcel   1 ', temperature: 4.5 });
    expect(second.statusCode).toBe(201);
    expect(second.json()).toMatchObject({ unit_id: first.json().unit_id, unit_name: 'Koelcel 1', status: 'waarschuwing', chain_seq: 2, prev_hash: first.json().hash });
    const units = (await api(t, 'GET', '/haccp/units', staff)).json().data;
    expect(units).toEqual([expect.objectContaining({ id: first.json().unit_id, name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4, readings_per_day: 2 })]);
    // Events: the unit and both logs in the change log, in order.
    const kinds = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.kind.startsWith('haccp.')).map((c) => c.kind);
    expect(kinds).toEqual(['haccp.unit_created', 'haccp.temperature_logged', 'haccp.temperature_logged']);
  });

  it.each([
    ['no temperature', { unit_name: 'Koelcel 1' }, 'temperature', /verplicht/],
    ['temperature as text', { unit_name: 'Koelcel 1', temperature: '4' }, 'temperature', /getal/],
    ['three decimals', { unit_name: 'Koelcel 1', temperature: 4.123 }, 'temperature', /twee decimalen/],
    ['too hot', { unit_name: 'Koelcel 1', temperature: 151 }, 'temperature', /maximaal 150/],
    ['empty unit name', { unit_name: '  ', temperature: 4 }, 'unit_name', /leeg/],
    ['unknown unit type', { unit_name: 'Nieuw', unit_type: 'oven', temperature: 4, target_max: 7 }, 'unit_type', /een van deze waarden/],
    ['unknown field', { unit_name: 'Koelcel 1', temperature: 4, status: 'ok' }, 'status', /Onbekend veld/],
    ['min not below max', { unit_name: 'Nieuw', unit_type: 'warmhoud', temperature: 70, target_max: 60, target_min: 60 }, 'target_min', /lager zijn dan/],
    ['new unit without target', { unit_name: 'Nieuw', unit_type: 'koelcel', temperature: 4 }, 'target_max', /verplicht voor een nieuw meetpunt/],
    ['new unit without type', { unit_name: 'Nieuw', temperature: 4, target_max: 7 }, 'unit_type', /verplicht voor een nieuw meetpunt/],
    ['target differing from the registered one', { unit_name: 'koelcel 1', temperature: 4, target_max: 8 }, 'target_max', /wijkt af van wat voor 'Koelcel 1' is ingesteld \(4\)/],
    ['type differing from the registered one', { unit_name: 'Koelcel 1', unit_type: 'vriezer', temperature: 4 }, 'unit_type', /wijkt af/],
  ])('%s is 400 VALIDATION naming the field, and changes nothing', async (_n, body, field, message) => {
    const { t, r, staff } = await setup();
    expect((await log(t, staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 3, target_max: 4 })).statusCode).toBe(201);
    const before = await haccpCounts(t, r.id);
    const res = await log(t, staff, body);
    expect(res.statusCode).toBe(400);
    const b = res.json();
    expect(b.code).toBe('VALIDATION');
    expect(b.error).toMatch(/^Ongeldige invoer: /);
    expect(b.details[0].field).toBe(field);
    expect(b.details[0].error).toMatch(message);
    expect(await haccpCounts(t, r.id)).toEqual(before);
  });

  it('needs a session; the body must be JSON', async () => {
    const { t, r, staff } = await setup();
    expect((await log(t, '', { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 3, target_max: 4 })).statusCode).toBe(401);
    const form = await t.req({ method: 'POST', url: '/api/v1/haccp/temperature', cookie: staff, payload: 'unit_name=x&temperature=3', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.statusCode).toBe(400);
    expect((await haccpCounts(t, r.id)).haccp_temperature_logs).toBe(0);
  });

  it('twenty tablets logging a new unit at once: one unit, twenty logs, one unbroken chain', async () => {
    const { t, r, staff } = await setup();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => log(t, staff, { unit_name: 'Vriezer 2', unit_type: 'vriezer', temperature: i % 5 === 0 ? -10 : -19, target_max: -18 })),
    );
    expect(results.map((x) => x.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((x) => x.json().unit_id)).size).toBe(1);
    const counts = await haccpCounts(t, r.id);
    expect(counts).toMatchObject({ haccp_units: 1, haccp_temperature_logs: 20, haccp_incidents: 4 });
    const integrity = await t.services.haccp.verify(r.id);
    expect(integrity.verified).toBe(true);
    expect(integrity.chains).toEqual([expect.objectContaining({ records: 24, verified: true, problems: 0 })]);
    const seqs = results.map((x) => x.json().chain_seq as number);
    expect(new Set(seqs).size).toBe(20);
  });
});

describe('kritiek: incident, event, corrective actions (CONTRACT §9, §16)', () => {
  it('a kritiek log opens an incident with a haccp.incident event; it stays open until a corrective action', async () => {
    const { t, r, staff } = await setup();
    const res = await log(t, staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 9.5, target_max: 4 });
    expect(res.statusCode).toBe(201);
    const logged = res.json();
    expect(logged.status).toBe('kritiek');
    const events = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.kind === 'haccp.incident');
    expect(events).toHaveLength(1);
    const payload = events[0]!.payload as { incident: Record<string, unknown>; log: Record<string, unknown> };
    expect(payload.incident).toMatchObject({ id: logged.incident_id, kind: 'temperature', log_id: logged.id, unit_id: logged.unit_id, open: true, actions: [] });
    expect(payload.incident.description).toBe('Koelcel 1: 9,5 °C gemeten (maximaal 4 °C, marge 2 °C): kritiek.');
    expect(payload.log).toMatchObject({ id: logged.id, status: 'kritiek' });

    const list = (await api(t, 'GET', '/haccp/incidents', staff)).json();
    expect(list).toMatchObject({ total: 1, limit: 50, offset: 0, data: [{ id: logged.incident_id, open: true, actions: [] }] });

    const action = await api(t, 'POST', `/haccp/incidents/${logged.incident_id}/actions`, staff, { note: 'Deur stond open; gesloten, producten gecontroleerd en 2 kg weggegooid.' });
    expect(action.statusCode).toBe(201);
    expect(action.json().action).toMatchObject({ incident_id: logged.incident_id, user_id: r.staffId, chain_seq: 3, note: expect.stringContaining('Deur stond open') });
    expect(action.json().incident).toMatchObject({ id: logged.incident_id, open: false, actions: [{ id: action.json().action.id }] });
    expect((await api(t, 'GET', '/haccp/incidents?status=open', staff)).json().total).toBe(0);
    expect((await api(t, 'GET', '/haccp/incidents?status=closed', staff)).json().data[0].actions).toHaveLength(1);
    // A follow-up is a second record, the first stays as it was.
    const again = await api(t, 'POST', `/haccp/incidents/${logged.incident_id}/actions`, staff, { note: 'Monteur heeft de deurrubber vervangen.' });
    expect(again.json().incident.actions.map((a: { note: string }) => a.note)).toEqual([action.json().action.note, 'Monteur heeft de deurrubber vervangen.']);
    expect((await t.services.haccp.verify(r.id)).verified).toBe(true);
  });

  it('corrective actions: validation, 401, 404 for unknown and other restaurants’ incidents, and nothing changes when refused', async () => {
    const { t, r, staff } = await setup();
    const other = await t.seedTenant();
    const theirs = await t.services.haccp.logTemperature({ tenantId: other.id, userId: null }, { unit_name: 'Koelcel', unit_type: 'koelcel', temperature: 20, target_max: 4 });
    const mine = (await log(t, staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 20, target_max: 4 })).json();
    const before = await haccpCounts(t, r.id);
    const cases: Array<[string, unknown, number, RegExp]> = [
      [`/haccp/incidents/${mine.incident_id}/actions`, { note: '   ' }, 400, /'note' mag niet leeg zijn/],
      [`/haccp/incidents/${mine.incident_id}/actions`, {}, 400, /'note' is verplicht/],
      [`/haccp/incidents/${mine.incident_id}/actions`, { note: 'x'.repeat(1001) }, 400, /maximaal 1000 tekens/],
      ['/haccp/incidents/niet-een-id/actions', { note: 'x' }, 400, /geldige id/],
      [`/haccp/incidents/${theirs.incident_id}/actions`, { note: 'x' }, 404, /^Incident niet gevonden\.$/],
      ['/haccp/incidents/0190a0a0-0000-7000-8000-000000000000/actions', { note: 'x' }, 404, /^Incident niet gevonden\.$/],
    ];
    for (const [url, body, status, message] of cases) {
      const res = await api(t, 'POST', url, staff, body);
      expect(res.statusCode, url).toBe(status);
      expect(res.json().error).toMatch(message);
    }
    expect((await api(t, 'POST', `/haccp/incidents/${mine.incident_id}/actions`, undefined, { note: 'x' })).statusCode).toBe(401);
    expect((await api(t, 'GET', '/haccp/incidents', undefined)).statusCode).toBe(401);
    expect((await api(t, 'GET', '/haccp/incidents?status=dicht', staff)).statusCode).toBe(400);
    expect(await haccpCounts(t, r.id)).toEqual(before);
    // The other restaurant's incident is not listed here.
    expect((await api(t, 'GET', '/haccp/incidents', staff)).json().data.map((i: { id: string }) => i.id)).toEqual([mine.incident_id]);
  });

  it('two tablets recording a corrective action at once: both kept, in one unbroken chain', async () => {
    const { t, r, staff, admin } = await setup();
    const { incident_id } = (await log(t, staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 20, target_max: 4 })).json();
    const [a, b] = await Promise.all([
      api(t, 'POST', `/haccp/incidents/${incident_id}/actions`, staff, { note: 'Producten weggegooid.' }),
      api(t, 'POST', `/haccp/incidents/${incident_id}/actions`, admin, { note: 'Koelcel laten nakijken.' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    const incident = await t.services.haccp.getIncident(r.id, incident_id);
    expect(incident.actions.map((x) => x.note).sort()).toEqual(['Koelcel laten nakijken.', 'Producten weggegooid.']);
    expect((await t.services.haccp.verify(r.id)).verified).toBe(true);
  });
});

describe('units (CONTRACT §16)', () => {
  it('admin registers, changes and archives units; staff read them; names are unique (any case)', async () => {
    const { t, r, staff, admin } = await setup();
    const created = await api(t, 'POST', '/haccp/units', admin, { name: 'Vriezer 1', unit_type: 'vriezer', target_max: -18, readings_per_day: 3 });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Vriezer 1', unit_type: 'vriezer', target_max: -18, target_min: null, readings_per_day: 3, archived_at: null });
    const id = created.json().id;
    const dup = await api(t, 'POST', '/haccp/units', admin, { name: 'vriezer 1', unit_type: 'vriezer', target_max: -18 });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ code: 'CONFLICT', error: "Er is al een meetpunt met de naam 'vriezer 1'." });
    const patched = await api(t, 'PATCH', `/haccp/units/${id}`, admin, { target_max: -20, name: 'Vriezer keuken' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Vriezer keuken', target_max: -20 });
    // A log by the new name uses the new target.
    expect((await log(t, staff, { unit_name: 'vriezer keuken', temperature: -19 })).json()).toMatchObject({ unit_id: id, status: 'waarschuwing', target_max: -20 });
    expect((await api(t, 'GET', '/haccp/units', staff)).json().data).toHaveLength(1);
    expect((await api(t, 'DELETE', `/haccp/units/${id}`, admin)).statusCode).toBe(204);
    expect((await api(t, 'GET', '/haccp/units', staff)).json().data).toHaveLength(0);
    expect((await api(t, 'GET', '/haccp/units?include_archived=true', staff)).json().data[0]).toMatchObject({ id, archived_at: expect.any(String) });
    expect((await api(t, 'DELETE', `/haccp/units/${id}`, admin)).statusCode).toBe(404);
    expect((await api(t, 'PATCH', `/haccp/units/${id}`, admin, { target_max: 1 })).statusCode).toBe(404);
    // The name is free again; its logs keep pointing at the archived unit.
    const again = await api(t, 'POST', '/haccp/units', admin, { name: 'Vriezer keuken', unit_type: 'vriezer', target_max: -18 });
    expect(again.statusCode).toBe(201);
    expect(again.json().id).not.toBe(id);
    expect((await haccpCounts(t, r.id)).haccp_units).toBe(2);
  });

  it('roles, validation, other restaurants’ units, and nothing changes when refused', async () => {
    const { t, r, staff, admin } = await setup();
    const other = await t.seedTenant();
    const theirs = await t.services.haccp.createUnit(other.id, { name: 'Koelcel', unit_type: 'koelcel', target_max: 4 });
    const mine = (await api(t, 'POST', '/haccp/units', admin, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4 })).json();
    const renamed = (await api(t, 'POST', '/haccp/units', admin, { name: 'Koelcel 2', unit_type: 'koelcel', target_max: 4 })).json();
    const before = await haccpCounts(t, r.id);
    expect((await api(t, 'POST', '/haccp/units', staff, { name: 'X', unit_type: 'koelcel', target_max: 4 })).statusCode).toBe(403);
    expect((await api(t, 'POST', '/haccp/units', undefined, { name: 'X', unit_type: 'koelcel', target_max: 4 })).statusCode).toBe(401);
    expect((await api(t, 'GET', '/haccp/units', undefined)).statusCode).toBe(401);
    expect((await api(t, 'PATCH', `/haccp/units/${mine.id}`, staff, { target_max: 5 })).statusCode).toBe(403);
    expect((await api(t, 'DELETE', `/haccp/units/${mine.id}`, staff)).statusCode).toBe(403);
    for (const [body, field, message] of [
      [{ name: 'X', unit_type: 'koelcel', target_max: 4, readings_per_day: 25 }, 'readings_per_day', /maximaal 24/],
      [{ name: 'X', unit_type: 'koelcel', target_max: 4, readings_per_day: 1.5 }, 'readings_per_day', /geheel getal/],
      [{ name: 'X', unit_type: 'warmhoud', target_max: 60, target_min: 70 }, 'target_min', /lager zijn dan/],
      [{ name: 'X', target_max: 4 }, 'unit_type', /een van deze waarden/],
      [{ name: 'X', unit_type: 'koelcel', target_max: -61 }, 'target_max', /minimaal -60/],
    ] as const) {
      const res = await api(t, 'POST', '/haccp/units', admin, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0]).toMatchObject({ field, error: expect.stringMatching(message) });
    }
    expect((await api(t, 'PATCH', `/haccp/units/${mine.id}`, admin, {})).statusCode).toBe(400);
    expect((await api(t, 'PATCH', `/haccp/units/${mine.id}`, admin, { target_min: 10 })).json().details[0].field).toBe('target_min');
    expect((await api(t, 'PATCH', `/haccp/units/${renamed.id}`, admin, { name: 'KOELCEL 1' })).statusCode).toBe(409);
    expect((await api(t, 'PATCH', `/haccp/units/${theirs.id}`, admin, { target_max: 5 })).json()).toEqual({ code: 'NOT_FOUND', error: 'Meetpunt niet gevonden.' });
    expect((await api(t, 'DELETE', `/haccp/units/${theirs.id}`, admin)).statusCode).toBe(404);
    expect((await api(t, 'PATCH', '/haccp/units/abc', admin, { target_max: 5 })).statusCode).toBe(400);
    expect(await haccpCounts(t, r.id)).toEqual(before);
    expect((await t.services.haccp.listUnits(other.id))[0]).toMatchObject({ target_max: 4, archived_at: null });
  });
});

describe('checklists (CONTRACT §9)', () => {
  const opening = { name: 'Opening keuken', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen gecontroleerd' }, { label: 'Handen wassen mogelijk (zeep, papier)' }, { label: 'Werkbanken schoon' }] };

  it('admin creates, changes and archives; staff see the active ones and run them; the run stores who, done, missing, complete, notes', async () => {
    const { t, r, staff, admin } = await setup();
    const created = await api(t, 'POST', '/haccp/checklists', admin, opening);
    expect(created.statusCode).toBe(201);
    const c = created.json();
    expect(c).toMatchObject({ name: 'Opening keuken', frequency: 'daily', deadline: '11:00', weekday: null, archived_at: null });
    expect(c.items).toEqual(opening.items.map((i) => ({ id: expect.any(String), label: i.label })));
    const weekly = (await api(t, 'POST', '/haccp/checklists', admin, { name: 'Schoonmaak koelcel', frequency: 'weekly', weekday: 'mon', items: [{ label: 'Koelcel leeg en schoon' }] })).json();
    expect(weekly).toMatchObject({ frequency: 'weekly', weekday: 'mon', deadline: '23:59' });
    expect((await api(t, 'GET', '/haccp/checklists', staff)).json().data.map((x: { name: string }) => x.name)).toEqual(['Opening keuken', 'Schoonmaak koelcel']);

    const [a, b, cc] = c.items.map((i: { id: string }) => i.id);
    const partial = await api(t, 'POST', `/haccp/checklists/${c.id}/run`, staff, { completed_items: [a, cc, a], notes: 'Zeep op, besteld.' });
    expect(partial.statusCode).toBe(201);
    expect(partial.json()).toMatchObject({
      checklist_id: c.id,
      checklist_name: 'Opening keuken',
      user_id: r.staffId,
      completed_items: [a, cc],
      missing_items: [b],
      complete: false,
      notes: 'Zeep op, besteld.',
      business_day: '2026-11-20',
      items: [
        { id: a, label: 'Koelingen gecontroleerd', done: true },
        { id: b, label: 'Handen wassen mogelijk (zeep, papier)', done: false },
        { id: cc, label: 'Werkbanken schoon', done: true },
      ],
    });
    const full = await api(t, 'POST', `/haccp/checklists/${c.id}/run`, admin, { completed_items: [a, b, cc] });
    expect(full.json()).toMatchObject({ complete: true, missing_items: [], notes: null });

    // Items with an id keep it; without one they are new; the earlier run keeps the list as it was.
    const patched = await api(t, 'PATCH', `/haccp/checklists/${c.id}`, admin, { deadline: '10:30', items: [{ id: a, label: 'Koelingen gecontroleerd (≤ 7 °C)' }, { label: 'Afval weggebracht' }] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().deadline).toBe('10:30');
    expect(patched.json().items).toEqual([{ id: a, label: 'Koelingen gecontroleerd (≤ 7 °C)' }, { id: expect.any(String), label: 'Afval weggebracht' }]);
    const oldRun = (await t.services.haccp.export(r.id, 1)).checklist_runs[0]!;
    expect(oldRun.items).toHaveLength(3);
    // An item removed from the list is no longer accepted.
    expect((await api(t, 'POST', `/haccp/checklists/${c.id}/run`, staff, { completed_items: [b] })).statusCode).toBe(400);

    expect((await api(t, 'DELETE', `/haccp/checklists/${weekly.id}`, admin)).statusCode).toBe(204);
    expect((await api(t, 'GET', '/haccp/checklists', staff)).json().data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await api(t, 'POST', `/haccp/checklists/${weekly.id}/run`, staff, { completed_items: [] })).json()).toEqual({ code: 'NOT_FOUND', error: 'Controlelijst niet gevonden.' });
    expect((await t.services.haccp.verify(r.id)).verified).toBe(true);
  });

  it('an item id not on the checklist is VALIDATION (also another list’s or restaurant’s), and nothing is stored', async () => {
    const { t, r, staff, admin } = await setup();
    const c = (await api(t, 'POST', '/haccp/checklists', admin, opening)).json();
    const otherList = (await api(t, 'POST', '/haccp/checklists', admin, { name: 'Sluiting', frequency: 'daily', items: [{ label: 'Koelingen dicht' }] })).json();
    const other = await t.seedTenant();
    const theirs = await t.services.haccp.createChecklist(other.id, { name: 'Opening', frequency: 'daily', items: [{ label: 'x' }] });
    const before = await haccpCounts(t, r.id);
    for (const stranger of [otherList.items[0].id, theirs.items[0]!.id, '0190a0a0-0000-7000-8000-000000000000']) {
      const res = await api(t, 'POST', `/haccp/checklists/${c.id}/run`, staff, { completed_items: [c.items[0].id, stranger] });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 'VALIDATION',
        error: "Ongeldige invoer: 'completed_items.1' is geen onderdeel van controlelijst 'Opening keuken'.",
        details: [{ field: 'completed_items.1', error: "'completed_items.1' is geen onderdeel van controlelijst 'Opening keuken'." }],
      });
    }
    for (const [body, field, message] of [
      [{ completed_items: ['abc'] }, 'completed_items.0', /geldige id/],
      [{}, 'completed_items', /verplicht/],
      [{ completed_items: [], notes: 'x'.repeat(1001) }, 'notes', /maximaal 1000/],
      [{ completed_items: [], extra: 1 }, 'extra', /Onbekend veld/],
    ] as const) {
      const res = await api(t, 'POST', `/haccp/checklists/${c.id}/run`, staff, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0]).toMatchObject({ field, error: expect.stringMatching(message) });
    }
    expect((await api(t, 'POST', `/haccp/checklists/${theirs.id}/run`, staff, { completed_items: [] })).statusCode).toBe(404);
    expect((await api(t, 'POST', `/haccp/checklists/${c.id}/run`, undefined, { completed_items: [] })).statusCode).toBe(401);
    expect(await haccpCounts(t, r.id)).toEqual(before);
  });

  it('admin-only configuration, validation, 404 for other restaurants’ lists, nothing changes when refused', async () => {
    const { t, r, staff, admin } = await setup();
    const c = (await api(t, 'POST', '/haccp/checklists', admin, opening)).json();
    const other = await t.seedTenant();
    const theirs = await t.services.haccp.createChecklist(other.id, { name: 'Opening', frequency: 'daily', items: [{ label: 'x' }] });
    const before = await haccpCounts(t, r.id);
    expect((await api(t, 'POST', '/haccp/checklists', staff, opening)).statusCode).toBe(403);
    expect((await api(t, 'POST', '/haccp/checklists', undefined, opening)).statusCode).toBe(401);
    expect((await api(t, 'GET', '/haccp/checklists', undefined)).statusCode).toBe(401);
    expect((await api(t, 'PATCH', `/haccp/checklists/${c.id}`, staff, { name: 'x' })).statusCode).toBe(403);
    expect((await api(t, 'DELETE', `/haccp/checklists/${c.id}`, staff)).statusCode).toBe(403);
    for (const [body, field, message] of [
      [{ ...opening, items: [] }, 'items', /minstens één/],
      [{ ...opening, deadline: '25:00' }, 'deadline', /UU:MM/],
      [{ ...opening, frequency: 'maandelijks' }, 'frequency', /een van deze waarden/],
      [{ ...opening, weekday: 'mon' }, 'weekday', /wekelijkse/],
      [{ ...opening, items: [{ label: '' }] }, 'items.0.label', /leeg/],
    ] as const) {
      const res = await api(t, 'POST', '/haccp/checklists', admin, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0]).toMatchObject({ field, error: expect.stringMatching(message) });
    }
    const badItem = await api(t, 'PATCH', `/haccp/checklists/${c.id}`, admin, { items: [{ id: theirs.items[0]!.id, label: 'x' }] });
    expect(badItem.statusCode).toBe(400);
    expect(badItem.json().details[0]).toEqual({ field: 'items.0.id', error: "'items.0.id' is geen onderdeel van deze controlelijst." });
    expect((await api(t, 'PATCH', `/haccp/checklists/${c.id}`, admin, { weekday: 'tue' })).json().details[0].field).toBe('weekday');
    expect((await api(t, 'PATCH', `/haccp/checklists/${theirs.id}`, admin, { name: 'x' })).statusCode).toBe(404);
    expect((await api(t, 'DELETE', `/haccp/checklists/${theirs.id}`, admin)).statusCode).toBe(404);
    expect(await haccpCounts(t, r.id)).toEqual(before);
    expect((await t.services.haccp.listChecklists(other.id))[0]!.name).toBe('Opening');
  });
});

describe('GET /haccp/today (the temperature screen, issue 26)', () => {
  it("each unit with its norm, today's readings and those still owed, the last one; each checklist done or not; the margin", async () => {
    const { t, staff, admin } = await setup();
    const cold = (await api(t, 'POST', '/haccp/units', admin, { name: 'Koelcel', unit_type: 'koelcel', target_max: 7, readings_per_day: 2 })).json();
    await api(t, 'POST', '/haccp/units', admin, { name: 'Bain-marie', unit_type: 'warmhoud', target_max: 90, target_min: 60, readings_per_day: 1 });
    const list = (await api(t, 'POST', '/haccp/checklists', admin, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'Handen' }] })).json();
    await api(t, 'POST', '/haccp/checklists', admin, { name: 'Week', frequency: 'weekly', items: [{ label: 'Ontdooien' }] });
    expect((await log(t, staff, { unit_name: 'Koelcel', temperature: 3.5 })).statusCode).toBe(201);
    expect((await log(t, staff, { unit_name: 'Koelcel', temperature: 8.5 })).statusCode).toBe(201);
    expect((await api(t, 'POST', `/haccp/checklists/${list.id}/run`, staff, { completed_items: [list.items[0].id] })).statusCode).toBe(201);
    // Another restaurant's units stay out.
    const other = await t.seedTenant();
    await api(t, 'POST', '/haccp/units', await other.adminCookie(), { name: 'Elders', unit_type: 'koelcel', target_max: 7 });
    const res = await api(t, 'GET', '/haccp/today', staff);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ date: '2026-11-20', open: true, margin: 2 });
    expect(body.units.map((u: { name: string }) => u.name)).toEqual(['Bain-marie', 'Koelcel']);
    expect(body.units[1]).toMatchObject({ id: cold.id, target_max: 7, target_min: null, recorded_today: 2, due_today: 0, last: { temperature: 8.5, status: 'waarschuwing' } });
    expect(body.units[0]).toMatchObject({ target_min: 60, target_max: 90, recorded_today: 0, due_today: 1, last: null });
    expect(body.checklists).toEqual([
      { id: list.id, name: 'Opening', frequency: 'daily', deadline: '11:00', done: true },
      expect.objectContaining({ name: 'Week', frequency: 'weekly', done: false }),
    ]);
    expect((await api(t, 'GET', '/haccp/today')).statusCode).toBe(401);
    expect((await api(t, 'GET', '/haccp/today', await other.staffCookie())).json().units.map((u: { name: string }) => u.name)).toEqual(['Elders']);
  });

  it('a closed day owes no readings', async () => {
    const { t, staff, admin } = await setup({ openingHours: { sat: [['12:00', '22:00']] } });
    await api(t, 'POST', '/haccp/units', admin, { name: 'Koelcel', unit_type: 'koelcel', target_max: 7 });
    const body = (await api(t, 'GET', '/haccp/today', staff)).json();
    expect(body.open).toBe(false);
    expect(body.units[0]).toMatchObject({ readings_per_day: 2, due_today: 0 });
  });
});
