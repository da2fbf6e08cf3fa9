import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { createMollieProvider } from './mollie.provider.js';
import type { Providers } from './payments.service.js';
import { createSimulatorProvider } from './simulator.provider.js';

/** The node's providers: Mollie when MOLLIE_API_KEY is set (then it is the active one), the simulator always (its own payments stay payable). */
export function createPaymentProviders(deps: { db: Db; clock: Clock; config: { mollieApiKey?: string; mollieApiEndpoint?: string } }): Providers {
  const simulator = createSimulatorProvider({ db: deps.db, clock: deps.clock });
  const mollie = deps.config.mollieApiKey ? createMollieProvider({ apiKey: deps.config.mollieApiKey, apiEndpoint: deps.config.mollieApiEndpoint }) : undefined;
  return { active: mollie ?? simulator, simulator, ...(mollie ? { mollie } : {}) };
}
