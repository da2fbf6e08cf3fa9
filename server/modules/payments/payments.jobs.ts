import type { JobSpec } from '../../plugins/scheduler.js';
import type { PaymentsService } from './payments.service.js';

/**
 * Payments' cron jobs (docs/payments.md): every minute, open payments are looked up at their
 * provider (a callback that never came). `deliver` sends the simulator's callbacks through this
 * server's own HTTP stack (payments.routes.ts `callbackSender`).
 */
export const paymentsJobs = (deps: { payments: PaymentsService; deliver: Parameters<PaymentsService['reconcile']>[0] }): JobSpec[] => [
  { name: 'payments-reconcile', cron: '* * * * *', run: () => deps.payments.reconcile(deps.deliver).then(() => {}) },
];
