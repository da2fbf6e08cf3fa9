import { z } from 'zod';
import { builtByServer, Limit, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';
import { Station } from '../menu/menu.schemas.js';

export const ORDER_STATUSES = ['new', 'accepted', 'preparing', 'ready', 'delivering', 'completed', 'cancelled'] as const;
export const ACTIVE_STATUSES = ['new', 'accepted', 'preparing', 'ready', 'delivering'] as const;
export const FINAL_STATUSES = ['completed', 'cancelled'] as const;
export const ORDER_SOURCES = ['pos', 'web', 'external'] as const;

export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;
export const OrderSource = z.enum(ORDER_SOURCES);
export type OrderSource = z.infer<typeof OrderSource>;

/** A chosen option as the item keeps it (names and prices as sold). */
export const OrderItemModifier = z
  .object({
    option_id: z.string(),
    group_id: z.string(),
    group_name: z.string(),
    name: z.string(),
    price_delta_cents: z.number().int(),
    quantity: z.number().int(),
  })
  .meta({ id: 'OrderItemModifier' });
export type OrderItemModifier = z.infer<typeof OrderItemModifier>;

export const OrderItem = z
  .object({
    id: z.string(),
    product_id: z.string(),
    name: z.string(),
    quantity: z.number().int(),
    unit_price_cents: z.number().int().meta({ description: 'the product’s price + Σ price_delta_cents × quantity of its modifiers, as sold' }),
    total_cents: z.number().int(),
    notes: z.string().nullable(),
    modifiers: z.array(OrderItemModifier),
    seat: z.number().int().nullable(),
    course: z.number().int(),
    allergens: z.array(z.string()).meta({ description: 'the dish’s (own ∪ recipe’s) and its options’, as sold' }),
    voided_quantity: z.number().int().meta({ description: 'units taken off by voids; total_cents = unit_price_cents × (quantity − voided_quantity)' }),
    held: z.boolean().meta({ description: 'a later course waiting to be fired (POST /orders/:id/fire)' }),
    fired_at: z.string().nullable().meta({ description: 'when the line went to the kitchen; null while held' }),
    vat_rate: z.number().int().meta({ description: 'the VAT rate (percent) the line was sold at: the product’s, else its category’s, else the restaurant’s default_vat_rate (CONTRACT §19)' }),
  })
  .meta({ id: 'OrderItem' });
export type OrderItem = z.infer<typeof OrderItem>;

/** VAT per rate (CONTRACT §19): vat = gross × rate / (100 + rate), rounded half away from zero; net = gross − vat. */
export const VatLine = z
  .object({ rate: z.number().int(), gross_cents: z.number().int(), vat_cents: z.number().int(), net_cents: z.number().int() })
  .meta({ id: 'VatLine' });

/** A discount on the order or one of its lines (CONTRACT §19). */
export const OrderDiscount = z
  .object({
    id: z.string(),
    kind: z.enum(['percent', 'amount', 'comp', 'points']),
    value: z.number().int().nullable().meta({ description: 'percent: the percentage; amount: cents; points: the points redeemed; comp: null' }),
    item_id: z.string().nullable().meta({ description: 'the line it is on; null: the whole order' }),
    amount_cents: z.number().int().meta({ description: 'what it took off when it was given' }),
    reason: z.string(),
    user_id: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'OrderDiscount' });
export type OrderDiscount = z.infer<typeof OrderDiscount>;

/** Every answer with an order is `toOrderDto`'s (orders.service.ts), so it is serialized without a second parse (shared/schemas.ts `builtByServer`). */
export const Order = builtByServer(
  z
  .object({
    id: z.string(),
    number: z.string().meta({ description: 'Short kitchen number, unique per restaurant per day: K-017 (appliance) or W-017 (online).' }),
    status: OrderStatus,
    source: OrderSource,
    table_id: z.string().nullable(),
    customer: z.object({ name: z.string().nullable(), phone: z.string().nullable() }).nullable(),
    notes: z.string().nullable(),
    items: z.array(OrderItem),
    discounts: z.array(OrderDiscount).meta({ description: 'discounts given at the till (CONTRACT §19), oldest first' }),
    discount_cents: z.number().int().meta({ description: 'what the discounts take off (never more than the lines)' }),
    total_cents: z.number().int().meta({ description: 'the lines (voids left out) after discounts' }),
    vat: z.array(VatLine).meta({ description: 'VAT per rate over the lines after discounts; the gross per rate adds up to total_cents' }),
    payment_status: z.enum(['open', 'paid']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Order' }),
);
export type Order = z.infer<typeof Order>;

export const IdempotencyKey = z.string().trim().min(1).max(100);

/** An option chosen for a line (CONTRACT §17). */
export const ModifierChoice = z.object({ option_id: z.uuid(), quantity: z.number().int().min(1).max(10).default(1) }).strict();
/** A line of a new order, the same on every path that creates orders (staff, guests). */
export const NewOrderItem = z
  .object({
    product_id: z.uuid(),
    quantity: z.number().int().min(1).max(999),
    notes: z.string().trim().max(200).optional(),
    modifiers: z.array(ModifierChoice).max(30).optional().meta({ description: 'options of the product’s modifier groups; each group’s min_select..max_select, quantities counted' }),
    seat: z.number().int().min(1).max(50).optional(),
    course: z.number().int().min(1).max(5).optional().meta({ description: 'default: the product’s course, else its category’s, else 1' }),
  })
  .strict();
export type NewOrderItem = z.infer<typeof NewOrderItem>;

export const CreateOrderBody = z
  .object({
    items: z.array(NewOrderItem).min(1).max(100),
    table_id: z.uuid().optional(),
    notes: z.string().trim().max(500).optional(),
    customer: z.object({ name: z.string().trim().min(1).max(120).optional(), phone: z.string().trim().min(6).max(30).optional() }).strict().optional(),
    idempotency_key: IdempotencyKey.optional(),
  })
  .strict()
  .meta({
    examples: [
      {
        table_id: '0190a8e2-7c1b-7000-8000-0000000000f1',
        items: [
          { product_id: '0190a8e2-7c1b-7000-8000-000000000011', quantity: 1, seat: 1, course: 2, modifiers: [{ option_id: '0190a8e2-7c1b-7000-8000-0000000000b2' }, { option_id: '0190a8e2-7c1b-7000-8000-0000000000b5' }], notes: 'medium-rare' },
          { product_id: '0190a8e2-7c1b-7000-8000-000000000012', quantity: 1, seat: 2, modifiers: [{ option_id: '0190a8e2-7c1b-7000-8000-0000000000c1', quantity: 2 }] },
        ],
      },
    ],
  });
export type CreateOrderInput = z.input<typeof CreateOrderBody>;

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

/** `GET /orders/live?station=bar`: only that station's lines (CONTRACT §18). */
export const LiveOrdersQuery = z.object({ station: Station.optional().meta({ description: 'a kitchen station (keuken, bar, …): each order with only its lines; orders without any are left out' }) }).strict();

/** `POST /orders/unfinished/close`: the final status for the listed orders (default: all of them). */
export const CloseUnfinishedBody = z
  .object({
    status: z.enum(['completed', 'cancelled']).meta({ description: 'completed: served but never bumped; cancelled: never made (a paid order completes instead)' }),
    ids: z.array(z.uuid()).min(1).max(1000).optional().meta({ description: 'only these orders of the list; default: the whole list' }),
  })
  .strict();

export const OrderItemParams = z.object({ id: z.uuid(), item_id: z.uuid() });

/** POST /orders/:id/fire: sends a held course to the kitchen. */
export const FireCourseBody = z.object({ course: z.number().int().min(2).max(5) }).strict().meta({ examples: [{ course: 2 }] });

/** Reasons the order pad offers; its "Overig" sends the staff member's own words (free text is allowed). */
export const VOID_REASONS = ['Verkeerd aangeslagen', 'Gast wil niet meer', 'Teruggestuurd'] as const;
/** POST /orders/:id/items/:item_id/void. */
export const VoidItemBody = z
  .object({
    quantity: z.number().int().min(1).max(999),
    reason: z.string().trim().min(1).max(200).meta({ description: `one of the pad's reasons (${VOID_REASONS.join(', ')}) or free text` }),
  })
  .strict()
  .meta({ examples: [{ quantity: 1, reason: 'Verkeerd aangeslagen' }] });

export const CourseFire = z
  .object({ id: z.string(), course: z.number().int(), user_id: z.string().nullable(), user_name: z.string().nullable().meta({ description: 'who fired it, as the kitchen board shows it' }), created_at: z.string() })
  .meta({ id: 'OrderCourseFire' });
export const ItemVoid = z
  .object({ id: z.string(), item_id: z.string(), quantity: z.number().int(), reason: z.string(), user_id: z.string().nullable(), user_name: z.string().nullable(), created_at: z.string() })
  .meta({ id: 'OrderItemVoid' });
