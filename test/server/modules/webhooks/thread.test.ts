import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { SENDER_NICE, ThreadSender } from '../../../../server/modules/webhooks/webhooks.thread.js';
import { webhooksRepository } from '../../../../server/modules/webhooks/webhooks.repository.js';
import { systemClock } from '../../../../server/shared/clock.js';
import { createTestApp } from '../../../helpers/app.js';
import { lane } from '../../../helpers/db.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';
import { startReceiver, until, verifies } from './receiver.js';

/**
 * WEBHOOK_SENDER=thread (docs/partners.md "Sender thread"): once a cloud node on PostgreSQL listens,
 * its deliveries are sent from a worker thread with its own pool; before that, and on SQLite, the
 * inline worker sends. A thread that dies is started again and loses nothing (the queue is the state).
 */
const CLOUD = { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused', WEBHOOK_ALLOW_PRIVATE: '1' };

describe('webhook sender thread', () => {
  it('is the cloud default on PostgreSQL; SQLite and WEBHOOK_SENDER=inline keep the inline worker', async () => {
    const cloud = await createTestApp({ env: CLOUD });
    const { webhooks } = cloud.services;
    expect(cloud.config.webhookSender).toBe('thread');
    if (lane === 'postgres') expect(webhooks.sender).toBeInstanceOf(ThreadSender);
    else expect(webhooks.sender).toBe(webhooks.worker);
    const inline = await createTestApp({ env: { ...CLOUD, WEBHOOK_SENDER: 'inline' } });
    expect(inline.services.webhooks.sender).toBe(inline.services.webhooks.worker);
    const appliance = await createTestApp();
    expect(appliance.config.webhookSender).toBe('inline');
    expect(appliance.services.webhooks.sender).toBe(appliance.services.webhooks.worker);
  });

  it.runIf(lane === 'postgres')('sends from the thread once listening, signed and recorded once; a killed thread is restarted and nothing queued meanwhile is lost', async () => {
    const t = await createTestApp({ env: CLOUD });
    // The thread runs on real time: the due times the consumer writes must be real time too.
    t.clock.set(systemClock.now());
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const [admin, staff] = [await r.adminCookie(), await r.staffCookie()];
    const rx = await startReceiver();
    const hookRes = await t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: admin, payload: { url: rx.url, events: ['order.created'] } });
    expect(hookRes.statusCode, hookRes.body).toBe(201);
    const hook = hookRes.json() as { id: string; secret: string };
    const sender = t.services.webhooks.sender as ThreadSender;
    // Not listening yet: the inline worker is in charge.
    expect(sender.running).toBe(false);
    // The consumer batch of the webhook's own commit ran here, on the main thread (nothing listens yet).
    await t.app.consumers.idle();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    expect(sender.running).toBe(true);
    // From here the inline worker is not asked to do anything while the thread runs.
    const inline = t.services.webhooks.worker;
    let inlineCalls = 0;
    const [kick, runDue] = [inline.kick.bind(inline), inline.runDue.bind(inline)];
    inline.kick = () => {
      inlineCalls += 1;
      kick();
    };
    inline.runDue = () => {
      inlineCalls += 1;
      return runDue();
    };

    const order = async () => {
      t.clock.set(systemClock.now());
      const res = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { id: string }).id;
    };
    const first = await order();
    await until(() => rx.requests.length === 1, 15_000, 'the first delivery');
    const got = rx.requests[0]!;
    expect(got.body.type).toBe('order.created');
    expect(got.body.data.order.id).toBe(first);
    expect(verifies(hook.secret, got.raw, got.headers['x-service-signature'])).toBe(true);
    // The attempt came from the thread, which recorded it.
    expect(inlineCalls).toBe(0);
    await until(async () => (await webhooksRepository.listDeliveries(t.handle.db, r.id, hook.id, 'delivered', 10, 0)).length === 1, 5000, 'the delivery recorded');
    // The change-log consumer that queued it ran in the thread as well (its own pool; bench/README.md
    // "Sync catch-up, session 12"): the main thread only handed the commit's wake-up over.
    const cursor = () => t.handle.db.selectFrom('change_consumers').select(['node', 'last_seq']).where('consumer', '=', 'webhooks').where('tenant_id', '=', r.id).executeTakeFirstOrThrow();
    expect((await cursor()).node).toMatch(/^webhooks-thread-/);
    expect(Number((await cursor()).last_seq)).toBe(await t.changes.lastSeq(r.id));

    // Kill the thread: it comes back by itself, and the order taken meanwhile is still delivered (once).
    const thread = sender['thread']!;
    const gone = new Promise<void>((res) => thread.once('exit', () => res()));
    await thread.terminate();
    await gone;
    const second = await order();
    await until(() => rx.requests.some((q) => q.body.data.order.id === second), 15_000, 'the delivery after the restart');
    await until(() => sender.running, 5000, 'the restarted thread');
    const ids = rx.requests.map((q) => q.headers['x-service-delivery']);
    expect(new Set(ids).size).toBe(ids.length);
    // One delivery per order, each once, whichever thread's consumer queued it.
    expect(rx.requests.map((q) => q.body.data.order.id).filter((id) => id === first || id === second).sort()).toEqual([first, second].sort());

    await t.app.close();
    expect(sender.running).toBe(false);
  });

  it('runs the thread at WEBHOOK_SENDER_NICE (default 10) and the rest of the process at its own priority; 0 leaves the thread alone', () => {
    expect(loadConfig({ ...CLOUD }).webhookSenderNice).toBe(SENDER_NICE);
    expect(SENDER_NICE).toBe(10);
    expect(loadConfig({ ...CLOUD, WEBHOOK_SENDER_NICE: '0' }).webhookSenderNice).toBe(0);
    expect(() => loadConfig({ ...CLOUD, WEBHOOK_SENDER_NICE: '20' })).toThrow(/WEBHOOK_SENDER_NICE/);
  });

  it.runIf(lane === 'postgres' && process.platform === 'linux')('on Linux the sender thread runs at nice 10 (its own thread only), and a delivery still goes out at once', async () => {
    /** A thread's nice value as the kernel shows it (/proc/<pid>/task/<tid>/stat, field 19). */
    const niceOf = (tid: number) => {
      const stat = fs.readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const own = niceOf(process.pid);
    const threadsBefore = new Set(fs.readdirSync(`/proc/${process.pid}/task`));
    const t = await createTestApp({ env: CLOUD });
    t.clock.set(systemClock.now());
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const [admin, staff] = [await r.adminCookie(), await r.staffCookie()];
    const rx = await startReceiver();
    expect((await t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: admin, payload: { url: rx.url, events: ['order.created'] } })).statusCode).toBe(201);
    await t.app.consumers.idle();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const sender = t.services.webhooks.sender as ThreadSender;
    await until(() => sender.priority !== null, 15_000, 'the thread reporting its priority');
    const { tid, nice } = sender.priority!;
    expect(nice).toBe(Math.max(own, 10));
    expect(threadsBefore.has(String(tid))).toBe(false);
    expect(niceOf(tid)).toBe(Math.max(own, 10));
    expect(os.getPriority(tid)).toBe(Math.max(own, 10));
    // Only that thread: the main thread (the requests, the sync pushes) keeps the process's own priority.
    expect(niceOf(process.pid)).toBe(own);
    expect(os.getPriority()).toBe(own);
    // Idle machine: the lower priority does not hold a live delivery back.
    const started = Date.now();
    const res = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
    expect(res.statusCode, res.body).toBe(201);
    await until(() => rx.requests.length === 1, 5_000, 'the delivery');
    expect(rx.requests[0]!.at - started).toBeLessThan(2_000);
    await t.app.close();
    expect(sender.priority).toBe(null);
  });

  it.runIf(lane === 'postgres' && process.platform === 'linux')("WEBHOOK_SENDER_NICE=0: the thread runs at the process's own priority", async () => {
    const t = await createTestApp({ env: { ...CLOUD, WEBHOOK_SENDER_NICE: '0' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const sender = t.services.webhooks.sender as ThreadSender;
    await until(() => sender.running, 5_000, 'the thread');
    // The thread is up and ran its first pass: had it lowered its priority, it would have said so first.
    await sender.runDue();
    expect(sender.priority).toBe(null);
    await t.app.close();
  });
});
