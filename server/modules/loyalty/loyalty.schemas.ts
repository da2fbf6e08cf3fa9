import { z } from 'zod';
import '../../shared/validation.js';
import { INVALID_PHONE, toE164 } from '../../shared/phone.js';

/** A phone number in any notation, normalised to E.164 (NL default); invalid is VALIDATION with a Dutch message. */
export const Phone = z
  .string()
  .max(40)
  .transform((s, ctx) => {
    const e164 = toE164(s);
    if (!e164) {
      ctx.addIssue({ code: 'custom', message: INVALID_PHONE });
      return z.NEVER;
    }
    return e164;
  })
  .meta({ description: 'Telefoonnummer in elke schrijfwijze; zonder landcode geldt Nederland (06 12345678 = +31612345678).', example: '06 12345678' });

const Name = z.string().trim().min(1).max(120);
const Email = z.email().max(200);

export const UpsertCustomerBody = z
  .object({
    phone: Phone,
    name: Name.optional(),
    email: Email.optional(),
  })
  .strict();
export type UpsertCustomerInput = z.infer<typeof UpsertCustomerBody>;

export const Points = z.number().int().min(1).max(1_000_000);

export const RedeemBody = z
  .object({
    customer_id: z.uuid(),
    points: Points,
  })
  .strict();
export type RedeemInput = z.infer<typeof RedeemBody>;

export const AdjustBody = z
  .object({
    customer_id: z.uuid(),
    points: z.number().int().min(-1_000_000).max(1_000_000).refine((n) => n !== 0, { message: 'mag niet 0 zijn.' }),
    note: z.string().trim().min(1).max(200),
  })
  .strict();
export type AdjustInput = z.infer<typeof AdjustBody>;

export const SearchQuery = z
  .object({
    search: z.string().trim().max(100).optional(),
    limit: z
      .string()
      .regex(/^\d+$/, { message: 'moet een geheel getal zijn.' })
      .transform(Number)
      .pipe(z.number().int().min(1).max(200))
      .optional()
      .transform((v) => v ?? 50),
  })
  .strict();

export const PhoneParams = z.object({ phone: Phone });
export const IdParams = z.object({ id: z.uuid() });

export const Transaction = z
  .object({
    id: z.string(),
    type: z.enum(['earn', 'redeem', 'adjust']),
    points: z.number().int().meta({ description: 'Signed: + earned or added, − redeemed or taken off.' }),
    order_id: z.string().nullable(),
    note: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'LoyaltyTransaction' });
export type Transaction = z.infer<typeof Transaction>;

export const Customer = z
  .object({
    id: z.string(),
    phone: z.string().meta({ description: 'E.164' }),
    name: z.string().nullable(),
    email: z.string().nullable(),
    balance: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'LoyaltyCustomer' });
export type Customer = z.infer<typeof Customer>;

export const CustomerWithHistory = Customer.extend({
  redeemable_here: z.number().int().meta({
    description: 'Points this node can redeem without asking anyone: the whole unreserved balance in the cloud, the lease on an appliance (more is possible online).',
  }),
  transactions: z.array(Transaction),
}).meta({ id: 'LoyaltyCustomerWithHistory' });
export type CustomerWithHistory = z.infer<typeof CustomerWithHistory>;

export const RedeemResult = z
  .object({
    customer_id: z.string(),
    points_redeemed: z.number().int(),
    balance: z.number().int(),
    transaction: Transaction,
  })
  .meta({ id: 'LoyaltyRedeemResult' });
export type RedeemResult = z.infer<typeof RedeemResult>;

