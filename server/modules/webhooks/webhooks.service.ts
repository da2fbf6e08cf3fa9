import crypto from 'node:crypto';
import type { Role } from '../../shared/role.js';
import type { ChangeLog } from '../../db/change-log.js';
import type { ChangeConsumer } from '../../db/consumers.js';
import type { Db, Dialect, Tx } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { DeliveryWorker, type Timers } from './webhooks.delivery.js';
import { isWebhookEvent } from './webhooks.payloads.js';
import { deliveryBodies, SlugCache } from './webhooks.bodies.js';
import { WEBHOOK_CONSUMER, webhooksConsumer } from './webhooks.consumer.js';
import { MANAGED_IN_CLOUD } from '../apikeys/apikeys.service.js';
import { AddressNotFound, AddressRefused, resolveChecked, sendDelivery, systemResolver, type SendNet } from './webhooks.outbound.js';
import { SENDER_NICE, ThreadSender, type Sender } from './webhooks.thread.js';
import type { OpenDbOptions } from '../../db/connection.js';
import { webhooksRepository, type DeliveryRow, type SubscriptionRow } from './webhooks.repository.js';
import {
  ATTEMPT_TIMEOUT_MS,
  CreateWebhookBody,
  MAX_WEBHOOKS,
  type CreateWebhookInput,
  type Delivery,
  type DeliveryStatus,
  type Webhook,
  type WebhookEventBody,
  type WebhookEventType,
  type WebhookRecord,
} from './webhooks.schemas.js';

export { WEBHOOK_CONSUMER };

export const newWebhookSecret = (): string => `whsec_${crypto.randomBytes(32).toString('hex')}`;

export function toWebhookDto(row: SubscriptionRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The row as it travels through sync: all of it (the sender needs the secret to sign). */
export const toWebhookRecord = (row: SubscriptionRow): WebhookRecord => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as WebhookEventType[],
  secret: row.secret,
  description: row.description,
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
  deleted_at: row.deleted_at,
});

/**
 * A delivery as the admin sees it; `body`: its body (webhooks.bodies.ts: stored, or made from the
 * change log). A body that cannot be made (no such change-log row) shows the event's envelope.
 */
export function toDeliveryDto(row: DeliveryRow, body: string | null | undefined): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type as WebhookEventType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    last_attempt_at: row.last_attempt_at,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
    event: body ? (JSON.parse(body) as WebhookEventBody) : { id: row.event_id, type: row.event_type as WebhookEventType, created_at: row.created_at, tenant: { id: row.tenant_id, slug: '' }, data: {} },
  };
}

/**
 * Who sends (docs/partners.md "One sender per event"): the cloud sends the events born anywhere (an
 * appliance's change reaches the cloud's change log when it syncs, and the cloud's consumer sees it
 * there); an appliance without a cloud sends its own; an appliance with a cloud sends none.
 */
/** The node's settings webhooks depend on: plain values the composition root takes from the config. */
export interface WebhooksConfig {
  role: Role;
  /** CLOUD_URL: set on an appliance that syncs with a cloud (which then sends its webhooks). */
  cloudUrl?: string;
  /** WEBHOOK_ALLOW_PRIVATE. */
  webhookAllowPrivate: boolean;
  /** WEBHOOK_SENDER: `thread` sends from a worker thread with its own pool (PostgreSQL only). */
  webhookSender: 'inline' | 'thread';
  /** WEBHOOK_SENDER_NICE: the sender thread's nice value on Linux (webhooks.thread.ts `lowerThreadPriority`). */
  webhookSenderNice?: number;
}

export const isWebhookSender = (config: Pick<WebhooksConfig, 'role' | 'cloudUrl'>): boolean => config.role === 'cloud' || !config.cloudUrl;

