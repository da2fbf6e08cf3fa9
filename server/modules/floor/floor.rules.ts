import crypto from 'node:crypto';
import { stableId } from '../../shared/ids.js';
import type { TableStatus } from './floor.schemas.js';

/** A reservation makes its table `gereserveerd` from this long before its start ... */
export const RESERVED_BEFORE_MIN = 60;
/** ... until this long after it, unless the guests are seated (or cancelled / no-show) earlier. */
export const RESERVED_GRACE_MIN = 15;

/** The floor area's id namespace (server/shared/ids.ts). */
const NAMESPACE = '0b8e6a52-6f0e-4d3c-9d55-1f3c2f0c1a11';
/**
 * An id both sides of an outage derive alike from what it is about (the round of order X, the
 * payment of provider payment Y), so the union of the two ledgers keeps ONE row (team rules,
 * "Acting on orders"). FROZEN, do not change: ids already stored and synced (pinned in
 * test/server/shared/ids.test.ts).
 */
export const floorId = (...parts: string[]): string => stableId(NAMESPACE, ...parts);

/**
 * A table's `public_code` (CONTRACT §11): 16 characters from 32 that cannot be mistaken for one
 * another when typed from a card (no l, o, 0, 1), so 80 random bits. The pay-at-table link and the
 * QR code carry it; the table's name (guessable) does not open its bill.
 */
export const PUBLIC_CODE_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
export const PUBLIC_CODE_LENGTH = 16;
export const newPublicCode = (): string => Array.from(crypto.randomBytes(PUBLIC_CODE_LENGTH), (b) => PUBLIC_CODE_ALPHABET[b & 31]).join('');
export const PUBLIC_CODE_PATTERN = /^[a-km-np-z2-9]{16}$/;

export interface StatusInputs {
  override: TableStatus | null;
  /** An open bill on the table, an active order on it, or a seated reservation. */
  occupied: boolean;
  /** A booked reservation for the table starts within the next hour (or began less than 15 minutes ago). */
  reserved: boolean;
}

/**
 * The one rule for a table's live status (CONTRACT §10, docs/floor.md): the manual status staff set
 * wins; otherwise `bezet` while an order or an open bill is on the table, `gereserveerd` when a
 * booking for it starts within the hour, else `vrij`.
 */
export function deriveStatus(s: StatusInputs): TableStatus {
  if (s.override) return s.override;
  if (s.occupied) return 'bezet';
  if (s.reserved) return 'gereserveerd';
  return 'vrij';
}

export interface BillFigures {
  total_cents: number;
  paid_cents: number;
  open_cents: number;
  tip_cents: number;
}

/** Total of the non-cancelled orders, what was paid (tips apart), and what is still open (never negative). */
export function billFigures(orders: ReadonlyArray<{ status: string; total_cents: number }>, payments: ReadonlyArray<{ amount_cents: number; tip_cents: number }>): BillFigures {
  const total = orders.filter((o) => o.status !== 'cancelled').reduce((s, o) => s + Number(o.total_cents), 0);
  const paid = payments.reduce((s, p) => s + Number(p.amount_cents), 0);
  const tip = payments.reduce((s, p) => s + Number(p.tip_cents), 0);
  return { total_cents: total, paid_cents: paid, open_cents: Math.max(0, total - paid), tip_cents: tip };
}

/**
 * Whether an open bill is done: paid in full (`paid`), or nothing left on it at all because every
 * order on it was cancelled and nothing was paid (`empty`); null while something is still open.
 */
export function settledReason(f: BillFigures, orders: ReadonlyArray<{ status: string }>): 'paid' | 'empty' | null {
  if (orders.length === 0) return null;
  if (f.total_cents > 0 && f.paid_cents >= f.total_cents) return 'paid';
  if (orders.every((o) => o.status === 'cancelled') && f.paid_cents === 0) return 'empty';
  return null;
}

export const euro = (cents: number): string => `€ ${(cents / 100).toFixed(2).replace('.', ',')}`;
