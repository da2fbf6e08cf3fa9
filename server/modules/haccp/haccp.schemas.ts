import { z } from 'zod';
import { Days, Limit, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';
import { WEEKDAYS } from '../../shared/zoned-time.js';

/** Kinds of unit a restaurant registers (CONTRACT §16); `overig` for anything else. */
export const UNIT_TYPES = ['koelcel', 'vriezer', 'koelkast', 'koelvitrine', 'warmhoud', 'overig'] as const;
export const UnitType = z.enum(UNIT_TYPES);
export const TEMPERATURE_STATUSES = ['ok', 'waarschuwing', 'kritiek'] as const;
export const TemperatureStatus = z.enum(TEMPERATURE_STATUSES);
export const INCIDENT_KINDS = ['temperature', 'checklist_overdue', 'readings_missing'] as const;

const twoDecimals = (x: number) => Math.abs(x * 100 - Math.round(x * 100)) < 1e-6;
/** °C, -60..150, at most two decimals (thermometers show tenths). */
export const Celsius = z.number().min(-60).max(150).refine(twoDecimals, { message: 'mag hoogstens twee decimalen hebben.' });
const Name = z.string().trim().min(1).max(80);
const Hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'moet een tijd zijn als UU:MM.' });
export const WeekdayEnum = z.enum(WEEKDAYS);
const Iso = z.iso.datetime({ offset: true });
const Hash = z.string().regex(/^[0-9a-f]{64}$/, { message: 'moet een sha256-hash (64 hexadecimale tekens) zijn.' });
const Day = z.iso.date();

export const IdParams = z.object({ id: z.uuid() });

// ---- units ------------------------------------------------------------------------------------

export const Unit = z
  .object({
    id: z.string(),
    name: z.string(),
    unit_type: UnitType,
    target_max: z.number(),
    target_min: z.number().nullable().meta({ description: 'A minimum, for warm holding (e.g. 60 °C); null: none.' }),
    readings_per_day: z.number().int().meta({ description: 'Readings this unit needs per calendar day (0: none required).' }),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'HaccpUnit' });
export type Unit = z.infer<typeof Unit>;

const minBelowMax = (b: { target_min?: number | null; target_max?: number }) =>
  b.target_min === undefined || b.target_min === null || b.target_max === undefined || b.target_min < b.target_max;
const minBelowMaxIssue = { message: "moet lager zijn dan 'target_max'.", path: ['target_min'] };

export const CreateUnitBody = z
  .object({
    name: Name,
    unit_type: UnitType,
    target_max: Celsius,
    target_min: Celsius.nullable().optional(),
    readings_per_day: z.number().int().min(0).max(24).optional().meta({ description: 'Default 2 (opening and closing).' }),
  })
  .strict()
  .refine(minBelowMax, minBelowMaxIssue);
export type CreateUnitInput = z.infer<typeof CreateUnitBody>;

export const UpdateUnitBody = z
  .object({
    name: Name.optional(),
    unit_type: UnitType.optional(),
    target_max: Celsius.optional(),
    target_min: Celsius.nullable().optional(),
    readings_per_day: z.number().int().min(0).max(24).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'moet minstens één veld bevatten.' });
export type UpdateUnitInput = z.infer<typeof UpdateUnitBody>;

export const IncludeArchivedQuery = z.object({ include_archived: z.enum(['true', 'false']).optional() }).strict();

// ---- chained records ---------------------------------------------------------------------------

const chainFields = {
  origin: z.string().min(1).max(100).meta({ description: "Where the record was made: 'cloud' or the appliance's device id (one hash chain per origin)." }),
  chain_seq: z.number().int().min(1).meta({ description: "Position in its origin's chain (1, 2, 3 ...)." }),
  prev_hash: Hash.meta({ description: 'Hash of the previous record of the same chain (64 zeros for the first).' }),
  hash: Hash.meta({ description: 'sha256 hex of prev_hash + the RFC 8785 canonical JSON of the record (docs/haccp.md).' }),
};

export const TemperatureLog = z
  .object({
    id: z.uuid(),
    unit_id: z.uuid(),
    unit_name: Name,
    unit_type: UnitType,
    temperature: Celsius,
    target_max: Celsius,
    target_min: Celsius.nullable(),
    margin: z.number().min(0).max(20),
    status: TemperatureStatus,
    business_day: Day,
    user_id: z.uuid().nullable(),
    note: z.string().max(500).nullable(),
    created_at: Iso,
    ...chainFields,
  })
  .meta({ id: 'HaccpTemperatureLog' });
export type TemperatureLog = z.infer<typeof TemperatureLog>;

