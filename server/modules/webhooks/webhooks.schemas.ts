import { z } from 'zod';
import { Limit, Offset } from '../../shared/schemas.js';
import '../../shared/validation.js';

/** The webhook events (spec §6, and a held course sent to the kitchen: CONTRACT §17); nothing else can be subscribed to. */
export const WEBHOOK_EVENTS = ['order.created', 'order.paid', 'order.status_changed', 'order.course_fired', 'reservation.created', 'haccp.incident', 'loyalty.customer_created'] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENTS);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** Waits before the 2nd, 3rd and 4th attempt (CONTRACT §12): four attempts at most. */
export const RETRY_DELAYS_MS = [1_000, 4_000, 16_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** One attempt, from resolving the address to the last byte of the answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Active webhooks per restaurant. */
export const MAX_WEBHOOKS = 25;

/** `whsec_` + 64 hex (256 bits); the HMAC key is this whole string (UTF-8). */
export const SECRET_PATTERN = /^whsec_[0-9a-f]{64}$/;

const WebhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .meta({ description: 'http(s) address that receives the POSTs. In the cloud, private, loopback and link-local addresses are refused unless the operator allows them.' });

const EventList = z
  .array(WebhookEventType)
  .min(1)
  .transform((e) => [...new Set(e)].sort((a, b) => WEBHOOK_EVENTS.indexOf(a) - WEBHOOK_EVENTS.indexOf(b)));

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(WebhookEventType),
    description: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof Webhook>;

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().meta({ description: 'Signing secret (`whsec_` + 64 hex), shown this once. Verify `X-Service-Signature` with it (docs/partners.md).' }),
}).meta({ id: 'WebhookWithSecret' });

export const CreateWebhookBody = z
  .object({
    url: WebhookUrl,
    events: EventList.meta({ description: `One or more of: ${WEBHOOK_EVENTS.join(', ')}.` }),
    description: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export type CreateWebhookInput = z.input<typeof CreateWebhookBody>;

export const WebhookParams = z.object({ id: z.uuid() });
export const DeliveryParams = z.object({ id: z.uuid(), deliveryId: z.uuid() });

export const ListDeliveriesQuery = z.object({ status: DeliveryStatus.optional(), limit: Limit, offset: Offset }).strict();

/** What a receiver gets (the body of every POST). */
export const WebhookEventBody = z
  .object({
    id: z.string().meta({ description: 'The event id: the same for every webhook the event is sent to.' }),
    type: WebhookEventType,
    created_at: z.string().meta({ description: 'When it happened (also for an event made offline on the appliance and sent after it synced).' }),
    tenant: z.object({ id: z.string(), slug: z.string() }),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        'order.created and order.paid: `{ order }` (order.paid also `payment`); order.status_changed: `{ order, from, to }`; ' +
        'order.course_fired: `{ order, fire: { id, course, user_id, created_at } }` (once per order and course); ' +
        'reservation.created: `{ reservation: { id, date, time, starts_at, ends_at, party_size, name, phone, email, notes, table_id, status, source, created_at, updated_at } }`; ' +
        'haccp.incident: `{ incident, log? }` (the incident as GET /haccp/incidents shows it, and the temperature log that caused it); ' +
        'loyalty.customer_created: `{ customer: { id, phone, name, email, created_at } }`.',
    }),
  })
  .meta({ id: 'WebhookEvent' });
export type WebhookEventBody = z.infer<typeof WebhookEventBody>;

export const Delivery = z
  .object({
    id: z.string().meta({ description: 'The `X-Service-Delivery` header: the same on every attempt and on a redelivery.' }),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: WebhookEventType,
    status: DeliveryStatus,
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    last_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    event: WebhookEventBody,
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof Delivery>;

/**
 * A webhook subscription as it travels through sync (`webhook.created`, `webhook.secret_rotated`,
 * `webhook.deleted`): the whole row, secret included (the sender must sign). Validated like an API
 * request on every side.
 */
export const WebhookRecord = z
  .object({
    id: z.uuid(),
    url: z.url({ protocol: /^https?$/ }).max(2000),
    events: z.array(WebhookEventType).min(1).max(WEBHOOK_EVENTS.length),
    secret: z.string().regex(SECRET_PATTERN),
    description: z.string().trim().min(1).max(200).nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    deleted_at: z.iso.datetime().nullable(),
  })
  .loose();
export type WebhookRecord = z.infer<typeof WebhookRecord>;
