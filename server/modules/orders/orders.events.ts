import type { ChangeRecord } from '../../db/change-log.js';
import type { LiveEvents } from '../../plugins/realtime.js';
import type { Order } from './orders.schemas.js';

declare module '../../plugins/realtime.js' {
  interface ServerToClientEvents {
    /** An order was created (POS, web, partner, or synced in). */
    'order:created': (e: { seq: number; order: Order }) => void;
    /** An order's status changed (`order.status_changed`, with from/to) or it was paid (`order.paid`). */
    'order:updated': (e: { seq: number; order: Order; kind: 'order.status_changed' | 'order.paid' | 'order.course_fired' | 'order.item_voided'; from?: string; to?: string }) => void;
  }
}

type OrderChange = { order: Order; from?: string; to?: string };
const payloadOf = (c: ChangeRecord) => c.payload as OrderChange;

/** Orders' change kinds → the tablets' events (docs/realtime.md). */
export const ordersEvents: LiveEvents = {
  'order.created': (c) => ({ name: 'order:created', payload: { seq: c.seq, order: payloadOf(c).order } }),
  'order.status_changed': (c) => {
    const p = payloadOf(c);
    return { name: 'order:updated', payload: { seq: c.seq, order: p.order, kind: 'order.status_changed', from: p.from, to: p.to } };
  },
  'order.paid': (c) => ({ name: 'order:updated', payload: { seq: c.seq, order: payloadOf(c).order, kind: 'order.paid' } }),
  // The kitchen board (CONTRACT §17): a held course fired, units voided.
  'order.course_fired': (c) => ({ name: 'order:updated', payload: { seq: c.seq, order: payloadOf(c).order, kind: 'order.course_fired' } }),
  'order.item_voided': (c) => ({ name: 'order:updated', payload: { seq: c.seq, order: payloadOf(c).order, kind: 'order.item_voided' } }),
};