export const CustomerExport = z
  .object({
    exported_at: z.string(),
    tenant: z.object({ id: z.string(), name: z.string() }),
    customer: z.object({
      id: z.string(),
      phone: z.string().nullable(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      erased_at: z.string().nullable(),
    }),
    merged_records: z.array(z.object({ id: z.string(), phone: z.string().nullable(), name: z.string().nullable(), email: z.string().nullable(), created_at: z.string(), merged_at: z.string().nullable() })),
    balance: z.number().int(),
    transactions: z.array(Transaction),
    orders: z.array(z.object({ id: z.string(), number: z.string(), total_cents: z.number().int(), created_at: z.string(), customer_name: z.string().nullable(), customer_phone: z.string().nullable() })),
    privacy_log: z.array(z.object({ action: z.string(), user_id: z.string().nullable(), created_at: z.string() })),
  })
  .meta({ id: 'LoyaltyCustomerExport' });
export type CustomerExport = z.infer<typeof CustomerExport>;

export const BalanceByPhone = z
  .object({ customer_id: z.string(), phone: z.string(), name: z.string().nullable(), balance: z.number().int() })
  .meta({ id: 'LoyaltyBalance' });
export type BalanceByPhone = z.infer<typeof BalanceByPhone>;

// ---- Rows as they travel through sync (validated like API input: issue 17) ----

const Iso = z.iso.datetime({ offset: true });
const Text = (max: number) => z.string().max(max).refine((s) => !s.includes('\u0000'), { message: 'bevat een ongeldig teken.' });

export const CustomerRowSchema = z.object({
  id: z.uuid(),
  phone: z
    .string()
    .max(20)
    .regex(/^\+[1-9]\d{5,14}$/)
    .nullable(),
  name: Text(120).nullable(),
  email: Text(200).nullable(),
  origin: Text(64),
  merged_into: z.uuid().nullable(),
  merged_at: Iso.nullable(),
  erased_at: Iso.nullable(),
  created_at: Iso,
  updated_at: Iso,
});
export type CustomerRowPayload = z.infer<typeof CustomerRowSchema>;

export const TransactionRowSchema = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  type: z.enum(['earn', 'redeem', 'adjust']),
  points: z.number().int().min(-1_000_000).max(100_000_000),
  pool: z.enum(['pool', 'lease']),
  device_id: Text(64).nullable(),
  order_id: z.uuid().nullable(),
  note: Text(200).nullable(),
  user_id: z.uuid().nullable(),
  origin: Text(64),
  created_at: Iso,
});
export type TransactionRowPayload = z.infer<typeof TransactionRowSchema>;

export const LeaseRowSchema = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  device_id: Text(64),
  points: z.number().int().min(-100_000_000).max(100_000_000),
  origin: Text(64),
  created_at: Iso,
});
export type LeaseRowPayload = z.infer<typeof LeaseRowSchema>;

export const PrivacyRowSchema = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  action: z.enum(['export', 'erase']),
  user_id: z.uuid().nullable(),
  origin: Text(64),
  created_at: Iso,
});

/** The appliance asking the cloud to redeem online (POST /sync/loyalty/redeem, device key). */
export const OnlineRedeemBody = z
  .object({
    id: z.uuid().meta({ description: 'The redemption id, made on the appliance: a retry with the same id answers the first outcome.' }),
    customer_id: z.uuid(),
    points: Points,
    user_id: z.uuid().nullable().optional(),
    returns: z.array(LeaseRowSchema).max(50).default([]).meta({ description: "The appliance's lease returns for this customer, made before asking (docs/loyalty.md)." }),
  })
  .strict();
export type OnlineRedeemInput = z.infer<typeof OnlineRedeemBody>;

export const OnlineRedeemResult = z
  .object({
    ok: z.boolean(),
    transaction: TransactionRowSchema.nullable(),
    balance: z.number().int(),
    pool: z.number().int().meta({ description: 'Points the cloud can still redeem for this customer (balance minus outstanding leases).' }),
    held: z.number().int().meta({ description: "This device's lease for the customer, as the cloud sees it." }),
    message: z.string().nullable(),
  })
  .meta({ id: 'LoyaltyOnlineRedeemResult' });
export type OnlineRedeemResult = z.infer<typeof OnlineRedeemResult>;
