import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { setupFloor } from '../floor/helpers.js';
import { newId } from '../../../../server/shared/ids.js';
import { entryDto, GENESIS, hashEntry } from '../../../../server/modules/journal/journal.chain.js';

/** The journal (CONTRACT §19, docs/till.md "Journal"). Now: Friday 2026-11-20 19:00 in Amsterdam. */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-11-20T18:00:00.000Z');
  const s = await setupFloor(t);
  const call = (cookie: string | undefined, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.req({ method, url: `/api/v1${url}`, cookie, ...(payload ? { payload } : {}) });
  return { ...s, call };
}

/** An order on T1 with two friet and a burger (2240), a void of one friet (395), a bill payment of 1000 and a counter order paid (300). */
async function someSales(s: Awaited<ReturnType<typeof setup>>) {
  const { call, staff, menu, floor } = s;
  const order = (await call(staff, 'POST', '/orders', { table_id: floor.t1.id, items: [{ product_id: menu.friet.id, quantity: 2 }, { product_id: menu.burger.id, quantity: 1 }] })).json();
  const friet = order.items.find((i: { product_id: string }) => i.product_id === menu.friet.id);
  expect((await call(staff, 'POST', `/orders/${order.id}/items/${friet.id}/void`, { quantity: 1, reason: 'Verkeerd aangeslagen' })).statusCode).toBe(200);
  const bill = (await call(staff, 'GET', `/floorplan/tables/${floor.t1.id}/bill`)).json();
  const paid = await call(staff, 'POST', `/floorplan/bills/${bill.id}/payments`, { amount_cents: 1000, tip_cents: 100 });
  expect(paid.statusCode).toBe(201);
  const counter = (await call(staff, 'POST', '/orders', { items: [{ product_id: menu.cola.id, quantity: 1 }] })).json();
  expect((await call(s.admin, 'PATCH', `/orders/${counter.id}`, { payment_status: 'paid' })).statusCode).toBe(200);
  return { order, bill, counter, friet };
}

const rows = (t: TestApp, tenantId: string) =>
  t.handle.db.selectFrom('journal_entries').selectAll().where('tenant_id', '=', tenantId).orderBy('chain_seq').execute();

