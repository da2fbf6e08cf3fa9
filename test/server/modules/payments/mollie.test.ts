import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../server/shared/errors.js';
import { callback, countChanges, countRows, guest, payWorld, pointsOf, PUBLIC_BASE, publicOrder } from './helpers.js';

/**
 * Issue 12 with the Mollie provider: the official client against a fake Mollie API on 127.0.0.1.
 * A callback only names an id; the payment is looked up at Mollie and only Mollie's answer counts.
 */
describe('payments through Mollie (fake Mollie API)', () => {
  it('happy path: order → Mollie checkout → paid at Mollie → callback → order paid, order.paid once, points once', async () => {
    const w = await payWorld({ mollie: true });
    const res = await publicOrder(w, { idempotency_key: 'gast-1' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.order).toMatchObject({ source: 'web', payment_status: 'open', total_cents: 2 * 395 + 1450, customer: { name: 'Jan Jansen', phone: '+31612345678' } });
    expect(body.checkout_url).toMatch(/^https:\/\/www\.mollie\.com\/checkout\//);
    const at = w.mollie!.paymentFor(body.payment_id);
    // What we asked of Mollie: the menu's total, our callback URL and the guest's return page.
    expect(at.amount).toEqual({ currency: 'EUR', value: '22.40' });
    expect(at.webhookUrl).toBe(`${PUBLIC_BASE}/api/v1/payments/webhook`);
    expect(at.redirectUrl).toBe(`${PUBLIC_BASE}/api/v1/public/betaling/${body.payment_id}`);
    expect(w.mollie!.requests.find((q) => q.method === 'POST')!.idempotencyKey).toBe(body.payment_id);

    w.mollie!.setStatus(at.id, 'paid');
    const cb = await callback(w.t, at.id);
    expect(cb.statusCode).toBe(200);
    expect(cb.json()).toEqual({ received: 1 });
    const order = await w.t.services.orders.get(w.r.id, body.order.id);
    expect(order.payment_status).toBe('paid');
    expect(await countChanges(w.t, w.r.id, 'order.paid', order.id)).toBe(1);
    expect(w.paidHooks.get(order.id)).toBe(1);
    expect(await pointsOf(w.t, w.r.id, guest.phone)).toBe(22);
    const payment = await w.t.services.payments.get(w.r.id, body.payment_id);
    expect(payment).toMatchObject({ status: 'paid', provider: 'mollie', provider_payment_id: at.id, amount_cents: 2240, order_id: order.id });
    expect(payment.paid_at).not.toBeNull();

    // The same callback again changes nothing.
    expect((await callback(w.t, at.id)).statusCode).toBe(200);
    expect(await countChanges(w.t, w.r.id, 'order.paid', order.id)).toBe(1);
    expect(w.paidHooks.get(order.id)).toBe(1);
    // The guest's return page reads the same truth.
    const view = await w.t.req({ method: 'GET', url: `/api/v1/public/betaling/${body.payment_id}/status` });
    expect(view.json()).toMatchObject({ status: 'paid', purpose: 'order', order: { id: order.id, payment_status: 'paid' }, restaurant: { name: 'Eetcafé De Proef' } });
  });

  it('a forged callback for an open payment changes nothing (Mollie still says open)', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    const at = w.mollie!.paymentFor(body.payment_id);
    const before = await countRows(w.t, 'payments');
    // The caller claims it is paid; only Mollie's answer counts.
    const forged = await w.t.req({ method: 'POST', url: '/api/v1/payments/webhook', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `id=${at.id}&status=paid` });
    expect(forged.statusCode).toBe(200);
    expect(w.mollie!.lookups.get(at.id)).toBe(1);
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    expect((await w.t.services.payments.get(w.r.id, body.payment_id)).status).toBe('open');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(0);
    expect(await countChanges(w.t, w.r.id, 'payment.status_changed')).toBe(0);
    expect(await countRows(w.t, 'payments')).toBe(before);
    // A JSON body naming the same id is looked up just the same.
    const json = await w.t.req({ method: 'POST', url: '/api/v1/payments/webhook', payload: { id: at.id } });
    expect(json.statusCode).toBe(200);
    expect(w.paidHooks.size).toBe(0);
  });

  it('a callback for an unknown id changes nothing, and ids that are not ours are never sent to Mollie', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    const res = await callback(w.t, 'tr_onbekend123');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: 1 });
    expect(w.mollie!.lookups.size).toBe(0);
    // A payment Mollie knows but that is not one of ours (another shop's, or made up at Mollie): nothing.
    const foreign = await fetch(`${w.mollie!.url}payments`, {
      method: 'POST',
      headers: { authorization: 'Bearer test_someoneelse000000000000000', 'content-type': 'application/json' },
      body: JSON.stringify({ amount: { currency: 'EUR', value: '22.40' }, description: 'x', redirectUrl: 'https://x', webhookUrl: 'https://x', metadata: { payment_id: body.payment_id } }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    w.mollie!.setStatus(foreign.id, 'paid');
    expect((await callback(w.t, foreign.id)).statusCode).toBe(200);
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    // Malformed bodies are a 400 in the contract's shape, also exempt from nothing else.
    const bad = await w.t.req({ method: 'POST', url: '/api/v1/payments/webhook', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'foo=bar' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'id' }] });
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(0);
  });

  it('20 duplicate callbacks at the same moment give one order.paid and one points award', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    const at = w.mollie!.paymentFor(body.payment_id);
    w.mollie!.setStatus(at.id, 'paid');
    const answers = await Promise.all(Array.from({ length: 20 }, () => callback(w.t, at.id)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    expect(w.mollie!.lookups.get(at.id)).toBe(20);
    expect(await countChanges(w.t, w.r.id, 'order.paid', body.order.id)).toBe(1);
    expect(await countChanges(w.t, w.r.id, 'payment.status_changed', body.payment_id)).toBe(1);
    expect(w.paidHooks.get(body.order.id)).toBe(1);
    expect(await pointsOf(w.t, w.r.id, guest.phone)).toBe(22);
  });

  it.each(['failed', 'expired', 'canceled'] as const)('a %s payment is recorded; the order stays open and a retry of the order gets a new checkout', async (status) => {
    const w = await payWorld({ mollie: true });
    const first = (await publicOrder(w, { idempotency_key: `k-${status}` })).json();
    const at = w.mollie!.paymentFor(first.payment_id);
    w.mollie!.setStatus(at.id, status);
    expect((await callback(w.t, at.id)).statusCode).toBe(200);
    expect((await w.t.services.payments.get(w.r.id, first.payment_id)).status).toBe(status);
    expect((await w.t.services.orders.get(w.r.id, first.order.id)).payment_status).toBe('open');
    expect(await countChanges(w.t, w.r.id, 'payment.status_changed', first.payment_id)).toBe(1);
    // Mollie saying paid later does turn it paid (the provider is the truth), once.
    // First: the guest tries again with the same key: same order, a fresh payment.
    const again = await publicOrder(w, { idempotency_key: `k-${status}` });
    expect(again.statusCode).toBe(200);
    expect(again.json().order.id).toBe(first.order.id);
    expect(again.json().payment_id).not.toBe(first.payment_id);
    expect(again.json().checkout_url).toMatch(/mollie\.com/);
    const second = w.mollie!.paymentFor(again.json().payment_id);
    w.mollie!.setStatus(second.id, 'paid');
    await callback(w.t, second.id);
    expect((await w.t.services.orders.get(w.r.id, first.order.id)).payment_status).toBe('paid');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(1);
  });

  it('a repeated order (same key) while its payment is open answers the same checkout, asking Mollie once', async () => {
    const w = await payWorld({ mollie: true });
    const answers = await Promise.all(Array.from({ length: 5 }, () => publicOrder(w, { idempotency_key: 'dubbel' })));
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes).toEqual([200, 200, 200, 200, 201]);
    const ids = new Set(answers.map((a) => a.json().order.id));
    const pays = new Set(answers.map((a) => a.json().payment_id));
    const urls = new Set(answers.map((a) => a.json().checkout_url));
    expect([ids.size, pays.size, urls.size]).toEqual([1, 1, 1]);
    expect(w.mollie!.payments.size).toBe(1);
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(1);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(1);
  });

  it('when Mollie cannot be reached the callback is answered 503 (Mollie retries) and nothing changes', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    const at = w.mollie!.paymentFor(body.payment_id);
    w.mollie!.setStatus(at.id, 'paid');
    w.mollie!.failWith = 429;
    const res = await callback(w.t, at.id);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'INTERNAL', error: expect.stringMatching(/betaalprovider/) });
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    w.mollie!.failWith = null;
    expect((await callback(w.t, at.id)).statusCode).toBe(200);
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('paid');
  });

  it('Mollie reporting a different amount than asked is not booked as paid; staff see a note', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    const at = w.mollie!.paymentFor(body.payment_id);
    at.amount = { currency: 'EUR', value: '0.01' };
    w.mollie!.setStatus(at.id, 'paid');
    await callback(w.t, at.id);
    const p = await w.t.services.payments.get(w.r.id, body.payment_id);
    expect(p.status).toBe('open');
    expect(p.note).toMatch(/ander bedrag/);
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
  });

  it('a lost callback: the reconcile job looks open payments up at Mollie after two minutes', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    w.mollie!.setStatus(w.mollie!.paymentFor(body.payment_id).id, 'paid');
    await w.t.app.scheduler.run('payments-reconcile');
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    w.t.clock.advanceMinutes(3);
    await w.t.app.scheduler.run('payments-reconcile');
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('paid');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(1);
  });

  it('a payment for an order cancelled before the money came in is recorded paid with a note to refund it', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    const cancel = await w.t.req({ method: 'PATCH', url: `/api/v1/orders/${body.order.id}`, cookie: w.admin, payload: { status: 'cancelled' } });
    expect(cancel.statusCode).toBe(200);
    const at = w.mollie!.paymentFor(body.payment_id);
    w.mollie!.setStatus(at.id, 'paid');
    await callback(w.t, at.id);
    const p = await w.t.services.payments.get(w.r.id, body.payment_id);
    expect(p.status).toBe('paid');
    expect(p.note).toMatch(/geannuleerd/);
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    expect(await countChanges(w.t, w.r.id, 'order.paid')).toBe(0);
  });

  it('a `paid` hook failing inside the callback’s transaction (even with a CONFLICT) rolls all of it back; the next callback pays once', async () => {
    const w = await payWorld({ mollie: true });
    const body = (await publicOrder(w)).json();
    let fail = true;
    w.t.services.orders.on('paid', async () => {
      if (fail) throw new AppError('CONFLICT', 'Testfout: deze bestelling weigert betaald te worden.');
    });
    const at = w.mollie!.paymentFor(body.payment_id);
    w.mollie!.setStatus(at.id, 'paid');
    const seq = await w.t.changes.lastSeq(w.r.id);
    // The hook's refusal reaches the provider as an error answer (it calls again).
    expect((await callback(w.t, at.id)).statusCode).toBe(409);
    // Not mistaken for "cancelled before the money came in": no note, nothing committed, the payment still open.
    expect(await w.t.changes.lastSeq(w.r.id)).toBe(seq);
    expect(await w.t.services.payments.get(w.r.id, body.payment_id)).toMatchObject({ status: 'open', note: null });
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('open');
    expect(await pointsOf(w.t, w.r.id, guest.phone)).toBe(0);
    fail = false;
    expect((await callback(w.t, at.id)).statusCode).toBe(200);
    expect(await w.t.services.payments.get(w.r.id, body.payment_id)).toMatchObject({ status: 'paid', note: null });
    expect((await w.t.services.orders.get(w.r.id, body.order.id)).payment_status).toBe('paid');
    expect(await countChanges(w.t, w.r.id, 'order.paid', body.order.id)).toBe(1);
    expect(await pointsOf(w.t, w.r.id, guest.phone)).toBe(22);
  });

  it('callbacks are exempt from the rate limit; public orders are not', async () => {
    // 5 a minute: the two logins of the set-up take two of them.
    const w = await payWorld({ mollie: true, env: { RATE_LIMIT_MUTATIONS_PER_MINUTE: '5' } });
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await publicOrder(w)).statusCode);
    expect(codes).toEqual([201, 201, 201, 429]);
    for (let i = 0; i < 10; i++) expect((await callback(w.t, 'tr_x' + i)).statusCode).toBe(200);
    const batch = await w.t.req({ method: 'POST', url: '/api/v1/public/tafel-webhook', payload: { ids: ['tr_a', 'tr_b'] } });
    expect(batch.statusCode).toBe(200);
  });
});
