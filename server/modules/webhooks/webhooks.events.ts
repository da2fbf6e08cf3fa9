import { z } from 'zod';
import { Incident, TemperatureLog } from '../haccp/haccp.schemas.js';
import { Customer } from '../loyalty/loyalty.schemas.js';
import { Order, OrderStatus } from '../orders/orders.schemas.js';
import { Reservation } from '../reservations/reservations.schemas.js';
import type { WebhookEventType } from './webhooks.schemas.js';

/**
 * The body of each webhook event, as OpenAPI 3.1 `webhooks` describe them to a partner
 * (server/plugins/openapi-document.ts): the envelope of WebhookEventBody with the event's own `data`
 * (webhooks.payloads.ts makes it from the change log). test/server/modules/webhooks/event-schemas.test.ts
 * checks real deliveries of every event against these.
 */
const envelope = <T extends WebhookEventType, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: z.string().meta({ description: 'The event id: the same for every webhook the event is sent to, and on every attempt.' }),
    type: z.literal(type),
    created_at: z.string().meta({ description: 'When it happened (also for an event made offline on the appliance and sent after it synced).' }),
    tenant: z.object({ id: z.string(), slug: z.string() }),
    data,
  });

/** A reservation as a webhook carries it: the booking without the floor plan's table name or a sync conflict. */
const WebhookReservation = Reservation.omit({ table_name: true, conflict: true });

export const WEBHOOK_EVENT_BODIES = {
  'order.created': envelope('order.created', z.object({ order: Order })).meta({ id: 'WebhookOrderCreated', description: 'A new order (staff, web, a partner or an appliance after sync).' }),
  'order.paid': envelope(
    'order.paid',
    z.object({
      order: Order,
      payment: z
        .object({ provider: z.string().optional(), payment_id: z.string().optional(), amount_cents: z.number().int().optional() })
        .optional()
        .meta({ description: 'How it was paid, where known (an online payment: its provider and id).' }),
    }),
  ).meta({ id: 'WebhookOrderPaid', description: 'An order is paid (once per order).' }),
  'order.status_changed': envelope('order.status_changed', z.object({ order: Order, from: OrderStatus, to: OrderStatus })).meta({
    id: 'WebhookOrderStatusChanged',
    description: 'An order moved to another status; `order` is the order after the change.',
  }),
  'order.course_fired': envelope(
    'order.course_fired',
    z.object({
      order: Order,
      fire: z
        .object({ id: z.string(), course: z.number().int(), user_id: z.string().nullable(), created_at: z.string() })
        .meta({ description: 'The fire: which course went to the kitchen, who sent it and when (the first one, when two tablets fired it).' }),
    }),
  ).meta({ id: 'WebhookOrderCourseFired', description: 'A held course (2..5) of an order was sent to the kitchen; `order` shows its lines with `held: false` and `fired_at`. Once per order and course.' }),
  'reservation.created': envelope('reservation.created', z.object({ reservation: WebhookReservation })).meta({
    id: 'WebhookReservationCreated',
    description: 'A new booking (the guest pages, staff, or an appliance after sync).',
  }),
  'haccp.incident': envelope('haccp.incident', z.object({ incident: Incident, log: TemperatureLog.optional().meta({ description: 'The temperature reading that opened it, if one did.' }) })).meta({
    id: 'WebhookHaccpIncident',
    description: 'A food-safety incident opened: a critical temperature or an overdue reading or checklist.',
  }),
  'loyalty.customer_created': envelope('loyalty.customer_created', z.object({ customer: Customer.pick({ id: true, phone: true, name: true, email: true, created_at: true }) })).meta({
    id: 'WebhookLoyaltyCustomerCreated',
    description: 'A new loyalty customer.',
  }),
} satisfies Record<WebhookEventType, z.ZodType>;

