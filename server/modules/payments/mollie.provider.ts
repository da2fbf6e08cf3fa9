import { createRequire } from 'node:module';
import type { createMollieClient as CreateMollieClient, MollieClient } from '@mollie/api-client';
import {
  centsToValue,
  ProviderRefused,
  ProviderUnavailable,
  valueToCents,
  type CreatePaymentInput,
  type PaymentProvider,
  type ProviderPayment,
  type ProviderRefund,
  type ProviderStatus,
} from './payments.provider.js';

/** Mollie's payment statuses → ours: pending and authorized are not money yet, so still open. */
const STATUS: Record<string, ProviderStatus> = {
  open: 'open',
  pending: 'open',
  authorized: 'open',
  paid: 'paid',
  failed: 'failed',
  expired: 'expired',
  canceled: 'canceled',
};

const REFUND_STATUS: Record<string, ProviderRefund['status']> = {
  queued: 'pending',
  pending: 'pending',
  processing: 'pending',
  refunded: 'refunded',
  failed: 'failed',
  canceled: 'failed',
};

interface MollieError {
  statusCode?: number;
  message?: string;
}

/** An ApiError without a status (refused connection, timeout) or a 5xx: Mollie could not be asked. */
function classify(err: unknown, what: string): never {
  const e = err as MollieError;
  if (e?.statusCode === undefined || e.statusCode >= 500 || e.statusCode === 429) {
    throw new ProviderUnavailable(`Mollie is niet bereikbaar (${what}).`, { cause: err });
  }
  throw new ProviderRefused(e.message ?? `Mollie weigerde dit verzoek (${what}).`);
}

/**
 * The `mollie` provider through the official client (@mollie/api-client). `apiEndpoint` is
 * Mollie's own by default; tests point it at a fake Mollie API on 127.0.0.1 (MOLLIE_API_ENDPOINT).
 */
export function createMollieProvider(opts: { apiKey: string; apiEndpoint?: string }): PaymentProvider {
  // The client (≈ 440 kB) is loaded only on a node with MOLLIE_API_KEY, not at every start (issue 29 point 5).
  const { createMollieClient } = createRequire(import.meta.url)('@mollie/api-client') as { createMollieClient: typeof CreateMollieClient };
  const client: MollieClient = createMollieClient({
    apiKey: opts.apiKey,
    ...(opts.apiEndpoint ? { apiEndpoint: opts.apiEndpoint } : {}),
    versionStrings: ['RestaurantOps/0.1.0'],
  });

  const toPayment = (p: { id: string; status: string; amount: { value: string; currency: string }; metadata?: unknown; getCheckoutUrl(): string | null }): ProviderPayment => {
    const meta = p.metadata as { payment_id?: unknown } | null | undefined;
    return {
      id: p.id,
      status: STATUS[p.status] ?? 'open',
      // Only euros are ever asked for; another currency is not an amount we recognise.
      amount_cents: p.amount.currency === 'EUR' ? valueToCents(p.amount.value) : Number.NaN,
      reference: typeof meta?.payment_id === 'string' ? meta.payment_id : null,
      checkout_url: p.getCheckoutUrl(),
    };
  };

  return {
    name: 'mollie',

    async create(input: CreatePaymentInput): Promise<ProviderPayment> {
      try {
        const p = await client.payments.create({
          amount: { currency: 'EUR', value: centsToValue(input.amount_cents) },
          description: input.description,
          redirectUrl: input.redirect_url,
          webhookUrl: input.webhook_url,
          metadata: { payment_id: input.reference },
          // A repeat (a retried request, a guest pressing twice) gets the same Mollie payment.
          idempotencyKey: input.reference,
        });
        return toPayment(p);
      } catch (err) {
        return classify(err, 'betaling aanmaken');
      }
    },

    async get(id: string): Promise<ProviderPayment | null> {
      // Mollie payment ids look like tr_xxxxxxxxxx; anything else is not one (and never sent on).
      if (!/^tr_[A-Za-z0-9]{1,64}$/.test(id)) return null;
      try {
        return toPayment(await client.payments.get(id));
      } catch (err) {
        if ((err as MollieError)?.statusCode === 404 || (err as MollieError)?.statusCode === 410) return null;
        return classify(err, 'betaling opvragen');
      }
    },

    async refund(id: string, amountCents: number, reference: string): Promise<ProviderRefund> {
      try {
        const r = await client.paymentRefunds.create({
          paymentId: id,
          amount: { currency: 'EUR', value: centsToValue(amountCents) },
          metadata: { refund_id: reference },
          idempotencyKey: reference,
        });
        return { id: r.id, status: REFUND_STATUS[r.status] ?? 'pending' };
      } catch (err) {
        return classify(err, 'terugbetalen');
      }
    },
  };
}
