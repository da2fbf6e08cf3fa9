import { stringify } from 'csv-stringify/sync';
import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { addDays, dateRange, dateTimeFormat, dayStart, daysBetween } from '../../shared/zoned-time.js';
import type { ForecastService } from '../forecast/forecast.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { nextMonday } from '../analytics/calendar.js';
import { shiftsRepository, type CorrectionRow, type ShiftRow, type ShiftWithUser } from './shifts.repository.js';
import { assertTimes, FUTURE_TOLERANCE_MS, grossCents, hundredthsOfHour, overlaps, paidMs } from './shifts.rules.js';
import type { CreateShiftInput, Shift, ShiftDetail, SuggestWeek, SuggestWeekInput, UpdateShiftInput } from './shifts.schemas.js';

export interface ShiftActor {
  tenantId: string;
  userId: string;
}

export const DEFAULT_ORDERS_PER_EMPLOYEE = 10;
export const DEFAULT_MIN_STAFF = 2;
/** Longest period for the list and the payroll export. */
export const MAX_PERIOD_DAYS = 366;

const iso = (ms: number) => new Date(ms).toISOString();
const normalise = (instant: string) => new Date(instant).toISOString();
const interval = (r: Pick<ShiftRow, 'start_at' | 'end_at'>) => ({ start: Date.parse(r.start_at), end: r.end_at === null ? null : Date.parse(r.end_at) });
const times = (r: Pick<ShiftRow, 'start_at' | 'end_at' | 'break_minutes'>) => ({ start: r.start_at, end: r.end_at, break_minutes: r.break_minutes });

export function toShiftDto(r: ShiftWithUser, overlapping = false): Shift {
  const worked = r.end_at === null ? null : Math.round((Date.parse(r.end_at) - Date.parse(r.start_at)) / 60_000) - r.break_minutes;
  return {
    id: r.id,
    user_id: r.user_id,
    user_name: r.user_name,
    job: r.job,
    start: r.start_at,
    end: r.end_at,
    break_minutes: r.break_minutes,
    status: r.end_at === null ? 'open' : 'closed',
    worked_minutes: worked,
    source: r.source,
    note: r.note,
    corrected: r.corrections > 0,
    overlaps: overlapping,
    created_by: r.created_by,
    closed_by: r.closed_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** What the change log carries for a shift (sync: shifts.sync.ts); the row after the change. */
const shiftChange = (row: ShiftRow, kind: string, extra: Record<string, unknown> = {}) => ({ entity: 'shift', entityId: row.id, kind, payload: { shift: row, ...extra } });

/** Which of these shifts overlap another shift of the same employee in the list. */
function overlapping(rows: ShiftRow[]): Set<string> {
  const out = new Set<string>();
  const byUser = new Map<string, ShiftRow[]>();
  for (const r of rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r]);
  for (const list of byUser.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        if (overlaps(interval(list[i]!), interval(list[j]!))) {
          out.add(list[i]!.id);
          out.add(list[j]!.id);
        }
      }
    }
  }
  return out;
}

/** Splits `total` over weights by the largest-remainder method (ties: the job named first), so the parts add up to the total. */
export function shareOut(total: number, weights: Array<{ job: string; weight: number }>): Array<{ job: string; employees: number }> {
  const sum = weights.reduce((s, w) => s + w.weight, 0);
  if (total <= 0 || sum <= 0) return weights.map((w) => ({ job: w.job, employees: 0 }));
  const quotas = weights.map((w) => ({ job: w.job, q: (total * w.weight) / sum }));
  const parts = quotas.map((x) => ({ job: x.job, employees: Math.floor(x.q + 1e-9), rest: x.q - Math.floor(x.q + 1e-9) }));
  let left = total - parts.reduce((s, p) => s + p.employees, 0);
  for (const p of [...parts].sort((a, b) => b.rest - a.rest || a.job.localeCompare(b.job, 'nl'))) {
    if (left <= 0) break;
    p.employees += 1;
    left -= 1;
  }
  return parts.map(({ job, employees }) => ({ job, employees }));
}

