import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../../db/connection.js';
import { systemClock } from '../../shared/clock.js';
import { DeliveryWorker } from './webhooks.delivery.js';
import { sendDelivery, systemResolver, type SendNet } from './webhooks.outbound.js';
import type { FromThread, SenderThreadData, ToThread } from './webhooks.thread.js';

/**
 * The sender thread (webhooks.thread.ts): the delivery queue's worker on its own pool. Started by
 * ThreadSender with SenderThreadData; answers `run` with `ran`, reports errors to the main thread's
 * log, and on `close` finishes the attempts in flight, closes its pool and exits.
 */
const port = parentPort;
if (!port) throw new Error('webhooks.sender-thread: alleen als worker thread te starten');
const data = workerData as SenderThreadData;
const send = (m: FromThread) => port.postMessage(m);
const report = (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });

const handle = openDb({ ...data.connection, pgPoolSize: 3 });
const net: SendNet = { resolve: systemResolver, timeoutMs: data.timeoutMs, allowPrivate: data.allowPrivate };
const worker = new DeliveryWorker({ db: handle.db, dialect: handle.dialect, clock: systemClock, send: (d, hook, signal) => sendDelivery(d, hook, net, signal), onError: report });

port.on('message', (m: ToThread) => {
  if (m.type === 'kick') worker.kick();
  else if (m.type === 'run') {
    worker.runDue().then(
      (attempts) => send({ type: 'ran', id: m.id, attempts }),
      (err: unknown) => {
        report(err);
        send({ type: 'ran', id: m.id, attempts: 0 });
      },
    );
  } else if (m.type === 'close') {
    void (async () => {
      await worker.close();
      await handle.close().catch(report);
      send({ type: 'closed' });
      port.close();
    })();
  }
});
worker.start();
