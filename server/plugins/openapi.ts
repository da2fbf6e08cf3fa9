import { createRequire } from 'node:module';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { VERSION } from '../version.js';
import { swaggerCsp } from './security.js';
import { transform, transformObjectWith } from './openapi-document.js';

export interface OpenApiPluginOptions {
  /** The document's OpenAPI 3.1 `webhooks` (what the service sends to partners), from the composition root. */
  webhooks?: Record<string, Record<string, unknown>>;
  /**
   * Register @fastify/swagger and Swagger UI at start, as before issue 29 point 5, instead of at the
   * first request for them. Only for the test that compares the two (test/server/openapi-lazy.test.ts).
   */
  eager?: boolean;
}

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PREFIX = '/api/v1/docs';

/** @fastify/swagger's options: the document's frame, and the zod schemas as JSON Schema 2020-12 refined into a document a partner can generate a client from. */
export function swaggerOptions(webhooks: OpenApiPluginOptions['webhooks']): FastifyDynamicSwaggerOptions {
  return {
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
    transform,
    transformObject: transformObjectWith(webhooks),
  };
}

/** Swagger UI sets its own hash-based policy on its pages; framing and plain HTTP as everywhere (security.ts). */
const SWAGGER_UI_OPTIONS: FastifySwaggerUiOptions = { routePrefix: DOCS_PREFIX, staticCSP: true, transformStaticCSP: swaggerCsp };

type SwaggerFn = FastifyInstance['swagger'];
type PluginFn = (instance: unknown, opts: unknown, done: (err?: Error) => void) => void;
type Hook = (...args: unknown[]) => unknown;

const require = createRequire(import.meta.url);

/**
 * @fastify/swagger's dynamic mode, set up at the first call on the routes this plugin collected at
 * start. The package registers three hooks (onRoute: collect the route; onRegister: collect the
 * encapsulated instances; onReady: read their shared schemas) and one decorator (`swagger`, the
 * function that builds and caches the document). Here it gets a stand-in for the instance that
 * records those, then is handed what the real hooks would have seen, in the same order, after
 * ready: the document is built from the same routes by the same code (the test compares it with
 * an eagerly registered @fastify/swagger's).
 */
function lazySwagger(app: FastifyInstance, routes: RouteOptions[], instances: FastifyInstance[], opts: FastifyDynamicSwaggerOptions): () => SwaggerFn {
  let swagger: SwaggerFn | undefined;
  // Every route is known once the app is ready (no route can be added after); as @fastify/swagger itself refuses before.
  let ready = false;
  app.addHook('onReady', async () => {
    ready = true;
  });
  return () => {
    if (swagger) return swagger;
    if (!ready) throw new Error('the OpenAPI document is built after ready() only');
    const { fastifySwagger } = require('@fastify/swagger') as { fastifySwagger: PluginFn };
    const hooks = new Map<string, Hook[]>();
    let decorated: SwaggerFn | undefined;
    const host = {
      addHook(name: string, hook: Hook) {
        hooks.set(name, [...(hooks.get(name) ?? []), hook]);
        return host;
      },
      decorate(name: string, value: unknown) {
        if (name === 'swagger') decorated = value as SwaggerFn;
        return host;
      },
      getSchemas: () => app.getSchemas(),
    };
    const outcome: { error?: Error } = {};
    const done = (err?: Error) => {
      if (err) outcome.error = err;
    };
    fastifySwagger(host, { ...opts }, done);
    const run = (name: string, ...args: unknown[]) => {
      for (const hook of hooks.get(name) ?? []) void hook(...args);
    };
    for (const route of routes) run('onRoute', route);
    for (const instance of instances) run('onRegister', instance);
    run('onReady', done);
    if (outcome.error) throw outcome.error;
    if (!decorated) throw new Error('@fastify/swagger did not decorate `swagger`');
    swagger = decorated;
    return swagger;
  };
}

/** Marks an answer of the docs app that matched no route (its 404), so the server answers its own 404 instead. */
const NOT_FOUND_MARK = 'x-docs-not-found';
/** Names a forwarded request, so an error the docs app met can be thrown again here. */
const FORWARD_ID = 'x-docs-forward';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date', NOT_FOUND_MARK, FORWARD_ID]);
const CSP = 'content-security-policy';

