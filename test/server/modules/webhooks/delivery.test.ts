import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { createRuntime, type Runtime } from '../../../../server/runtime.js';
import { ManualClock } from '../../../../server/shared/clock.js';
import { newId } from '../../../../server/shared/ids.js';
import { DeliveryWorker, type Timers } from '../../../../server/modules/webhooks/webhooks.delivery.js';
import { webhooksRepository } from '../../../../server/modules/webhooks/webhooks.repository.js';
import { ATTEMPT_TIMEOUT_MS } from '../../../../server/modules/webhooks/webhooks.schemas.js';
import { PRUNE_JOB } from '../../../../server/modules/webhooks/webhooks.jobs.js';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import { freshDb, lane } from '../../../helpers/db.js';
import { orderBody, seedMenu, type SeededMenu } from '../../../helpers/factories.js';
import { runDeliveryJob, settle, startReceiver, until, verifies, type Receiver } from './receiver.js';

/**
 * Delivery of outgoing webhooks (CONTRACT §12) against real HTTP receivers on 127.0.0.1: signature,
 * stable delivery id, retry timing on a ManualClock, restart safety, one sender, redelivery.
 */

interface Setup {
  t: TestApp;
  r: SeededTenant;
  menu: SeededMenu;
  admin: string;
  staff: string;
  rx: Receiver;
}

async function setup(opts: Parameters<typeof createTestApp>[0] = {}): Promise<Setup> {
  const t = await createTestApp(opts);
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  return { t, r, menu, admin: await r.adminCookie(), staff: await r.staffCookie(), rx: await startReceiver() };
}

