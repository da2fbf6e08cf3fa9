import { describe, expect, it } from 'vitest';
import { callback, countRows, payWorld, publicOrder, type PayWorld } from './helpers.js';

/** A paid public order through the fake Mollie: its payment id and Mollie's id. */
async function paidOrder(w: PayWorld): Promise<{ paymentId: string; mollieId: string; orderId: string }> {
  const body = (await publicOrder(w)).json();
  const at = w.mollie!.paymentFor(body.payment_id);
  w.mollie!.setStatus(at.id, 'paid');
  await callback(w.t, at.id);
  return { paymentId: body.payment_id, mollieId: at.id, orderId: body.order.id };
}

const refund = (w: PayWorld, id: string, payload: unknown, cookie = w.admin) =>
  w.t.req({ method: 'POST', url: `/api/v1/payments/${id}/refund`, cookie, payload: payload as object });

describe('POST /payments/:id/refund (admin, through the provider)', () => {
  it('refunds part, then the rest; each goes to Mollie once and is recorded', async () => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    const part = await refund(w, p.paymentId, { amount_cents: 500 });
    expect(part.statusCode).toBe(201);
    expect(part.json().refund).toMatchObject({ amount_cents: 500, status: 'pending', provider_refund_id: expect.stringMatching(/^re_/), created_by: expect.any(String) });
    expect(part.json().payment).toMatchObject({ status: 'paid', refunded_cents: 500 });
    const rest = await refund(w, p.paymentId, {});
    expect(rest.statusCode).toBe(201);
    expect(rest.json().refund.amount_cents).toBe(2240 - 500);
    expect(rest.json().payment.refunded_cents).toBe(2240);
    expect(w.mollie!.payments.get(p.mollieId)!.refunds.map((r) => r.amount.value)).toEqual(['5.00', '17.40']);
    // Mollie got our refund id as its idempotency key: a retried request cannot refund twice.
    const keys = w.mollie!.requests.filter((q) => q.path.endsWith('/refunds')).map((q) => q.idempotencyKey);
    expect(keys).toEqual(rest.json().payment.refunds.map((r: { id: string }) => r.id));
    const listed = await w.t.req({ method: 'GET', url: `/api/v1/payments/${p.paymentId}`, cookie: w.admin });
    expect(listed.json().refunds).toHaveLength(2);
    // Paid stays paid (the order too): a refund is its own record.
    expect((await w.t.services.orders.get(w.r.id, p.orderId)).payment_status).toBe('paid');
  });

  it('more than is left, a fully refunded payment and an unpaid payment are 409 and record nothing', async () => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    const tooMuch = await refund(w, p.paymentId, { amount_cents: 2241 });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toEqual({ code: 'CONFLICT', error: 'Het bedrag is hoger dan wat nog terugbetaald kan worden (nog € 22,40).' });
    expect(await countRows(w.t, 'payment_refunds')).toBe(0);
    expect((await refund(w, p.paymentId, {})).statusCode).toBe(201);
    const again = await refund(w, p.paymentId, { amount_cents: 1 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('Deze betaling is al volledig terugbetaald.');
    const open = (await publicOrder(w)).json();
    const unpaid = await refund(w, open.payment_id, {});
    expect(unpaid.statusCode).toBe(409);
    expect(unpaid.json().error).toBe('Alleen een betaalde betaling kan worden terugbetaald.');
    expect(await countRows(w.t, 'payment_refunds')).toBe(1);
  });

  it('a refund dated in a closed business day is 409 (CONTRACT §19) and records nothing, at Mollie neither', async () => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    const close = await w.t.req({ method: 'POST', url: '/api/v1/day-closes', cookie: w.admin, payload: { cash_counted_cents: 0 } });
    expect(close.statusCode, close.body).toBe(201);
    const res = await refund(w, p.paymentId, { amount_cents: 500 });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/^De dag \d{2}-\d{2}-\d{4} is al afgesloten \(dagafsluiting\)/);
    expect(await countRows(w.t, 'payment_refunds')).toBe(0);
    expect(w.mollie!.requests.filter((q) => q.path.endsWith('/refunds'))).toEqual([]);
  });

  it('two refunds of everything at the same moment: one is made, the other refused', async () => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    const both = await Promise.all([refund(w, p.paymentId, {}), refund(w, p.paymentId, {})]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(w.mollie!.payments.get(p.mollieId)!.refunds).toHaveLength(1);
    expect(await countRows(w.t, 'payment_refunds')).toBe(1);
  });

  it.each([
    ['zero', { amount_cents: 0 }, /minimaal 1/],
    ['a fraction', { amount_cents: 1.5 }, /geheel getal/],
    ['text', { amount_cents: 'tien' }, /getal/],
    ['an unknown field', { bedrag: 5 }, /Onbekend veld/],
  ])('%s is 400 VALIDATION in Dutch, naming the field, and changes nothing', async (_n, body, msg) => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    const res = await refund(w, p.paymentId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
    expect(res.json().error).toMatch(/^Ongeldige invoer: /);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await countRows(w.t, 'payment_refunds')).toBe(0);
    expect(w.mollie!.requests.filter((q) => q.path.endsWith('/refunds'))).toHaveLength(0);
  });

  it('401 without a session, 403 for staff, 404 for another restaurant’s payment, 400 for a bad id', async () => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    expect((await w.t.req({ method: 'POST', url: `/api/v1/payments/${p.paymentId}/refund`, payload: {} })).statusCode).toBe(401);
    const staff = await refund(w, p.paymentId, {}, w.staff);
    expect(staff.statusCode).toBe(403);
    expect(staff.json()).toEqual({ code: 'FORBIDDEN', error: 'Je hebt geen toegang tot deze functie.' });
    const other = await w.t.seedTenant();
    const res = await refund(w, p.paymentId, {}, await other.adminCookie());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', error: 'Betaling niet gevonden.' });
    expect((await w.t.req({ method: 'GET', url: `/api/v1/payments/${p.paymentId}`, cookie: await other.adminCookie() })).statusCode).toBe(404);
    expect((await refund(w, 'niet-een-id', {})).statusCode).toBe(400);
    expect(await countRows(w.t, 'payment_refunds')).toBe(0);
  });

  it('Mollie refusing the refund: 409 with its reason, recorded as failed, not counted', async () => {
    const w = await payWorld({ mollie: true });
    const p = await paidOrder(w);
    // Refunded behind our back (in Mollie's dashboard): Mollie now refuses more than what is left.
    w.mollie!.payments.get(p.mollieId)!.refunds.push({ id: 're_dash', amount: { currency: 'EUR', value: '22.40' }, status: 'refunded', createdAt: new Date().toISOString() });
    const res = await refund(w, p.paymentId, { amount_cents: 100 });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/^De betaalprovider weigerde de terugbetaling/);
    const after = await w.t.services.payments.get(w.r.id, p.paymentId);
    expect(after.refunds.map((r) => r.status)).toEqual(['failed']);
    expect(after.refunded_cents).toBe(0);
  });

  it('the simulator refunds too', async () => {
    const w = await payWorld();
    const body = (await publicOrder(w)).json();
    const sim = body.checkout_url.split('/').pop();
    await w.t.req({ method: 'POST', url: `/api/v1/payments/simulator/${sim}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'uitkomst=betaald' });
    const res = await refund(w, body.payment_id, { amount_cents: 240 });
    expect(res.statusCode).toBe(201);
    expect(res.json().refund).toMatchObject({ status: 'refunded', amount_cents: 240 });
  });

  it('GET /payments lists the restaurant’s payments for admins only, filtered by status', async () => {
    const w = await payWorld({ mollie: true });
    await paidOrder(w);
    await publicOrder(w);
    const all = await w.t.req({ method: 'GET', url: '/api/v1/payments', cookie: w.admin });
    expect(all.json()).toMatchObject({ total: 2, limit: 50, offset: 0 });
    const paid = await w.t.req({ method: 'GET', url: '/api/v1/payments?status=paid', cookie: w.admin });
    expect(paid.json().data.map((p: { status: string }) => p.status)).toEqual(['paid']);
    expect((await w.t.req({ method: 'GET', url: '/api/v1/payments?status=betaald', cookie: w.admin })).statusCode).toBe(400);
    expect((await w.t.req({ method: 'GET', url: '/api/v1/payments', cookie: w.staff })).statusCode).toBe(403);
    expect((await w.t.req({ method: 'GET', url: '/api/v1/payments' })).statusCode).toBe(401);
    const other = await w.t.seedTenant();
    expect((await w.t.req({ method: 'GET', url: '/api/v1/payments', cookie: await other.adminCookie() })).json().total).toBe(0);
  });
});

describe('POST /public/tafel-webhook (a batch of ids)', () => {
  it('a batch with a paid, a failed and an unknown id: each looked up, each as Mollie says', async () => {
    const w = await payWorld({ mollie: true });
    const one = (await publicOrder(w)).json();
    const two = (await publicOrder(w)).json();
    const a = w.mollie!.paymentFor(one.payment_id);
    const b = w.mollie!.paymentFor(two.payment_id);
    w.mollie!.setStatus(a.id, 'paid');
    w.mollie!.setStatus(b.id, 'failed');
    const res = await w.t.req({ method: 'POST', url: '/api/v1/public/tafel-webhook', payload: { ids: [a.id, b.id, 'tr_onbekend'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: 3 });
    expect((await w.t.services.payments.get(w.r.id, one.payment_id)).status).toBe('paid');
    expect((await w.t.services.payments.get(w.r.id, two.payment_id)).status).toBe('failed');
    expect((await w.t.services.orders.get(w.r.id, one.order.id)).payment_status).toBe('paid');
    expect((await w.t.services.orders.get(w.r.id, two.order.id)).payment_status).toBe('open');
    expect(w.mollie!.lookups.get('tr_onbekend')).toBeUndefined();
    // Mollie's own form (one id, or the field repeated) works the same.
    const form = await w.t.req({ method: 'POST', url: '/api/v1/public/tafel-webhook', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `id=${a.id}&id=${b.id}` });
    expect(form.statusCode).toBe(200);
    expect(form.json()).toEqual({ received: 2 });
    const empty = await w.t.req({ method: 'POST', url: '/api/v1/public/tafel-webhook', payload: { ids: [] } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('VALIDATION');
  });
});