const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)},${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/**
 * A text cell that a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a
 * carriage return) is written with a leading apostrophe (CONTRACT §13): "=HYPERLINK(...)" as a
 * name stays text.
 */
export const safeCell = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

export function createShiftsService(deps: { db: Db; changes: ChangeLog; tenants: TenantsService; forecast: ForecastService }) {
  const { db, changes, tenants, forecast } = deps;

  async function zone(tenantId: string) {
    return (await tenants.cachedSettings(tenantId)).timezone;
  }
  const clockTime = (ms: number, timeZone: string) => dateTimeFormat('nl-NL', { timeZone, hour: '2-digit', minute: '2-digit' }).format(ms);
  /** 'vr 20 nov 07:00' */
  const dayTime = (ms: number, timeZone: string) => `${dateTimeFormat('nl-NL', { timeZone, weekday: 'short', day: 'numeric', month: 'short' }).format(ms)} ${clockTime(ms, timeZone)}`;

  /** Refuses a shift of `userId` over [start, end) that would overlap another of their shifts (except `exceptId`). */
  async function assertNoOverlap(w: Writer, tz: string, tenantId: string, userId: string, userName: string, start: number, end: number | null, exceptId?: string) {
    const candidates = await shiftsRepository.nearby(w.trx, tenantId, userId, iso(start - 48 * 3_600_000));
    const clash = candidates.find((s) => s.id !== exceptId && overlaps({ start, end }, interval(s)));
    if (!clash) return;
    const c = interval(clash);
    const when = c.end === null ? `ingeklokt sinds ${dayTime(c.start, tz)}` : `${dayTime(c.start, tz)}–${clockTime(c.end, tz)}`;
    throw conflict(`Deze dienst overlapt met een andere dienst van ${userName} (${when}).`);
  }

  async function detail(tenantId: string, id: string, exec: Db | Writer['trx'] = db): Promise<ShiftDetail> {
    const row = await shiftsRepository.findWithUser(exec, tenantId, id);
    if (!row) throw notFound('Dienst');
    const [corrections, neighbours] = await Promise.all([
      shiftsRepository.correctionsOf(exec, tenantId, id),
      shiftsRepository.nearby(exec, tenantId, row.user_id, iso(Date.parse(row.start_at) - 48 * 3_600_000)),
    ]);
    const flagged = overlapping(neighbours).has(id);
    return {
      ...toShiftDto(row, flagged),
      corrections: corrections.map((c) => ({
        id: c.id,
        changed_by: c.changed_by,
        changed_by_name: c.changed_by_name ?? null,
        reason: c.reason,
        before: JSON.parse(c.before) as ShiftDetail['corrections'][number]['before'],
        after: JSON.parse(c.after) as ShiftDetail['corrections'][number]['after'],
        created_at: c.created_at,
      })),
    };
  }

  async function userOf(w: Writer, tenantId: string, userId: string) {
    const user = await shiftsRepository.findUser(w.trx, tenantId, userId);
    if (!user || user.archived_at) throw notFound('Medewerker');
    return user;
  }

  /** Period [from 00:00, to+1 00:00) in the restaurant's zone; refuses a reversed or too long period. */
  async function period(tenantId: string, from: string, to: string) {
    if (to < from) throw invalidField('to', "mag niet voor 'from' liggen.");
    if (daysBetween(from, to) + 1 > MAX_PERIOD_DAYS) throw invalidField('to', `mag hoogstens ${MAX_PERIOD_DAYS} dagen na 'from' liggen.`);
    const tz = await zone(tenantId);
    return { from, to, start: dayStart(from, tz).getTime(), end: dayStart(addDays(to, 1), tz).getTime() };
  }

  const service = {
    /** Staff clock in: a new open shift from now. Refused while they have an open shift or one covering now. */
    async clockIn(actor: ShiftActor): Promise<Shift> {
      // Settings are read before the transaction: on SQLite a read beside the open write would wait for it.
      const tz = await zone(actor.tenantId);
      return changes.write(actor.tenantId, async (w) => {
        const user = await userOf(w, actor.tenantId, actor.userId);
        const open = await shiftsRepository.openOf(w.trx, actor.tenantId, actor.userId);
        if (open.length) throw conflict(`Je bent al ingeklokt sinds ${clockTime(Date.parse(open[0]!.start_at), tz)}.`);
        await assertNoOverlap(w, tz, actor.tenantId, actor.userId, user.name, w.nowDate.getTime(), null);
        const row: ShiftRow = {
          id: newId(),
          tenant_id: actor.tenantId,
          user_id: actor.userId,
          start_at: w.now,
          end_at: null,
          break_minutes: 0,
          source: 'clock',
          note: null,
          created_by: actor.userId,
          closed_by: null,
          corrections: 0,
          created_at: w.now,
          updated_at: w.now,
        };
        await shiftsRepository.insert(w.trx, row);
        await w.record(shiftChange(row, 'shift.clocked_in'));
        return toShiftDto({ ...row, user_name: user.name, job: user.job, hourly_wage_cents: user.hourly_wage_cents });
      });
    },

    /**
     * Staff clock out: closes their open shift at now, once (a second clock-out finds nothing open:
     * 409). Two open shifts (clocked in on two devices during an outage) are both closed.
     */
    async clockOut(actor: ShiftActor, input: { break_minutes?: number } = {}): Promise<Shift> {
      return changes.write(actor.tenantId, async (w) => {
        const user = await userOf(w, actor.tenantId, actor.userId);
        const open = await shiftsRepository.openOf(w.trx, actor.tenantId, actor.userId);
        if (open.length === 0) throw conflict('Je bent niet ingeklokt.');
        let first: ShiftRow | undefined;
        for (const shift of open) {
          const breakMinutes = input.break_minutes ?? shift.break_minutes;
          assertTimes(shift.start_at, w.now, breakMinutes);
          const row: ShiftRow = { ...shift, end_at: w.now, break_minutes: breakMinutes, closed_by: actor.userId, updated_at: w.now };
          await shiftsRepository.update(w.trx, actor.tenantId, row.id, { end_at: row.end_at, break_minutes: row.break_minutes, closed_by: row.closed_by, updated_at: row.updated_at });
          await w.record(shiftChange(row, 'shift.clocked_out'));
          first ??= row;
        }
        return toShiftDto({ ...first!, user_name: user.name, job: user.job, hourly_wage_cents: user.hourly_wage_cents }, open.length > 1);
      });
    },

    /** An admin enters a worked shift. */
    async create(actor: ShiftActor, input: CreateShiftInput): Promise<ShiftDetail> {
      const start = normalise(input.start);
      const end = normalise(input.end);
      const breakMinutes = input.break_minutes ?? 0;
      assertTimes(start, end, breakMinutes);
      const tz = await zone(actor.tenantId);
      return changes.write(actor.tenantId, async (w) => {
        if (Date.parse(end) > w.nowDate.getTime() + FUTURE_TOLERANCE_MS) throw invalidField('end', 'mag niet in de toekomst liggen: voer gewerkte diensten in.');
        const user = await userOf(w, actor.tenantId, input.user_id);
        await assertNoOverlap(w, tz, actor.tenantId, input.user_id, user.name, Date.parse(start), Date.parse(end));
        const row: ShiftRow = {
          id: newId(),
          tenant_id: actor.tenantId,
          user_id: input.user_id,
          start_at: start,
          end_at: end,
          break_minutes: breakMinutes,
          source: 'admin',
          note: input.note ?? null,
          created_by: actor.userId,
          closed_by: actor.userId,
          corrections: 0,
          created_at: w.now,
          updated_at: w.now,
        };
        await shiftsRepository.insert(w.trx, row);
        await w.record(shiftChange(row, 'shift.created'));
        return detail(actor.tenantId, row.id, w.trx);
      });
    },

    /**
     * An admin corrects a shift (its start, end or break; setting `end` closes an open one). The
     * shift takes the new times; the correction is kept with the times before and after, who and
     * when. Sending the times it already has changes nothing and records nothing.
     */
    async correct(actor: ShiftActor, id: string, input: UpdateShiftInput): Promise<ShiftDetail> {
      const tz = await zone(actor.tenantId);
      return changes.write(actor.tenantId, async (w) => {
        const cur = await shiftsRepository.find(w.trx, actor.tenantId, id);
        if (!cur) throw notFound('Dienst');
        const next = {
          start_at: input.start !== undefined ? normalise(input.start) : cur.start_at,
          end_at: input.end !== undefined ? normalise(input.end) : cur.end_at,
          break_minutes: input.break_minutes ?? cur.break_minutes,
        };
        if (next.start_at === cur.start_at && next.end_at === cur.end_at && next.break_minutes === cur.break_minutes) return detail(actor.tenantId, id, w.trx);
        if (next.end_at === null && Date.parse(next.start_at) > w.nowDate.getTime()) throw invalidField('start', 'mag bij een open dienst niet in de toekomst liggen.');
        assertTimes(next.start_at, next.end_at, next.break_minutes);
        if (next.end_at !== null && next.end_at !== cur.end_at && Date.parse(next.end_at) > w.nowDate.getTime() + FUTURE_TOLERANCE_MS) {
          throw invalidField('end', 'mag niet in de toekomst liggen: voer gewerkte diensten in.');
        }
        const user = await shiftsRepository.findUser(w.trx, actor.tenantId, cur.user_id);
        await assertNoOverlap(w, tz, actor.tenantId, cur.user_id, user?.name ?? 'deze medewerker', Date.parse(next.start_at), next.end_at === null ? null : Date.parse(next.end_at), id);
        const correction: CorrectionRow = {
          id: newId(),
          tenant_id: actor.tenantId,
          shift_id: id,
          changed_by: actor.userId,
          reason: input.reason ?? null,
          before: JSON.stringify(times(cur)),
          after: JSON.stringify(times(next)),
          created_at: w.now,
        };
        const row: ShiftRow = {
          ...cur,
          ...next,
          closed_by: cur.end_at === null && next.end_at !== null ? actor.userId : cur.closed_by,
          corrections: cur.corrections + 1,
          updated_at: w.now,
        };
        await shiftsRepository.update(w.trx, actor.tenantId, id, { ...next, closed_by: row.closed_by, corrections: row.corrections, updated_at: row.updated_at });
        await shiftsRepository.insertCorrection(w.trx, correction);
        const fields = Object.fromEntries(Object.entries(next).filter(([k, v]) => cur[k as keyof typeof next] !== v));
        await w.record(shiftChange(row, 'shift.corrected', { correction, fields }));
        return detail(actor.tenantId, id, w.trx);
      });
    },

    get: (tenantId: string, id: string) => detail(tenantId, id),

    /** Shifts touching the days `from..to` (default: the last 14 days), oldest first, with overlap flags. */
    async list(tenantId: string, q: { from?: string; to?: string; user_id?: string }): Promise<Shift[]> {
      const today = await forecast.today(tenantId);
      const to = q.to ?? (q.from && q.from > today ? q.from : today);
      const p = await period(tenantId, q.from ?? addDays(to, -13), to);
      // A day either side, so an overlap with a shift just outside the period is still seen.
      const rows = await shiftsRepository.between(db, tenantId, iso(p.start - 86_400_000), iso(p.end + 86_400_000), q.user_id);
      const flagged = overlapping(rows);
      return rows.filter((r) => Date.parse(r.start_at) < p.end && (r.end_at === null || Date.parse(r.end_at) > p.start)).map((r) => toShiftDto(r, flagged.has(r.id)));
    },

    /** The logged-in employee: their open shift (if clocked in) and their shifts of the last 14 days. */
    async mine(actor: ShiftActor): Promise<{ open: Shift | null; data: Shift[] }> {
      const data = await service.list(actor.tenantId, { user_id: actor.userId });
      return { open: data.find((s) => s.status === 'open') ?? null, data };
    },

    /** Hours and gross wage per employee over the days `from..to` (docs/insights.md "Payroll"). */
    async payroll(tenantId: string, from: string, to: string) {
      const p = await period(tenantId, from, to);
      const rows = await shiftsRepository.between(db, tenantId, iso(p.start), iso(p.end));
      const byUser = new Map<string, ShiftWithUser[]>();
      for (const r of rows) if (r.end_at !== null) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r]);
      const lines = [...byUser.values()].map((list) => {
        const u = list[0]!;
        const { ms, counted } = paidMs(list.map((s) => ({ id: s.id, start: Date.parse(s.start_at), end: Date.parse(s.end_at!), break_minutes: s.break_minutes })), p.start, p.end);
        const hundredths = hundredthsOfHour(ms);
        return {
          user_id: u.user_id,
          name: u.user_name,
          job: u.job,
          hourly_wage_cents: u.hourly_wage_cents,
          shifts: counted,
          hours_hundredths: hundredths,
          gross_cents: u.hourly_wage_cents === null ? null : grossCents(ms, u.hourly_wage_cents),
        };
      });
      lines.sort((a, b) => a.name.localeCompare(b.name, 'nl') || a.user_id.localeCompare(b.user_id));
      return { from: p.from, to: p.to, open_shifts: rows.filter((r) => r.end_at === null).length, lines };
    },

    /**
     * Labour cost per period (instants [start, end), ms) for the revenue figures (analytics): each
     * employee's closed shifts' paid time inside the period (paidMs: split at the edges, overlaps
     * once, breaks pro rata) at their hourly wage, rounded to the cent per employee and period.
     * Employees without a wage add their time to `unpriced_ms`; open shifts are not counted (as in the payroll).
     */
    async labour(tenantId: string, periods: Array<{ start: number; end: number }>) {
      if (periods.length === 0) return { periods: [], open_shifts: 0 };
      const rows = await shiftsRepository.between(db, tenantId, iso(Math.min(...periods.map((p) => p.start))), iso(Math.max(...periods.map((p) => p.end))));
      const byUser = new Map<string, { wage: number | null; shifts: Array<{ id: string; start: number; end: number; break_minutes: number }> }>();
      for (const r of rows) {
        if (r.end_at === null) continue;
        const u = byUser.get(r.user_id) ?? { wage: r.hourly_wage_cents, shifts: [] };
        u.shifts.push({ id: r.id, start: Date.parse(r.start_at), end: Date.parse(r.end_at), break_minutes: r.break_minutes });
        byUser.set(r.user_id, u);
      }
      return {
        open_shifts: rows.filter((r) => r.end_at === null).length,
        periods: periods.map((p) => {
          let cents = 0;
          let ms = 0;
          let unpriced = 0;
          for (const u of byUser.values()) {
            const touching = u.shifts.filter((x) => x.start < p.end && x.end > p.start);
            if (touching.length === 0) continue;
            const paid = paidMs(touching, p.start, p.end).ms;
            ms += paid;
            if (u.wage === null) unpriced += paid;
            else cents += grossCents(paid, u.wage);
          }
          return { cents, ms, unpriced_ms: unpriced };
        }),
      };
    },

    /** The payroll as CSV for Dutch spreadsheets: `;`, decimal comma, UTF-8 with BOM, CRLF, a header row. */
    async payrollCsv(tenantId: string, from: string, to: string, onlyUserId?: string): Promise<{ filename: string; body: Buffer }> {
      const pay = await service.payroll(tenantId, from, to);
      // Staff get only their own row (CONTRACT §13: wages are personal data).
      const lines = onlyUserId === undefined ? pay.lines : pay.lines.filter((l) => l.user_id === onlyUserId);
      const text = stringify(
        lines.map((l) => [
          safeCell(l.name),
          safeCell(l.job ?? ''),
          pay.from,
          pay.to,
          l.shifts,
          `${Math.floor(l.hours_hundredths / 100)},${String(l.hours_hundredths % 100).padStart(2, '0')}`,
          l.hourly_wage_cents === null ? '' : money(l.hourly_wage_cents),
          l.gross_cents === null ? '' : money(l.gross_cents),
          l.user_id,
        ]),
        {
          bom: true,
          delimiter: ';',
          record_delimiter: 'windows',
          header: true,
          columns: ['Medewerker', 'Functie', 'Van', 'Tot en met', 'Diensten', 'Uren', 'Uurloon (EUR)', 'Brutoloon (EUR)', 'Medewerker-id'],
        },
      );
      return { filename: `loonexport-${pay.from}-${pay.to}.csv`, body: Buffer.from(text, 'utf8') };
    },

    /** A roster suggestion for one week from the forecast (CONTRACT §13, docs/insights.md "Roster"). */
    async suggestWeek(tenantId: string, input: SuggestWeekInput = {}): Promise<SuggestWeek> {
      const today = await forecast.today(tenantId);
      const weekStart = input?.week_start ?? nextMonday(today);
      if (weekStart < today) throw invalidField('week_start', 'mag niet in het verleden liggen.');
      if (daysBetween(today, weekStart) > 28) throw invalidField('week_start', 'mag hoogstens 28 dagen vooruit liggen.');
      const perEmployee = input?.orders_per_employee ?? DEFAULT_ORDERS_PER_EMPLOYEE;
      const minStaff = input?.min_staff ?? DEFAULT_MIN_STAFF;
      const [f, settings, jobs] = await Promise.all([
        forecast.expectedFor(tenantId, dateRange(weekStart, addDays(weekStart, 6)), today),
        tenants.cachedSettings(tenantId),
        service.jobWeights(tenantId, today),
      ]);
      const hours = settings.opening_hours as Record<string, unknown[] | undefined>;
      const configured = Object.keys(hours).length > 0;
      const days = f.days.map((d) => {
        const open = !configured || (hours[d.weekday]?.length ?? 0) > 0;
        // Integers only: expected orders carry one decimal.
        const needed = open ? Math.max(minStaff, Math.ceil(Math.round(d.expected_orders * 10) / (perEmployee * 10))) : 0;
        return { date: d.date, weekday: d.weekday, open, holiday: d.holiday, expected_orders: d.expected_orders, employees_needed: needed, by_job: shareOut(needed, jobs) };
      });
      return {
        week_start: weekStart,
        orders_per_employee: perEmployee,
        min_staff: minStaff,
        confidence: f.confidence,
        jobs: jobs.map((j) => ({ job: j.job, weight: Math.round(j.weight * 10_000) / 10_000 })),
        days,
        total_employee_days: days.reduce((s, d) => s + d.employees_needed, 0),
      };
    },

    /**
     * The jobs of the active staff and how a day's employees are shared out over them: by the hours
     * worked per job over the 4 weeks before today (closed shifts), or by headcount without any.
     */
    async jobWeights(tenantId: string, today: string): Promise<Array<{ job: string; weight: number }>> {
      const staff = await shiftsRepository.jobsOfStaff(db, tenantId);
      const jobOf = new Map(staff.map((s) => [s.id, s.job!.trim()]));
      const jobs = [...new Set(jobOf.values())].sort((a, b) => a.localeCompare(b, 'nl'));
      if (jobs.length === 0) return [];
      const tz = await zone(tenantId);
      const from = dayStart(addDays(today, -28), tz).getTime();
      const to = dayStart(today, tz).getTime();
      const rows = await shiftsRepository.between(db, tenantId, iso(from), iso(to));
      const worked = new Map<string, number>();
      const byUser = new Map<string, ShiftWithUser[]>();
      for (const r of rows) if (r.end_at !== null && jobOf.has(r.user_id)) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r]);
      for (const [userId, list] of byUser) {
        const { ms } = paidMs(list.map((s) => ({ id: s.id, start: Date.parse(s.start_at), end: Date.parse(s.end_at!), break_minutes: s.break_minutes })), from, to);
        const job = jobOf.get(userId)!;
        worked.set(job, (worked.get(job) ?? 0) + ms);
      }
      const total = [...worked.values()].reduce((s, x) => s + x, 0);
      if (total > 0) return jobs.map((job) => ({ job, weight: (worked.get(job) ?? 0) / total }));
      const heads = jobs.map((job) => ({ job, n: [...jobOf.values()].filter((j) => j === job).length }));
      return heads.map(({ job, n }) => ({ job, weight: n / jobOf.size }));
    },
  };
  return service;
}

export type ShiftsService = ReturnType<typeof createShiftsService>;
