import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';

/**
 * GET /shifts/export-payroll (CONTRACT §13, docs/insights.md "Payroll"): the CSV parsed back as a
 * Dutch spreadsheet would read it. Amsterdam is UTC+1 in November and December.
 */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-12-05T10:00:00.000Z');
  const r = await t.seedTenant(); // Sanne: staff, € 14,50 an hour
  const daan = await t.services.users.create(r.id, { name: 'Daan', role: 'staff', pin: '8765', hourly_wage_cents: 1875, job: 'keuken' });
  const admin = { tenantId: r.id, userId: r.adminId };
  const shift = (user_id: string, start: string, end: string, break_minutes = 0) => t.services.shifts.create(admin, { user_id, start, end, break_minutes });
  return { t, r, daan: daan.id, shift, staff: await r.staffCookie(), admin: await r.adminCookie() };
}

const exportCsv = (t: TestApp, cookie: string | undefined, query: string) => t.req({ method: 'GET', url: `/api/v1/shifts/export-payroll${query}`, cookie });

const HEADER = ['Medewerker', 'Functie', 'Van', 'Tot en met', 'Diensten', 'Uren', 'Uurloon (EUR)', 'Brutoloon (EUR)', 'Medewerker-id'];

function readBack(raw: Buffer): { header: string[]; rows: Record<string, string>[] } {
  const records = parse(raw, { delimiter: ';', bom: true }) as string[][];
  const [header, ...rest] = records;
  return { header: header!, rows: rest.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))) };
}

describe('GET /shifts/export-payroll', () => {
  it('an 8-hour shift is 8,00 hours and 8 × the wage; UTF-8 with BOM, semicolons, decimal commas, a header row', async () => {
    const { t, r, shift, admin } = await setup();
    await shift(r.staffId, '2026-11-02T08:00:00Z', '2026-11-02T16:30:00Z', 30); // 09:00–17:30 with a 30-minute break
    const res = await exportCsv(t, admin, '?from=2026-11-02&to=2026-11-02');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="loonexport-2026-11-02-2026-11-02.csv"');
    const raw = res.rawPayload;
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(raw.toString('utf8')).toContain('\r\n');
    const { header, rows } = readBack(raw);
    expect(header).toEqual(HEADER);
    expect(rows).toEqual([
      { Medewerker: 'Sanne', Functie: '', Van: '2026-11-02', 'Tot en met': '2026-11-02', Diensten: '1', Uren: '8,00', 'Uurloon (EUR)': '14,50', 'Brutoloon (EUR)': '116,00', 'Medewerker-id': r.staffId },
    ]);
  });

  it('a shift across midnight counts whole; shifts across the period’s edges count their part inside it, and consecutive periods add up', async () => {
    const { t, r, daan, shift, admin } = await setup();
    await shift(r.staffId, '2026-11-02T08:00:00Z', '2026-11-02T16:30:00Z', 30); // 8 h
    await shift(r.staffId, '2026-10-31T22:00:00Z', '2026-11-01T00:00:00Z'); // 31 Oct 23:00 – 1 Nov 01:00: 1 h in November
    await shift(r.staffId, '2026-10-31T09:00:00Z', '2026-10-31T13:00:00Z'); // October only
    await shift(daan, '2026-11-05T21:00:00Z', '2026-11-06T03:00:00Z'); // 22:00 – 04:00: 6 h, across midnight
    await shift(daan, '2026-11-30T21:00:00Z', '2026-12-01T01:00:00Z', 30); // 22:00 – 02:00, 30 min break: 2 h in Nov, 2 h in Dec
    // Still clocked in: not paid yet.
    t.clock.set('2026-12-05T10:00:00.000Z');
    await t.services.shifts.clockIn({ tenantId: r.id, userId: r.staffId });

    const nov = readBack((await exportCsv(t, admin, '?from=2026-11-01&to=2026-11-30')).rawPayload).rows;
    // Daan: 6 h + (2 h − 30 × 2/4 = 15 min) = 7 h 45 = 7,75 h; 7,75 × 18,75 = 145,3125 → 145,31.
    // Sanne: 8 h + 1 h = 9,00 h; 9 × 14,50 = 130,50.
    expect(nov.map((x) => [x.Medewerker, x.Functie, x.Diensten, x.Uren, x['Uurloon (EUR)'], x['Brutoloon (EUR)']])).toEqual([
      ['Daan', 'keuken', '2', '7,75', '18,75', '145,31'],
      ['Sanne', '', '2', '9,00', '14,50', '130,50'],
    ]);
    // December: the rest of Daan's night shift, 1,75 h × 18,75 = 32,8125 → 32,81. Sanne's open shift is not paid.
    const dec = readBack((await exportCsv(t, admin, '?from=2026-12-01&to=2026-12-31')).rawPayload).rows;
    expect(dec.map((x) => [x.Medewerker, x.Diensten, x.Uren, x['Brutoloon (EUR)']])).toEqual([['Daan', '1', '1,75', '32,81']]);
    // November and December together: the night shift is 3,50 h once, not twice.
    const both = readBack((await exportCsv(t, admin, '?from=2026-11-01&to=2026-12-31')).rawPayload).rows;
    expect(both.find((x) => x.Medewerker === 'Daan')!.Uren).toBe('9,50');
    // Nothing worked: only the header.
    const empty = readBack((await exportCsv(t, admin, '?from=2026-01-01&to=2026-01-31')).rawPayload);
    expect(empty).toEqual({ header: HEADER, rows: [] });
  });

  it('an employee without a wage gets hours and an empty wage; another restaurant’s shifts never appear', async () => {
    const { t, r, shift, admin } = await setup();
    const noWage = await t.services.users.create(r.id, { name: 'Stagiair', role: 'staff', pin: '5550' });
    await shift(noWage.id, '2026-11-03T08:00:00Z', '2026-11-03T12:00:00Z');
    const other = await t.seedTenant();
    await t.services.shifts.create({ tenantId: other.id, userId: other.adminId }, { user_id: other.staffId, start: '2026-11-03T08:00:00Z', end: '2026-11-03T12:00:00Z' });
    const rows = readBack((await exportCsv(t, admin, '?from=2026-11-01&to=2026-11-30')).rawPayload).rows;
    expect(rows).toEqual([{ Medewerker: 'Stagiair', Functie: '', Van: '2026-11-01', 'Tot en met': '2026-11-30', Diensten: '1', Uren: '4,00', 'Uurloon (EUR)': '', 'Brutoloon (EUR)': '', 'Medewerker-id': noWage.id }]);
  });

  it.each([
    ['no period', '', 'from'],
    ['no end', '?from=2026-11-01', 'to'],
    ['a reversed period', '?from=2026-11-30&to=2026-11-01', 'to'],
    ['more than 366 days', '?from=2025-01-01&to=2026-11-30', 'to'],
    ['a date that is no date', '?from=2026-13-01&to=2026-11-30', 'from'],
  ])('%s is 400 VALIDATION naming the field', async (_n, query, field) => {
    const { t, admin } = await setup();
    const res = await exportCsv(t, admin, query);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
    expect(res.json().details[0].field).toBe(field);
  });

  it('needs a session', async () => {
    const { t } = await setup();
    const res = await exportCsv(t, undefined, '?from=2026-11-01&to=2026-11-30');
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });
});

