import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { VERSION } from '../version.js';
import { swaggerCsp } from './security.js';

/**
 * OpenAPI generated from the same zod schemas that validate the routes, served at
 * /api/v1/openapi.json, with a browsable page at /api/v1/docs.
 */
async function openapiPlugin(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
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
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  // Swagger UI sets its own hash-based policy on its pages; framing and plain HTTP as everywhere (security.ts).
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs', staticCSP: true, transformStaticCSP: swaggerCsp });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapiPlugin, { name: 'openapi' });