export const LogTemperatureBody = z
  .object({
    unit_name: Name.meta({ description: 'The unit; an unknown name registers the unit (then unit_type and target_max are needed).' }),
    unit_type: UnitType.optional(),
    temperature: Celsius,
    target_max: Celsius.optional().meta({ description: "Must equal the registered unit's target when the unit is known." }),
    target_min: Celsius.nullable().optional(),
    note: z.string().trim().max(500).optional(),
  })
  .strict()
  .refine(minBelowMax, minBelowMaxIssue);
export type LogTemperatureInput = z.infer<typeof LogTemperatureBody>;

export const ChecklistItem = z.object({ id: z.uuid(), label: z.string().trim().min(1).max(200) }).meta({ id: 'HaccpChecklistItem' });
export const RunItem = z.object({ id: z.uuid(), label: z.string().min(1).max(200), done: z.boolean() });

export const ChecklistRun = z
  .object({
    id: z.uuid(),
    checklist_id: z.uuid(),
    checklist_name: Name,
    business_day: Day,
    user_id: z.uuid().nullable(),
    items: z.array(RunItem).max(100).meta({ description: 'The list as it was when it was run, each item done or not.' }),
    completed_items: z.array(z.uuid()).max(100),
    missing_items: z.array(z.uuid()).max(100),
    complete: z.boolean(),
    notes: z.string().max(1000).nullable(),
    created_at: Iso,
    ...chainFields,
  })
  .meta({ id: 'HaccpChecklistRun' });
export type ChecklistRun = z.infer<typeof ChecklistRun>;

export const RunChecklistBody = z
  .object({
    completed_items: z.array(z.uuid()).max(100).meta({ description: "Ids of the items done; an id not on the checklist is VALIDATION." }),
    notes: z.string().trim().max(1000).optional(),
  })
  .strict();
export type RunChecklistInput = z.infer<typeof RunChecklistBody>;

export const Action = z
  .object({
    id: z.uuid(),
    incident_id: z.uuid(),
    note: z.string().min(1).max(1000),
    user_id: z.uuid().nullable(),
    created_at: Iso,
    ...chainFields,
  })
  .meta({ id: 'HaccpCorrectiveAction' });
export type Action = z.infer<typeof Action>;

export const IncidentRecord = z.object({
  id: z.uuid(),
  kind: z.enum(INCIDENT_KINDS),
  unit_id: z.uuid().nullable(),
  checklist_id: z.uuid().nullable(),
  log_id: z.uuid().nullable(),
  business_day: Day,
  description: z.string().min(1).max(500),
  created_at: Iso,
  ...chainFields,
});
export type IncidentRecord = z.infer<typeof IncidentRecord>;

export const Incident = IncidentRecord.extend({
  open: z.boolean().meta({ description: 'Open until a corrective action is recorded.' }),
  actions: z.array(Action),
}).meta({ id: 'HaccpIncident' });
export type Incident = z.infer<typeof Incident>;

export const ActionBody = z.object({ note: z.string().trim().min(1).max(1000) }).strict();

export const IncidentsQuery = z.object({ status: z.enum(['open', 'closed']).optional(), limit: Limit, offset: Offset }).strict();

export const LoggedTemperature = TemperatureLog.extend({
  incident_id: z.uuid().nullable().meta({ description: 'The incident a kritiek reading opened.' }),
}).meta({ id: 'HaccpLoggedTemperature' });

// ---- checklists -------------------------------------------------------------------------------

export const Checklist = z
  .object({
    id: z.string(),
    name: z.string(),
    frequency: z.enum(['daily', 'weekly']),
    deadline: z.string().meta({ description: "HH:MM in the restaurant's time zone: a daily list not run by then is overdue (weekly: on its weekday)." }),
    weekday: WeekdayEnum.nullable(),
    items: z.array(ChecklistItem),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'HaccpChecklist' });
export type Checklist = z.infer<typeof Checklist>;

export const CreateChecklistBody = z
  .object({
    name: Name,
    frequency: z.enum(['daily', 'weekly']),
    deadline: Hhmm.optional().meta({ description: 'Default 23:59.' }),
    weekday: WeekdayEnum.optional().meta({ description: 'Weekly lists: the day it is due (default mon).' }),
    items: z.array(z.object({ label: z.string().trim().min(1).max(200) }).strict()).min(1).max(50),
  })
  .strict()
  .refine((b) => b.frequency === 'weekly' || b.weekday === undefined, { message: 'hoort alleen bij een wekelijkse controlelijst.', path: ['weekday'] });
export type CreateChecklistInput = z.infer<typeof CreateChecklistBody>;

export const UpdateChecklistBody = z
  .object({
    name: Name.optional(),
    frequency: z.enum(['daily', 'weekly']).optional(),
    deadline: Hhmm.optional(),
    weekday: WeekdayEnum.nullable().optional(),
    items: z
      .array(z.object({ id: z.uuid().optional().meta({ description: 'Keep an existing item (its id); leave out for a new item.' }), label: z.string().trim().min(1).max(200) }).strict())
      .min(1)
      .max(50)
      .optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'moet minstens één veld bevatten.' });
