import { z } from 'zod';
import '../../shared/validation.js';
import { Order, OrderDiscount, VatLine } from '../orders/orders.schemas.js';
import { DISCOUNT_KINDS, PAYMENT_METHODS, TILL_METHODS } from './till.rules.js';

/** The till's requests and answers (CONTRACT §19, docs/till.md). */

export const IdParams = z.object({ id: z.uuid() });

const PaidLine = z.object({ order_id: z.string(), item_id: z.string(), quantity: z.number().int(), amount_cents: z.number().int() });

export const OrderPaymentBody = z
  .object({
    amount_cents: z.number().int().min(1).max(10_000_000).optional().meta({ description: 'required unless items are given (then it is what they come to)' }),
    tip_cents: z.number().int().min(0).max(1_000_000).optional(),
    method: z.enum(TILL_METHODS).optional().meta({ description: 'contant, pin, creditcard, cadeaubon or overig (default)' }),
    received_cents: z.number().int().min(0).max(100_000_000).optional().meta({ description: 'contant only: cash handed over, at least amount + tip' }),
    items: z
      .array(z.object({ item_id: z.uuid(), quantity: z.number().int().min(1).max(999) }).strict())
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'pay exactly these lines; amount_cents may then be left out' }),
  })
  .strict();
export type OrderPaymentInput = z.infer<typeof OrderPaymentBody>;

export const OrderPayment = z
  .object({
    id: z.string(),
    order_id: z.string(),
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    method: z.enum(PAYMENT_METHODS),
    received_cents: z.number().int().nullable(),
    change_cents: z.number().int(),
    items: z.array(PaidLine),
    created_by: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'OrderPayment' });
export type OrderPayment = z.infer<typeof OrderPayment>;

export const OrderPaymentResult = z
  .object({
    order: Order,
    payment: OrderPayment,
    paid_cents: z.number().int(),
    open_cents: z.number().int(),
    change_cents: z.number().int().meta({ description: 'cash to give back (contant with received_cents), else 0' }),
  })
  .meta({ id: 'OrderPaymentResult' });

export const DiscountBody = z
  .object({
    kind: z.enum(DISCOUNT_KINDS),
    value: z.number().int().min(1).max(10_000_000).optional().meta({ description: 'percent: 1..100; amount: cents; points: the points to redeem; comp: leave out' }),
    item_id: z.uuid().optional().meta({ description: 'a line of the order; left out: the whole order' }),
    reason: z.string().trim().min(1).max(200),
  })
  .strict();
export type DiscountInput = z.infer<typeof DiscountBody>;

export const DiscountResult = z.object({ order: Order, discount: OrderDiscount }).meta({ id: 'DiscountResult' });

export const CustomerBody = z.object({ phone: z.string().trim().min(1).max(30), name: z.string().trim().min(1).max(120).optional() }).strict();

export const ReceiptQuery = z.object({ format: z.enum(['json', 'html']).optional() });

export const Receipt = z
  .object({
    receipt_number: z.string().nullable().meta({ description: 'gapless per restaurant and year (2026-000123), given when paid in full; null until then' }),
    restaurant: z.object({ name: z.string(), address: z.string().nullable(), vat_number: z.string().nullable(), kvk_number: z.string().nullable() }),
    table_name: z.string().nullable(),
    order_numbers: z.array(z.string()),
    lines: z.array(
      z.object({
        name: z.string(),
        quantity: z.number().int(),
        unit_price_cents: z.number().int(),
        total_cents: z.number().int(),
        options: z.array(z.string()),
        vat_rate: z.number().int(),
      }),
    ),
    discounts: z.array(z.object({ kind: z.string(), reason: z.string(), amount_cents: z.number().int() })),
    discount_cents: z.number().int(),
    vat: z.array(VatLine),
    total_cents: z.number().int(),
    payments: z.array(z.object({ method: z.enum(PAYMENT_METHODS), amount_cents: z.number().int(), tip_cents: z.number().int(), change_cents: z.number().int(), received_cents: z.number().int().nullable() })),
    paid_at: z.string().nullable(),
    footer: z.string().nullable(),
  })
  .meta({ id: 'Receipt' });
export type Receipt = z.infer<typeof Receipt>;
