import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { accessName, type Access, type ApiScope } from '../shared/access.js';
import { forbidden } from '../shared/errors.js';
import type { Session } from '../shared/session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route (server/shared/access.ts); every route declares it. */
    access?: Access;
  }
}

export interface GuardsOptions {
  /** The request's session, or a 401 (the auth plugin's `app.authenticate`). */
  session(request: FastifyRequest): Promise<Session>;
  /** Checks the partner's API key and its scope: 401 / 403 / 429 (the apikeys module's guard). */
  apiKey(request: FastifyRequest, reply: FastifyReply, scope: ApiScope): Promise<void>;
  /** Checks an appliance's SYNC_KEY: 401 (the sync service's device authentication). */
  syncKey(request: FastifyRequest): Promise<void>;
  /**
   * URL prefixes of routes that other plugins add and that cannot carry a declaration (the docs page's
   * files, the static files of the staff app and the guest pages): public. Every other route without
   * an `access` declaration is refused when it is registered.
   */
  undeclaredPublic: readonly string[];
}

/** The OpenAPI security requirement of an access (the schemes are in server/plugins/openapi.ts). */
export function securityOf(access: Access): Array<Record<string, string[]>> {
  if (access === 'public') return [];
  if (access === 'session' || access === 'admin') return [{ session: [] }];
  if (access === 'syncKey') return [{ syncKey: [] }];
  return [{ apiKey: [] }];
}

/**
 * One guard style (docs/adr/0008-module-frame.md): every route says who may call it in
 * `config.access`, and one `onRequest` hook checks it, before the body is parsed or validated, so a
 * caller without a session gets 401 (and a staff member on an admin route 403) whatever was sent.
 * A route without a declaration fails at registration: nothing is left open by accident.
 */
async function guardsPlugin(app: FastifyInstance, opts: GuardsOptions): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    const access = route.config?.access;
    if (access === undefined) {
      if (opts.undeclaredPublic.some((prefix) => route.url.startsWith(prefix))) return;
      throw new Error(`Route ${String(route.method)} ${route.url} declares no access: add config: { access: 'public' | 'session' | 'admin' | 'syncKey' | { apiKey: scope } }`);
    }
    // The document says the same: security per operation, and who exactly (admin) in x-access.
    route.schema = { ...route.schema, security: securityOf(access), 'x-access': accessName(access) } as RouteOptions['schema'];
  });

  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') return;
    if (access === 'session') {
      await opts.session(request);
    } else if (access === 'admin') {
      if ((await opts.session(request)).role !== 'admin') throw forbidden();
    } else if (access === 'syncKey') {
      await opts.syncKey(request);
    } else {
      await opts.apiKey(request, reply, access.apiKey);
    }
  });
}

export default fp(guardsPlugin, { name: 'guards', dependencies: ['auth'] });