/**
 * Whether the sender may reach private, loopback and link-local addresses: a stand-alone appliance
 * always may (printers and bridges on the restaurant's own network); the cloud only when the operator
 * says so (WEBHOOK_ALLOW_PRIVATE). An appliance with a cloud registers by the cloud's rule, since the
 * cloud will send.
 */
export const mayReachPrivate = (config: Pick<WebhooksConfig, 'role' | 'cloudUrl' | 'webhookAllowPrivate'>): boolean =>
  (config.role === 'local' && !config.cloudUrl) || config.webhookAllowPrivate === true;

export interface WebhooksDeps {
  db: Db;
  dialect: Dialect;
  changes: ChangeLog;
  clock: Clock;
  config: WebhooksConfig;
  timers?: Timers;
  /** PostgreSQL: how to open another pool on the same database (the sender thread's). */
  connection?: OpenDbOptions;
}

/** How long a finished delivery stays listed (and re-sendable) before the daily prune removes it. */
export const DELIVERY_RETENTION_DAYS = 30;

export function createWebhooksService(deps: WebhooksDeps) {
  const { db, changes, clock, config } = deps;
  /** The outside world and the address rule; tests replace the resolver (a fake DNS for the rebinding case). */
  const net: SendNet = { resolve: systemResolver, timeoutMs: ATTEMPT_TIMEOUT_MS, allowPrivate: mayReachPrivate(config) };
  /** This appliance is bound to a cloud (once true, for good). */
  let bound = false;
  /** An appliance that syncs with a cloud leaves registering webhooks and their secrets to the cloud (SECURITY.md). */
  const refuseOnBoundAppliance = async () => {
    if (config.role === 'local' && (config.cloudUrl || bound || (bound = await webhooksRepository.boundToCloud(db)))) throw conflict(MANAGED_IN_CLOUD);
  };
  /** Tenant slugs for the bodies of narrow deliveries (webhooks.bodies.ts; a slug does not change). */
  const slugs = new SlugCache();

  /** The URL's address must be allowed for the sender (checked again, on the resolved address, at every attempt). */
  async function checkUrl(url: string): Promise<void> {
    if (net.allowPrivate) return;
    try {
      await resolveChecked(new URL(url), { allowPrivate: false, resolve: net.resolve });
    } catch (err) {
      if (err instanceof AddressRefused || err instanceof AddressNotFound) throw invalidField('url', err.message.replace(/^./, (c) => c.toLowerCase()));
      throw err;
    }
  }

  /** One attempt of one delivery: sign the stored body with the webhook's current secret and POST it. */
  const send = (d: DeliveryRow, hook: SubscriptionRow, signal?: AbortSignal) => sendDelivery(d, hook, net, signal);

  /** Where failures of the worker go (the routes plugin points it at the app's logger). */
  const log = { error: (err: unknown, msg: string): void => console.error(msg, err) };
  const onError = (err: unknown) => log.error(err, 'webhooks: delivery pass failed');
  const worker = new DeliveryWorker({ db, dialect: deps.dialect, clock, timers: deps.timers, send, onError, slugs });
  /**
   * What runs the queue once the server listens (docs/partners.md "Sender thread"): this worker, or
   * (WEBHOOK_SENDER=thread, on PostgreSQL) a worker thread with its own pool, so thousands of sends
   * never hold up the requests and sync pushes this process serves. Tests that do not listen drive
   * `worker` by hand either way.
   */
  const sender: Sender = config.webhookSender === 'thread' && deps.connection ? new ThreadSender({ connection: deps.connection, allowPrivate: net.allowPrivate, timeoutMs: net.timeoutMs, role: config.role, nice: config.webhookSenderNice ?? SENDER_NICE, fallback: worker, onError }) : worker;

  /**
   * Per tenant, the event types its live subscriptions receive, as the consumer's batches last read
   * them (here or in the sender thread); for `wants` only. A tenant not in the map is unknown
   * (wanted). Any committed change of a webhook (created, deleted, rotated, synced in) and any commit
   * of another node forget the tenant, and a read that such a forget overtook is not stored
   * (`epoch`: taken before the read, here or sent along with the wake-up to the thread). A stale entry
   * can only make a delivery late by the consumers' `lateMs` (1 s): the late batch reads the
   * subscriptions again.
   */
  const subscribed = new Map<string, ReadonlySet<string>>();
  let epoch = 0;
  const forget = (tenantId: string) => {
    epoch++;
    subscribed.delete(tenantId);
  };
  const noteSubscribed = (tenantId: string, events: ReadonlySet<string>, seen: number) => {
    if (seen === epoch) subscribed.set(tenantId, events);
  };
  changes.on('committed', (tenantId, records) => {
    if (records.some((r) => r.entity === 'webhook')) forget(tenantId);
  });
  changes.on('remote', (tenantId) => forget(tenantId));
  if (sender instanceof ThreadSender) sender.onSubscribed = noteSubscribed;
  /** The change-log consumer (webhooks.consumer.ts); while the sender thread runs, its wake-ups go there (`forward`). */
  const consumer: ChangeConsumer = webhooksConsumer({
    clock,
    role: config.role,
    bound: async (trx) => bound || (bound = await webhooksRepository.boundToCloud(trx)),
    mark: () => epoch,
    subscribed: noteSubscribed,
    kick: () => sender.kick(false),
    /**
     * Only an event some live subscription of the tenant receives wakes the consumer at once; the
     * rest (every other staff write, or all of them on an appliance bound to a cloud, or one without
     * webhooks) moves the cursor in one batch per second instead of a transaction and an fsync after
     * every commit (bench/README.md "The order path, session 11").
     */
    wants: (c) => !bound && isWebhookEvent(c.kind) && (subscribed.get(c.tenant_id)?.has(c.kind) ?? true),
    forward: sender instanceof ThreadSender ? (tenantId, late) => (sender as ThreadSender).consume(tenantId, late, epoch) : undefined,
  });

  async function liveWebhook(exec: Db | Tx, tenantId: string, id: string): Promise<SubscriptionRow> {
    const row = await webhooksRepository.find(exec, tenantId, id);
    if (!row) throw notFound('Webhook');
    return row;
  }

  return {
    /** Whether this node sends webhooks at all (see isWebhookSender). */
    isSender: isWebhookSender(config),
    net,
    log,
    consumer,
    worker,
    /** The queue's runner once listening: `worker`, or the sender thread (WEBHOOK_SENDER=thread). */
    sender,
    /** One signed attempt of a delivery (what the worker calls; tests drive extra workers with it). */
    sendOnce: send,
    /**
     * Retention (docs/partners.md "Delivery history"): finished deliveries (delivered or failed)
     * are kept DELIVERY_RETENTION_DAYS after their last attempt, then deleted; pending ones stay
     * until they finish. Returns how many were deleted.
     */
    async pruneDeliveries(): Promise<number> {
      const before = new Date(clock.now().getTime() - DELIVERY_RETENTION_DAYS * 86_400_000).toISOString();
      return webhooksRepository.pruneFinished(db, before);
    },
    /** Stops the worker and the sender thread (after the attempts in flight). */
    async close(): Promise<void> {
      await Promise.all([worker.close(), sender === worker ? undefined : sender.close()]);
    },

    /** Registers a webhook; the answer is the only place the secret is shown. */
    async create(tenantId: string, raw: CreateWebhookInput, createdBy: string | null): Promise<Webhook & { secret: string }> {
      const input = CreateWebhookBody.parse(raw);
      await refuseOnBoundAppliance();
      await checkUrl(input.url);
      return changes.write(tenantId, async (w) => {
        if ((await webhooksRepository.countLive(w.trx, tenantId)) >= MAX_WEBHOOKS) {
          throw conflict(`Er zijn al ${MAX_WEBHOOKS} webhooks; verwijder er eerst een.`);
        }
        const row: SubscriptionRow = {
          id: newId(),
          tenant_id: tenantId,
          url: input.url,
          events: JSON.stringify(input.events),
          secret: newWebhookSecret(),
          description: input.description ?? null,
          created_by: createdBy,
          created_at: w.now,
          updated_at: w.now,
          deleted_at: null,
        };
        await webhooksRepository.insert(w.trx, row);
        await w.record({ entity: 'webhook', entityId: row.id, kind: 'webhook.created', payload: toWebhookRecord(row) });
        return { ...toWebhookDto(row), secret: row.secret };
      });
    },

    async list(tenantId: string): Promise<Webhook[]> {
      return (await webhooksRepository.list(db, tenantId)).map(toWebhookDto);
    },

    async get(tenantId: string, id: string): Promise<Webhook> {
      return toWebhookDto(await liveWebhook(db, tenantId, id));
    },

    /** Deletes (tombstones) a webhook: nothing more is queued or sent for it. */
    async remove(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const row = await liveWebhook(w.trx, tenantId, id);
        const next: SubscriptionRow = { ...row, deleted_at: w.now, updated_at: w.now };
        await webhooksRepository.update(w.trx, id, { deleted_at: w.now, updated_at: w.now });
        await w.record({ entity: 'webhook', entityId: id, kind: 'webhook.deleted', payload: toWebhookRecord(next) });
      });
    },

    /** A new secret, shown once; every attempt from now on (retries of older deliveries too) is signed with it. */
    async rotateSecret(tenantId: string, id: string): Promise<Webhook & { secret: string }> {
      await refuseOnBoundAppliance();
      return changes.write(tenantId, async (w) => {
        const row = await liveWebhook(w.trx, tenantId, id);
        const next: SubscriptionRow = { ...row, secret: newWebhookSecret(), updated_at: w.now };
        await webhooksRepository.update(w.trx, id, { secret: next.secret, updated_at: w.now });
        await w.record({ entity: 'webhook', entityId: id, kind: 'webhook.secret_rotated', payload: toWebhookRecord(next) });
        return { ...toWebhookDto(next), secret: next.secret };
      });
    },

    /** What was sent to a webhook (and what is still to be sent), newest first. */
    async deliveries(tenantId: string, webhookId: string, q: { status?: DeliveryStatus; limit: number; offset: number }) {
      await liveWebhook(db, tenantId, webhookId);
      const [rows, total] = await Promise.all([
        webhooksRepository.listDeliveries(db, tenantId, webhookId, q.status, q.limit, q.offset),
        webhooksRepository.countDeliveries(db, tenantId, webhookId, q.status),
      ]);
      const bodies = await deliveryBodies(db, rows, slugs);
      return { data: rows.map((r) => toDeliveryDto(r, bodies.get(r.id))), total, limit: q.limit, offset: q.offset };
    },

    /**
     * Sends a delivery again (an admin's action, typically after it failed): the same delivery id and
     * body, four fresh attempts, the first one now. A delivery still being tried is sent now; one the
     * receiver has accepted is a CONFLICT.
     */
    async redeliver(tenantId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
      await liveWebhook(db, tenantId, webhookId);
      const d = await webhooksRepository.findDelivery(db, tenantId, webhookId, deliveryId);
      if (!d) throw notFound('Levering');
      if (d.status === 'delivered') throw conflict('Deze levering is al afgeleverd; de ontvanger heeft haar geaccepteerd.');
      const now = clock.now().toISOString();
      const patch = d.status === 'failed' ? { status: 'pending', attempts: 0, next_attempt_at: now, updated_at: now } : { next_attempt_at: now, updated_at: now };
      await webhooksRepository.updateDelivery(db, d.id, patch);
      sender.kick();
      return toDeliveryDto({ ...d, ...patch }, (await deliveryBodies(db, [d], slugs)).get(d.id));
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
