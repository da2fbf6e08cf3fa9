import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden, rateLimited } from '../../shared/errors.js';
import { EXTERNAL_READS_PER_MINUTE, scopeAllows, type Scope } from './apikeys.schemas.js';
import type { ApiKeyContext, ApiKeysService } from './apikeys.service.js';

const keys = new WeakMap<FastifyRequest, ApiKeyContext>();

/** The key of a request that passed the `apiKey` guard (throws otherwise: a route declared without `access: { apiKey }`). */
export function apiKeyOf(request: FastifyRequest): ApiKeyContext {
  const ctx = keys.get(request);
  if (!ctx) throw new AppError('UNAUTHORIZED', 'Geen geldige API-sleutel.');
  return ctx;
}

const unauthorizedKey = (message: string) => new AppError('UNAUTHORIZED', message, { headers: { 'www-authenticate': 'Bearer realm="api"' } });

/**
 * Bearer-key authentication for the partner API (CONTRACT §12, spec §5.6): missing, malformed,
 * unknown or revoked key → 401; a key without the scope → 403. Reads also spend the key's budget of
 * EXTERNAL_READS_PER_MINUTE (one budget over all read endpoints; shared by the cloud's nodes through
 * the same Redis store as the mutation limit) → 429 with Retry-After. Mutations count against the
 * ordinary per-IP mutation limit (CONTRACT §4) instead. Handed to server/plugins/guards.ts by the
 * composition root: routes declare `config: { access: { apiKey: 'read' } }`.
 */
export function apiKeyGuard(app: FastifyInstance, apiKeys: ApiKeysService, opts: { readsPerMinute?: number } = {}) {
  const limit = app.createRateLimit({
    max: opts.readsPerMinute ?? EXTERNAL_READS_PER_MINUTE,
    timeWindow: 60_000,
    // Per key, not per address: a platform's requests come from many addresses.
    keyGenerator: (request) => `api-key:${keys.get(request)?.keyId ?? request.ip}`,
    allowList: undefined,
  });

  return async function checkKey(request: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<void> {
    const header = request.headers.authorization;
    if (!header) throw unauthorizedKey("Geen API-sleutel meegestuurd: gebruik de header 'Authorization: Bearer svc_…'.");
    const ctx = await apiKeys.authenticate(header);
    if (!ctx) throw unauthorizedKey('Deze API-sleutel is onbekend of ingetrokken.');
    if (!scopeAllows(ctx.scopes, scope)) throw forbidden(`Deze API-sleutel mag dit niet: daarvoor is de scope '${scope}' nodig.`);
    keys.set(request, ctx);
    if (request.method === 'GET') {
      const r = await limit(request);
      if (!r.isAllowed) {
        reply.header('x-ratelimit-limit', r.max);
        reply.header('x-ratelimit-remaining', r.remaining);
        reply.header('x-ratelimit-reset', r.ttlInSeconds);
        if (r.isExceeded) throw rateLimited(Math.max(1, r.ttlInSeconds));
      }
    }
  };
}
