import crypto from 'node:crypto';
import type { Db, Executor } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import type { CreatePaymentInput, PaymentProvider, ProviderPayment, ProviderRefund } from './payments.provider.js';
import { ProviderRefused } from './payments.provider.js';
import { simulatorRepository as repo, type SimulatorRow } from './payments.repository.js';

export type { SimulatorRow } from './payments.repository.js';

/** Like Mollie: an unanswered checkout expires after 15 minutes. */
export const SIMULATOR_EXPIRY_MS = 15 * 60_000;
/** Where the simulator's checkout page lives on this server (payments.routes.ts). */
export const SIMULATOR_PATH = '/api/v1/payments/simulator/';

const toPayment = (r: SimulatorRow): ProviderPayment => ({
  id: r.id,
  status: r.status,
  amount_cents: r.amount_cents,
  reference: r.idempotency_key,
  checkout_url: null,
});

export interface Simulator extends PaymentProvider {
  /** The record behind the checkout page (expired on reading when its time has passed). */
  checkout(id: string): Promise<SimulatorRow | null>;
  /** The guest's choice on the checkout page; only an open payment can be decided. */
  decide(id: string, outcome: 'paid' | 'failed'): Promise<{ row: SimulatorRow; changed: boolean } | null>;
  /** Open payments whose time passed become expired; returned so their callbacks can be sent. */
  expireDue(): Promise<SimulatorRow[]>;
}

/**
 * The built-in provider (the default without MOLLIE_API_KEY): it keeps its own records in
 * `payment_simulator` (the "provider side", local-only) and serves a Dutch checkout page
 * (payments.routes.ts) where a person picks "betaald" or "mislukt"; the page then sends the
 * service's callback exactly as Mollie would (a POST with `id=<payment id>`). The service looks the
 * payment up here with `get`, never trusting the callback itself.
 */
export function createSimulatorProvider(deps: { db: Db; clock: Clock }): Simulator {
  const { db, clock } = deps;
  const find = (id: string) => repo.find(db, id);

  async function expireIfDue(row: SimulatorRow): Promise<SimulatorRow> {
    if (row.status !== 'open' || row.expires_at > clock.now().toISOString()) return row;
    const now = clock.now().toISOString();
    await repo.decideIfOpen(db, row.id, 'expired', now);
    return (await find(row.id)) ?? row;
  }

  async function checkout(id: string): Promise<SimulatorRow | null> {
    const row = /^sim_[A-Za-z0-9]{1,64}$/.test(id) ? await find(id) : undefined;
    return row ? expireIfDue(row) : null;
  }

  return {
    name: 'simulator',
    local: true,

    /** `exec`: the payment service's transaction (the row commits with our provider id); else an autocommit of its own. */
    async create(input: CreatePaymentInput, exec: Executor = db): Promise<ProviderPayment> {
      const now = clock.now();
      const row: SimulatorRow = {
        id: `sim_${crypto.randomBytes(15).toString('base64url').replace(/[-_]/g, 'x')}`,
        idempotency_key: input.reference,
        amount_cents: input.amount_cents,
        description: input.description,
        status: 'open',
        redirect_url: input.redirect_url,
        webhook_url: input.webhook_url,
        refunded_cents: 0,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + SIMULATOR_EXPIRY_MS).toISOString(),
        updated_at: now.toISOString(),
      };
      // Idempotent by our payment id, as Mollie is by its Idempotency-Key: the row inserted now, or the one stored before.
      const stored = (await repo.insert(exec, row)) ?? (await repo.findByKey(exec, input.reference));
      // The checkout page is served by this same server, next to where the guest returns to.
      return { ...toPayment(stored), checkout_url: new URL(SIMULATOR_PATH + stored.id, input.redirect_url).toString() };
    },

    async get(id: string): Promise<ProviderPayment | null> {
      if (!/^sim_[A-Za-z0-9]{1,64}$/.test(id)) return null;
      const row = await find(id);
      return row ? toPayment(await expireIfDue(row)) : null;
    },

    async refund(id: string, amountCents: number): Promise<ProviderRefund> {
      const row = await find(id);
      if (!row || row.status !== 'paid') throw new ProviderRefused('Deze betaling kan niet worden terugbetaald.');
      const now = clock.now().toISOString();
      if (!(await repo.addRefund(db, id, amountCents, now))) throw new ProviderRefused('Het bedrag is hoger dan wat nog terugbetaald kan worden.');
      return { id: `simre_${crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`, status: 'refunded' };
    },

    checkout,

    async decide(id: string, outcome: 'paid' | 'failed') {
      const row = await checkout(id);
      if (!row) return null;
      if (row.status !== 'open') return { row, changed: false };
      const now = clock.now().toISOString();
      const changed = await repo.decideIfOpen(db, id, outcome, now);
      return { row: (await find(id))!, changed };
    },

    async expireDue(): Promise<SimulatorRow[]> {
      const now = clock.now().toISOString();
      const due = await repo.due(db, now, 200);
      const out: SimulatorRow[] = [];
      for (const row of due) {
        if (await repo.decideIfOpen(db, row.id, 'expired', now)) out.push({ ...row, status: 'expired', updated_at: now });
      }
      return out;
    },
  };
}
