import os from 'node:os';
import type { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { ChangeLog, ChangeRecord } from './db/change-log.js';
import { newId } from './shared/ids.js';

/**
 * What several cloud nodes share through Redis (docs/adr/0004-cloud-scale-out.md). Only built when
 * REDIS_URL is set: the appliance and a single cloud node never need it.
 *
 * - `redis`: a command connection, the store of the mutation rate limit (one budget per client IP
 *   across nodes) and the publisher of commit notices.
 * - `adapter`: the socket.io Redis adapter (its own publisher and subscriber), so an event a node
 *   emits to a room reaches the sockets of that room on every node, once.
 * - commit notices: after each commit a node publishes `{node, tenant, seq}` on `<prefix>commits`;
 *   every other node turns it into the change log's 'remote' event, which wakes that node's sync
 *   pull long-polls, socket fan-out and change-log consumers. A wake-up only: readers read the log.
 *
 * - notices (`ChangeLog.announce`, e.g. a revoked SYNC_KEY): published as `{node, topic, data}` on the
 *   same channel; every other node turns it into the change log's 'notice' event (local: false).
 *
 * All keys and channels start with `prefix` (REDIS_KEY_PREFIX), so tests and several deployments
 * can share one Redis without hearing each other.
 */
export interface Cluster {
  node: string;
  prefix: string;
  redis: Redis;
  adapter: ReturnType<typeof createAdapter>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  url: string;
  prefix: string;
  changes: ChangeLog;
  log: { warn(obj: object, msg: string): void };
}

/** A name for this process, unique per start (diagnostics; tells a node's own commit notices apart). */
export const localNodeName = (): string => `${os.hostname()}:${process.pid}:${newId().slice(-8)}`;

export async function connectCluster(opts: ClusterOptions): Promise<Cluster> {
  // Loaded here, not at import: the appliance and a single cloud node never load Redis's client (issue 29 point 5).
  const [{ Redis }, { createAdapter }] = await Promise.all([import('ioredis'), import('@socket.io/redis-adapter')]);
  const node = localNodeName();
  const make = (role: string) => {
    const r = new Redis(opts.url, { lazyConnect: true, connectionName: `restaurant-${role}-${node}`, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    // ioredis reconnects by itself; an 'error' without a listener would crash the process.
    let last = 0;
    r.on('error', (err: Error) => {
      if (Date.now() - last > 10_000) opts.log.warn({ err: err.message, role }, 'redis: verbinding verbroken, opnieuw verbinden');
      last = Date.now();
    });
    return r;
  };
  const redis = make('cmd');
  const adapterPub = make('io-pub');
  const adapterSub = make('io-sub');
  const commitSub = make('commits');
  const all = [redis, adapterPub, adapterSub, commitSub];
  const quit = () => Promise.allSettled(all.map((r) => r.quit().catch(() => r.disconnect())));
  const channel = `${opts.prefix}commits`;

  const onMessage = (ch: string, message: string) => {
    if (ch !== channel) return;
    try {
      const m = JSON.parse(message) as { node: string; tenant?: string; seq?: number; topic?: string; data?: string };
      if (m.node === node) return;
      if (typeof m.topic === 'string' && typeof m.data === 'string') opts.changes.notifyRemoteNotice(m.topic, m.data);
      else if (typeof m.tenant === 'string' && Number.isInteger(m.seq)) opts.changes.notifyRemote(m.tenant, m.seq!);
    } catch {
      // not ours
    }
  };
  const onCommitted = (tenantId: string, records: ChangeRecord[]) => {
    const seq = records[records.length - 1]?.seq;
    if (seq === undefined) return;
    // Fire and forget: a lost notice only delays the other nodes (their sweeps and long-poll
    // timeouts catch up); it never loses a change, which is in the log.
    redis.publish(channel, JSON.stringify({ node, tenant: tenantId, seq })).catch(() => {});
  };
  const onNotice = (topic: string, data: string, local: boolean) => {
    if (local) redis.publish(channel, JSON.stringify({ node, topic, data })).catch(() => {});
  };

  try {
    // Fail at start-up, with the URL's host in the message, rather than run with a silent half-cluster.
    await Promise.all(all.map((r) => r.connect()));
    commitSub.on('message', onMessage);
    await commitSub.subscribe(channel);
  } catch (err) {
    await quit();
    const host = (() => {
      try {
        return new URL(opts.url).host;
      } catch {
        return '?';
      }
    })();
    throw new Error(`Redis (REDIS_URL, ${host}) is niet bereikbaar: ${(err as Error).message}`, { cause: err });
  }
  opts.changes.on('committed', onCommitted);
  opts.changes.on('notice', onNotice);

  let closed = false;
  return {
    node,
    prefix: opts.prefix,
    redis,
    adapter: createAdapter(adapterPub, adapterSub, { key: `${opts.prefix}socket.io` }),
    close: async () => {
      if (closed) return;
      closed = true;
      opts.changes.off('committed', onCommitted);
      opts.changes.off('notice', onNotice);
      commitSub.off('message', onMessage);
      await quit();
    },
  };
}
