import type { ChangeRecord } from '../../db/change-log.js';
import { WEBHOOK_EVENTS, type WebhookEventType } from './webhooks.schemas.js';

const EVENT_SET: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);
export const isWebhookEvent = (kind: string): kind is WebhookEventType => EVENT_SET.has(kind);

/** Change-log bookkeeping that is not for partners (sync, idempotency, audit internals). */
const INTERNAL_KEYS = new Set(['history', 'history_rows', 'fields', 'request_hash', 'idempotency_key', 'created_by', 'origin', 'business_day', 'by', 'via']);

function publicPart(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { value };
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([k]) => !INTERNAL_KEYS.has(k)));
}

const RESERVATION_FIELDS = ['id', 'date', 'time', 'starts_at', 'ends_at', 'party_size', 'name', 'phone', 'email', 'notes', 'table_id', 'status', 'source', 'created_at', 'updated_at'];
const CUSTOMER_FIELDS = ['id', 'phone', 'name', 'email', 'created_at'];

/** Only the named fields of a change-log row (the public face of the area's record). */
function pick(value: unknown, fields: string[]): Record<string, unknown> {
  const v = (value ?? {}) as Record<string, unknown>;
  return Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]]));
}

export interface EventOfChange {
  type: WebhookEventType;
  /**
   * What makes two changes the same event for a receiver: a delivery is unique per (webhook, key).
   * An event can reach the cloud's log twice in meaning (both sides of an outage marked the same
   * order paid, or moved it to the same status): the order id (+ status) keeps that to one delivery.
   */
  key: string;
  data: Record<string, unknown>;
}

/**
 * The webhook event a change-log record is, or null (not one of the events, or a change that did
 * not happen here: an order status the cloud did not apply because the order already had another
 * final status). The queue's consumer reads only the payloads of EVENTS_READ_FROM_PAYLOAD
 * (webhooks.consumer.ts): a kind whose null or key comes to depend on the payload belongs there.
 */
export function eventOf(change: Pick<ChangeRecord, 'kind' | 'entity_id' | 'payload'>): EventOfChange | null {
  if (!isWebhookEvent(change.kind)) return null;
  const p = (change.payload ?? {}) as Record<string, unknown> & { order?: { status?: string }; from?: unknown; to?: unknown; payment?: unknown; reservation?: unknown; customer?: unknown };
  switch (change.kind) {
    case 'order.created':
      return { type: change.kind, key: `order.created:${change.entity_id}`, data: { order: p.order } };
    case 'order.status_changed':
      if (!p.order || p.order.status !== p.to) return null;
      return { type: change.kind, key: `order.status_changed:${change.entity_id}:${String(p.to)}`, data: { order: p.order, from: p.from, to: p.to } };
    case 'order.course_fired': {
      // Once per order and course: both sides of an outage firing it is one event (the cloud records the fire that stands).
      const fire = (p as { fire?: { id?: unknown; course?: unknown; user_id?: unknown; created_at?: unknown } }).fire;
      if (!fire || typeof fire.course !== 'number') return null;
      return { type: change.kind, key: `order.course_fired:${change.entity_id}:${fire.course}`, data: { order: p.order, fire: { id: fire.id, course: fire.course, user_id: fire.user_id ?? null, created_at: fire.created_at } } };
    }
    case 'order.paid':
      return { type: change.kind, key: `order.paid:${change.entity_id}`, data: { order: p.order, ...(p.payment ? { payment: publicPart(p.payment) } : {}) } };
    case 'reservation.created':
      return { type: change.kind, key: `reservation.created:${change.entity_id}`, data: { reservation: pick(p.reservation, RESERVATION_FIELDS) } };
    case 'loyalty.customer_created':
      return { type: change.kind, key: `loyalty.customer_created:${change.entity_id}`, data: { customer: pick(p.customer, CUSTOMER_FIELDS) } };
    case 'haccp.incident':
      return { type: change.kind, key: `haccp.incident:${change.entity_id}`, data: publicPart(change.payload) };
    default:
      return null;
  }
}
