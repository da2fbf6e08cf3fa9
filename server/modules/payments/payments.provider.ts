import type { Executor } from '../../db/connection.js';

/**
 * One payment-provider interface (issue 12, CONTRACT §11), two implementations: `mollie`
 * (mollie.provider.ts, the official client) and `simulator` (simulator.provider.ts, the default
 * without MOLLIE_API_KEY). The service never trusts a callback: it asks the provider with `get`,
 * and only that answer changes anything.
 */
export type ProviderName = 'mollie' | 'simulator';

/** A provider's payment status, reduced to what the restaurant acts on (Mollie's pending/authorized count as open). */
export type ProviderStatus = 'open' | 'paid' | 'failed' | 'expired' | 'canceled';

export interface CreatePaymentInput {
  /** Our payment id: the provider's idempotency key and metadata, so a repeated create gives the same payment. */
  reference: string;
  /** What the guest pays: amount plus tip. */
  amount_cents: number;
  description: string;
  /** Where the guest returns after the checkout. */
  redirect_url: string;
  /** Where the provider sends its callback (`id=<provider payment id>`). */
  webhook_url: string;
}

export interface ProviderPayment {
  id: string;
  status: ProviderStatus;
  amount_cents: number;
  /** Our payment id as the provider stored it (metadata), when it has one. */
  reference: string | null;
  checkout_url: string | null;
}

export interface ProviderRefund {
  id: string;
  status: 'pending' | 'refunded' | 'failed';
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /**
   * True for a provider whose records are rows of this database (the simulator): `create` then
   * takes the caller's transaction (`exec`), so its payment commits with our provider id.
   */
  readonly local?: boolean;
  create(input: CreatePaymentInput, exec?: Executor): Promise<ProviderPayment>;
  /** The provider's own record; null when it does not know the id. */
  get(id: string): Promise<ProviderPayment | null>;
  refund(id: string, amount_cents: number, reference: string): Promise<ProviderRefund>;
}

/** The provider could not be asked (network, outage, its own 5xx): nothing changed, try again later. */
export class ProviderUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider refused the request itself (e.g. a refund larger than it allows): a 409 for the admin. */
export class ProviderRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderRefused';
  }
}

/** Cents → Mollie's amount string ("12.50"). */
export const centsToValue = (cents: number): string => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** Mollie's amount string → cents, exactly (no floating point); NaN for anything else. */
export function valueToCents(value: string): number {
  const m = /^(\d+)\.(\d{2})$/.exec(value);
  return m ? Number(m[1]) * 100 + Number(m[2]) : Number.NaN;
}
