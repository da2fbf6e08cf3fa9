/** Reservations (0011, docs/reservations.md). Composed into `Database` by ../database.ts. */

/** Reservations (0011, docs/reservations.md). */
export interface ReservationsTable {
  id: string;
  tenant_id: string;
  /** Local calendar date and time (tenant time zone). */
  date: string;
  time: string;
  /** UTC instants of the seating window [starts_at, ends_at). */
  starts_at: string;
  ends_at: string;
  party_size: number;
  name: string;
  phone: string | null;
  email: string | null;
  notes: string | null;
  table_id: string | null;
  status: 'booked' | 'seated' | 'cancelled' | 'no_show';
  source: 'web' | 'staff';
  /** A visible note when the cloud found the booking colliding (docs/reservations.md). */
  conflict: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** The reservations tables by name, as composed into `Database`. */
export interface ReservationsTables {
  reservations: ReservationsTable;
}