export type UpdateChecklistInput = z.infer<typeof UpdateChecklistBody>;

/** The stored checklist as it travels in sync (the API's field rules). */
export const ChecklistRecord = z.object({
  id: z.uuid(),
  name: Name,
  frequency: z.enum(['daily', 'weekly']),
  deadline: Hhmm,
  weekday: WeekdayEnum.nullable(),
  items: z.array(ChecklistItem).min(1).max(50),
  created_at: Iso,
  updated_at: Iso,
  archived_at: Iso.nullable(),
});

export const UnitRecord = z.object({
  id: z.uuid(),
  name: Name,
  unit_type: UnitType,
  target_max: Celsius,
  target_min: Celsius.nullable(),
  readings_per_day: z.number().int().min(0).max(24),
  created_at: Iso,
  updated_at: Iso,
  archived_at: Iso.nullable(),
});

// ---- export -----------------------------------------------------------------------------------

export const ExportQuery = z
  .object({
    days: Days(30, 365),
    format: z.enum(['json', 'html', 'pdf']).optional().meta({ description: 'json (default); html: a printable Dutch page; pdf: that page as PDF (where Chromium is installed; else 501).' }),
  })
  .strict();

/** GET /haccp/today: what the food-safety screen shows a tablet (issue 26). */
export const Today = z
  .object({
    date: Day.meta({ description: "today in the restaurant's time zone" }),
    open: z.boolean().meta({ description: 'the restaurant is open today (by its opening hours): readings and daily lists are due' }),
    margin: z.number().meta({ description: "the restaurant's temperature margin (°C): a reading beyond target ± margin is kritiek" }),
    units: z.array(
      Unit.extend({
        recorded_today: z.number().int(),
        due_today: z.number().int().meta({ description: 'readings still owed today (0 when enough are recorded or none are required)' }),
        last: z.object({ temperature: z.number(), status: TemperatureStatus, created_at: z.string() }).nullable(),
      }),
    ),
    checklists: z.array(z.object({ id: z.string(), name: z.string(), frequency: z.enum(['daily', 'weekly']), deadline: z.string(), done: z.boolean().meta({ description: 'a run covers today (daily) or this week (weekly)' }) })),
  })
  .meta({ id: 'HaccpToday' });
export type Today = z.infer<typeof Today>;

export const BadRecord = z
  .object({
    origin: z.string(),
    chain_seq: z.number().int(),
    record_type: z.enum(['temperature_log', 'checklist_run', 'incident', 'corrective_action']).nullable(),
    record_id: z.string().nullable(),
    problem: z.enum(['content_changed', 'link_broken', 'missing', 'duplicate_position', 'not_in_change_log']),
    reason: z.string().meta({ description: 'Dutch explanation for the inspector.' }),
  })
  .meta({ id: 'HaccpBadRecord' });
export type BadRecord = z.infer<typeof BadRecord>;

export const ChainReport = z.object({
  origin: z.string(),
  records: z.number().int(),
  head_hash: z.string().nullable().meta({ description: 'Hash of the newest record: compare with an earlier export to see that nothing was cut off the end.' }),
  verified: z.boolean(),
  first_bad: BadRecord.nullable(),
  problems: z.number().int(),
});

export const Integrity = z
  .object({
    verified: z.boolean().meta({ description: 'Every chain verifies (over all records ever made, not only the period).' }),
    first_bad: BadRecord.nullable(),
    chains: z.array(ChainReport),
  })
  .meta({ id: 'HaccpIntegrity' });
export type Integrity = z.infer<typeof Integrity>;

const Named = { user_name: z.string().nullable() };

export const Export = z
  .object({
    tenant: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
    period: z.object({ from: Day, to: Day, days: z.number().int(), timezone: z.string() }),
    generated_at: z.string(),
    integrity: Integrity,
    missing_readings: z.array(
      z.object({ unit_id: z.string(), unit_name: z.string(), date: Day, required: z.number().int(), recorded: z.number().int() }),
    ).meta({ description: 'Each unit and finished day without the readings the unit needs.' }),
    missed_checklists: z.array(
      z.object({ checklist_id: z.string(), name: z.string(), frequency: z.enum(['daily', 'weekly']), date: Day, deadline: z.string() }),
    ).meta({ description: 'Each checklist and day it was due (deadline passed) without a run.' }),
    open_incidents: z.array(Incident).meta({ description: 'Every incident still without a corrective action, also older than the period.' }),
    temperature_logs: z.array(TemperatureLog.extend(Named)),
    checklist_runs: z.array(ChecklistRun.extend(Named)),
    incidents: z.array(Incident.extend({ actions: z.array(Action.extend(Named)) })),
    units: z.array(Unit),
    checklists: z.array(Checklist),
  })
  .meta({ id: 'HaccpExport' });
export type Export = z.infer<typeof Export>;
