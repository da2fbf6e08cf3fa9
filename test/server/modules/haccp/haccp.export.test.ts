import { describe, expect, it } from 'vitest';
import { hashRecord, logDto } from '../../../../server/modules/haccp/haccp.chain.js';
import { ManualClock } from '../../../../server/shared/clock.js';
import { newId } from '../../../../server/shared/ids.js';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { api, setup } from './helpers.js';

/**
 * A restaurant with 10 days of history up to Friday 20 November 2026 (Amsterdam): Koelcel 1 read
 * twice a day except 14 November (not at all) and 17 November (once), a kritiek reading with its
 * corrective action, an open incident, a daily checklist run every day but 16 November.
 */
async function history(opts: { clock?: ManualClock } = {}) {
  const clock = opts.clock ?? new ManualClock('2026-11-10T07:00:00Z');
  const s = await setup({ clock });
  const { t, r } = s;
  const h = t.services.haccp;
  const staff = { tenantId: r.id, userId: r.staffId };
  const unit = await h.createUnit(r.id, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4 });
  const list = await h.createChecklist(r.id, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen' }, { label: 'Handen' }] });
  const logs: string[] = [];
  for (let d = 11; d <= 20; d++) {
    const day = `2026-11-${d}`;
    if (d !== 16) {
      clock.set(`${day}T08:30:00Z`);
      await h.runChecklist(staff, list.id, { completed_items: list.items.map((i) => i.id) });
    }
    const times = d === 14 ? [] : d === 17 ? ['09:00'] : ['09:00', '20:00'];
    for (const time of times) {
      clock.set(`${day}T${time}:00Z`);
      logs.push((await h.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 3 })).id);
    }
  }
  clock.set('2026-11-18T10:00:00Z');
  const hot = await h.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 11 });
  await h.addAction(staff, hot.incident_id!, 'Deur dicht, producten weggegooid.');
  clock.set('2026-11-19T10:00:00Z');
  const open = await h.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 9 });
  clock.set('2026-11-20T12:00:00Z');
  return { ...s, clock, unit, list, logs, hot, open, cookie: await r.staffCookie() };
}

