import { operationIdOf } from '../../plugins/openapi-document.js';
import { WEBHOOK_EXAMPLES } from '../../plugins/openapi-examples.js';
import { WEBHOOK_EVENT_BODIES } from './webhooks.events.js';
import { ATTEMPT_TIMEOUT_MS, RETRY_DELAYS_MS, WEBHOOK_EVENTS } from './webhooks.schemas.js';

type Json = Record<string, unknown>;

/**
 * The six webhook events as OpenAPI 3.1 `webhooks`: what the service POSTs to a partner's URL, with
 * its headers and the body of each event (webhooks.events.ts, registered as components). The
 * composition root hands it to the OpenAPI plugin (server/plugins/openapi-document.ts `refineDocument`).
 */
export function webhooksDocument(): Record<string, Json> {
  const seconds = RETRY_DELAYS_MS.map((ms) => `${ms / 1000} s`);
  const header = (name: string, description: string, schema: Json) => ({ in: 'header', name, required: true, description, schema });
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((type) => {
      const id = WEBHOOK_EVENT_BODIES[type].meta()?.id as string;
      return [
        type,
        {
          post: {
            operationId: operationIdOf('post', `/webhook/${type.replace(/[._]/g, '-')}`),
            tags: ['Webhooks'],
            summary: `${type}: ${String(WEBHOOK_EVENT_BODIES[type].meta()?.description ?? '')}`,
            description:
              `Sent to every webhook subscribed to \`${type}\` (POST /api/v1/webhooks) as a JSON POST. Verify X-Service-Signature over the exact body bytes ` +
              `before trusting it; X-Service-Delivery is the same on every attempt and a redelivery, so a receiver can drop repeats.`,
            // What protects this call is the signature a receiver checks, not a credential it sends.
            security: [],
            parameters: [
              header('X-Service-Signature', '`sha256=` + hex HMAC-SHA256 of the exact body bytes, keyed with the webhook secret (`whsec_…`, UTF-8).', { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }),
              header('X-Service-Delivery', 'The delivery id: the same on every attempt and on a redelivery.', { type: 'string', format: 'uuid' }),
              header('X-Service-Event', 'The event type, as in the body.', { type: 'string', const: type }),
              header('X-Service-Attempt', `The attempt: 1 to ${RETRY_DELAYS_MS.length + 1}.`, { type: 'string', pattern: '^[1-9]$' }),
            ],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${id}` }, ...(WEBHOOK_EXAMPLES[type] ? { example: WEBHOOK_EXAMPLES[type] } : {}) } },
            },
            responses: {
              '2XX': { description: `Received: any 2xx answer within ${ATTEMPT_TIMEOUT_MS / 1000} s counts as delivered (the body is ignored).` },
              default: { description: `Any other answer, or none within ${ATTEMPT_TIMEOUT_MS / 1000} s: sent again after ${seconds.join(', ')}, then marked failed (an admin can redeliver it).` },
            },
          },
        },
      ];
    }),
  );
}
