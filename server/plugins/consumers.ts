import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ChangeLog, ChangeRecord } from '../db/change-log.js';
import type { Db, Dialect } from '../db/connection.js';
import { ChangeConsumers } from '../db/consumers.js';
import type { Clock } from '../shared/clock.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Change-log consumers (server/db/consumers.ts): modules register theirs ('webhooks', ...). */
    consumers: ChangeConsumers;
  }
}

export interface ConsumersPluginOptions {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  changes: ChangeLog;
  node: string;
  /** How often to look for cursors left behind (lost wake-ups, crashed nodes). Default 30 s. */
  sweepMs?: number;
}

/**
 * Runs the registered change-log consumers: woken by this node's commits and (in a cluster) by
 * other nodes' commit notices, plus a periodic sweep. Stops on close, after the batches in flight.
 */
async function consumersPlugin(app: FastifyInstance, opts: ConsumersPluginOptions): Promise<void> {
  const consumers = new ChangeConsumers({
    db: opts.db,
    dialect: opts.dialect,
    clock: opts.clock,
    node: opts.node,
    onError: (err, consumer, tenantId) => app.log.error({ err, consumer, tenantId }, 'change-log consumer failed; retrying'),
  });
  app.decorate('consumers', consumers);
  const onCommitted = (tenantId: string, records: ChangeRecord[]) => consumers.kick(tenantId, records);
  const onRemote = (tenantId: string) => consumers.kick(tenantId);
  opts.changes.on('committed', onCommitted);
  opts.changes.on('remote', onRemote);
  const timer = setInterval(() => void consumers.sweep(), opts.sweepMs ?? 30_000);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    opts.changes.off('committed', onCommitted);
    opts.changes.off('remote', onRemote);
    await consumers.close();
  });
}

export default fp(consumersPlugin, { name: 'consumers' });
