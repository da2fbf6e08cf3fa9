import { AsyncLocalStorage } from 'node:async_hooks';
import { ChangeConsumers } from '../../server/db/consumers.js';

/**
 * For the statement probes (order-path-sql, public-order-sql): wraps ChangeConsumers' batch run so
 * that `getStore()` is true inside a change consumer's batch, and statements a request's commits set
 * off can be counted apart from the request's own. Patches the prototype once per process.
 */
export function markConsumerBatches(): AsyncLocalStorage<boolean> {
  const inConsumer = new AsyncLocalStorage<boolean>();
  const proto = ChangeConsumers.prototype as unknown as { runBatch: (...a: unknown[]) => Promise<unknown> };
  const runBatch = proto.runBatch;
  proto.runBatch = function (this: unknown, ...a: unknown[]) {
    return inConsumer.run(true, () => runBatch.apply(this, a));
  };
  return inConsumer;
}
