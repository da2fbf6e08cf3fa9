import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../server/shared/clock.js';
import { OVERDUE_JOB } from '../../../../server/modules/haccp/haccp.jobs.js';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { api, EVERY_DAY, setup } from './helpers.js';

/**
 * The overdue job (issue 10 "Overdue checks") with an injected clock: the test moves a ManualClock
 * and runs the registered job itself (`app.scheduler.run`), as node-cron would every 5 minutes.
 * Amsterdam: CET (UTC+1) until 2026-03-29 01:00 UTC, CEST (UTC+2) until 2026-10-25 01:00 UTC.
 */

async function incidents(t: TestApp, tenantId: string) {
  return (await t.services.haccp.listIncidents(tenantId, { limit: 200, offset: 0 })).data
    .map((i) => ({ kind: i.kind, day: i.business_day, checklist_id: i.checklist_id, unit_id: i.unit_id, description: i.description }))
    .sort((a, b) => (a.day + a.kind).localeCompare(b.day + b.kind));
}
const events = async (t: TestApp, tenantId: string) => (await t.changes.readSince(tenantId, 0, 10_000)).filter((c) => c.kind === 'haccp.incident').length;

async function tick(t: TestApp, at: string) {
  t.clock.set(at);
  await t.app.scheduler.run(OVERDUE_JOB);
}

