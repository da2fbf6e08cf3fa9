import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../../db/connection.js';
import { ChangeConsumers } from '../../db/consumers.js';
import { systemClock } from '../../shared/clock.js';
import { WEBHOOK_CONSUMER, webhooksConsumer } from './webhooks.consumer.js';
import { DeliveryWorker } from './webhooks.delivery.js';
import { sendDelivery, systemResolver, type SendNet } from './webhooks.outbound.js';
import { webhooksRepository } from './webhooks.repository.js';
import { lowerThreadPriority, type FromThread, type SenderThreadData, type ToThread } from './webhooks.thread.js';

/**
 * The sender thread (webhooks.thread.ts): the delivery queue's worker and the webhooks change-log
 * consumer on their own pool. Started by ThreadSender with SenderThreadData; runs the consumer for
 * the tenants the main thread's commits wake (`consume`; and its own sweep), answers `run` with
 * `ran`, reports errors to the main thread's log, and on `close` finishes the batch and attempts in
 * flight, closes its pool and exits.
 */
const port = parentPort;
if (!port) throw new Error('webhooks.sender-thread: alleen als worker thread te starten');
const data = workerData as SenderThreadData;
const send = (m: FromThread) => port.postMessage(m);
const report = (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });

// Customer-facing work first (webhooks.thread.ts SENDER_NICE): this thread's own nice value, before it does anything.
const priority = lowerThreadPriority(data.nice);
if (priority) send({ type: 'priority', ...priority });

const handle = openDb({ ...data.connection, pgPoolSize: 3 });
const net: SendNet = { resolve: systemResolver, timeoutMs: data.timeoutMs, allowPrivate: data.allowPrivate };
const worker = new DeliveryWorker({ db: handle.db, dialect: handle.dialect, clock: systemClock, send: (d, hook, signal) => sendDelivery(d, hook, net, signal), onError: report });

/** The main thread's subscription epoch as of the last wake-up received (see webhooks.consumer.ts `mark`). */
let epoch = 0;
let bound = false;
const consumers = new ChangeConsumers({ db: handle.db, dialect: handle.dialect, clock: systemClock, node: `webhooks-thread-${process.pid}`, onError: report });
consumers.register(
  webhooksConsumer({
    clock: systemClock,
    role: data.role,
    bound: async (trx) => bound || (bound = await webhooksRepository.boundToCloud(trx)),
    mark: () => epoch,
    subscribed: (tenantId, events, seen) => send({ type: 'subscribed', tenantId, events: [...events], epoch: seen }),
    kick: () => worker.kick(false),
  }),
);
// Cursors left behind (a wake-up lost with a thread that died): as the main thread's consumers plugin.
const sweep = setInterval(() => void consumers.sweep(), 30_000);
sweep.unref();

port.on('message', (m: ToThread) => {
  if (m.type === 'kick') worker.kick(m.wholeQueue);
  else if (m.type === 'consume') {
    epoch = Math.max(epoch, m.epoch);
    consumers.wake(WEBHOOK_CONSUMER, m.tenantId, m.late);
  } else if (m.type === 'run') {
    worker.runDue().then(
      (attempts) => send({ type: 'ran', id: m.id, attempts }),
      (err: unknown) => {
        report(err);
        send({ type: 'ran', id: m.id, attempts: 0 });
      },
    );
  } else if (m.type === 'close') {
    void (async () => {
      clearInterval(sweep);
      await consumers.close();
      await worker.close();
      await handle.close().catch(report);
      send({ type: 'closed' });
      port.close();
    })();
  }
});
worker.start();
