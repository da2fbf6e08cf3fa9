import { z } from 'zod';
import { PAYMENT_METHODS, TILL_METHODS } from '../till/till.rules.js';
import { VatLine } from '../orders/orders.schemas.js';
import { Order } from '../orders/orders.schemas.js';
import '../../shared/validation.js';
import { PUBLIC_CODE_PATTERN } from './floor.rules.js';

export const TABLE_STATUSES = ['vrij', 'bezet', 'gereserveerd'] as const;
export const TableStatus = z.enum(TABLE_STATUSES);
export type TableStatus = z.infer<typeof TableStatus>;
export const TABLE_SHAPES = ['rect', 'round', 'square'] as const;

const Name = z.string().trim().min(1).max(40);
/** Positions on the floor plan canvas, in whole units (the staff app draws 1 unit = 1 px at 100 %). */
const Coord = z.number().int().min(0).max(10_000);
const Seats = z.number().int().min(1).max(50);

// ── Zones ───────────────────────────────────────────────────────────────────────────────────────
export const Zone = z
  .object({ id: z.string(), name: z.string(), position: z.number().int(), created_at: z.string(), updated_at: z.string(), archived_at: z.string().nullable() })
  .meta({ id: 'FloorZone' });
export type Zone = z.infer<typeof Zone>;

export const CreateZoneBody = z.object({ name: Name, position: z.number().int().min(0).max(10_000).optional() }).strict();
export type CreateZoneInput = z.infer<typeof CreateZoneBody>;
export const UpdateZoneBody = CreateZoneBody.partial().strict();
export type UpdateZoneInput = z.infer<typeof UpdateZoneBody>;

// ── Tables ──────────────────────────────────────────────────────────────────────────────────────
const PublicCode = z
  .string()
  .nullable()
  .meta({
    description:
      "The table's unguessable code in its pay-at-table link (/g/:slug/tafel/:public_code) and QR code (CONTRACT §11); POST /floorplan/tables/:id/new-code renews it. Null only for a table an older appliance made, until the cloud gives it one.",
  });
export const Table = z
  .object({
    id: z.string(),
    zone_id: z.string(),
    name: z.string(),
    seats: z.number().int(),
    x: z.number().int(),
    y: z.number().int(),
    shape: z.enum(TABLE_SHAPES),
    reservable: z.boolean(),
    status_override: TableStatus.nullable(),
    public_code: PublicCode,
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'FloorTable' });
export type Table = z.infer<typeof Table>;

export const CreateTableBody = z
  .object({
    zone_id: z.uuid(),
    name: Name,
    seats: Seats,
    x: Coord,
    y: Coord,
    shape: z.enum(TABLE_SHAPES).optional(),
    reservable: z.boolean().optional().meta({ description: 'May be given to reservations (default true).' }),
  })
  .strict();
export type CreateTableInput = z.infer<typeof CreateTableBody>;
export const UpdateTableBody = CreateTableBody.partial().strict();
export type UpdateTableInput = z.infer<typeof UpdateTableBody>;

export const PositionsBody = z
  .object({
    tables: z
      .array(z.object({ id: z.uuid(), x: Coord, y: Coord }).strict())
      .min(1)
      .max(500)
      .refine((ts) => new Set(ts.map((t) => t.id)).size === ts.length, { message: 'bevat dezelfde tafel meer dan eens.' }),
  })
  .strict();
export type PositionsInput = z.infer<typeof PositionsBody>;

export const StatusBody = z
  .object({ status: TableStatus.nullable().meta({ description: 'vrij, bezet or gereserveerd; null clears the manual status.' }) })
  .strict();

// ── Floor plan (CONTRACT §10) ───────────────────────────────────────────────────────────────────
export const FloorTable = z
  .object({
    id: z.string(),
    name: z.string(),
    seats: z.number().int(),
    x: z.number().int(),
    y: z.number().int(),
    shape: z.enum(TABLE_SHAPES),
    public_code: PublicCode,
    status: TableStatus,
    manual: z.boolean().meta({ description: 'true while a manual status set by staff overrides the derived one' }),
    bill: z.object({ id: z.string(), total_cents: z.number().int(), open_cents: z.number().int() }).nullable(),
    reservation: z
      .object({ id: z.string(), time: z.string(), name: z.string(), party_size: z.number().int() })
      .nullable()
      .meta({ description: 'the booking that makes the table gereserveerd (starts within the hour)' }),
  })
  .meta({ id: 'FloorPlanTable' });
export type FloorTable = z.infer<typeof FloorTable>;

export const FloorPlan = z
  .object({ zones: z.array(z.object({ id: z.string(), name: z.string(), tables: z.array(FloorTable) })) })
  .meta({ id: 'FloorPlan' });
export type FloorPlan = z.infer<typeof FloorPlan>;