describe('overdue job (registered with the scheduler, injected clock)', () => {
  it('is registered with the server’s job runner', async () => {
    const { t } = await setup();
    expect(t.app.scheduler.names()).toContain(OVERDUE_JOB);
  });

  it('a daily checklist: not before its deadline, once after it, never twice, across the spring DST change', async () => {
    const clock = new ManualClock('2026-03-27T08:00:00Z');
    const { t, r, admin } = await setup({ clock });
    const list = (await api(t, 'POST', '/haccp/checklists', admin, { name: 'Opening keuken', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen gecontroleerd' }] })).json();
    const staff = { tenantId: r.id, userId: r.staffId };
    // Friday 27 March: run in time (10:30 CET).
    clock.set('2026-03-27T09:30:00Z');
    await t.services.haccp.runChecklist(staff, list.id, { completed_items: [list.items[0].id] });
    await tick(t, '2026-03-27T10:30:00Z');
    expect(await incidents(t, r.id)).toEqual([]);

    // Saturday 28 March (CET): nothing run. 10:59 CET: not yet; 11:00 CET: once; later runs: still once.
    await tick(t, '2026-03-28T09:59:00Z');
    expect(await incidents(t, r.id)).toEqual([]);
    await tick(t, '2026-03-28T10:00:00Z');
    expect(await incidents(t, r.id)).toEqual([
      { kind: 'checklist_overdue', day: '2026-03-28', checklist_id: list.id, unit_id: null, description: "Controlelijst 'Opening keuken' is op 2026-03-28 niet uitgevoerd vóór 11:00 uur." },
    ]);
    await tick(t, '2026-03-28T10:05:00Z');
    await tick(t, '2026-03-28T21:00:00Z');
    expect(await incidents(t, r.id)).toHaveLength(1);
    expect(await events(t, r.id)).toBe(1);

    // Sunday 29 March, the clocks go forward at 02:00: 11:00 is now 09:00 UTC, not 10:00.
    await tick(t, '2026-03-29T08:59:00Z'); // 10:59 CEST
    expect(await incidents(t, r.id)).toHaveLength(1);
    await tick(t, '2026-03-29T09:00:30Z'); // 11:00:30 CEST
    expect((await incidents(t, r.id)).map((i) => i.day)).toEqual(['2026-03-28', '2026-03-29']);
    await tick(t, '2026-03-29T10:00:30Z');
    await tick(t, '2026-03-30T00:00:00Z');
    expect(await incidents(t, r.id)).toHaveLength(2);
    expect(await events(t, r.id)).toBe(2);

    // Tuesday 31 March: run late (11:30 CEST), before the job came round: still overdue, once.
    clock.set('2026-03-31T09:30:00Z');
    await t.services.haccp.runChecklist(staff, list.id, { completed_items: [] });
    await tick(t, '2026-03-31T09:35:00Z');
    // Monday 30 March had no run either: the job, looking back, records it too (once).
    expect((await incidents(t, r.id)).map((i) => i.day)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30', '2026-03-31']);
    await tick(t, '2026-03-31T09:40:00Z');
    expect(await events(t, r.id)).toBe(4);
    // The export tells done-late from not done: 31 March was run, the others were not.
    const exp = await t.services.haccp.export(r.id, 5);
    expect(exp.missed_checklists.map((m) => m.date)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    expect((await t.services.haccp.verify(r.id)).verified).toBe(true);
  });

  it('across the autumn DST change: 11:00 is 10:00 UTC again, and the ambiguous 02:30 is the later one', async () => {
    const clock = new ManualClock('2026-10-23T08:00:00Z');
    const { t, r, admin } = await setup({ clock });
    await api(t, 'POST', '/haccp/checklists', admin, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'a' }] });
    await api(t, 'POST', '/haccp/checklists', admin, { name: 'Nacht', frequency: 'daily', deadline: '02:30', items: [{ label: 'b' }] });
    // Sunday 25 October, the clocks go back at 03:00 CEST (01:00 UTC).
    await tick(t, '2026-10-25T00:45:00Z'); // 02:45 CEST, the first 02:30 has passed
    expect((await incidents(t, r.id)).filter((i) => i.day === '2026-10-25')).toEqual([]);
    await tick(t, '2026-10-25T01:30:00Z'); // 02:30 CET, the second 02:30
    expect((await incidents(t, r.id)).filter((i) => i.day === '2026-10-25').map((i) => i.description)).toEqual([
      "Controlelijst 'Nacht' is op 2026-10-25 niet uitgevoerd vóór 02:30 uur.",
    ]);
    await tick(t, '2026-10-25T09:30:00Z'); // 10:30 CET; in summer time this would have been 11:30
    expect((await incidents(t, r.id)).filter((i) => i.day === '2026-10-25')).toHaveLength(1);
    await tick(t, '2026-10-25T10:00:00Z'); // 11:00 CET
    expect((await incidents(t, r.id)).filter((i) => i.day === '2026-10-25')).toHaveLength(2);
    await tick(t, '2026-10-25T10:05:00Z');
    expect((await incidents(t, r.id)).filter((i) => i.day === '2026-10-25')).toHaveLength(2);
  });

  it('a unit read fewer times than it must: one incident per unit and finished day, the DST day included, never twice', async () => {
    const clock = new ManualClock('2026-03-26T12:00:00Z');
    const { t, r, admin } = await setup({ clock });
    const unit = (await api(t, 'POST', '/haccp/units', admin, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4, readings_per_day: 2 })).json();
    const none = (await api(t, 'POST', '/haccp/units', admin, { name: 'Wijnkoeler', unit_type: 'koelkast', target_max: 12, readings_per_day: 0 })).json();
    const staff = { tenantId: r.id, userId: r.staffId };
    const read = async (at: string) => {
      clock.set(at);
      await t.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 3 });
    };
    // 26 March (registered that day): not due. 27 March: twice. 28 March: once. 29 March (23 hours): twice,
    // the second at 23:30 CEST (21:30 UTC).
    await read('2026-03-27T08:00:00Z');
    await read('2026-03-27T20:00:00Z');
    await read('2026-03-28T08:00:00Z');
    await read('2026-03-29T07:00:00Z');
    await read('2026-03-29T21:30:00Z');
    await tick(t, '2026-03-28T22:59:00Z'); // 23:59 CET on the 28th: the day is not over
    expect(await incidents(t, r.id)).toEqual([]);
    await tick(t, '2026-03-28T23:00:30Z'); // 00:00:30 on the 29th
    expect(await incidents(t, r.id)).toEqual([
      { kind: 'readings_missing', day: '2026-03-28', checklist_id: null, unit_id: unit.id, description: 'Koelcel 1: 1 van de 2 verplichte temperatuurmetingen op 2026-03-28.' },
    ]);
    await tick(t, '2026-03-29T22:00:30Z'); // 00:00:30 CEST on the 30th: the 29th had its two
    await tick(t, '2026-03-29T22:05:00Z');
    expect(await incidents(t, r.id)).toHaveLength(1);
    // 30 March: no reading at all.
    await tick(t, '2026-03-30T22:00:30Z');
    await tick(t, '2026-03-30T22:10:00Z');
    expect((await incidents(t, r.id)).map((i) => [i.day, i.description])).toEqual([
      ['2026-03-28', 'Koelcel 1: 1 van de 2 verplichte temperatuurmetingen op 2026-03-28.'],
      ['2026-03-30', 'Koelcel 1: 0 van de 2 verplichte temperatuurmetingen op 2026-03-30.'],
    ]);
    expect((await incidents(t, r.id)).some((i) => i.unit_id === none.id)).toBe(false);
    expect(await events(t, r.id)).toBe(2);
    // The export lists the same gaps.
    const exp = await t.services.haccp.export(r.id, 6);
    expect(exp.missing_readings.map((m) => [m.unit_name, m.date, m.recorded])).toEqual([
      ['Koelcel 1', '2026-03-28', 1],
      ['Koelcel 1', '2026-03-30', 0],
    ]);
  });

  it('a weekly checklist is due on its weekday; a run earlier that week counts', async () => {
    const clock = new ManualClock('2026-06-01T06:00:00Z'); // Monday
    const { t, r, admin } = await setup({ clock });
    const list = (await api(t, 'POST', '/haccp/checklists', admin, { name: 'Koelcel schoonmaken', frequency: 'weekly', weekday: 'wed', deadline: '16:00', items: [{ label: 'leeg en schoon' }] })).json();
    clock.set('2026-06-02T09:00:00Z'); // Tuesday: done early this week
    await t.services.haccp.runChecklist({ tenantId: r.id, userId: r.staffId }, list.id, { completed_items: [list.items[0].id] });
    await tick(t, '2026-06-03T14:30:00Z'); // Wednesday 16:30 CEST
    expect(await incidents(t, r.id)).toEqual([]);
    await tick(t, '2026-06-09T14:00:00Z'); // next Tuesday: not due
    await tick(t, '2026-06-10T13:59:00Z'); // Wednesday 15:59
    expect(await incidents(t, r.id)).toEqual([]);
    await tick(t, '2026-06-10T14:00:30Z');
    await tick(t, '2026-06-10T14:30:00Z');
    expect((await incidents(t, r.id)).map((i) => [i.kind, i.day])).toEqual([['checklist_overdue', '2026-06-10']]);
    const exp = await t.services.haccp.export(r.id, 14);
    expect(exp.missed_checklists.map((m) => m.date)).toEqual(['2026-06-10']);
  });

  it('days the restaurant is closed (opening_hours) are not due for daily lists and readings; a weekly list is due on its weekday regardless', async () => {
    const clock = new ManualClock('2026-06-05T06:00:00Z'); // Friday
    // The default hours: closed on Monday.
    const { t, r } = await setup({ clock, openingHours: { tue: [['17:00', '22:00']], wed: [['17:00', '22:00']], thu: [['17:00', '22:00']], fri: [['12:00', '23:00']], sat: [['12:00', '23:00']], sun: [['12:00', '21:00']] } });
    const h = t.services.haccp;
    await h.createUnit(r.id, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4 });
    const opening = await h.createChecklist(r.id, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'a' }] });
    await h.runChecklist({ tenantId: r.id, userId: null }, opening.id, { completed_items: [] }); // Friday: in time
    await h.createChecklist(r.id, { name: 'Weekschoonmaak', frequency: 'weekly', weekday: 'mon', deadline: '12:00', items: [{ label: 'b' }] });
    // Nothing is done at all from Saturday to Tuesday morning.
    await tick(t, '2026-06-06T10:00:00Z'); // Saturday 12:00: the opening list is overdue
    await tick(t, '2026-06-07T10:00:00Z'); // Sunday 12:00: again, and Saturday's readings
    await tick(t, '2026-06-08T10:30:00Z'); // Monday 12:30: closed, but the weekly list is due; Sunday's readings
    await tick(t, '2026-06-09T06:00:00Z'); // Tuesday 08:00: Monday (closed) owed no readings
    const got = (await incidents(t, r.id)).map((i) => `${i.day} ${i.kind}${i.checklist_id ? '' : ' (meetpunt)'}`);
    expect(got).toEqual([
      '2026-06-06 checklist_overdue',
      '2026-06-06 readings_missing (meetpunt)',
      '2026-06-07 checklist_overdue',
      '2026-06-07 readings_missing (meetpunt)',
      '2026-06-08 checklist_overdue',
    ]);
    expect((await incidents(t, r.id)).find((i) => i.day === '2026-06-08')!.description).toContain('Weekschoonmaak');
    const exp = await h.export(r.id, 5);
    expect(exp.missing_readings.map((m) => m.date)).toEqual(['2026-06-06', '2026-06-07']);
    expect(exp.missed_checklists.map((m) => `${m.date} ${m.name}`)).toEqual(['2026-06-06 Opening', '2026-06-07 Opening', '2026-06-08 Weekschoonmaak']);
  });

  it('the cloud leaves a restaurant with an appliance to the appliance, and an archived list is no longer due', async () => {
    const clock = new ManualClock('2026-05-06T06:00:00Z');
    const t = await createTestApp({ clock, env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } });
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    for (const tenant of [a, b]) await t.services.tenants.patchSettings(tenant.id, { opening_hours: EVERY_DAY as never });
    for (const tenant of [a, b]) await t.services.haccp.createChecklist(tenant.id, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'x' }] });
    const { device } = await t.services.sync.cloud.createDevice(a.id, 'Kassa');
    await tick(t, '2026-05-06T10:00:00Z');
    expect(await incidents(t, a.id)).toEqual([]);
    expect(await incidents(t, b.id)).toHaveLength(1);
    await t.services.sync.cloud.revokeDevice(a.id, device.id);
    await tick(t, '2026-05-06T10:05:00Z');
    expect(await incidents(t, a.id)).toHaveLength(1);
    const list = (await t.services.haccp.listChecklists(b.id))[0]!;
    await t.services.haccp.archiveChecklist(b.id, list.id);
    await tick(t, '2026-05-07T12:00:00Z');
    expect((await incidents(t, b.id)).map((i) => i.day)).toEqual(['2026-05-06']);
    expect((await incidents(t, a.id)).map((i) => i.day)).toEqual(['2026-05-06', '2026-05-07']);
  });
});
