import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { VERSION } from '../version.js';
import { swaggerCsp } from './security.js';
import { transform, transformObjectWith } from './openapi-document.js';

export interface OpenApiPluginOptions {
  /** The document's OpenAPI 3.1 `webhooks` (what the service sends to partners), from the composition root. */
  webhooks?: Record<string, Record<string, unknown>>;
}

/**
 * OpenAPI 3.1 generated from the same zod schemas that validate the routes (refined in
 * openapi-document.ts), served at /api/v1/openapi.json, with a browsable page at /api/v1/docs.
 */
async function openapiPlugin(app: FastifyInstance, opts: OpenApiPluginOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Restaurant operations API',
        version: VERSION,
        description:
          'Orders, stock, loyalty, food safety, floor plan, public ordering and more. Errors are `{ error, code, details? }` with Dutch messages. ' +
          'Sessions use the `ck_token` cookie; the external API uses `Authorization: Bearer svc_<hex>`.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'ck_token' },
          apiKey: { type: 'http', scheme: 'bearer' },
          syncKey: { type: 'http', scheme: 'bearer', description: "An appliance's SYNC_KEY (`Authorization: Bearer <key>`)." },
        },
      },
    },
    // The zod schemas as JSON Schema 2020-12, refined into a document a partner can generate a client from.
    transform,
    transformObject: transformObjectWith(opts.webhooks),
  });
  // Swagger UI sets its own hash-based policy on its pages; framing and plain HTTP as everywhere (security.ts).
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs', staticCSP: true, transformStaticCSP: swaggerCsp });
  app.get('/api/v1/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapiPlugin, { name: 'openapi' });
