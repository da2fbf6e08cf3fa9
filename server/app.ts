import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import { ResponseSerializationError, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { paymentWarning, type Config } from './config.js';
import type { ChangeLog } from './db/change-log.js';
import type { DbHandle } from './db/connection.js';
import { AppError, internal, rateLimited, shuttingDown } from './shared/errors.js';
import type { Clock } from './shared/clock.js';
import { newId } from './shared/ids.js';
import { isBuiltByServer } from './shared/schemas.js';
import { exactShapeCheck } from './shared/shape-check.js';
import { MUTATING_METHODS } from './shared/rate-limit.js';
import errorsPlugin from './plugins/errors.js';
import authPlugin from './plugins/auth.js';
import guardsPlugin from './plugins/guards.js';
import openapiPlugin from './plugins/openapi.js';
import realtimePlugin from './plugins/realtime.js';
import consumersPlugin from './plugins/consumers.js';
import schedulerPlugin, { type JobSpec } from './plugins/scheduler.js';
import { backupDir, makeBackup } from './backup.js';
import { connectCluster, localNodeName } from './cluster.js';
import { infrastructureOptions, registerModules, type Services } from './modules/index.js';
import { PAGES_INLINE_SCRIPTS, pagesRoutes } from './pages.js';
import securityPlugin from './plugins/security.js';
import { staticInlineScripts } from './plugins/ui.js';
import { RETURN_PAGE_SCRIPT } from './modules/public/public.pages.js';

export interface AppDeps {
  config: Config;
  handle: DbHandle;
  clock: Clock;
  changes: ChangeLog;
  services: Services;
  logger?: FastifyServerOptions['logger'];
  /** The staff app's version for its service worker (default: server/version.ts); tests start a "new version" with it. */
  appVersion?: string;
  /** Tests only: the OpenAPI document and Swagger UI registered at start instead of at first use (server/plugins/openapi.ts `eager`). */
  eagerDocs?: boolean;
}

export { RATE_LIMIT_EXEMPT } from './shared/rate-limit.js';

/**
 * Routes that other plugins add, which cannot declare their access: the API docs page's files
 * (@fastify/swagger-ui) and the staff app's and guest pages' static files (@fastify/static). Public.
 */
const UNDECLARED_PUBLIC = ['/api/v1/docs', '/app/', '/g/assets/'];

/** Never logged: session cookies, API keys, sync keys. */
export const REDACT = ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'];

/** Tests (vitest) check the answers the server builds itself with zod too, and that shape-check.ts agrees with it (shared/schemas.ts builtByServer). */
const checkBuiltAnswers = process.env.VITEST !== undefined;

/** Fastify with plugins and modules; does not listen (tests use inject, main.ts listens). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger ?? false,
    // TRUST_PROXY=1: one load balancer in front, which appends the client's address to
    // X-Forwarded-For. Trust exactly that hop: the addresses before it are whatever the client
    // wrote, and trusting them would let anyone pick a fresh IP (and rate-limit budget) per request.
    trustProxy: config.trustProxy ? (_address: string, hop: number) => hop < 1 : false,
    bodyLimit: config.bodyLimit,
    requestIdHeader: 'x-request-id',
    genReqId: () => newId(),
    // Our own answer during shutdown instead (below): Fastify's has a fixed English body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // The router's own refusals, before any route or hook runs: a path segment over 100 characters
    // (414) and a broken %-escape (400). Fastify answers them with a fixed English body; these are
    // the contract's (issue 28 point 9).
    frameworkErrors: (error, _request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const appError = tooLong
        ? new AppError('VALIDATION', 'Ongeldige invoer: een deel van het adres is te lang (hoogstens 100 tekens).', { status: 414 })
        : error.code === 'FST_ERR_BAD_URL'
          ? new AppError('VALIDATION', 'Ongeldige invoer: het adres bevat een ongeldige %-code.')
          : internal();
      return (reply as FastifyReply).code(appError.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(appError.toBody()));
    },
  });
  // An empty body sent with Content-Type: application/json is "no body" (many HTTP clients set the
  // header on every request, also on DELETE). Fastify's default answers FST_ERR_CTP_EMPTY_JSON_BODY;
  // routes that need a body still reject `undefined` through their schema, with a named field.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // A JSON `null` is no body of any route: routes whose body may be left out see `null` for a
  // request without one, so a literal `null` would pass as "no body" (issue 28 point 9).
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    return parseJson(request, body as string, (err: Error | null, value?: unknown) => {
      if (!err && value === null) return done(new AppError('VALIDATION', 'Ongeldige invoer: de body mag niet null zijn; laat hem weg of stuur een object.'), undefined);
      return done(err, value);
    });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler((route) => {
    const { schema, method, url } = route;
    if (!isBuiltByServer(schema)) return serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);
    // Built by the server itself (shared/schemas.ts builtByServer): checked by a plain function made
    // from the schema (shared/shape-check.ts: the same verdict as "the parse succeeds and changes
    // nothing", at a fraction of its cost), then one JSON.stringify. A schema it cannot take is parsed.
    const shape = exactShapeCheck(schema);
    const refused = (data: unknown, text: string) => {
      const parsed = schema.safeParse(data);
      if (parsed.error) return new ResponseSerializationError(method, url, { cause: parsed.error });
      return new Error(`${method} ${url}: the answer is not exactly its schema's shape (builtByServer): ${text}`);
    };
    if (shape && !checkBuiltAnswers) {
      return (data) => {
        const text = JSON.stringify(data);
        if (!shape(data)) throw refused(data, text);
        return text;
      };
    }
    // Under the test runner (and for a schema the check cannot take) zod parses the answer, which must
    // come out unchanged; under vitest the plain check must also give the same verdict as zod.
    return (data) => {
      const text = JSON.stringify(data);
      const parsed = schema.safeParse(data);
      const exact = !parsed.error && JSON.stringify(parsed.data) === text;
      if (checkBuiltAnswers && shape && shape(data) !== exact) throw new Error(`${method} ${url}: shape-check.ts says ${String(!exact)}, zod says ${String(exact)}: ${text}`);
      if (!exact) throw refused(data, text);
      return text;
    };
  });

  // Several cloud nodes share Redis (docs/adr/0004-cloud-scale-out.md); the appliance never needs it.
  const cluster = config.redisUrl
    ? await connectCluster({ url: config.redisUrl, prefix: config.redisPrefix ?? 'restaurant:', changes: deps.changes, log: app.log })
    : null;
  // Registered first, so it runs after every plugin's own onClose (socket.io unsubscribes through it).
  if (cluster) app.addHook('onClose', () => cluster.close());

  await app.register(errorsPlugin);
  // Security headers on every answer; the inline scripts the pages declare are allowed by hash.
  await app.register(securityPlugin, { inlineScripts: [...staticInlineScripts(), ...PAGES_INLINE_SCRIPTS, RETURN_PAGE_SCRIPT] });
  // During close() in-flight requests finish, idle connections are closed, and a request that still
  // arrives (pipelined behind one in flight on a kept-alive connection) gets a 503 in the contract's
  // shape with `Connection: close`.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Both hooks run for every request: plain callbacks, no promise each (bench/README.md "The order path, session 13").
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) return done(shuttingDown());
    done();
  });
  // A kept-alive connection that becomes idle while closing (its request was in flight, or a
  // long-poll answered early) is closed too, or it would hold the close up (Node closes idle
  // connections only once, when the close begins). One with a pipelined request still gets its 503.
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  await app.register(cookie);
  await app.register(rateLimit, {
    // With Redis the budget is one per client IP across all nodes; a Redis outage lets requests
    // through (skipOnError) rather than refusing every mutation.
    ...(cluster ? { redis: cluster.redis, nameSpace: `${cluster.prefix}rate-limit:`, skipOnError: true } : {}),
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => request.ip,
    // Only mutations count (CONTRACT §4); exempt routes spread RATE_LIMIT_EXEMPT into their config.
    allowList: (request) => !MUTATING_METHODS.has(request.method),
    errorResponseBuilder: (_request, context) => rateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  const infra = infrastructureOptions(app, deps, deps.services);
  await app.register(authPlugin, { ...infra.session, trustedOrigins: config.publicBaseUrl ? [config.publicBaseUrl] : [] });
  // Before any route (the OpenAPI description's too): every route declares its access (docs/adr/0008-module-frame.md).
  await app.register(guardsPlugin, { ...infra.guards, session: (request) => app.authenticate(request), undeclaredPublic: UNDECLARED_PUBLIC });
  await app.register(openapiPlugin, { ...infra.openapi, eager: deps.eagerDocs });
  await app.register(realtimePlugin, { lookup: infra.session.lookup, events: infra.events, changes: deps.changes, db: deps.handle.db, adapter: cluster?.adapter });
  const jobs: JobSpec[] = [...infra.jobs];
  // The appliance's nightly backup (server/backup.ts): 03:30 local time, the newest 14 kept.
  if (deps.handle.backup && config.role === 'local') {
    jobs.push({
      name: 'backup',
      cron: '30 3 * * *',
      run: async ({ log }) => {
        const info = await makeBackup(deps.handle, backupDir(config), deps.clock.now());
        log.info({ file: info.file, bytes: info.bytes }, 'backup made');
      },
    });
  }
  await app.register(schedulerPlugin, { jobs });
  await app.register(consumersPlugin, { db: deps.handle.db, dialect: deps.handle.dialect, clock: deps.clock, changes: deps.changes, node: cluster?.node ?? localNodeName() });

  // A cloud on the payment simulator says so at every start (and in /health): issue 28 point 5.
  const simulatorWarning = paymentWarning(config);
  if (simulatorWarning) app.addHook('onReady', async () => app.log.warn({ payment_provider: 'simulator' }, simulatorWarning));

  await registerModules(app, deps, deps.services);
  await app.register(pagesRoutes, { tenants: deps.services.tenants, role: config.role });
  await app.register((await import('./plugins/ui.js')).uiRoutes, { version: deps.appVersion }); // the staff app at /app/ (app/ui, static files)
  await app.register((await import('./plugins/ui.js')).guestRoutes); // the guest pages at /g/:slug/ (app/guest)
  return app;
}
