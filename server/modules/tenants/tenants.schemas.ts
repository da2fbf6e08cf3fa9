import { z } from 'zod';
import '../../shared/validation.js';
import { isTimeZone, WEEKDAYS } from '../../shared/zoned-time.js';

const Hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'moet een tijd zijn als UU:MM.' });
const Weekday = z.enum(WEEKDAYS);
export const OpeningHours = z.partialRecord(Weekday, z.array(z.tuple([Hhmm, Hhmm])).max(4));
/**
 * Days that differ from the week (holidays, closed days, special hours): `hours` replaces that
 * date's weekday hours, `[]` closes the whole day (docs/reservations.md).
 */
export const OpeningExceptions = z
  .array(
    z
      .object({
        date: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'moet een datum zijn als JJJJ-MM-DD.' }),
        hours: z.array(z.tuple([Hhmm, Hhmm])).max(4),
        note: z.string().trim().max(100).optional(),
      })
      .strict(),
  )
  .max(400);

/** Tenant settings (CONTRACT §16), each with its default. */
export const SettingsValues = z.object({
  timezone: z.string().refine(isTimeZone, { message: 'moet een geldige tijdzone zijn, bijvoorbeeld Europe/Amsterdam.' }),
  haccp_margin: z.number().min(0).max(20),
  loyalty_points_per_euro: z.number().int().min(0).max(100),
  loyalty_offline_allowance: z.number().int().min(0).max(1_000_000),
  opening_hours: OpeningHours,
  slot_minutes: z.number().int().min(5).max(240),
  seating_minutes: z.number().int().min(15).max(600),
  max_party_size: z.number().int().min(1).max(100),
  opening_exceptions: OpeningExceptions,
  pause_public_orders_after_minutes: z.number().int().min(1).max(1440).nullable(),
  address: z.string().trim().max(200).nullable().meta({ description: 'Street, postcode and town as guests read it on the guest pages (and, later, the receipt); null: not shown' }),
  phone: z.string().trim().max(30).nullable().meta({ description: 'The number guests call (guest pages: a party larger than can book online); null: not shown' }),
  business_day_starts_at: Hhmm.meta({
    description: 'When a business day begins (CONTRACT §19): sales and orders before this hour belong to the day before; the kitchen board shows the current business day (docs/kitchen.md)',
  }),
  tafel_by_name: z.boolean().meta({
    description: "Pay-at-table by the table's name as well as its public_code (CONTRACT §11). Default false: names are guessable, so anyone could read and pay any table's bill; only for cards printed before the codes, until they are replaced",
  }),
  vat_number: z.string().trim().max(30).nullable().meta({ description: 'The BTW number printed on receipts (CONTRACT §19), e.g. NL001234567B01; null: not printed' }),
  kvk_number: z.string().trim().max(20).nullable().meta({ description: 'The KvK (Chamber of Commerce) number printed on receipts; null: not printed' }),
  receipt_footer: z.string().trim().max(300).nullable().meta({ description: 'A line at the foot of every receipt ("Bedankt en tot ziens!"); null: none' }),
  default_vat_rate: z.number().int().min(0).max(100).meta({ description: 'The VAT rate (percent) of a line whose product and category have none (CONTRACT §19); default 9' }),
  max_staff_discount_percent: z.number().int().min(0).max(100).meta({
    description: 'The most a staff member may take off an order by discounts, as a percentage of the order (CONTRACT §19); above it only an admin (403 for staff); default 10',
  }),
  loyalty_point_value_cents: z.number().int().min(1).max(10_000).meta({ description: 'What one loyalty point is worth as a discount at the till, in cents (CONTRACT §19); default 5' }),
});
export type SettingsValues = z.infer<typeof SettingsValues>;

export const DEFAULT_SETTINGS: SettingsValues = {
  timezone: 'Europe/Amsterdam',
  haccp_margin: 2.0,
  loyalty_points_per_euro: 1,
  loyalty_offline_allowance: 500,
  opening_hours: {
    tue: [['17:00', '22:00']],
    wed: [['17:00', '22:00']],
    thu: [['17:00', '22:00']],
    fri: [['12:00', '14:30'], ['17:00', '23:00']],
    sat: [['12:00', '14:30'], ['17:00', '23:00']],
    sun: [['12:00', '21:00']],
  },
  slot_minutes: 30,
  seating_minutes: 90,
  max_party_size: 8,
  opening_exceptions: [],
  pause_public_orders_after_minutes: null,
  address: null,
  phone: null,
  business_day_starts_at: '05:00',
  tafel_by_name: false,
  vat_number: null,
  kvk_number: null,
  receipt_footer: null,
  default_vat_rate: 9,
  max_staff_discount_percent: 10,
  loyalty_point_value_cents: 5,
};

export const Settings = SettingsValues.extend({ name: z.string() }).meta({ id: 'Settings' });
export type Settings = z.infer<typeof Settings>;

export const SettingsPatch = SettingsValues.partial()
  .extend({ name: z.string().trim().min(1).max(120).optional() })
  .strict();
export type SettingsPatch = z.infer<typeof SettingsPatch>;

export const Slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/, { message: 'mag alleen kleine letters, cijfers en streepjes bevatten (2 tot 48 tekens).' })
  .min(2);

export const Password = z.string().min(10, { message: 'moet minimaal 10 tekens lang zijn.' }).max(200);

export const SetupBody = z
  .object({
    slug: Slug,
    name: z.string().trim().min(1).max(120),
    admin_name: z.string().trim().min(1).max(120).optional(),
    admin_email: z.email(),
    admin_password: Password,
    timezone: SettingsValues.shape.timezone.optional(),
  })
  .strict();
export type SetupBody = z.infer<typeof SetupBody>;

export const TenantInfo = z.object({ id: z.string(), slug: z.string(), name: z.string() }).meta({ id: 'TenantInfo' });
