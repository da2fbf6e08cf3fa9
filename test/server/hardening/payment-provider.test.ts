import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { createLoggedTestApp } from '../../helpers/logged-app.js';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';
import { baseEnv, runTs, tempDataDir } from '../../helpers/process.js';

/**
 * Issue 28 point 5: a cloud without MOLLIE_API_KEY used to run the payment simulator silently, where
 * anyone marks their own order paid. Now a cloud refuses to start without a provider unless the
 * simulator is chosen explicitly (PAYMENT_PROVIDER=simulator), and then warns at every start and in
 * /health. The appliance keeps the simulator as its default (docs/payments.md).
 */
const UNREACHABLE = 'postgres://nobody@127.0.0.1:1/none'; // never opened when start-up is refused first

describe(`issue 28 point 5: a cloud needs a payment provider (${lane})`, () => {
  it('ROLE=cloud without MOLLIE_API_KEY and without PAYMENT_PROVIDER=simulator does not start: exit 2 and a Dutch message naming both', { timeout: 120_000 }, async () => {
    const r = await runTs('server/main.ts', [], baseEnv({ DATA_DIR: tempDataDir(), ROLE: 'cloud', DATABASE_URL: UNREACHABLE, PORT: '0' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Ongeldige configuratie:/);
    expect(r.stderr).toMatch(/MOLLIE_API_KEY/);
    expect(r.stderr).toMatch(/PAYMENT_PROVIDER=simulator/);
    expect(r.stderr).not.toMatch(/\n\s+at /);

    // Chosen explicitly, it gets past the check (and stops at the database this test never gives it).
    const chosen = await runTs('server/main.ts', [], baseEnv({ DATA_DIR: tempDataDir(), ROLE: 'cloud', DATABASE_URL: UNREACHABLE, PORT: '0', PAYMENT_PROVIDER: 'simulator' }));
    expect(chosen.code).toBe(1);
    expect(chosen.stderr).toMatch(/^Start mislukt/);
  });

  it('contradictions are configuration errors: PAYMENT_PROVIDER=mollie without a key, PAYMENT_PROVIDER=simulator beside a key', () => {
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'mollie' })).toThrow(/PAYMENT_PROVIDER=mollie heeft MOLLIE_API_KEY nodig/);
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'simulator', MOLLIE_API_KEY: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM', PUBLIC_BASE_URL: 'https://x.example' })).toThrow(/PAYMENT_PROVIDER=simulator.*MOLLIE_API_KEY/);
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'kassa' })).toThrow(/PAYMENT_PROVIDER/);
    expect(loadConfig({}).paymentProvider).toBe('simulator'); // the appliance's default
    expect(loadConfig({ MOLLIE_API_KEY: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM', PUBLIC_BASE_URL: 'https://x.example' }).paymentProvider).toBe('mollie');
    expect(loadConfig({ ROLE: 'cloud', DATABASE_URL: UNREACHABLE }).paymentProvider).toBeUndefined();
  });

  it('a cloud with PAYMENT_PROVIDER=simulator logs a warning when it starts and shows it in /health; with Mollie there is none', async () => {
    const sim = await createLoggedTestApp({ env: { ROLE: 'cloud', DATABASE_URL: UNREACHABLE, PAYMENT_PROVIDER: 'simulator' } });
    await sim.app.ready();
    const warning = sim.logs.find((l) => l.level === 40 && /betaalsimulator/i.test(l.msg ?? ''));
    expect(warning?.msg).toMatch(/iedereen kan .*betaald/);
    const health = await sim.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', payments: { provider: 'simulator', warning: warning!.msg } });

    const mollie = await createTestApp({
      env: { ROLE: 'cloud', DATABASE_URL: UNREACHABLE, MOLLIE_API_KEY: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM', PUBLIC_BASE_URL: 'https://bestellen.example' },
    });
    expect((await mollie.req({ method: 'GET', url: '/api/v1/health' })).json().payments).toEqual({ provider: 'mollie', warning: null });

    // The appliance's simulator is its documented default: shown, without a warning.
    const local = await createTestApp();
    expect((await local.req({ method: 'GET', url: '/api/v1/health' })).json().payments).toEqual({ provider: 'simulator', warning: null });
  });
});
