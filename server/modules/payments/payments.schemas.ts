import { z } from 'zod';
import { Cents, Limit, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';

export const PAYMENT_STATUSES = ['open', 'paid', 'failed', 'expired', 'canceled'] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;
export const PaymentPurpose = z.enum(['order', 'table']);
export const ProviderName = z.enum(['mollie', 'simulator']);
export const RefundStatus = z.enum(['pending', 'refunded', 'failed']);

export const Refund = z
  .object({
    id: z.string(),
    payment_id: z.string(),
    amount_cents: z.number().int(),
    status: RefundStatus,
    provider_refund_id: z.string().nullable(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Refund' });
export type Refund = z.infer<typeof Refund>;

export const Payment = z
  .object({
    id: z.string(),
    provider: ProviderName,
    provider_payment_id: z.string().nullable(),
    purpose: PaymentPurpose.meta({ description: "'order': a public order's checkout; 'table': pay-at-table." }),
    order_id: z.string().nullable(),
    table_name: z.string().nullable(),
    amount_cents: z.number().int().meta({ description: 'Towards the order or the bill, without the tip.' }),
    tip_cents: z.number().int(),
    status: PaymentStatus,
    checkout_url: z.string().nullable(),
    note: z.string().nullable().meta({ description: 'Something staff must act on, e.g. paid twice or paid for a cancelled order (refund it).' }),
    paid_at: z.string().nullable(),
    refunded_cents: z.number().int().meta({ description: 'Refunds pending or done; failed refunds do not count.' }),
    refunds: z.array(Refund),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Payment' });
export type Payment = z.infer<typeof Payment>;

export const PaymentParams = z.object({ id: z.uuid() });

export const ListPaymentsQuery = z
  .object({
    status: PaymentStatus.optional(),
    order_id: z.uuid().optional(),
    limit: Limit,
    offset: Offset,
  })
  .strict();

export const RefundBody = z
  .object({
    amount_cents: Cents.min(1).optional().meta({ description: 'Omitted: everything not yet refunded.' }),
  })
  .strict();

export const RefundResult = z.object({ payment: Payment, refund: Refund }).meta({ id: 'RefundResult' });

/** A provider payment id as callbacks name it (Mollie: tr_…, the simulator: sim_…). */
export const ProviderPaymentId = z.string().trim().min(1).max(100);

/** POST /payments/webhook: Mollie's form body `id=tr_…` (JSON `{ id }` accepted too). */
export const WebhookBody = z.object({ id: ProviderPaymentId }).meta({ id: 'PaymentWebhookBody' });

/** POST /public/tafel-webhook: one id as Mollie sends it, or a batch. */
export const BatchWebhookBody = z
  .union([z.object({ id: z.union([ProviderPaymentId, z.array(ProviderPaymentId).min(1).max(100)]) }), z.object({ ids: z.array(ProviderPaymentId).min(1).max(100) })])
  .meta({ id: 'PaymentBatchWebhookBody', description: "`id=tr_…` (Mollie's form body; repeated `id` fields for a batch) or JSON `{ ids: [...] }`." });

export const WebhookAnswer = z.object({ received: z.number().int() }).meta({ id: 'PaymentWebhookAnswer' });

/* Rows as they travel through sync (payments.sync.ts): parsed like an API request. */
const Iso = z.string().min(10).max(40);
const Text = (max: number) => z.string().max(max);

export const PaymentRowSchema = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid().optional(),
    origin: Text(100),
    provider: ProviderName,
    provider_payment_id: Text(100).nullable(),
    purpose: PaymentPurpose,
    order_id: z.uuid().nullable(),
    table_name: Text(60).nullable(),
    bill_id: Text(100).nullable(),
    amount_cents: Cents,
    tip_cents: Cents,
    status: PaymentStatus,
    checkout_url: Text(2000).nullable(),
    note: Text(500).nullable(),
    paid_at: Iso.nullable(),
    created_at: Iso,
    updated_at: Iso,
  })
  .loose();

export const RefundRowSchema = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid().optional(),
    payment_id: z.uuid(),
    provider_refund_id: Text(100).nullable(),
    amount_cents: Cents.min(1),
    status: RefundStatus,
    created_by: z.uuid().nullable(),
    created_at: Iso,
    updated_at: Iso,
  })
  .loose();