const exportOf = async (t: TestApp, cookie: string, query = '') => {
  const res = await api(t, 'GET', `/haccp/export${query}`, cookie);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('GET /haccp/export (CONTRACT §9)', () => {
  it('answers tenant, period, logs, runs, incidents with actions, open incidents, the chains and the gaps', async () => {
    const { t, r, cookie, unit, list, hot, open } = await history();
    const other = await t.seedTenant();
    await t.services.haccp.logTemperature({ tenantId: other.id, userId: null }, { unit_name: 'Elders', unit_type: 'koelcel', temperature: 30, target_max: 4 });
    const e = await exportOf(t, cookie, '?days=7');
    expect(Object.keys(e).sort()).toEqual(
      ['checklist_runs', 'checklists', 'generated_at', 'incidents', 'integrity', 'missed_checklists', 'missing_readings', 'open_incidents', 'period', 'temperature_logs', 'tenant', 'units'].sort(),
    );
    expect(e.tenant).toEqual({ id: r.id, slug: r.slug, name: expect.any(String) });
    expect(e.period).toEqual({ from: '2026-11-14', to: '2026-11-20', days: 7, timezone: 'Europe/Amsterdam' });
    expect(e.generated_at).toBe('2026-11-20T12:00:00.000Z');
    // 15, 16, 18, 19, 20: two each; 17: one; 14: none; plus the two hot readings.
    expect(e.temperature_logs).toHaveLength(5 * 2 + 1 + 2);
    expect(e.temperature_logs.every((l: { business_day: string }) => l.business_day >= '2026-11-14')).toBe(true);
    expect(e.temperature_logs[0]).toMatchObject({ unit_id: unit.id, user_name: 'Sanne', status: 'ok', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(e.checklist_runs.map((x: { business_day: string }) => x.business_day)).toEqual(['2026-11-14', '2026-11-15', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20']);
    expect(e.checklist_runs[0]).toMatchObject({ checklist_id: list.id, complete: true, user_name: 'Sanne' });
    expect(e.incidents.map((i: { id: string; open: boolean; actions: unknown[] }) => [i.id, i.open, i.actions.length])).toEqual([
      [hot.incident_id, false, 1],
      [open.incident_id, true, 0],
    ]);
    expect(e.incidents[0].actions[0]).toMatchObject({ note: 'Deur dicht, producten weggegooid.', user_name: 'Sanne' });
    expect(e.open_incidents.map((i: { id: string }) => i.id)).toEqual([open.incident_id]);
    expect(e.integrity).toMatchObject({ verified: true, first_bad: null, chains: [{ verified: true, problems: 0, first_bad: null, head_hash: expect.any(String) }] });
    // The gaps: 14 November without readings, 17 November with one, 16 November without the checklist.
    expect(e.missing_readings).toEqual([
      { unit_id: unit.id, unit_name: 'Koelcel 1', date: '2026-11-14', required: 2, recorded: 0 },
      { unit_id: unit.id, unit_name: 'Koelcel 1', date: '2026-11-17', required: 2, recorded: 1 },
    ]);
    expect(e.missed_checklists).toEqual([{ checklist_id: list.id, name: 'Opening', frequency: 'daily', date: '2026-11-16', deadline: '11:00' }]);
    expect(e.units.map((u: { name: string }) => u.name)).toEqual(['Koelcel 1']);
    // Nothing of the other restaurant.
    expect(JSON.stringify(e)).not.toContain('Elders');
    // The default is 30 days.
    expect((await exportOf(t, cookie)).period).toMatchObject({ from: '2026-10-22', to: '2026-11-20', days: 30 });
  });

  it.each([['0'], ['366'], ['-1'], ['abc'], ['1.5'], ['']])('days=%s is 400 VALIDATION on days', async (days) => {
    const { t, staff } = await setup();
    const res = await api(t, 'GET', `/haccp/export?days=${days}`, staff);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: 'days' /), details: [{ field: 'days' }] });
  });

  it('days=1 and days=365 are fine; an unknown format or field is 400; it needs a session', async () => {
    const { t, staff } = await setup();
    expect((await exportOf(t, staff, '?days=1')).period).toMatchObject({ from: '2026-11-20', to: '2026-11-20' });
    expect((await exportOf(t, staff, '?days=365')).period.from).toBe('2025-11-21');
    expect((await api(t, 'GET', '/haccp/export?format=xml', staff)).json().details[0].field).toBe('format');
    expect((await api(t, 'GET', '/haccp/export?dagen=7', staff)).statusCode).toBe(400);
    expect((await api(t, 'GET', '/haccp/export', undefined)).statusCode).toBe(401);
  });

  it('format=html is a printable Dutch page with the gaps first and every value escaped', async () => {
    const { t, r, cookie } = await history();
    await t.services.haccp.createUnit(r.id, { name: '<script>alert(1)</script>', unit_type: 'overig', target_max: 10 });
    const res = await api(t, 'GET', '/haccp/export?days=7&format=html', cookie);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.body;
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<html lang="nl">');
    expect(html).toContain('@page');
    expect(html).toContain('Alle registraties zijn onveranderd.');
    expect(html).toContain('Periode: 14 november 2026 t/m 20 november 2026');
    for (const heading of ['Ontbrekende temperatuurmetingen (2)', 'Niet uitgevoerde controlelijsten (1)', 'Openstaande incidenten (1)', 'Temperatuurregistraties (13)', 'Incidenten en correctieve maatregelen (2)']) {
      expect(html).toContain(heading);
    }
    expect(html.indexOf('Ontbrekende temperatuurmetingen')).toBeLessThan(html.indexOf('Temperatuurregistraties ('));
    expect(html).toContain('za 14 nov 2026');
    expect(html).toContain('Deur dicht, producten weggegooid.');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('format=pdf without Chromium is a clear Dutch 501 in the contract’s error shape', async () => {
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = '/nergens/chromium';
    let t: TestApp;
    try {
      t = await createTestApp();
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
    const r = await t.seedTenant();
    const res = await api(t, 'GET', '/haccp/export?format=pdf', await r.staffCookie());
    expect(res.statusCode).toBe(501);
    expect(res.json()).toEqual({ code: 'INTERNAL', error: expect.stringMatching(/^Een PDF maken kan op deze server niet \(Chromium is niet geïnstalleerd\)\. Open de afdrukbare pagina \(format=html\)/) });
  });
});

describe('tamper evidence: the export names the first bad record', () => {
  it('a temperature changed in the database breaks its origin’s chain at that log', async () => {
    const { t, cookie, logs } = await history();
    const victim = logs[5]!;
    await t.handle.db.updateTable('haccp_temperature_logs').set({ temperature: 2 }).where('id', '=', victim).execute();
    const { integrity } = await exportOf(t, cookie, '?days=7');
    expect(integrity.verified).toBe(false);
    expect(integrity.chains[0]).toMatchObject({ verified: false, problems: 1 });
    expect(integrity.first_bad).toMatchObject({ record_type: 'temperature_log', record_id: victim, problem: 'content_changed', reason: expect.stringContaining('gewijzigd') });
  });

  it('…also when the forger recomputes that record’s hash (the change log still knows the original)', async () => {
    const { t, r, cookie, logs } = await history();
    const victim = logs[5]!;
    const row = (await t.handle.db.selectFrom('haccp_temperature_logs').selectAll().where('id', '=', victim).executeTakeFirstOrThrow())!;
    const forged = { ...row, temperature: 2 };
    forged.hash = hashRecord('temperature_log', r.id, logDto(forged));
    await t.handle.db.updateTable('haccp_temperature_logs').set({ temperature: 2, hash: forged.hash }).where('id', '=', victim).execute();
    const { integrity } = await exportOf(t, cookie, '?days=7');
    expect(integrity.first_bad).toMatchObject({ record_id: victim, chain_seq: Number(row.chain_seq), problem: 'content_changed' });
    expect(integrity.chains[0].problems).toBe(2); // and the next record no longer links to it
  });

  it('a deleted record: named by its position and id, also when it was the newest', async () => {
    const { t, cookie, logs } = await history();
    const middle = (await t.handle.db.selectFrom('haccp_temperature_logs').select(['id', 'chain_seq']).where('id', '=', logs[3]!).executeTakeFirstOrThrow())!;
    await t.handle.db.deleteFrom('haccp_temperature_logs').where('id', '=', middle.id).execute();
    let { integrity } = await exportOf(t, cookie, '?days=30');
    expect(integrity.verified).toBe(false);
    expect(integrity.first_bad).toMatchObject({ chain_seq: Number(middle.chain_seq), record_type: 'temperature_log', record_id: middle.id, problem: 'missing', reason: expect.stringContaining('ontbreekt') });

    // Restore, then cut off the end of the chain: the newest record (the open incident).
    const { t: t2, cookie: c2, open } = await history();
    await t2.handle.db.deleteFrom('haccp_incidents').where('id', '=', open.incident_id!).execute();
    ({ integrity } = await exportOf(t2, c2, '?days=30'));
    expect(integrity.first_bad).toMatchObject({ record_type: 'incident', record_id: open.incident_id, problem: 'missing' });
  });

  it('a record inserted directly in the database, even with a correct hash at the end of the chain or a second one at an existing position', async () => {
    const { t, r, cookie, unit } = await history();
    const head = await t.handle.db.selectFrom('haccp_incidents').select(['chain_seq', 'hash', 'origin']).where('tenant_id', '=', r.id).orderBy('chain_seq', 'desc').executeTakeFirstOrThrow();
    const row = {
      id: newId(),
      tenant_id: r.id,
      origin: head.origin,
      chain_seq: Number(head.chain_seq) + 1,
      prev_hash: head.hash,
      hash: '',
      unit_id: unit.id,
      unit_name: 'Koelcel 1',
      unit_type: 'koelcel',
      temperature: 3,
      target_max: 4,
      target_min: null,
      margin: 2,
      status: 'ok' as const,
      business_day: '2026-11-14',
      user_id: r.staffId,
      note: null,
      created_at: '2026-11-14T09:00:00.000Z',
    };
    row.hash = hashRecord('temperature_log', r.id, logDto(row));
    await t.handle.db.insertInto('haccp_temperature_logs').values(row).execute();
    let e = await exportOf(t, cookie, '?days=7');
    expect(e.integrity.first_bad).toMatchObject({ chain_seq: row.chain_seq, record_id: row.id, problem: 'not_in_change_log' });
    // The inserted reading is counted for 14 November like any other; the export says it cannot be trusted.
    expect(e.missing_readings.map((m: { date: string; recorded: number }) => [m.date, m.recorded])).toEqual([['2026-11-14', 1], ['2026-11-17', 1]]);

    // A second record at an occupied position, linked and hashed like the original.
    const { t: t2, r: r2, cookie: c2, logs } = await history();
    const original = (await t2.handle.db.selectFrom('haccp_temperature_logs').selectAll().where('id', '=', logs[2]!).executeTakeFirstOrThrow())!;
    const twin = { ...original, id: newId(), temperature: 3.5 };
    twin.hash = hashRecord('temperature_log', r2.id, logDto(twin));
    // (The unique index on the position of one table would refuse it; a forger with the database can drop it.)
    await t2.handle.db.deleteFrom('haccp_temperature_logs').where('id', '=', original.id).execute();
    await t2.handle.db.insertInto('haccp_temperature_logs').values(twin).execute();
    await t2.handle.db.insertInto('haccp_checklist_runs').values({
      ...(await t2.handle.db.selectFrom('haccp_checklist_runs').selectAll().where('tenant_id', '=', r2.id).limit(1).executeTakeFirstOrThrow())!,
      id: newId(),
      chain_seq: original.chain_seq,
      prev_hash: original.prev_hash,
    }).execute();
    e = await exportOf(t2, c2, '?days=30');
    expect(e.integrity.verified).toBe(false);
    // The original is gone from its position; the twin and the run sharing it are reported as well.
    expect(e.integrity.first_bad).toMatchObject({ chain_seq: Number(original.chain_seq), record_id: original.id, problem: 'missing' });
    expect(e.integrity.chains[0].problems).toBe(4); // missing original, twin, run, and the next record's broken link
  });

  it('an export of a restaurant without any record verifies trivially', async () => {
    const { t, staff } = await setup();
    expect((await exportOf(t, staff)).integrity).toEqual({ verified: true, first_bad: null, chains: [] });
  });
});
