import type { ChangeRecord } from '../../db/change-log.js';
import type { ChangeConsumer } from '../../db/consumers.js';
import type { Tx } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Role } from '../../shared/role.js';
import { eventOf } from './webhooks.payloads.js';
import { webhooksRepository, type DeliveryRow } from './webhooks.repository.js';

/**
 * The kinds whose event `eventOf` (webhooks.payloads.ts) decides from the payload: whether a status
 * change happened here (`order.status_changed`) and which course fired (`order.course_fired`, its
 * key). For every other event kind, type and key follow from the kind and the entity id, so the
 * consumer reads those changes without their payloads (its rows carry no body).
 */
export const EVENTS_READ_FROM_PAYLOAD: readonly string[] = ['order.status_changed', 'order.course_fired'];

export const WEBHOOK_CONSUMER = 'webhooks';

/** What the webhooks consumer needs besides its batch: the service's own (main thread) or the sender thread's. */
export interface WebhooksConsumerDeps {
  clock: Clock;
  role: Role;
  /** Whether this appliance's database is bound to a cloud (then it sends nothing); asked only on an appliance. */
  bound(trx: Tx): Promise<boolean>;
  /** Taken before a batch reads the subscriptions, handed back with what it read (`subscribed`): lets the owner of `wants` drop a read that a forget overtook. */
  mark(): number;
  /** The event types the tenant's live subscriptions receive, as the batch read them after `mark` gave `seen`. */
  subscribed(tenantId: string, events: ReadonlySet<string>, seen: number): void;
  /** A batch that queued deliveries committed: wake the sender. */
  /** Deliveries were queued: wake the sender (`Sender.kick(false)`: they are at the queue's end). */
  kick(): void;
  /** The `wants` filter (server/db/consumers.ts), where this runner decides it (the main thread). */
  wants?: ChangeConsumer['wants'];
  /** Hand a wake-up to another runner (the sender thread): ChangeConsumer.forward. */
  forward?: ChangeConsumer['forward'];
}

/**
 * The change-log consumer of outgoing webhooks (server/db/consumers.ts): for each webhook event in
 * the batch, one delivery row per live subscription of the event, in the transaction that advances
 * the cursor (exactly once per node; unique per (webhook, event key) across re-handled batches and
 * events that travelled through sync). A subscription gets the events its node sees after it was
 * created (event time), never older history. Runs on the main thread, or (WEBHOOK_SENDER=thread,
 * once the server listens) in the sender thread on its own pool, so that reading the changes back
 * and inserting the delivery rows after each commit stay off the event loop that takes the requests
 * and sync pushes (bench/README.md "Sync catch-up, session 12").
 *
 * The rows are narrow (bench/README.md "Sync catch-up, session 13"): `body` is '' and the event is
 * the change-log row `(tenant_id, event_id)`, whose body the sender makes when it sends
 * (webhooks.bodies.ts), so a catch-up's thousands of events are not serialized, written and
 * rewritten by every claim and finish as 1–2 KB bodies. The batch is read with the payloads of the
 * events whose key (or whether they are an event at all) depends on them only (`payloadKinds`):
 * every other payload is neither sent by the database nor parsed here.
 */
export function webhooksConsumer(deps: WebhooksConsumerDeps): ChangeConsumer {
  /** Batches whose `handle` queued deliveries, until their `afterCommit` (the same array object). */
  const queued = new WeakSet<ChangeRecord[]>();
  return {
    name: WEBHOOK_CONSUMER,
    batchSize: 500,
    payloadKinds: EVENTS_READ_FROM_PAYLOAD,
    ...(deps.wants ? { wants: deps.wants } : {}),
    ...(deps.forward ? { forward: deps.forward } : {}),
    async handle(batch: ChangeRecord[], { trx, tenantId }) {
      // An appliance whose database is bound to a cloud sends nothing, also when it was started
      // without CLOUD_URL (run offline on purpose): the cloud sends its events once they sync.
      if (deps.role === 'local' && (await deps.bound(trx))) return;
      const events = batch.flatMap((c) => {
        const e = eventOf(c);
        return e ? [{ change: c, event: e }] : [];
      });
      if (events.length === 0) return;
      const seen = deps.mark();
      const subs = (await webhooksRepository.list(trx, tenantId)).map((s) => ({ row: s, events: new Set(JSON.parse(s.events) as string[]) }));
      deps.subscribed(tenantId, new Set(subs.flatMap((s) => [...s.events])), seen);
      if (subs.length === 0) return;
      const now = deps.clock.now().toISOString();
      const rows: DeliveryRow[] = [];
      for (const { change, event } of events) {
        const targets = subs.filter((s) => s.events.has(event.type) && change.created_at >= s.row.created_at);
        if (targets.length === 0) continue;
        for (const s of targets) {
          rows.push({
            id: newId(),
            tenant_id: tenantId,
            webhook_id: s.row.id,
            event_id: change.op_id,
            event_key: event.key,
            event_type: event.type,
            // Narrow: made from the change-log row (tenant_id, event_id) when sent or read (webhooks.bodies.ts).
            body: '',
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            lock_token: null,
            locked_until: null,
            last_attempt_at: null,
            last_status_code: null,
            last_error: null,
            delivered_at: null,
            created_at: now,
            updated_at: now,
          });
        }
      }
      if (rows.length) {
        await webhooksRepository.enqueue(trx, rows);
        queued.add(batch);
      }
    },
    // Only a batch that queued deliveries wakes the sender (its claim is a write of its own); a
    // delivery that is due later (a retry) has the sender's own timer.
    afterCommit(batch) {
      if (queued.delete(batch)) deps.kick();
    },
  };
}