/**
 * Swagger UI (`/api/v1/docs/...`), loaded at the first request for it: a small Fastify app of its own
 * with @fastify/swagger-ui registered as before (its pages, its files through @fastify/static, its
 * `json` and `yaml` of the same document), asked through `inject`. Its status, headers and body
 * become this server's answer, so the server's own hooks (security headers, logging) still apply;
 * a path it does not know is this server's 404, and an error it met (a path that climbs out of its
 * folder) is thrown here, so the answer has the contract's error shape as before.
 */
function lazyDocsHandler(swagger: () => SwaggerFn) {
  let built: Promise<FastifyInstance> | undefined;
  let forwarded = 0;
  const failures = new Map<string, unknown>();
  const build = async () => {
    const docs = Fastify({ logger: false });
    // Swagger UI depends on a plugin named @fastify/swagger that decorates `swagger`: this one hands out the lazy document.
    await docs.register(
      fp(
        async (instance: FastifyInstance) => {
          instance.decorate('swagger', ((o?: { yaml?: boolean }) => swagger()(o as never)) as SwaggerFn);
        },
        { name: '@fastify/swagger' },
      ),
    );
    await docs.register(require('@fastify/swagger-ui') as typeof import('@fastify/swagger-ui').default, SWAGGER_UI_OPTIONS);
    docs.setNotFoundHandler((_request, reply) => reply.code(404).header(NOT_FOUND_MARK, '1').send());
    docs.setErrorHandler((error, request, reply) => {
      failures.set(String(request.headers[FORWARD_ID]), error);
      return reply.code(500).send();
    });
    await docs.ready();
    return docs;
  };
  return async (request: FastifyRequest, reply: FastifyReply) => {
    built ??= build().catch((err: unknown) => {
      built = undefined;
      throw err;
    });
    const docs = await built;
    const id = String(++forwarded);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const res = await docs.inject({ method: 'GET', url: request.url, headers: { ...(headers as Record<string, string>), [FORWARD_ID]: id } });
    const failure = failures.get(id);
    failures.delete(id);
    // Swagger UI's policy was on its refusals too (a missing file, a path out of its folder).
    if ((res.headers[NOT_FOUND_MARK] || failure !== undefined) && res.headers[CSP]) reply.header(CSP, res.headers[CSP]);
    if (res.headers[NOT_FOUND_MARK]) return reply.callNotFound();
    if (failure !== undefined) throw failure as Error;
    reply.code(res.statusCode);
    for (const [name, value] of Object.entries(res.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) reply.header(name, value);
    // An empty answer without a type (a redirect, a 304) stays so (a Buffer would be application/octet-stream).
    return reply.send(res.rawPayload.length || res.headers['content-type'] ? res.rawPayload : undefined);
  };
}

/**
 * OpenAPI 3.1 generated from the same zod schemas that validate the routes (refined in
 * openapi-document.ts), served at /api/v1/openapi.json, with a browsable page at /api/v1/docs.
 *
 * Both are loaded at their first request, not at start (issue 29 point 5): @fastify/swagger (with
 * yaml and its JSON-schema resolver) and Swagger UI (with @fastify/static) are ≈ 60 modules a start
 * of the appliance does not need. @fastify/swagger must see every route as it is registered, so
 * this plugin keeps what its hooks would have kept (the routes after this point, and the
 * encapsulated instances for their shared schemas) and hands them over at the first request.
 */
async function openapiPlugin(app: FastifyInstance, opts: OpenApiPluginOptions): Promise<void> {
  const options = swaggerOptions(opts.webhooks);
  if (opts.eager) {
    await app.register((await import('@fastify/swagger')).default, options);
    await app.register((await import('@fastify/swagger-ui')).default, SWAGGER_UI_OPTIONS);
    app.get(OPENAPI_PATH, { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
    return;
  }
  const routes: RouteOptions[] = [];
  const instances: FastifyInstance[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  app.addHook('onRegister', (instance) => {
    instances.push(instance);
  });
  const swagger = lazySwagger(app, routes, instances, options);
  app.decorate('swagger', ((o?: { yaml?: boolean }) => swagger()(o as never)) as SwaggerFn);
  app.get(OPENAPI_PATH, { config: { access: 'public' }, schema: { hide: true } }, async () => swagger()());
  const docs = lazyDocsHandler(swagger);
  app.get(DOCS_PREFIX, { config: { access: 'public' }, schema: { hide: true } }, docs);
  app.get(`${DOCS_PREFIX}/*`, { config: { access: 'public' }, schema: { hide: true } }, docs);
}

export default fp(openapiPlugin, { name: 'openapi' });
