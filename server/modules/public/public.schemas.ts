import { z } from 'zod';
import { Cents } from '../../shared/schemas.js';
import { IdempotencyKey, NewOrderItem, Order, OrderStatus } from '../orders/orders.schemas.js';
import { Allergen, Dietary, MenuModifierGroup } from '../menu/menu.schemas.js';
import { PaymentStatus } from '../payments/payments.schemas.js';
import '../../shared/validation.js';

export const SlugParams = z.object({ slug: z.string().min(1).max(60) });
export const OrderStatusParams = z.object({ slug: z.string().min(1).max(60), id: z.uuid() });
export const TableParams = z.object({
  slug: z.string().min(1).max(60),
  tafel: z.string().trim().min(1).max(60).meta({ description: "The table's public_code (16 characters, in its QR code); its name only when the restaurant set tafel_by_name" }),
});
export const PaymentIdParams = z.object({ id: z.uuid() });

export const PublicProduct = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    price_cents: z.number().int(),
    allergens: z.array(Allergen).meta({ description: 'its own ∪ its recipe’s ingredients’ (CONTRACT §17)' }),
    dietary: z.array(Dietary),
    modifier_groups: z.array(MenuModifierGroup).meta({ description: 'only options a guest can choose now (available, and free of the excluded allergens); min_select ≥ 1 is a forced choice' }),
  })
  .strict()
  .meta({ id: 'PublicProduct' });

/** `?exclude=gluten,milk`: leaves out every dish (and option) that contains one of them. */
export const PublicMenuQuery = z
  .object({
    exclude: z
      .string()
      .max(300)
      .transform((s) => s.split(',').map((x) => x.trim()).filter((x) => x !== ''))
      .pipe(z.array(Allergen))
      .optional()
      .meta({ description: 'comma-separated allergen codes, e.g. gluten,milk' }),
  })
  .strict();

export const Intake = z
  .object({
    accepting: z.boolean().meta({ description: 'false while public ordering is paused (the restaurant’s appliance has been silent too long)' }),
    message: z.string().nullable().meta({ description: 'Dutch message for the guest when not accepting' }),
  })
  .meta({ id: 'PublicIntake' });
export type Intake = z.infer<typeof Intake>;

export const PublicMenu = z
  .object({
    restaurant: z.object({
      name: z.string(),
      slug: z.string(),
      address: z.string().nullable().meta({ description: 'as the restaurant entered it in its settings; null: not given' }),
      phone: z.string().nullable(),
      opening_hours: z.partialRecord(z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']), z.array(z.tuple([z.string(), z.string()]))).meta({ description: 'per weekday the opening intervals (HH:MM, local time); a missing or empty day is closed' }),
      max_party_size: z.number().int().meta({ description: 'the largest party that can book online' }),
    }),
    ordering: Intake,
    categories: z.array(z.object({ id: z.string().nullable(), name: z.string(), products: z.array(PublicProduct) })),
  })
  .meta({ id: 'PublicMenu' });
export type PublicMenu = z.infer<typeof PublicMenu>;

export const ORDER_TYPES = ['pickup', 'delivery', 'table'] as const;

export const PublicOrderBody = z
  .object({
    items: z.array(NewOrderItem).min(1).max(100).meta({ description: 'as on POST /orders: product_id, quantity, notes?, modifiers? [{option_id, quantity?}], seat?, course?' }),
    customer: z
      .object({
        name: z.string().trim().min(1).max(120),
        phone: z.string().trim().min(6).max(30),
        email: z.email().max(200).optional(),
      })
      .strict(),
    type: z.enum(ORDER_TYPES),
    table: z.string().trim().min(1).max(60).optional().meta({ description: "The table's public_code (16 characters, in its QR code and pay-at-table link; CONTRACT §11); its name only while the restaurant has tafel_by_name on. Required for type 'table'; the order's notes and public order name the table by its name." }),
    delivery_address: z.string().trim().min(5).max(300).optional().meta({ description: "Required for type 'delivery'." }),
    notes: z.string().trim().max(400).optional(),
    idempotency_key: IdempotencyKey.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.type === 'table' && !b.table) ctx.addIssue({ code: 'custom', path: ['table'], message: "is verplicht bij type 'table'." });
    if (b.type === 'delivery' && !b.delivery_address) ctx.addIssue({ code: 'custom', path: ['delivery_address'], message: "is verplicht bij type 'delivery'." });
    if (b.type !== 'table' && b.table) ctx.addIssue({ code: 'custom', path: ['table'], message: "hoort alleen bij type 'table'." });
  });