// ── Bills ───────────────────────────────────────────────────────────────────────────────────────
export const BillPayment = z
  .object({
    id: z.string(),
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    source: z.enum(['pay_at_table', 'staff', 'order']),
    payment_id: z.string().nullable(),
    order_id: z.string().nullable(),
    created_at: z.string(),
    method: z.enum(PAYMENT_METHODS).meta({ description: 'how it was paid (CONTRACT §19); online: pay-at-table' }),
    received_cents: z.number().int().nullable().meta({ description: 'cash handed over (contant), else null' }),
    change_cents: z.number().int().meta({ description: 'cash given back' }),
    items: z
      .array(z.object({ order_id: z.string(), item_id: z.string(), quantity: z.number().int(), amount_cents: z.number().int() }))
      .meta({ description: 'the lines this payment paid when the bill was split by dish; empty otherwise' }),
  })
  .meta({ id: 'BillPayment' });
export type BillPayment = z.infer<typeof BillPayment>;

export const Bill = z
  .object({
    id: z.string(),
    table_id: z.string(),
    table_name: z.string(),
    status: z.enum(['open', 'closed', 'merged']),
    opened_at: z.string(),
    closed_at: z.string().nullable(),
    close_reason: z.enum(['paid', 'staff', 'empty']).nullable(),
    merged_into: z.string().nullable(),
    merged_bills: z.array(z.string()).meta({ description: 'bills of the same table merged into this one across sync' }),
    conflict: z.string().nullable(),
    orders: z.array(Order),
    payments: z.array(BillPayment),
    total_cents: z.number().int().meta({ description: 'sum of the bill’s orders, cancelled ones excluded' }),
    paid_cents: z.number().int(),
    open_cents: z.number().int(),
    tip_cents: z.number().int(),
    vat: z.array(VatLine).meta({ description: 'VAT per rate over the bill’s orders after discounts (CONTRACT §19)' }),
  })
  .meta({ id: 'Bill' });
export type Bill = z.infer<typeof Bill>;

export const BillPaymentBody = z
  .object({
    amount_cents: z.number().int().min(1).max(10_000_000).optional().meta({ description: 'required unless items are given (then it is what they come to)' }),
    tip_cents: z.number().int().min(0).max(1_000_000).optional(),
    method: z.enum(TILL_METHODS).optional().meta({ description: 'contant, pin, creditcard, cadeaubon or overig (default; online is set by pay-at-table)' }),
    received_cents: z.number().int().min(0).max(100_000_000).optional().meta({ description: 'contant only: cash handed over, at least amount + tip; the answer gives change_cents' }),
    items: z
      .array(z.object({ item_id: z.uuid(), quantity: z.number().int().min(1).max(999) }).strict())
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'pay exactly these lines (split by dish); amount_cents may then be left out' }),
  })
  .strict();
export type BillPaymentInput = z.infer<typeof BillPaymentBody>;

export const IdParams = z.object({ id: z.uuid() });

/** POST /floorplan/bills/:id/move (CONTRACT §19). */
export const MoveBillBody = z.object({ table_id: z.uuid() }).strict();

/** Sync payloads (validated like API requests, issue 17). */
const IsoTs = z.iso.datetime();
export const ZoneRow = z.object({
  id: z.uuid(),
  name: Name,
  position: z.number().int().min(0).max(10_000),
  created_at: IsoTs,
  updated_at: IsoTs,
  archived_at: IsoTs.nullable(),
});
export const TableRow = z.object({
  id: z.uuid(),
  zone_id: z.uuid(),
  name: Name,
  seats: Seats,
  x: Coord,
  y: Coord,
  shape: z.enum(TABLE_SHAPES),
  reservable: z.union([z.literal(0), z.literal(1)]),
  status_override: TableStatus.nullable(),
  override_at: IsoTs.nullable(),
  // Optional: a node one release behind (before 0019) sends tables without it.
  public_code: z.string().regex(PUBLIC_CODE_PATTERN).nullable().optional(),
  created_at: IsoTs,
  updated_at: IsoTs,
  archived_at: IsoTs.nullable(),
});
export const BillRow = z.object({
  id: z.uuid(),
  table_id: z.uuid(),
  status: z.enum(['open', 'closed', 'merged']),
  opened_at: IsoTs,
  closed_at: IsoTs.nullable(),
  close_reason: z.enum(['paid', 'staff', 'empty']).nullable(),
  closed_by: z.uuid().nullable(),
  merged_into: z.uuid().nullable(),
  conflict: z.string().max(500).nullable(),
  created_at: IsoTs,
  updated_at: IsoTs,
});
export const RoundRow = z.object({ id: z.uuid(), bill_id: z.uuid(), order_id: z.uuid(), table_id: z.uuid(), created_at: IsoTs });
export const PaymentRow = z.object({
  id: z.uuid(),
  bill_id: z.uuid(),
  amount_cents: z.number().int().min(0).max(10_000_000),
  tip_cents: z.number().int().min(0).max(1_000_000),
  source: z.enum(['pay_at_table', 'staff', 'order']),
  payment_id: z.string().min(1).max(200).nullable(),
  order_id: z.uuid().nullable(),
  created_by: z.uuid().nullable(),
  created_at: IsoTs,
  // (0025) Optional: a node one release behind sends payments without them (legacyMethod).
  method: z.enum(PAYMENT_METHODS).optional(),
  received_cents: z.number().int().min(0).max(100_000_000).nullable().optional(),
  change_cents: z.number().int().min(0).max(100_000_000).optional(),
  items: z.string().max(100_000).optional(),
});