describe('payroll: personal data and spreadsheet safety (CONTRACT §13, issue 25 item 8)', () => {
  it('staff get only their own row, an admin every row; formula-looking cells are neutralised', async () => {
    const { t, r, daan, shift, staff } = await setup();
    const evil = await t.services.users.create(r.id, { name: '=HYPERLINK("http://x","klik")', role: 'staff', pin: '5432', hourly_wage_cents: 1500, job: '@keuken' });
    await shift(r.staffId, '2026-11-02T08:00:00Z', '2026-11-02T12:00:00Z');
    await shift(daan, '2026-11-02T08:00:00Z', '2026-11-02T12:00:00Z');
    await shift(evil.id, '2026-11-02T08:00:00Z', '2026-11-02T12:00:00Z');
    const mine = readBack((await exportCsv(t, staff, '?from=2026-11-02&to=2026-11-02')).rawPayload);
    expect(mine.header).toEqual(HEADER);
    expect(mine.rows.map((x) => x['Medewerker-id'])).toEqual([r.staffId]);
    const all = readBack((await exportCsv(t, await r.adminCookie(), '?from=2026-11-02&to=2026-11-02')).rawPayload);
    expect(all.rows).toHaveLength(3);
    const bad = all.rows.find((x) => x['Medewerker-id'] === evil.id)!;
    expect(bad.Medewerker).toBe('\'=HYPERLINK("http://x","klik")');
    expect(bad.Functie).toBe("'@keuken");
    for (const name of ['+31', '-1', '\tx', '\rx']) {
      const { safeCell } = await import('../../../../server/modules/shifts/shifts.service.js');
      expect(safeCell(name)).toBe(`'${name}`);
    }
  });
});
