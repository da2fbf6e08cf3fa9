import { z } from 'zod';
import { Limit, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';

export const ORDER_STATUSES = ['new', 'accepted', 'preparing', 'ready', 'delivering', 'completed', 'cancelled'] as const;
export const ACTIVE_STATUSES = ['new', 'accepted', 'preparing', 'ready', 'delivering'] as const;
export const FINAL_STATUSES = ['completed', 'cancelled'] as const;
export const ORDER_SOURCES = ['pos', 'web', 'external'] as const;

export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;
export const OrderSource = z.enum(ORDER_SOURCES);
export type OrderSource = z.infer<typeof OrderSource>;

export const OrderItem = z
  .object({
    id: z.string(),
    product_id: z.string(),
    name: z.string(),
    quantity: z.number().int(),
    unit_price_cents: z.number().int(),
    total_cents: z.number().int(),
    notes: z.string().nullable(),
  })
  .meta({ id: 'OrderItem' });

export const Order = z
  .object({
    id: z.string(),
    number: z.string().meta({ description: 'Short kitchen number, unique per restaurant per day: K-017 (appliance) or W-017 (online).' }),
    status: OrderStatus,
    source: OrderSource,
    table_id: z.string().nullable(),
    customer: z.object({ name: z.string().nullable(), phone: z.string().nullable() }).nullable(),
    notes: z.string().nullable(),
    items: z.array(OrderItem),
    total_cents: z.number().int(),
    payment_status: z.enum(['open', 'paid']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof Order>;

export const IdempotencyKey = z.string().trim().min(1).max(100);

export const CreateOrderBody = z
  .object({
    items: z
      .array(
        z
          .object({
            product_id: z.uuid(),
            quantity: z.number().int().min(1).max(999),
            notes: z.string().trim().max(200).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(100),
    table_id: z.uuid().optional(),
    notes: z.string().trim().max(500).optional(),
    customer: z.object({ name: z.string().trim().min(1).max(120).optional(), phone: z.string().trim().min(6).max(30).optional() }).strict().optional(),
    idempotency_key: IdempotencyKey.optional(),
  })
  .strict();
export type CreateOrderInput = z.infer<typeof CreateOrderBody>;

export const IdempotencyHeaders = z.looseObject({ 'idempotency-key': IdempotencyKey.optional() });

export const UpdateOrderBody = z
  .object({
    status: OrderStatus.optional(),
    payment_status: z.literal('paid').optional().meta({ description: 'Mark paid (e.g. cash at the counter). Paid never reverts.' }),
  })
  .strict()
  .refine((b) => b.status !== undefined || b.payment_status !== undefined, { message: 'moet minstens status of payment_status bevatten.' });

/** The kitchen board's move (CONTRACT §16): forward only; cancelling stays with admins (PATCH /orders/:id). */
export const AdvanceOrderBody = z.object({ status: OrderStatus }).strict();

export const StatusList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()))
  .pipe(z.array(OrderStatus).min(1));

export const ListOrdersQuery = z
  .object({
    status: StatusList.optional(),
    source: OrderSource.optional(),
    limit: Limit,
    offset: Offset,
  })
  .strict();

export const OrderParams = z.object({ id: z.uuid() });