export type PublicOrderInput = z.infer<typeof PublicOrderBody>;

export const PublicOrderCreated = z
  .object({
    order: Order,
    payment_id: z.string().nullable(),
    checkout_url: z.string().nullable().meta({ description: 'Where the guest pays; null when no payment is required (table orders are paid at the table).' }),
    restaurant_online: z.boolean().meta({ description: 'false: the restaurant’s appliance is silent; the order waits in the cloud until it is back.' }),
  })
  .meta({ id: 'PublicOrderCreated' });

/** What a guest may see of their order (no phone, no internal fields). */
export const PublicOrderView = z
  .object({
    id: z.string(),
    number: z.string(),
    status: OrderStatus,
    payment_status: z.enum(['open', 'paid']),
    type: z.enum(ORDER_TYPES).nullable(),
    items: z.array(z.object({ name: z.string(), quantity: z.number().int(), total_cents: z.number().int(), options: z.array(z.string()).meta({ description: 'chosen options as sold, e.g. "2× Extra kaas"' }) })),
    total_cents: z.number().int(),
    seen_by_restaurant: z.boolean(),
    payment: z.object({ id: z.string(), status: PaymentStatus, checkout_url: z.string().nullable() }).nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'PublicOrderView' });
export type PublicOrderView = z.infer<typeof PublicOrderView>;

export const PublicPaymentView = z
  .object({
    id: z.string(),
    status: PaymentStatus,
    purpose: z.enum(['order', 'table']),
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    table_name: z.string().nullable(),
    restaurant: z.object({ name: z.string(), slug: z.string() }),
    order: z.object({ id: z.string(), number: z.string(), status: OrderStatus, payment_status: z.enum(['open', 'paid']) }).nullable(),
  })
  .meta({ id: 'PublicPaymentView' });
export type PublicPaymentView = z.infer<typeof PublicPaymentView>;

export const PublicTableBill = z
  .object({
    table: z.object({ name: z.string() }),
    orders: z.array(
      z.object({
        number: z.string(),
        items: z.array(z.object({ name: z.string(), quantity: z.number().int(), total_cents: z.number().int(), options: z.array(z.string()).meta({ description: 'chosen options as sold, e.g. "2× Extra kaas"' }) })),
        total_cents: z.number().int(),
        payment_status: z.enum(['open', 'paid']),
      }),
    ),
    total_cents: z.number().int(),
    paid_cents: z.number().int(),
    open_cents: z.number().int(),
  })
  .meta({ id: 'PublicTableBill' });
export type PublicTableBill = z.infer<typeof PublicTableBill>;

export const PayTableBody = z
  .object({
    amount_cents: Cents.min(1).optional().meta({ description: 'Omitted: everything still open.' }),
    tip_cents: Cents.max(1_000_000).optional(),
  })
  .strict();

export const PayTableResult = z.object({ payment_id: z.string(), checkout_url: z.string().nullable() }).meta({ id: 'PayTableResult' });

export const IntakeStatus = z
  .object({
    role: z.enum(['local', 'cloud']),
    appliance: z
      .object({
        last_contact_at: z.string().nullable(),
        silent_seconds: z.number().int().nullable(),
        silent: z.boolean(),
      })
      .nullable()
      .meta({ description: 'The restaurant’s appliance as the cloud sees it; null on the appliance itself or without a registered appliance.' }),
    pause_after_minutes: z.number().int().nullable(),
    paused: z.boolean(),
    unseen_orders: z.array(
      z.object({
        order_id: z.string(),
        number: z.string(),
        status: OrderStatus,
        payment_status: z.enum(['open', 'paid']),
        created_at: z.string(),
        accepted_while_silent: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'PublicIntakeStatus' });
export type IntakeStatus = z.infer<typeof IntakeStatus>;
