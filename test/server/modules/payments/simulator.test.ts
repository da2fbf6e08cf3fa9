import { describe, expect, it } from 'vitest';
import { callback, countChanges, countRows, payWorld, publicOrder } from './helpers.js';

const choose = (w: Awaited<ReturnType<typeof payWorld>>, simId: string, uitkomst: string) =>
  w.t.req({ method: 'POST', url: `/api/v1/payments/simulator/${simId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `uitkomst=${uitkomst}` });

/** The default provider without MOLLIE_API_KEY: a Dutch checkout page that then calls the service's callback as a provider would. */
describe('payment simulator (no MOLLIE_API_KEY)', () => {
  it('checkout page in Dutch; "betaald" calls the callback, the order becomes paid once, the guest goes back', async () => {
    const w = await payWorld();
    const body = (await publicOrder(w)).json();
    expect(body.checkout_url).toMatch(/^http:\/\/localhost(:\d+)?\/api\/v1\/payments\/simulator\/sim_[A-Za-z0-9]+$/);
    const simId = body.checkout_url.split('/').pop();
    const page = await w.t.req({ method: 'GET', url: `/api/v1/payments/simulator/${simId}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('€ 22,40');
    expect(page.body).toContain('value="betaald"');
    expect(page.body).toContain('value="mislukt"');
    expect(page.body).toContain('Testomgeving');

    const chosen = await choose(w, simId, 'betaald');
    expect(chosen.statusCode).toBe(303);
    expect(chosen.body, 'a redirect has no body (the document declares none)').toBe('');
    // Back to where the guest came from: this server's return page (PUBLIC_BASE_URL, else the request's origin).
    expect(chosen.headers.location).toMatch(new RegExp(`^http://localhost(:\\d+)?/api/v1/public/betaling/${body.payment_id}$`));
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('paid');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(1);
    expect(w.paidHooks.get(body.order.id)).toBe(1);
    // Choosing again (back button) changes nothing, sends no second callback.
    expect((await choose(w, simId, 'mislukt')).statusCode).toBe(303);
    expect((await w.t.services.payments.get(w.r.id, body.payment_id)).status).toBe('paid');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(1);
    // The page now shows the outcome.
    expect((await w.t.req({ method: 'GET', url: `/api/v1/payments/simulator/${simId}` })).body).toContain('Betaald');
    // The return address sends the guest on to the guest pages' payment result.
    const ret = await w.t.req({ method: 'GET', url: `/api/v1/public/betaling/${body.payment_id}` });
    expect(ret.statusCode).toBe(303);
    expect(ret.headers.location).toBe(`/g/${w.r.slug}/betaling/${body.payment_id}`);
    expect(ret.body).toBe('');
    // An unknown payment gets the small page that says so.
    const unknown = await w.t.req({ method: 'GET', url: '/api/v1/public/betaling/01900000-0000-7000-8000-000000000000' });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain('/status');
  });

  it('"mislukt" records a failed payment; the order stays open', async () => {
    const w = await payWorld();
    const body = (await publicOrder(w)).json();
    await choose(w, body.checkout_url.split('/').pop(), 'mislukt');
    expect((await w.t.services.payments.get(w.r.id, body.payment_id)).status).toBe('failed');
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    expect(await countChanges(w.t, w.r.id, 'payment.status_changed')).toBe(1);
  });

  it('a forged callback naming an open simulator payment changes nothing; the simulator is asked', async () => {
    const w = await payWorld();
    const body = (await publicOrder(w)).json();
    const simId = body.checkout_url.split('/').pop();
    expect((await callback(w.t, simId)).statusCode).toBe(200);
    expect((await w.t.services.payments.get(w.r.id, body.payment_id)).status).toBe('open');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(0);
  });

  it('an unanswered checkout expires after 15 minutes: the reconcile job sends its callback', async () => {
    const w = await payWorld();
    const body = (await publicOrder(w)).json();
    w.t.clock.advanceMinutes(16);
    await w.t.app.scheduler.run('payments-reconcile');
    expect((await w.t.services.payments.get(w.r.id, body.payment_id)).status).toBe('expired');
    const page = await w.t.req({ method: 'GET', url: `/api/v1/payments/simulator/${body.checkout_url.split('/').pop()}` });
    expect(page.body).toContain('Verlopen');
    expect(page.body).not.toContain('value="betaald"');
  });

  it('unknown checkout ids and bad choices are refused in the contract shape, changing nothing', async () => {
    const w = await payWorld();
    const body = (await publicOrder(w)).json();
    const simId = body.checkout_url.split('/').pop();
    expect((await w.t.req({ method: 'GET', url: '/api/v1/payments/simulator/sim_bestaatniet' })).json()).toEqual({ code: 'NOT_FOUND', error: 'Betaling niet gevonden.' });
    expect((await w.t.req({ method: 'GET', url: '/api/v1/payments/simulator/../../etc' })).statusCode).toBe(404);
    const bad = await choose(w, simId, 'gratis');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'uitkomst' }] });
    expect((await choose(w, 'sim_bestaatniet', 'betaald')).statusCode).toBe(404);
    expect((await w.t.services.payments.get(w.r.id, body.payment_id)).status).toBe('open');
    expect(await countRows(w.t, 'payment_simulator')).toBe(1);
  });
});
