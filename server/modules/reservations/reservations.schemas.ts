import { z } from 'zod';
import '../../shared/validation.js';

export const RESERVATION_STATUSES = ['booked', 'seated', 'cancelled', 'no_show'] as const;
export const ReservationStatus = z.enum(RESERVATION_STATUSES);
export type ReservationStatus = z.infer<typeof ReservationStatus>;

export const DateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'moet een datum zijn als JJJJ-MM-DD.' })
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), { message: 'moet een bestaande datum zijn.' });
export const TimeString = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'moet een tijd zijn als UU:MM.' });

const Name = z.string().trim().min(1).max(120);
const Phone = z.string().trim().min(6).max(30);
const Notes = z.string().trim().max(500);

/** Staff's view of a booking (GET /reservations, the partner API). */
export const Reservation = z
  .object({
    id: z.string(),
    date: z.string().meta({ description: 'local date (restaurant time zone)' }),
    time: z.string().meta({ description: 'local time HH:MM' }),
    starts_at: z.string(),
    ends_at: z.string(),
    party_size: z.number().int(),
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    notes: z.string().nullable(),
    table_id: z.string().nullable(),
    table_name: z.string().nullable(),
    status: ReservationStatus,
    source: z.enum(['web', 'staff']),
    conflict: z.string().nullable().meta({ description: 'set when the booking collided with another across sync; staff resolve it by moving or cancelling' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Reservation' });
export type Reservation = z.infer<typeof Reservation>;

/** What a guest gets back (no table, no internals). */
export const PublicReservation = z
  .object({ id: z.string(), date: z.string(), time: z.string(), party_size: z.number().int(), name: z.string(), status: ReservationStatus, created_at: z.string() })
  .meta({ id: 'PublicReservation' });
export type PublicReservation = z.infer<typeof PublicReservation>;

export const Availability = z
  .object({
    date: z.string(),
    slots: z.array(
      z.object({
        time: z.string(),
        available: z.boolean(),
        max_party_size: z.number().int().meta({ description: 'the largest party that can still book this slot (0 when full)' }),
      }),
    ),
  })
  .meta({ id: 'ReservationAvailability' });
export type Availability = z.infer<typeof Availability>;

export const SlugParams = z.object({ slug: z.string().min(1).max(64) });
export const AvailabilityQuery = z.object({ date: DateString }).strict();
export const ListQuery = z.object({ date: DateString.optional() }).strict();

export const PublicBookingBody = z
  .object({
    date: DateString,
    time: TimeString,
    party_size: z.number().int().min(1).max(100),
    name: Name,
    phone: Phone,
    email: z.email().max(200).optional(),
    notes: Notes.optional(),
  })
  .strict();
export type PublicBookingInput = z.infer<typeof PublicBookingBody>;

/** A booking staff take by phone or for walk-ins (phone optional; a table may be chosen). */
export const StaffBookingBody = PublicBookingBody.extend({ phone: Phone.optional(), table_id: z.uuid().optional() }).strict();
export type StaffBookingInput = z.infer<typeof StaffBookingBody>;

export const UpdateReservationBody = z
  .object({
    status: z.enum(['seated', 'cancelled', 'no_show']).optional(),
    table_id: z.uuid().optional().meta({ description: 'move the booking to another table (also resolves a conflict)' }),
    date: DateString.optional().meta({ description: 'another day (with `time`: another moment); the table must be free then' }),
    time: TimeString.optional(),
    party_size: z.number().int().min(1).max(100).optional().meta({ description: "at most the table's seats and the restaurant's max_party_size" }),
    name: Name.optional(),
    phone: Phone.nullable().optional(),
    email: z.email().max(200).nullable().optional(),
    notes: Notes.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'moet minstens één veld bevatten om te wijzigen.' });
export type UpdateReservationInput = z.infer<typeof UpdateReservationBody>;

export const IdParams = z.object({ id: z.uuid() });

/** The stored row as it travels through sync, validated like a request (issue 17). */
const IsoTs = z.iso.datetime();
export const ReservationRow = z.object({
  id: z.uuid(),
  date: DateString,
  time: TimeString,
  starts_at: IsoTs,
  ends_at: IsoTs,
  party_size: z.number().int().min(1).max(100),
  name: Name,
  phone: Phone.nullable(),
  email: z.email().max(200).nullable(),
  notes: Notes.nullable(),
  table_id: z.uuid().nullable(),
  status: ReservationStatus,
  source: z.enum(['web', 'staff']),
  conflict: z.string().max(500).nullable(),
  created_by: z.uuid().nullable(),
  created_at: IsoTs,
  updated_at: IsoTs,
});
