import { z } from 'zod';
import '../../shared/validation.js';
import { HolidayName, Weekday } from '../forecast/forecast.schemas.js';

export const SHIFT_SOURCES = ['clock', 'admin'] as const;
export const MAX_BREAK_MINUTES = 600;
export const MAX_NOTE = 300;

const Instant = z.iso.datetime({ offset: true });
const CalendarDate = z.iso.date();

/** One correction of a shift, kept for good: who changed what, when and why. */
export const ShiftTimes = z.object({ start: z.string(), end: z.string().nullable(), break_minutes: z.number().int() }).meta({ id: 'ShiftTimes' });
export const ShiftCorrection = z
  .object({
    id: z.string(),
    changed_by: z.string().nullable(),
    changed_by_name: z.string().nullable(),
    reason: z.string().nullable(),
    before: ShiftTimes,
    after: ShiftTimes,
    created_at: z.string(),
  })
  .meta({ id: 'ShiftCorrection' });
export type ShiftCorrection = z.infer<typeof ShiftCorrection>;

export const Shift = z
  .object({
    id: z.string(),
    user_id: z.string(),
    user_name: z.string(),
    job: z.string().nullable(),
    start: z.string(),
    end: z.string().nullable().meta({ description: 'null while clocked in' }),
    break_minutes: z.number().int(),
    status: z.enum(['open', 'closed']),
    worked_minutes: z.number().int().nullable().meta({ description: 'end − start − break, whole minutes; null while open' }),
    source: z.enum(SHIFT_SOURCES).meta({ description: 'clock: clocked in and out by the employee; admin: entered by an admin' }),
    note: z.string().nullable(),
    corrected: z.boolean().meta({ description: 'Changed after the fact; GET /shifts/:id lists every correction with the original times' }),
    overlaps: z.boolean().meta({ description: 'Overlaps another shift of the same employee (possible only when two devices recorded them during an outage); payroll counts the overlap once' }),
    created_by: z.string().nullable(),
    closed_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Shift' });
export type Shift = z.infer<typeof Shift>;

export const ShiftDetail = Shift.extend({ corrections: z.array(ShiftCorrection) }).meta({ id: 'ShiftDetail' });
export type ShiftDetail = z.infer<typeof ShiftDetail>;

export const CreateShiftBody = z
  .object({
    user_id: z.uuid(),
    start: Instant,
    end: Instant,
    break_minutes: z.number().int().min(0).max(MAX_BREAK_MINUTES).optional(),
    note: z.string().trim().min(1).max(MAX_NOTE).optional(),
  })
  .strict();
export type CreateShiftInput = z.infer<typeof CreateShiftBody>;

export const UpdateShiftBody = z
  .object({
    start: Instant.optional(),
    end: Instant.optional(),
    break_minutes: z.number().int().min(0).max(MAX_BREAK_MINUTES).optional(),
    reason: z.string().trim().min(1).max(MAX_NOTE).optional().meta({ description: 'Why the shift was corrected (kept with the correction)' }),
  })
  .strict()
  .refine((b) => b.start !== undefined || b.end !== undefined || b.break_minutes !== undefined, { message: 'moet minstens start, end of break_minutes bevatten.' });
export type UpdateShiftInput = z.infer<typeof UpdateShiftBody>;

export const ClockOutBody = z
  .object({ break_minutes: z.number().int().min(0).max(MAX_BREAK_MINUTES).optional() })
  .strict()
  .nullish();

export const ShiftParams = z.object({ id: z.uuid() });

export const ListShiftsQuery = z
  .object({
    from: CalendarDate.optional().meta({ description: 'First day (YYYY-MM-DD, restaurant’s time zone); default 13 days before `to`' }),
    to: CalendarDate.optional().meta({ description: 'Last day; default today' }),
    user_id: z.uuid().optional(),
  })
  .strict();

export const PayrollQuery = z
  .object({
    from: CalendarDate.meta({ description: 'First day of the pay period (YYYY-MM-DD, restaurant’s time zone), from 00:00' }),
    to: CalendarDate.meta({ description: 'Last day of the pay period, up to 24:00' }),
  })
  .strict();

export const SuggestWeekBody = z
  .object({
    week_start: CalendarDate.optional().meta({ description: 'First day of the week (default: the coming Monday); today up to 28 days ahead' }),
    orders_per_employee: z.number().int().min(1).max(500).optional().meta({ description: 'Orders one employee handles in a day (default 10)' }),
    min_staff: z.number().int().min(0).max(100).optional().meta({ description: 'Fewest employees on an open day (default 2)' }),
  })
  .strict()
  .nullish();
export type SuggestWeekInput = z.infer<typeof SuggestWeekBody>;

export const SuggestWeek = z
  .object({
    week_start: z.string(),
    orders_per_employee: z.number().int(),
    min_staff: z.number().int(),
    confidence: z.enum(['low', 'medium', 'high']).meta({ description: 'The forecast’s confidence (GET /forecast/orders)' }),
    jobs: z.array(z.object({ job: z.string(), weight: z.number() })).meta({ description: 'How a day’s employees are shared out over jobs: hours worked per job in the last 4 weeks (or headcount)' }),
    days: z.array(
      z.object({
        date: z.string(),
        weekday: Weekday,
        open: z.boolean().meta({ description: 'Open according to the opening hours setting' }),
        holiday: HolidayName,
        expected_orders: z.number(),
        employees_needed: z.number().int().meta({ description: 'Open: max(min_staff, ⌈expected_orders / orders_per_employee⌉); closed: 0' }),
        by_job: z.array(z.object({ job: z.string(), employees: z.number().int() })),
      }),
    ),
    total_employee_days: z.number().int(),
  })
  .meta({ id: 'SuggestWeek' });
export type SuggestWeek = z.infer<typeof SuggestWeek>;

/** A shift row as it travels through sync: the same atoms (UUIDs, ISO instants, limits) as the API. */
export const ShiftRowSchema = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    start_at: Instant,
    end_at: Instant.nullable(),
    break_minutes: z.number().int().min(0).max(MAX_BREAK_MINUTES),
    source: z.enum(SHIFT_SOURCES),
    note: z.string().max(MAX_NOTE).nullable(),
    created_by: z.uuid().nullable(),
    closed_by: z.uuid().nullable(),
    corrections: z.number().int().min(0),
    created_at: Instant,
    updated_at: Instant,
  })
  .loose();

export const ShiftCorrectionRowSchema = z
  .object({
    id: z.uuid(),
    shift_id: z.uuid(),
    changed_by: z.uuid().nullable(),
    reason: z.string().max(MAX_NOTE).nullable(),
    before: z.string().max(2000),
    after: z.string().max(2000),
    created_at: Instant,
  })
  .loose();
