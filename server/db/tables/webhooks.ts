/** Webhook subscriptions and the delivery queue (0012, server/modules/webhooks). Composed into `Database` by ../database.ts. */

/** Webhook subscriptions (0012, server/modules/webhooks); replicated, soft-deleted. */
export interface WebhookSubscriptionsTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON list of event names (spec §6). */
  events: string;
  /** Signing secret (`whsec_` + 64 hex), in clear: the sender signs with it. */
  secret: string;
  description: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The sender's persisted delivery queue (0012); local-only. `id` is the X-Service-Delivery header. */
export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  webhook_id: string;
  /** The event's id: the change-log op id that carried it. */
  event_id: string;
  /** Unique per webhook: one delivery per event, also when it reached this node twice. */
  event_key: string;
  event_type: string;
  /**
   * '' for a narrow row (queued since session 13): the body is made from the change-log row
   * (tenant_id, event_id) when it is sent or read (server/modules/webhooks/webhooks.bodies.ts).
   * Otherwise the exact bytes that are signed and sent on every attempt (rows queued before, and
   * narrow rows whose redacted body an erasure stored).
   */
  body: string;
  status: 'pending' | 'delivered' | 'failed' | string;
  attempts: number;
  next_attempt_at: string | null;
  lock_token: string | null;
  locked_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The webhooks tables by name, as composed into `Database`. */
export interface WebhooksTables {
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
