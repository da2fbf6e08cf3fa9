import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { ApiKey, ApiKeyParams, CreateApiKeyBody, CreatedApiKey, EXTERNAL_READS_PER_MINUTE } from './apikeys.schemas.js';
import type { ApiKeysService } from './apikeys.service.js';

/** API keys for partners (CONTRACT §12): admin only. */
export const apiKeysRoutes: FastifyPluginAsyncZod<{ apiKeys: ApiKeysService }> = async (app, { apiKeys }) => {
  const tags = ['API-sleutels'];

  app.get(
    '/api-keys',
    { config: { access: 'admin' }, schema: { tags, summary: 'API keys of this restaurant, newest first (never the key itself)', response: { 200: listOf(ApiKey), ...errors(401, 403) } } },
    async (request) => ({ data: await apiKeys.list(sessionOf(request).tenantId) }),
  );

  app.post(
    '/api-keys',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create an API key for a partner; the key is in this answer only',
        description:
          'Answers 201 with `key` (`svc_` + 64 hex), shown this once; only its hash is stored. The partner sends it as ' +
          '`Authorization: Bearer svc_…` to the `/external/…` endpoints (tag "Partner-API"). Scopes: `read` (the read endpoints), ' +
          `\`write\` (also order status updates), \`admin\` (everything a key can do). Reads are limited to ${EXTERNAL_READS_PER_MINUTE} per minute per key.`,
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...errors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      return reply.code(201).send(await apiKeys.create(s.tenantId, request.body, s.userId));
    },
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Revoke an API key: refused from the next request on (revoking again changes nothing)',
        params: ApiKeyParams,
        response: { 204: z.null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await apiKeys.revoke(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
