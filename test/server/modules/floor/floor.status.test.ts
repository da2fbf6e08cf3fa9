import { describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { isUniqueViolation } from '../../../../server/db/errors.js';
import { FLOOR_STATUS_JOB } from '../../../../server/modules/floor/floor.jobs.js';
import { seedFloor, setupFloor, statuses, type FloorSetup } from './helpers.js';

const UNKNOWN = '0190a0a0-0000-7000-8000-000000000000';

async function setup() {
  return setupFloor(await createTestApp());
}

const order = (s: FloorSetup, tableId: string | undefined, cookie = s.staff) =>
  s.t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: { items: [{ product_id: s.menu.burger.id, quantity: 1 }, { product_id: s.menu.cola.id, quantity: 2 }], ...(tableId ? { table_id: tableId } : {}) } });
const advance = (s: FloorSetup, id: string, status: string) => s.t.req({ method: 'POST', url: `/api/v1/orders/${id}/advance`, cookie: s.staff, payload: { status } });
const patchOrder = (s: FloorSetup, id: string, payload: object) => s.t.req({ method: 'PATCH', url: `/api/v1/orders/${id}`, cookie: s.admin, payload });
const override = (s: FloorSetup, id: string, status: string | null, cookie = s.staff) =>
  s.t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${id}/status`, cookie, payload: { status } });
const announcements = async (t: TestApp, tenantId: string) =>
  (await t.changes.readSince(tenantId, 0, 10_000)).filter((c) => c.kind === 'table.status_changed').map((c) => {
    const p = c.payload as { name: string; status: string };
    return `${p.name}:${p.status}`;
  });

describe('live table status (CONTRACT §10): the status table', () => {
  it('free → order on the table → completed but unpaid → paid', async () => {
    const s = await setup();
    expect(await statuses(s.t, s.staff)).toEqual({ T1: 'vrij', T2: 'vrij', T3: 'vrij' });
    const res = await order(s, s.floor.t1.id);
    expect(res.statusCode).toBe(201);
    expect(res.json().table_id).toBe(s.floor.t1.id);
    expect(await statuses(s.t, s.staff)).toEqual({ T1: 'bezet', T2: 'vrij', T3: 'vrij' });
    const plan = (await s.t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: s.staff })).json();
    expect(plan.zones[0].tables[0].bill).toEqual({ id: expect.any(String), total_cents: 2050, open_cents: 2050 });
    // Served and done in the kitchen, not paid yet: still taken.
    expect((await advance(s, res.json().id, 'completed')).statusCode).toBe(200);
    expect((await statuses(s.t, s.staff)).T1).toBe('bezet');
    // Paid (at the counter): the bill is paid in full and closes; the table is free.
    expect((await patchOrder(s, res.json().id, { payment_status: 'paid' })).statusCode).toBe(200);
    expect(await statuses(s.t, s.staff)).toEqual({ T1: 'vrij', T2: 'vrij', T3: 'vrij' });
    const bill = await s.t.services.floor.getBill(s.r.id, plan.zones[0].tables[0].bill.id);
    expect(bill).toMatchObject({ status: 'closed', close_reason: 'paid', total_cents: 2050, paid_cents: 2050, open_cents: 0 });
    expect(await announcements(s.t, s.r.id)).toEqual(['T1:bezet', 'T1:vrij']);
  });

  it('paid while the kitchen is still busy: the bill closes, the table stays bezet until the order is done', async () => {
    const s = await setup();
    const o = (await order(s, s.floor.t2.id)).json();
    await patchOrder(s, o.id, { payment_status: 'paid' });
    expect((await s.t.services.floor.billForTable(s.r.id, 'T2', { byName: true })).bill_id).toBeNull();
    expect((await statuses(s.t, s.staff)).T2).toBe('bezet');
    await advance(s, o.id, 'ready');
    expect((await statuses(s.t, s.staff)).T2).toBe('bezet');
    await advance(s, o.id, 'completed');
    expect((await statuses(s.t, s.staff)).T2).toBe('vrij');
  });

  it('a reservation within the hour makes the table gereserveerd (also as time passes, through the minute job), seating makes it bezet', async () => {
    const t = await createTestApp();
    t.clock.set('2026-11-20T16:30:00Z'); // Friday 17:30 in Amsterdam
    const s = await setupFloor(t);
    const at = async (iso: string) => {
      s.t.clock.set(iso);
      s.staff = await s.r.staffCookie(); // a tablet logs in again after its session went idle
    };
    await s.t.services.reservations.bookStaff({ tenantId: s.r.id, userId: null }, { date: '2026-11-20', time: '18:00', party_size: 2, name: 'Jansen' });
    const late = await s.t.services.reservations.bookStaff({ tenantId: s.r.id, userId: null }, { date: '2026-11-20', time: '19:00', party_size: 5, name: 'De Wit' });
    expect(late.table_name).toBe('T3');
    let plan = (await s.t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: s.staff })).json();
    expect(plan.zones[0].tables[1]).toMatchObject({ name: 'T2', status: 'gereserveerd', reservation: { time: '18:00', name: 'Jansen', party_size: 2 } });
    expect((await statuses(s.t, s.staff)).T3).toBe('vrij'); // 90 minutes ahead
    // 18:05: De Wit's 19:00 booking is within the hour now. The minute job announces it.
    await at('2026-11-20T17:05:00Z');
    await s.t.app.scheduler.run(FLOOR_STATUS_JOB);
    expect(await statuses(s.t, s.staff)).toEqual({ T1: 'vrij', T2: 'gereserveerd', T3: 'gereserveerd' });
    // 18:20: Jansen did not come (15 minutes' grace are over): T2 is free again.
    await at('2026-11-20T17:20:00Z');
    await s.t.app.scheduler.run(FLOOR_STATUS_JOB);
    expect((await statuses(s.t, s.staff)).T2).toBe('vrij');
    // De Wit arrives early and is seated: taken.
    const seated = await s.t.req({ method: 'PATCH', url: `/api/v1/reservations/${late.id}`, cookie: s.staff, payload: { status: 'seated' } });
    expect(seated.statusCode).toBe(200);
    expect((await statuses(s.t, s.staff)).T3).toBe('bezet');
    expect(await announcements(s.t, s.r.id)).toEqual(['T2:gereserveerd', 'T3:gereserveerd', 'T2:vrij', 'T3:bezet']);
    // Nothing changed: the job writes nothing.
    const seq = await s.t.changes.lastSeq(s.r.id);
    await s.t.app.scheduler.run(FLOOR_STATUS_JOB);
    expect(await s.t.changes.lastSeq(s.r.id)).toBe(seq);
    plan = (await s.t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: s.staff })).json();
    expect(plan.zones[1].tables[0]).toMatchObject({ name: 'T3', status: 'bezet', reservation: null });
  });

  it('a manual status wins over the derived one until it is cleared (null)', async () => {
    const s = await setup();
    const set = await override(s, s.floor.t1.id, 'bezet');
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ name: 'T1', status: 'bezet', manual: true });
    expect((await statuses(s.t, s.staff)).T1).toBe('bezet');
    const cleared = await override(s, s.floor.t1.id, null);
    expect(cleared.json()).toMatchObject({ status: 'vrij', manual: false });
    // Staff mark an occupied table free by hand (e.g. guests moved to the bar): the manual status wins.
    await order(s, s.floor.t3.id);
    expect((await override(s, s.floor.t3.id, 'vrij')).json()).toMatchObject({ status: 'vrij', manual: true });
    expect((await override(s, s.floor.t3.id, null)).json()).toMatchObject({ status: 'bezet', manual: false });
    expect((await override(s, s.floor.t2.id, 'gereserveerd', s.admin)).json().status).toBe('gereserveerd');
    expect(await announcements(s.t, s.r.id)).toEqual(['T1:bezet', 'T1:vrij', 'T3:bezet', 'T3:vrij', 'T3:bezet', 'T2:gereserveerd']);
  });

  it('guests seated by hand (bezet) leave with their bill: the manual status clears when the bill closes', async () => {
    const s = await setup();
    await override(s, s.floor.t1.id, 'bezet');
    const o = (await order(s, s.floor.t1.id)).json();
    await advance(s, o.id, 'completed');
    await patchOrder(s, o.id, { payment_status: 'paid' });
    const plan = (await s.t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: s.staff })).json();
    expect(plan.zones[0].tables[0]).toMatchObject({ name: 'T1', status: 'vrij', manual: false });
  });

  it('a bad status, an unknown or foreign table, or no session changes nothing', async () => {
    const s = await setup();
    const other = await s.t.seedTenant();
    const theirs = await seedFloor(s.t, other.id);
    const bad = await override(s, s.floor.t1.id, 'druk');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toEqual({ field: 'status', error: "'status' moet een van deze waarden zijn: vrij, bezet, gereserveerd." });
    expect((await s.t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${s.floor.t1.id}/status`, cookie: s.staff, payload: {} })).json().details[0].field).toBe('status');
    for (const id of [UNKNOWN, theirs.t1.id]) {
      const res = await override(s, id, 'bezet');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Tafel niet gevonden.', code: 'NOT_FOUND' });
    }
    expect((await s.t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${s.floor.t1.id}/status`, payload: { status: 'bezet' } })).statusCode).toBe(401);
    expect(await statuses(s.t, s.staff)).toEqual({ T1: 'vrij', T2: 'vrij', T3: 'vrij' });
    expect(await statuses(s.t, await other.staffCookie())).toEqual({ T1: 'vrij', T2: 'vrij', T3: 'vrij' });
  });
});

describe('orders on tables', () => {
  it('an unknown, foreign or archived table_id is 404 and creates no order and no bill', async () => {
    const s = await setup();
    const other = await s.t.seedTenant();
    const theirs = await seedFloor(s.t, other.id);
    await s.t.services.floor.archiveTable(s.r.id, s.floor.t2.id);
    for (const id of [UNKNOWN, theirs.t1.id, s.floor.t2.id]) {
      const res = await order(s, id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Tafel niet gevonden.', code: 'NOT_FOUND' });
    }
    expect((await s.t.services.orders.list(s.r.id, {}, 50, 0)).total).toBe(0);
    expect(await s.t.handle.db.selectFrom('bills').selectAll().execute()).toEqual([]);
    // Without a table an order is just an order.
    expect((await order(s, undefined)).statusCode).toBe(201);
    expect(await statuses(s.t, s.staff)).toEqual({ T1: 'vrij', T3: 'vrij' });
  });

  it('two tablets starting the same free table at the same moment: one bill with both rounds', async () => {
    const s = await setup();
    const results = await Promise.all([order(s, s.floor.t1.id), order(s, s.floor.t1.id)]);
    expect(results.map((r) => r.statusCode)).toEqual([201, 201]);
    const bills = await s.t.handle.db.selectFrom('bills').selectAll().where('tenant_id', '=', s.r.id).execute();
    expect(bills).toHaveLength(1);
    const bill = await s.t.services.floor.tableBill(s.r.id, s.floor.t1.id);
    expect(bill.orders.map((o) => o.id).sort()).toEqual(results.map((r) => r.json().id).sort());
    expect(bill.total_cents).toBe(2 * 2050);
    // Eight at once, on another table: still one bill.
    const eight = await Promise.all(Array.from({ length: 8 }, () => order(s, s.floor.t3.id)));
    expect(eight.every((r) => r.statusCode === 201)).toBe(true);
    expect((await s.t.handle.db.selectFrom('bills').selectAll().where('table_id', '=', s.floor.t3.id).execute())).toHaveLength(1);
    expect((await s.t.services.floor.tableBill(s.r.id, s.floor.t3.id)).orders).toHaveLength(8);
  });

  it('the database itself refuses a second open bill for a table (unique index), on both engines', async () => {
    const s = await setup();
    await order(s, s.floor.t1.id);
    const open = (await s.t.handle.db.selectFrom('bills').selectAll().executeTakeFirstOrThrow());
    const second = { ...open, id: '0190a0a0-0000-7000-8000-00000000b111' };
    const err = await s.t.handle.db.insertInto('bills').values(second).execute().then(() => null, (e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    // A closed one beside it is fine (history).
    await s.t.handle.db.insertInto('bills').values({ ...second, status: 'closed', closed_at: open.opened_at, close_reason: 'staff' }).execute();
  });

  it('a round cancelled leaves the bill empty: it closes, the table is free', async () => {
    const s = await setup();
    const o = (await order(s, s.floor.t1.id)).json();
    expect((await patchOrder(s, o.id, { status: 'cancelled' })).statusCode).toBe(200);
    expect((await statuses(s.t, s.staff)).T1).toBe('vrij');
    const bill = (await s.t.handle.db.selectFrom('bills').selectAll().executeTakeFirstOrThrow());
    expect(bill).toMatchObject({ status: 'closed', close_reason: 'empty' });
  });
});

describe('bills (one per table; pay-at-table reads them)', () => {
  it('staff take partial payments, never more than is open; paid in full closes the bill and marks its orders paid', async () => {
    const s = await setup();
    const a = (await order(s, s.floor.t1.id)).json();
    s.t.clock.advance(1000);
    const b = (await order(s, s.floor.t1.id)).json();
    const res = await s.t.req({ method: 'GET', url: `/api/v1/floorplan/tables/${s.floor.t1.id}/bill`, cookie: s.staff });
    expect(res.statusCode).toBe(200);
    const bill = res.json();
    expect(bill).toMatchObject({ table_name: 'T1', status: 'open', total_cents: 4100, paid_cents: 0, open_cents: 4100, tip_cents: 0, merged_bills: [], conflict: null });
    expect(bill.orders.map((o: { id: string }) => o.id)).toEqual([a.id, b.id]);

    const pay = (payload: object, cookie = s.staff) => s.t.req({ method: 'POST', url: `/api/v1/floorplan/bills/${bill.id}/payments`, cookie, payload });
    const first = await pay({ amount_cents: 1500, tip_cents: 200 });
    expect(first.statusCode).toBe(201);
    expect(first.json().bill).toMatchObject({ status: 'open', paid_cents: 1500, open_cents: 2600, tip_cents: 200 });
    expect(first.json().payment).toMatchObject({ amount_cents: 1500, tip_cents: 200, source: 'staff' });
    const over = await pay({ amount_cents: 2601 });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({ error: 'Het bedrag (€ 26,01) is hoger dan wat nog openstaat (€ 26,00).', code: 'CONFLICT' });
    for (const [body, field] of [[{ amount_cents: 0 }, 'amount_cents'], [{ amount_cents: 10.5 }, 'amount_cents'], [{ amount_cents: 100, tip_cents: -1 }, 'tip_cents'], [{}, 'amount_cents']] as const) {
      const r = await pay(body);
      expect(r.statusCode).toBe(400);
      expect(r.json().details[0].field).toBe(field);
    }
    expect((await s.t.services.floor.getBill(s.r.id, bill.id)).paid_cents).toBe(1500);
    const rest = await pay({ amount_cents: 2600 });
    expect(rest.statusCode).toBe(201);
    expect(rest.json().bill).toMatchObject({ status: 'closed', close_reason: 'paid', paid_cents: 4100, open_cents: 0 });
    expect(rest.json().bill.orders.map((o: { payment_status: string }) => o.payment_status)).toEqual(['paid', 'paid']);
    expect((await pay({ amount_cents: 1 })).json()).toEqual({ error: 'Deze rekening is al gesloten.', code: 'CONFLICT' });
    // Paid, but the kitchen is still on it: bezet until both orders are done.
    expect((await statuses(s.t, s.staff)).T1).toBe('bezet');
    await advance(s, a.id, 'completed');
    await advance(s, b.id, 'completed');
    expect((await statuses(s.t, s.staff)).T1).toBe('vrij');
    expect((await s.t.req({ method: 'GET', url: `/api/v1/floorplan/tables/${s.floor.t1.id}/bill`, cookie: s.staff })).json()).toEqual({ error: 'Open rekening niet gevonden.', code: 'NOT_FOUND' });
  });

  it('staff close a bill by hand; other restaurants’ bills are 404; no session 401', async () => {
    const s = await setup();
    await order(s, s.floor.t2.id);
    const bill = await s.t.services.floor.tableBill(s.r.id, s.floor.t2.id);
    const other = await s.t.seedTenant();
    const otherCookie = await other.staffCookie();
    for (const [method, url, payload] of [
      ['GET', `/api/v1/floorplan/bills/${bill.id}`, undefined],
      ['POST', `/api/v1/floorplan/bills/${bill.id}/close`, undefined],
      ['POST', `/api/v1/floorplan/bills/${bill.id}/payments`, { amount_cents: 100 }],
      ['GET', `/api/v1/floorplan/tables/${s.floor.t2.id}/bill`, undefined],
    ] as const) {
      const res = await s.t.req({ method, url, cookie: otherCookie, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect((await s.t.req({ method, url, ...(payload ? { payload } : {}) })).statusCode).toBe(401);
    }
    expect((await s.t.services.floor.getBill(s.r.id, bill.id)).status).toBe('open');
    const closed = await s.t.req({ method: 'POST', url: `/api/v1/floorplan/bills/${bill.id}/close`, cookie: s.staff });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'closed', close_reason: 'staff', open_cents: 2050 });
    expect((await s.t.req({ method: 'POST', url: `/api/v1/floorplan/bills/${bill.id}/close`, cookie: s.staff })).statusCode).toBe(409);
    // The order itself is still active in the kitchen: the table is bezet until it is done.
    expect((await statuses(s.t, s.staff)).T2).toBe('bezet');
  });

  it('billForTable and recordBillPayment, the services pay-at-table (issue 12) calls', async () => {
    const s = await setup();
    const { floor } = s.t.services;
    await expect(floor.billForTable(s.r.id, 'T99', { byName: true })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Tafel niet gevonden.' });
    expect(await floor.billForTable(s.r.id, 't1', { byName: true })).toEqual({ table: { id: s.floor.t1.id, name: 'T1' }, orders: [], total_cents: 0, paid_cents: 0, open_cents: 0, bill_id: null });
    const o = (await order(s, s.floor.t1.id)).json();
    const cancelled = (await order(s, s.floor.t1.id)).json();
    await patchOrder(s, cancelled.id, { status: 'cancelled' });
    const view = await floor.billForTable(s.r.id, 'T1', { byName: true });
    expect(view).toMatchObject({ table: { name: 'T1' }, total_cents: 2050, paid_cents: 0, open_cents: 2050, bill_id: expect.any(String) });
    expect(view.orders.map((x) => x.id)).toEqual([o.id]);

    const pay = (amount: number, paymentId: string) =>
      s.t.changes.write(s.r.id, (w) => floor.recordBillPayment(w, { tenantId: s.r.id, billId: view.bill_id!, amount_cents: amount, tip_cents: 100, payment_id: paymentId }));
    s.t.clock.advance(1000);
    const first = await pay(1000, 'tr_1');
    expect(first).toMatchObject({ closed: false, duplicate: false, paid_cents: 1000, open_cents: 1050, tip_cents: 100, paid_order_ids: [] });
    // The provider's callback repeated: nothing twice.
    expect(await pay(1000, 'tr_1')).toMatchObject({ duplicate: true, paid_cents: 1000 });
    await expect(pay(1051, 'tr_2')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(s.t.changes.write(s.r.id, (w) => floor.recordBillPayment(w, { tenantId: s.r.id, billId: UNKNOWN, amount_cents: 1 }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    s.t.clock.advance(1000);
    const last = await pay(1050, 'tr_3');
    expect(last).toMatchObject({ closed: true, paid_cents: 2050, open_cents: 0, tip_cents: 200, paid_order_ids: [o.id] });
    expect((await floor.getBill(s.r.id, view.bill_id!)).payments.map((p) => [p.payment_id, p.amount_cents])).toEqual([['tr_1', 1000], ['tr_3', 1050]]);
    const kinds = (await s.t.changes.readSince(s.r.id, 0, 1000)).filter((c) => c.entity === 'bill').map((c) => c.kind);
    expect(kinds).toEqual(['bill.opened', 'bill.round_added', 'bill.round_added', 'bill.payment_recorded', 'bill.payment_recorded', 'bill.closed']);
  });
});

describe('table status over the socket', () => {
  it('every status change reaches the tenant’s tablets the moment it commits, and no other tenant’s', async () => {
    const s = await setup();
    await s.t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = s.t.app.server.address() as { port: number };
    const url = `http://127.0.0.1:${addr.port}`;
    const other = await s.t.seedTenant();
    const got: Array<{ name: string; status: string; manual: boolean; seq: number }> = [];
    const foreign: unknown[] = [];
    const layout: string[] = [];
    const tablet = (cookie: string) => {
      const socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
      const ready = new Promise((resolve, reject) => (socket.on('hello', resolve), socket.on('connect_error', reject)));
      return { socket, ready };
    };
    const otherCookie = await other.staffCookie();
    const [a, b] = [tablet(s.staff), tablet(otherCookie)];
    const [mine, theirs] = [a.socket, b.socket];
    mine.on('table:status', (e) => got.push(e));
    mine.on('floorplan:changed', (e: { kind: string }) => layout.push(e.kind));
    theirs.on('table:status', (e) => foreign.push(e));
    await Promise.all([a.ready, b.ready]);
    try {
      const o = (await order(s, s.floor.t1.id)).json();
      await override(s, s.floor.t2.id, 'gereserveerd');
      await advance(s, o.id, 'completed');
      await patchOrder(s, o.id, { payment_status: 'paid' });
      await s.t.req({ method: 'PATCH', url: '/api/v1/floorplan/tables/positions', cookie: s.staff, payload: { tables: [{ id: s.floor.t3.id, x: 1, y: 2 }] } });
      const until = Date.now() + 3000;
      while ((got.length < 3 || layout.length < 2) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(got.map((e) => [e.name, e.status, e.manual])).toEqual([['T1', 'bezet', false], ['T2', 'gereserveerd', true], ['T1', 'vrij', false]]);
      expect(got[0]).toMatchObject({ table_id: s.floor.t1.id, zone_id: s.floor.binnen.id, from: 'vrij', seq: expect.any(Number) });
      expect(got.map((e) => e.seq)).toEqual([...got.map((e) => e.seq)].sort((a, b) => a - b));
      expect(layout).toEqual(['table.updated', 'table.updated']); // the manual status, the move
      expect(foreign).toEqual([]);
    } finally {
      mine.close();
      theirs.close();
    }
  });
});
