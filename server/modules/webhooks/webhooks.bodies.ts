import { selectByKeys } from '../../db/bulk.js';
import type { Executor } from '../../db/connection.js';
import type { ChangeLogTable } from '../../db/database.js';
import { eventOf } from './webhooks.payloads.js';
import type { WebhookEventBody } from './webhooks.schemas.js';

/**
 * A delivery's body, made from its change-log row (docs/partners.md "The queue"; bench/README.md
 * "Sync catch-up, session 13: the push"). The webhooks consumer queues narrow rows: `body` is ''
 * and the event is the change-log row `(tenant_id, op_id = event_id)`. The body is made from that
 * row when it is needed (each attempt, the admin's list, a redelivery) with the code that used to
 * make it at queue time, so the bytes are the same every time: the change log is append-only (only
 * an erasure rewrites a payload, and the erasure stores the redacted body of the deliveries that
 * mention the person first: loyalty.erasure.ts). A row whose `body` is not '' (queued before,
 * or stored by an erasure) is sent as stored.
 */

/** What making a body needs of a change-log row (`payload` as stored: JSON text). */
export interface EventSource {
  op_id: string;
  kind: string;
  entity_id: string;
  payload: string;
  created_at: string;
}

/** The body of the event a change-log row is (JSON text), or null when it is not one. The same text the consumer used to store. */
export function eventBody(change: EventSource, tenant: { id: string; slug: string }): string | null {
  const event = eventOf({ kind: change.kind, entity_id: change.entity_id, payload: JSON.parse(change.payload) as unknown });
  if (!event) return null;
  const body: WebhookEventBody = { id: change.op_id, type: event.type, created_at: change.created_at, tenant, data: event.data };
  return JSON.stringify(body);
}

/** A delivery as far as its body goes. */
type BodyOf = { id: string; tenant_id: string; event_id: string; body: string };

/** Narrow rows (`body` ''): the body is made from the change log. */
export const isNarrow = (d: { body: string }): boolean => d.body === '';

/**
 * Tenant slugs for bodies: a slug does not change, so each is read once per process (per pool
 * user: the worker, the service). Bounded: the oldest entries go past `max`.
 */
export class SlugCache {
  private readonly slugs = new Map<string, string>();
  constructor(private readonly max = 10_000) {}

  async get(db: Executor, tenantIds: Iterable<string>): Promise<Map<string, string>> {
    const wanted = [...new Set(tenantIds)];
    const missing = wanted.filter((id) => !this.slugs.has(id));
    if (missing.length > 0) {
      const rows = await db.selectFrom('tenants').select(['id', 'slug']).where('id', 'in', missing).execute();
      for (const r of rows) {
        if (this.slugs.size >= this.max) this.slugs.delete(this.slugs.keys().next().value!);
        this.slugs.set(r.id, r.slug);
      }
    }
    return new Map(wanted.map((id) => [id, this.slugs.get(id) ?? '']));
  }
}

/** Change-log rows per read of bodies. */
const ROWS_PER_READ = 500;

/**
 * The body of each delivery, by delivery id: the stored one, or the one made from its change-log
 * row (one read per tenant and ROWS_PER_READ rows, by the log's key). null: the row is not in the
 * log (or no longer an event), which cannot happen while the log is append-only; the sender fails
 * such a delivery rather than send something else.
 */
export async function deliveryBodies(db: Executor, rows: ReadonlyArray<BodyOf>, slugs: SlugCache): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const narrow = new Map<string, BodyOf[]>();
  for (const d of rows) {
    if (!isNarrow(d)) out.set(d.id, d.body);
    else {
      let list = narrow.get(d.tenant_id);
      if (!list) narrow.set(d.tenant_id, (list = []));
      list.push(d);
    }
  }
  if (narrow.size === 0) return out;
  const slugOf = await slugs.get(db, narrow.keys());
  for (const [tenantId, list] of narrow) {
    const tenant = { id: tenantId, slug: slugOf.get(tenantId) ?? '' };
    const ids = [...new Set(list.map((d) => d.event_id))];
    const made = new Map<string, string | null>();
    for (let i = 0; i < ids.length; i += ROWS_PER_READ) {
      const part = ids.slice(i, i + ROWS_PER_READ);
      // Each op id looked up on its own (selectByKeys, server/db/bulk.ts): without statistics PostgreSQL read all the tenant's log for it.
      const changes = await selectByKeys<Pick<ChangeLogTable, 'op_id' | 'kind' | 'entity_id' | 'payload' | 'created_at'>>(db, 'change_log', ['op_id', 'kind', 'entity_id', 'payload', 'created_at'], { tenant_id: tenantId }, 'op_id', part);
      for (const c of changes) made.set(c.op_id, eventBody(c, tenant));
    }
    for (const d of list) out.set(d.id, made.get(d.event_id) ?? null);
  }
  return out;
}