describe('the journal', () => {
  it('records voids, bill payments and counter payments in one verified chain; admin only', async () => {
    const s = await setup();
    const { order, bill, counter, friet } = await someSales(s);
    const list = await s.call(s.admin, 'GET', '/journal');
    expect(list.statusCode).toBe(200);
    const body = list.json();
    expect(body.from).toBe('2026-11-20');
    expect(body.data.map((e: { kind: string; amount_cents: number }) => [e.kind, e.amount_cents])).toEqual([
      ['void', 395],
      ['payment', 1000],
      ['payment', 300],
    ]);
    expect(body.data[0]).toMatchObject({ chain_seq: 1, prev_hash: GENESIS, order_id: order.id, business_day: '2026-11-20', detail: { item_id: friet.id, quantity: 1, reason: 'Verkeerd aangeslagen' } });
    expect(body.data[1]).toMatchObject({ chain_seq: 2, prev_hash: body.data[0].hash, bill_id: bill.id, tip_cents: 100, method: 'overig', user_id: s.r.staffId });
    expect(body.data[2]).toMatchObject({ chain_seq: 3, order_id: counter.id, method: 'overig', detail: { source: 'counter' } });
    expect((await s.call(s.admin, 'GET', '/journal/verify')).json()).toMatchObject({ verified: true, first_bad: null, chains: [{ entries: 3, verified: true, head_hash: body.data[2].hash }] });

    expect((await s.call(s.staff, 'GET', '/journal')).statusCode).toBe(403);
    expect((await s.call(undefined, 'GET', '/journal/verify')).statusCode).toBe(401);
    const bad = await s.call(s.admin, 'GET', '/journal?from=2026-11-21&to=2026-11-20');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', error: "Ongeldige invoer: 'from' mag niet na 'to' liggen." });
    expect((await s.call(s.admin, 'GET', '/journal?from=morgen')).json()).toMatchObject({ code: 'VALIDATION' });
    // Another business day: the night before 05:00 still counts as Friday.
    s.t.clock.set('2026-11-21T03:30:00.000Z');
    expect((await s.call(await s.r.adminCookie(), 'GET', '/journal?from=2026-11-20&to=2026-11-21')).json().data).toHaveLength(3);
  });

  it('finds an edited entry', async () => {
    const s = await setup();
    await someSales(s);
    const [, pay] = await rows(s.t, s.r.id);
    await s.t.handle.db.updateTable('journal_entries').set({ amount_cents: 10 }).where('id', '=', pay!.id).execute();
    const v = (await s.call(s.admin, 'GET', '/journal/verify')).json();
    expect(v).toMatchObject({ verified: false, first_bad: { chain_seq: 2, entry_id: pay!.id, kind: 'payment', problem: 'content_changed' } });
    expect(v.first_bad.reason).toMatch(/gewijzigd/);
  });

  it('finds a deleted entry, in the middle and at the end', async () => {
    const s = await setup();
    await someSales(s);
    const [, pay, last] = await rows(s.t, s.r.id);
    await s.t.handle.db.deleteFrom('journal_entries').where('id', '=', pay!.id).execute();
    expect((await s.call(s.admin, 'GET', '/journal/verify')).json()).toMatchObject({ verified: false, first_bad: { chain_seq: 2, entry_id: pay!.id, problem: 'missing' } });
    await s.t.handle.db.deleteFrom('journal_entries').where('id', '=', last!.id).execute();
    const v = (await s.call(s.admin, 'GET', '/journal/verify')).json();
    expect(v.chains[0].problems).toBe(2);
    expect(v.first_bad).toMatchObject({ chain_seq: 2, problem: 'missing' });
  });

  it('finds an inserted entry, even with a correctly computed hash', async () => {
    const s = await setup();
    await someSales(s);
    const existing = await rows(s.t, s.r.id);
    const head = existing[existing.length - 1]!;
    const forged = { ...head, id: newId(), chain_seq: Number(head.chain_seq) + 1, prev_hash: head.hash, kind: 'refund', ref_id: newId(), amount_cents: 5000, method: 'contant', detail: '{}' };
    forged.hash = hashEntry(s.r.id, entryDto(forged));
    await s.t.handle.db.insertInto('journal_entries').values(forged).execute();
    const v = (await s.call(s.admin, 'GET', '/journal/verify')).json();
    expect(v).toMatchObject({ verified: false, first_bad: { chain_seq: 4, entry_id: forged.id, problem: 'not_in_change_log' } });
  });

  it('refuses a void or a payment dated in a closed business day (409) and changes nothing', async () => {
    const s = await setup();
    const { order, bill, friet } = await someSales(s);
    // A close of Friday (the day close itself is built on this table).
    await s.t.handle.db
      .insertInto('day_closes')
      .values({ id: newId(), tenant_id: s.r.id, number: 1, business_date: '2026-11-20', origin: s.t.changes.origin, closed_at: '2026-11-20T23:00:00.000Z', closed_by: null, forced: 0, cash_counted_cents: 0, report: '{}', covered: '{}', previous_hash: GENESIS, hash: GENESIS, created_at: '2026-11-20T23:00:00.000Z' })
      .execute();
    const before = (await rows(s.t, s.r.id)).length;
    s.t.clock.set('2026-11-21T01:00:00.000Z'); // 02:00 Saturday: still Friday's business day
    const staff = await s.r.staffCookie();
    const v = await s.call(staff, 'POST', `/orders/${order.id}/items/${friet.id}/void`, { quantity: 1, reason: 'Te laat' });
    expect(v.statusCode).toBe(409);
    expect(v.json()).toEqual({ code: 'CONFLICT', error: 'De dag 20-11-2026 is al afgesloten (dagafsluiting); er kan niets meer op die dag worden geboekt.' });
    const p = await s.call(staff, 'POST', `/floorplan/bills/${bill.id}/payments`, { amount_cents: 100 });
    expect(p.statusCode).toBe(409);
    expect((await rows(s.t, s.r.id)).length).toBe(before);
    expect((await s.call(staff, 'GET', `/orders/${order.id}`)).json().items.find((i: { id: string }) => i.id === friet.id).voided_quantity).toBe(1);
    // From 05:00 it is Saturday: open.
    s.t.clock.set('2026-11-21T04:00:00.000Z');
    expect((await s.call(await s.r.staffCookie(), 'POST', `/floorplan/bills/${bill.id}/payments`, { amount_cents: 100 })).statusCode).toBe(201);
    expect((await s.t.services.journal.verify(s.r.id)).verified).toBe(true);
  });
});