async function subscribe(s: Pick<Setup, 't' | 'admin'>, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await s.t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: s.admin, payload: { url, events } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function newOrder(s: Pick<Setup, 't' | 'staff' | 'menu'>): Promise<{ id: string; number: string }> {
  const res = await s.t.req({ method: 'POST', url: '/api/v1/orders', cookie: s.staff, payload: orderBody(s.menu) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function deliveries(s: Pick<Setup, 't' | 'admin'>, webhookId: string, query = ''): Promise<any[]> {
  const res = await s.t.req({ method: 'GET', url: `/api/v1/webhooks/${webhookId}/deliveries${query}`, cookie: s.admin });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** Moves the ManualClock and runs the delivery job once, as the scheduler would. */
async function at(s: Pick<Setup, 't'>, advanceMs: number): Promise<void> {
  s.t.clock.advance(advanceMs);
  await runDeliveryJob(s.t);
  await settle(s.t);
}

describe('webhook delivery (CONTRACT §12)', () => {
  it('POSTs { id, type, created_at, tenant, data } signed over the exact body bytes; the receiver verifies the raw body', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created', 'order.status_changed']);
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const order = await newOrder(s);
    await settle(s.t);
    expect(s.rx.requests).toHaveLength(1);
    const got = s.rx.requests[0]!;
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(got.headers['x-service-event']).toBe('order.created');
    expect(verifies(hook.secret, got.raw, got.headers['x-service-signature'])).toBe(true);
    // One changed byte, or another secret, and it no longer verifies.
    expect(verifies(hook.secret, Buffer.concat([got.raw, Buffer.from(' ')]), got.headers['x-service-signature'])).toBe(false);
    expect(verifies(`whsec_${'0'.repeat(64)}`, got.raw, got.headers['x-service-signature'])).toBe(false);
    expect(got.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'order.created',
      created_at: s.t.clock.now().toISOString(),
      tenant: { id: s.r.id, slug: s.r.slug },
      data: { order: expect.objectContaining({ id: order.id, number: order.number, status: 'new', total_cents: 2240 }) },
    });
    // Sync and idempotency internals stay home.
    expect(got.raw.toString()).not.toMatch(/request_hash|idempotency_key|"history"|business_day/);

    const moved = await s.t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: s.admin, payload: { status: 'accepted' } });
    expect(moved.statusCode).toBe(200);
    await settle(s.t);
    expect(s.rx.requests).toHaveLength(2);
    const change = s.rx.requests[1]!;
    expect(change.body.type).toBe('order.status_changed');
    expect(change.body.data).toEqual({ order: expect.objectContaining({ id: order.id, status: 'accepted' }), from: 'new', to: 'accepted' });
    expect(change.headers['x-service-delivery']).not.toBe(got.headers['x-service-delivery']);
    expect(verifies(hook.secret, change.raw, change.headers['x-service-signature'])).toBe(true);

    const list = await deliveries(s, hook.id);
    expect(list.map((d) => [d.event_type, d.status, d.attempts, d.last_status_code])).toEqual([
      ['order.status_changed', 'delivered', 1, 200],
      ['order.created', 'delivered', 1, 200],
    ]);
    expect(list[1].id).toBe(got.headers['x-service-delivery']);
    expect(list[1].event).toEqual(got.body);
    expect(list[1].event_id).toBe(got.body.id);
  });

  it('reservation.created, haccp.incident and loyalty.customer_created carry the record, without internals', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['reservation.created', 'haccp.incident', 'loyalty.customer_created']);
    const zone = await s.t.services.floor.createZone(s.r.id, { name: 'Zaal' });
    await s.t.services.floor.createTable(s.r.id, { zone_id: zone.id, name: 'T1', seats: 4, x: 0, y: 0 });
    const booked = await s.t.req({ method: 'POST', url: `/api/v1/public/reservations/${s.r.slug}`, payload: { date: '2026-11-21', time: '18:00', party_size: 2, name: 'Jansen', phone: '0612345678' } });
    expect(booked.statusCode, booked.body).toBe(201);
    const customer = await s.t.req({ method: 'POST', url: '/api/v1/loyalty/customer', cookie: s.staff, payload: { phone: '06 87654321', name: 'De Vries' } });
    expect(customer.statusCode, customer.body).toBe(201);
    const temp = await s.t.req({ method: 'POST', url: '/api/v1/haccp/temperature', cookie: s.staff, payload: { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 12, target_max: 7 } });
    expect(temp.statusCode, temp.body).toBe(201);
    expect(temp.json().status).toBe('kritiek');
    await settle(s.t);
    const byType = Object.fromEntries(s.rx.requests.map((q) => [q.body.type, q.body]));
    expect(Object.keys(byType).sort()).toEqual(['haccp.incident', 'loyalty.customer_created', 'reservation.created']);
    expect(byType['reservation.created']!.data).toEqual({
      reservation: expect.objectContaining({ date: '2026-11-21', time: '18:00', party_size: 2, name: 'Jansen', status: 'booked', source: 'web' }),
    });
    expect(Object.keys(byType['reservation.created']!.data.reservation)).not.toContain('tenant_id');
    expect(Object.keys(byType['reservation.created']!.data.reservation)).not.toContain('created_by');
    expect(byType['loyalty.customer_created']!.data).toEqual({ customer: { id: customer.json().id, phone: '+31687654321', name: 'De Vries', email: null, created_at: expect.any(String) } });
    expect(byType['haccp.incident']!.data.incident).toMatchObject({ id: temp.json().incident_id });
    for (const q of s.rx.requests) expect(verifies(hook.secret, q.raw, q.headers['x-service-signature'])).toBe(true);
  });

  it('retries after 1 s, 4 s and 16 s with the same delivery id and bytes, then marks the delivery failed', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    s.rx.answer = 500;
    const t0 = s.t.clock.now().getTime();
    await newOrder(s);
    await settle(s.t);
    expect(s.rx.requests).toHaveLength(1);
    let [d] = await deliveries(s, hook.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'De ontvanger antwoordde 500.', next_attempt_at: new Date(t0 + 1000).toISOString() });

    // Not a moment early: 999 ms later nothing is sent, at 1 s the second attempt goes.
    await at(s, 999);
    expect(s.rx.requests).toHaveLength(1);
    await at(s, 1);
    expect(s.rx.requests).toHaveLength(2);
    await at(s, 3_999);
    expect(s.rx.requests).toHaveLength(2);
    await at(s, 1);
    expect(s.rx.requests).toHaveLength(3);
    await at(s, 15_999);
    expect(s.rx.requests).toHaveLength(3);
    await at(s, 1);
    expect(s.rx.requests).toHaveLength(4);
    [d] = await deliveries(s, hook.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 4, next_attempt_at: null, last_status_code: 500, delivered_at: null });
    // Failed is final: ten minutes later nothing more is sent.
    await at(s, 600_000);
    expect(s.rx.requests).toHaveLength(4);

    const ids = new Set(s.rx.requests.map((q) => q.headers['x-service-delivery']));
    expect([...ids]).toEqual([d.id]);
    expect(new Set(s.rx.requests.map((q) => q.raw.toString('base64'))).size).toBe(1);
    expect(s.rx.requests.map((q) => q.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4']);
    for (const q of s.rx.requests) expect(verifies(hook.secret, q.raw, q.headers['x-service-signature'])).toBe(true);
    expect(await deliveries(s, hook.id, '?status=failed')).toHaveLength(1);
    expect(await deliveries(s, hook.id, '?status=delivered')).toHaveLength(0);
  });

  it('the worker wakes itself at each due time through the injected timers (1 s, 4 s, 16 s, then only its poll)', async () => {
    const s = await setup();
    await subscribe(s, s.rx.url, ['order.created']);
    s.rx.answer = 503;
    await newOrder(s);
    await settle(s.t); // the app's own worker made the first attempt
    expect(s.rx.requests).toHaveLength(1);

    const set: Array<{ fn: () => void; ms: number }> = [];
    const timers: Timers = { set: (fn, ms) => set.push({ fn, ms }), clear: () => {} };
    const worker = new DeliveryWorker({
      db: s.t.handle.db,
      dialect: s.t.handle.dialect,
      clock: s.t.clock,
      timers,
      pollMs: 60_000,
      send: (d, hook) => s.t.services.webhooks.sendOnce(d, hook),
    });
    onTestFinished(() => worker.close());
    worker.start();
    await worker.idle();
    expect(set.at(-1)!.ms).toBe(1_000);
    for (const wait of [4_000, 16_000]) {
      s.t.clock.advance(set.at(-1)!.ms);
      set.at(-1)!.fn();
      await worker.idle();
      expect(set.at(-1)!.ms).toBe(wait);
    }
    s.t.clock.advance(16_000);
    set.at(-1)!.fn();
    await worker.idle();
    expect(s.rx.requests).toHaveLength(4);
    expect(set.at(-1)!.ms).toBe(60_000); // nothing pending: only the poll
  });

  it('between reads of the whole queue a claim reads from the last claimed delivery on; one queued behind it (an earlier clock) goes at the next whole read, never in a busy loop', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    const queue = async (at: number): Promise<string> => {
      const id = newId();
      const when = new Date(at).toISOString();
      await s.t.handle.db
        .insertInto('webhook_deliveries')
        .values({ id, tenant_id: s.r.id, webhook_id: hook.id, event_id: newId(), event_key: id, event_type: 'order.created', body: JSON.stringify({ id }), status: 'pending', attempts: 0, next_attempt_at: when, created_at: when, updated_at: when })
        .execute();
      return id;
    };
    const set: Array<{ fn: () => void; ms: number }> = [];
    const timers: Timers = { set: (fn, ms) => set.push({ fn, ms }), clear: () => {} };
    const worker = new DeliveryWorker({ db: s.t.handle.db, dialect: s.t.handle.dialect, clock: s.t.clock, timers, fullScanMs: 5_000, send: (d, h) => s.t.services.webhooks.sendOnce(d, h) });
    onTestFinished(() => worker.close());
    const sent = () => s.rx.requests.map((q) => String(q.headers['x-service-delivery']));
    const t0 = s.t.clock.now().getTime();
    const a = await queue(t0);
    worker.start(); // the first claim reads the whole queue
    await worker.idle();
    expect(sent()).toEqual([a]);
    s.t.clock.advance(10);
    const behind = await queue(t0 - 1_000); // another node's clock, a second behind, committed just now
    const c = await queue(t0 + 10);
    worker.kick(false); // as the change-log consumer wakes it: new rows at the queue's end
    await worker.idle();
    expect(sent()).toEqual([a, c]);
    // Due, but behind the cursor: the wake-up waits for the next read of the whole queue (5 s after the last), not 0 ms.
    expect(set.at(-1)!.ms).toBe(5_000 - 10);
    s.t.clock.advance(set.at(-1)!.ms);
    set.at(-1)!.fn();
    await worker.idle();
    expect(sent()).toEqual([a, c, behind]);
    const rows = await s.t.handle.db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts']).where('webhook_id', '=', hook.id).execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
    expect(rows).toHaveLength(3);
  });

  it('an attempt without an answer ends at the timeout (10 s by default) and counts as a failed attempt', async () => {
    const s = await setup();
    expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
    expect(s.t.services.webhooks.net.timeoutMs).toBe(10_000);
    s.t.services.webhooks.net.timeoutMs = 300; // the same code path, without waiting 10 s
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    s.rx.answer = 'hang';
    const started = Date.now();
    await newOrder(s);
    await settle(s.t);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(s.rx.requests).toHaveLength(1);
    const [d] = await deliveries(s, hook.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'Geen antwoord binnen 300 ms.' });
    s.rx.answer = 200;
    await at(s, 1_000);
    expect((await deliveries(s, hook.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('closing the worker (shutdown) ends an attempt in flight at once: the delivery goes back to the queue uncounted and is sent later with the same id', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    s.rx.answer = 'hang';
    await newOrder(s);
    await until(() => s.rx.requests.length === 1, 5000, 'the attempt in flight');
    const started = Date.now();
    await s.t.services.webhooks.worker.close();
    // Well under the 10 s attempt timeout the close used to wait for.
    expect(Date.now() - started).toBeLessThan(1_000);
    const row = await s.t.handle.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 0, lock_token: null, locked_until: null });

    // The next node (or this one after its restart) sends it: the same delivery id the receiver saw.
    s.rx.answer = 200;
    const next = new DeliveryWorker({ db: s.t.handle.db, dialect: s.t.handle.dialect, clock: s.t.clock, send: (d, h, signal) => s.t.services.webhooks.sendOnce(d, h, signal) });
    onTestFinished(() => next.close());
    expect(await next.runDue()).toBe(1);
    expect(s.rx.requests.map((q) => q.headers['x-service-delivery'])).toEqual([row.id, row.id]);
    expect((await deliveries(s, hook.id))[0]).toMatchObject({ id: row.id, status: 'delivered', attempts: 1 });
  });

  it('finished deliveries are kept 30 days after their last attempt, then the nightly job deletes them; pending ones stay', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    await newOrder(s);
    await newOrder(s);
    await settle(s.t);
    const [old, waiting] = await deliveries(s, hook.id);
    expect([old.status, waiting.status]).toEqual(['delivered', 'delivered']);
    // One of the old ones still pending (e.g. a receiver that was down for weeks, retried by hand): never pruned.
    await webhooksRepository.updateDelivery(s.t.handle.db, waiting.id, { status: 'pending', next_attempt_at: '2999-01-01T00:00:00.000Z' });
    s.t.clock.advance(20 * 86_400_000);
    // Sessions do not last 20 days: log in again.
    const again = async () => Object.assign(s, { staff: await s.r.staffCookie(), admin: await s.r.adminCookie() });
    await again();
    await newOrder(s);
    await settle(s.t);
    const recent = (await deliveries(s, hook.id)).find((d) => d.id !== old.id && d.id !== waiting.id)!;
    expect(recent.status).toBe('delivered');
    // 29 days after the first two: nothing is old enough yet.
    s.t.clock.advance(9 * 86_400_000);
    await again();
    await s.t.app.scheduler.run(PRUNE_JOB);
    expect(await deliveries(s, hook.id)).toHaveLength(3);
    // 31 days after: the old delivered one goes; the pending one and the 11-day-old one stay.
    s.t.clock.advance(2 * 86_400_000);
    await again();
    await s.t.app.scheduler.run(PRUNE_JOB);
    expect((await deliveries(s, hook.id)).map((d) => d.id).sort()).toEqual([waiting.id, recent.id].sort());
    expect(await s.t.services.webhooks.pruneDeliveries()).toBe(0);
  });

  it('a refused connection is a failed attempt with a plain reason', async () => {
    const s = await setup();
    const dead = await startReceiver();
    await dead.close();
    const hook = await subscribe(s, dead.url, ['order.created']);
    await newOrder(s);
    await settle(s.t);
    expect((await deliveries(s, hook.id))[0]).toMatchObject({ status: 'pending', attempts: 1, last_error: 'De verbinding werd geweigerd.' });
  });

  it('deliveries to one receiver reuse a kept-alive connection; one the receiver drops as a request arrives is sent again at once, as the same attempt', async () => {
    const s = await setup();
    // A receiver that keeps connections alive, counts them, and drops its first connection, unanswered,
    // when a second request arrives on it (a server closing an idle connection just as it is reused).
    const http = await import('node:http');
    const handled: Array<{ id: string; attempt: string; connection: number }> = [];
    let connections = 0;
    const server = http.createServer();
    const numbers = new WeakMap<object, { n: number; requests: number }>();
    server.on('connection', (socket) => numbers.set(socket, { n: ++connections, requests: 0 }));
    server.on('request', (req, res) => {
      const socket = numbers.get(req.socket)!;
      socket.requests += 1;
      if (socket.n === 1 && socket.requests === 2) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => {
        handled.push({ id: String(req.headers['x-service-delivery']), attempt: String(req.headers['x-service-attempt']), connection: socket.n });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const hook = await subscribe(s, url, ['order.created']);
    for (let i = 0; i < 4; i++) await newOrder(s);
    await settle(s.t);
    await until(async () => (await deliveries(s, hook.id)).every((d) => d.status === 'delivered'), 5000, 'every delivery delivered');
    const rows = await deliveries(s, hook.id);
    expect(rows).toHaveLength(4);
    // Each delivery reached the receiver exactly once, on its first attempt (the dropped request was never handled).
    expect(handled.map((h) => h.id).sort()).toEqual(rows.map((d) => d.id).sort());
    expect(handled.every((h) => h.attempt === '1')).toBe(true);
    expect(rows.every((d) => d.attempts === 1)).toBe(true);
    // Kept alive: the first connection carried one delivery and was dropped with the second on it; that
    // one went again at once on a connection of its own; the rest share one kept-alive connection.
    expect(handled.map((h) => h.connection)).toEqual([1, 2, 3, 3]);
    expect(connections).toBe(3);
  });

  it('an admin sends a failed delivery again: same id and bytes, fresh attempts; a delivered one is 409', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    s.rx.answer = 500;
    await newOrder(s);
    await settle(s.t);
    for (const wait of [1_000, 4_000, 16_000]) await at(s, wait);
    const [failed] = await deliveries(s, hook.id, '?status=failed');
    expect(failed.attempts).toBe(4);

    s.rx.answer = 200;
    const url = `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`;
    // Staff may not, another restaurant cannot even see it.
    expect((await s.t.req({ method: 'POST', url, cookie: s.staff })).statusCode).toBe(403);
    const other = await s.t.seedTenant();
    const otherAdmin = await other.adminCookie();
    expect((await s.t.req({ method: 'POST', url, cookie: otherAdmin })).json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await s.t.req({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/deliveries/0190a0a0-0000-7000-8000-000000000000/redeliver`, cookie: s.admin })).statusCode).toBe(404);
    expect(s.rx.requests).toHaveLength(4);

    const res = await s.t.req({ method: 'POST', url, cookie: s.admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: failed.id, status: 'pending', attempts: 0 });
    await settle(s.t);
    expect(s.rx.requests).toHaveLength(5);
    expect(s.rx.requests[4]!.headers['x-service-delivery']).toBe(failed.id);
    expect(s.rx.requests[4]!.raw.equals(s.rx.requests[0]!.raw)).toBe(true);
    expect((await deliveries(s, hook.id))[0]).toMatchObject({ id: failed.id, status: 'delivered', attempts: 1 });

    const again = await s.t.req({ method: 'POST', url, cookie: s.admin });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', error: 'Deze levering is al afgeleverd; de ontvanger heeft haar geaccepteerd.' });
    await settle(s.t);
    expect(s.rx.requests).toHaveLength(5);
  });

  it('deliveries are queued narrow (no body stored; made from the change log when sent and listed); a stored body is sent as stored; a row without its change-log row fails', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created', 'order.status_changed']);
    s.rx.answer = 500;
    const order = await newOrder(s);
    const moved = await s.t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: s.admin, payload: { status: 'accepted' } });
    expect(moved.statusCode).toBe(200);
    await settle(s.t);
    const rows = await s.t.handle.db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'event_type', 'body']).where('webhook_id', '=', hook.id).execute();
    expect(rows.map((r) => r.body)).toEqual(['', '']);
    const first = new Map(s.rx.requests.map((q) => [String(q.headers['x-service-delivery']), q.raw.toString('utf8')]));
    expect(first.size).toBe(2);
    // The admin's list shows the body that was sent.
    for (const d of await deliveries(s, hook.id)) expect(d.event).toEqual(JSON.parse(first.get(d.id)!));

    // A row with a body of its own (queued by an older release) is sent as stored.
    const created = rows.find((r) => r.event_type === 'order.created')!;
    const stored = first.get(created.id)!.replace('"status":"new"', '"status":"new","stored":true');
    await s.t.handle.db.updateTable('webhook_deliveries').set({ body: stored }).where('id', '=', created.id).execute();
    // A row whose change-log row is gone is failed, not sent with another body.
    const changed = rows.find((r) => r.event_type === 'order.status_changed')!;
    await s.t.handle.db.deleteFrom('change_log').where('op_id', '=', changed.event_id).execute();
    s.rx.answer = 200;
    await at(s, 1_000);
    const second = s.rx.requests.slice(2);
    expect(second.map((q) => q.headers['x-service-delivery'])).toEqual([created.id]);
    expect(second[0]!.raw.toString('utf8')).toBe(stored);
    expect(verifies(hook.secret, second[0]!.raw, second[0]!.headers['x-service-signature'])).toBe(true);
    const after = new Map((await deliveries(s, hook.id)).map((d) => [d.id, d]));
    expect(after.get(created.id)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(after.get(changed.id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'De gebeurtenis staat niet meer in het wijzigingslogboek.' });
  });

  it('only subscribed events are sent, only events after the subscription, and a deleted webhook gets nothing more', async () => {
    const s = await setup();
    const before = await newOrder(s); // before any webhook: never sent
    const paidOnly = await subscribe(s, s.rx.url, ['order.paid']);
    const other = await startReceiver();
    const createdOnly = await subscribe(s, other.url, ['order.created']);
    other.answer = 500;
    const o = await newOrder(s);
    await s.t.req({ method: 'PATCH', url: `/api/v1/orders/${o.id}`, cookie: s.admin, payload: { status: 'accepted' } });
    await s.t.req({ method: 'PATCH', url: `/api/v1/orders/${o.id}`, cookie: s.admin, payload: { payment_status: 'paid' } });
    await settle(s.t);
    expect(s.rx.requests.map((q) => [q.body.type, q.body.data.order.id])).toEqual([['order.paid', o.id]]);
    expect(s.rx.requests[0]!.body.data.payment).toBeDefined();
    expect(JSON.stringify(s.rx.requests[0]!.body.data.payment)).not.toMatch(/"by"|"via"/);
    expect(other.requests.map((q) => [q.body.type, q.body.data.order.id])).toEqual([['order.created', o.id]]);
    expect(other.requests.some((q) => q.body.data.order.id === before.id)).toBe(false);

    // Deleted while its retry is pending: the retry is not sent.
    expect((await s.t.req({ method: 'DELETE', url: `/api/v1/webhooks/${createdOnly.id}`, cookie: s.admin })).statusCode).toBe(204);
    await at(s, 1_000);
    await newOrder(s);
    await settle(s.t);
    await at(s, 60_000);
    expect(other.requests).toHaveLength(1);
    const rows = await s.t.handle.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', createdOnly.id).execute();
    expect(rows.map((d) => [d.status, d.last_error])).toEqual([['failed', 'De webhook is verwijderd.']]);
    expect(paidOnly.id).toBeDefined();
  });

  it('a restart during the retries loses nothing and duplicates nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-restart-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const testDb = await freshDb(lane === 'sqlite' ? { sqliteFile: path.join(dir, 'db.sqlite') } : {});
    onTestFinished(() => testDb.drop());
    const clock = new ManualClock();
    const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: dir });
    const boot = async (handle = testDb.reopen()): Promise<Runtime> => {
      const rt = await createRuntime(config, { clock, handle });
      onTestFinished(() => rt.close());
      return rt;
    };
    const rt1 = await boot(testDb.handle);
    const { tenant } = await rt1.services.tenants.create({ slug: 'herstart', name: 'Herstart', admin_email: 'a@herstart.test', admin_password: 'geheim-wachtwoord-1' });
    const friet = await rt1.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
    const rx = await startReceiver();
    rx.answer = 500;
    const hook = await rt1.services.webhooks.create(tenant.id, { url: rx.url, events: ['order.created'] }, null);
    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    await rt1.services.orders.create(actor, { items: [{ product_id: friet.id, quantity: 1 }] });
    await settle(rt1);
    clock.advance(1_000);
    await rt1.app.scheduler.run('webhooks-deliver');
    await settle(rt1);
    expect(rx.requests).toHaveLength(2);
    // A second order whose first attempt is due but not yet made when the node stops.
    await rt1.services.orders.create(actor, { items: [{ product_id: friet.id, quantity: 2 }] });
    await settle(rt1);
    expect(rx.requests).toHaveLength(3);
    await rt1.close();

    rx.answer = 200;
    const rt2 = await boot();
    clock.advance(4_000);
    await rt2.app.scheduler.run('webhooks-deliver');
    await settle(rt2);
    const rows = await rt2.handle.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).orderBy('created_at').orderBy('id').execute();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['delivered', 3],
      ['delivered', 2],
    ]);
    const perDelivery = new Map<string, number>();
    for (const q of rx.requests) perDelivery.set(String(q.headers['x-service-delivery']), (perDelivery.get(String(q.headers['x-service-delivery'])) ?? 0) + 1);
    expect(Object.fromEntries(perDelivery)).toEqual({ [rows[0]!.id]: 3, [rows[1]!.id]: 2 });
    // The restarted consumer did not queue the old events again.
    expect(await rt2.app.consumers.position('webhooks', tenant.id)).toBe(await rt2.changes.lastSeq(tenant.id));
    await rt2.app.scheduler.run('webhooks-deliver');
    await settle(rt2);
    expect(rx.requests).toHaveLength(5);
  });

  it('a delivery claimed by a node that died mid-send is sent again only after its claim expires, with the same id', async () => {
    const s = await setup();
    const hook = await subscribe(s, s.rx.url, ['order.created']);
    s.rx.answer = 500;
    await newOrder(s);
    await settle(s.t);
    // Another node claims the retry and dies before recording anything.
    s.t.clock.advance(1_000);
    const claimed = await webhooksRepository.claimDue(s.t.handle.db, s.t.handle.dialect, s.t.clock.now().toISOString(), 60_000, 'dead-node', 10);
    expect(claimed).toHaveLength(1);
    // The claim runs on the database's clock: whatever this node's clock says, it holds for 60 s.
    await at(s, 0);
    await at(s, 600_000);
    expect(s.rx.requests).toHaveLength(1);
    const lease = await s.t.handle.db.selectFrom('webhook_deliveries').select(['locked_until', 'lock_token']).where('id', '=', claimed[0]!.id).executeTakeFirstOrThrow();
    expect(lease.lock_token).toBe('dead-node');
    const left = new Date(lease.locked_until!).getTime() - Date.now();
    expect(left).toBeGreaterThan(50_000);
    expect(left).toBeLessThanOrEqual(60_000);
    // A minute later (moved back here, rather than waited for) the claim has run out: sent again.
    await s.t.handle.db.updateTable('webhook_deliveries').set({ locked_until: new Date(Date.now() - 1000).toISOString() }).where('id', '=', claimed[0]!.id).execute();
    s.rx.answer = 200;
    await at(s, 0);
    expect(s.rx.requests).toHaveLength(2);
    expect(s.rx.requests[1]!.headers['x-service-delivery']).toBe(claimed[0]!.id);
    expect((await deliveries(s, hook.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    // The dead node's late write cannot overwrite the outcome.
    expect(await webhooksRepository.finish(s.t.handle.db, claimed[0]!.id, 'dead-node', { status: 'failed' })).toBe(false);
  });

  it('two workers on one database never send a delivery twice', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-two-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const testDb = await freshDb(lane === 'sqlite' ? { sqliteFile: path.join(dir, 'db.sqlite') } : {});
    onTestFinished(() => testDb.drop());
    const clock = new ManualClock();
    const t = await createRuntime(loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: dir }), { clock, handle: testDb.handle });
    onTestFinished(() => t.close());
    const { tenant } = await t.services.tenants.create({ slug: 'twee', name: 'Twee', admin_email: 'a@twee.test', admin_password: 'geheim-wachtwoord-1' });
    const friet = await t.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
    const rx = await startReceiver();
    rx.answer = 500;
    await t.services.webhooks.create(tenant.id, { url: rx.url, events: ['order.created', 'order.status_changed'] }, null);
    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    for (let i = 0; i < 15; i++) {
      const { order } = await t.services.orders.create(actor, { items: [{ product_id: friet.id, quantity: 1 + i }] });
      await t.services.orders.setStatus(actor, order.id, 'accepted');
    }
    await settle(t);
    expect(rx.requests).toHaveLength(30); // every first attempt, by the app's own worker
    // Two more workers, each on its own connection (two nodes), racing for the retries.
    const other = testDb.reopen();
    onTestFinished(() => other.close());
    const workers = [t.handle, other].map(
      (h) => new DeliveryWorker({ db: h.db, dialect: h.dialect, clock, batchSize: 4, send: (d, hook) => t.services.webhooks.sendOnce(d, hook) }),
    );
    onTestFinished(async () => {
      await Promise.all(workers.map((w) => w.close()));
    });
    rx.answer = 200;
    clock.advance(1_000);
    await Promise.all([...workers.map((w) => w.runDue()), workers[0]!.runDue(), workers[1]!.runDue()]);
    const perDelivery = new Map<string, number>();
    for (const q of rx.requests) perDelivery.set(String(q.headers['x-service-delivery']), (perDelivery.get(String(q.headers['x-service-delivery'])) ?? 0) + 1);
    expect(perDelivery.size).toBe(30);
    expect([...perDelivery.values()].every((n) => n === 2)).toBe(true); // the failed first attempt and one retry, never a third
    const rows = await t.handle.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 2)).toBe(true);
  });
});

describe.runIf(lane === 'postgres')('webhook delivery with two cloud nodes on one PostgreSQL', () => {
  it('both nodes consume and send; every delivery reaches the receiver exactly once', async () => {
    const testDb = await freshDb({ poolSize: 4 });
    onTestFinished(() => testDb.drop());
    const clock = new ManualClock();
    const config = loadConfig({ ROLE: 'cloud', DATABASE_URL: 'postgres://unused/x', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/restaurant-test', WEBHOOK_ALLOW_PRIVATE: '1' });
    const a = await createRuntime(config, { clock, handle: testDb.handle });
    onTestFinished(() => a.close());
    const b = await createRuntime(config, { clock, handle: testDb.reopen() });
    onTestFinished(() => b.close());
    const { tenant } = await a.services.tenants.create({ slug: 'cloud-twee', name: 'Cloud', admin_email: 'a@cloud.test', admin_password: 'geheim-wachtwoord-1' });
    const friet = await a.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
    const rx1 = await startReceiver();
    const rx2 = await startReceiver();
    for (const rx of [rx1, rx2]) await a.services.webhooks.create(tenant.id, { url: rx.url, events: ['order.created', 'order.paid'] }, null);
    rx2.answer = 500; // the second receiver fails its first attempts: retries race too
    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const node = i % 2 ? a : b;
        const { order } = await node.services.orders.create(actor, { items: [{ product_id: friet.id, quantity: 1 }] });
        await (i % 3 ? b : a).services.orders.markPaid(actor, order.id);
      }),
    );
    // The other node hears of commits through Redis in production; here both are kicked by hand too.
    await Promise.all([a.app.consumers.sweep(), b.app.consumers.sweep()]);
    await until(async () => Number((await a.handle.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n) === 80, 15_000, '80 deliveries queued');
    await Promise.all([settle(a), settle(b)]);
    rx2.answer = 200;
    clock.advance(1_000);
    await Promise.all([a.app.scheduler.run('webhooks-deliver'), b.app.scheduler.run('webhooks-deliver'), a.services.webhooks.worker.runDue(), b.services.webhooks.worker.runDue()]);
    await Promise.all([settle(a), settle(b)]);
    const count = (rx: Receiver) => {
      const m = new Map<string, number>();
      for (const q of rx.requests) m.set(String(q.headers['x-service-delivery']), (m.get(String(q.headers['x-service-delivery'])) ?? 0) + 1);
      return m;
    };
    const one = count(rx1);
    const two = count(rx2);
    expect(one.size).toBe(40);
    expect([...one.values()].every((n) => n === 1)).toBe(true);
    expect(two.size).toBe(40);
    expect([...two.values()].every((n) => n === 2)).toBe(true); // one failed attempt, one retry
    const rows = await a.handle.db.selectFrom('webhook_deliveries').select(['status']).execute();
    expect(rows.every((r) => r.status === 'delivered')).toBe(true);
  });
});
