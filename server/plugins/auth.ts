import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, unauthorized } from '../shared/errors.js';
import type { Session, SessionLookup } from '../shared/session.js';

export const SESSION_COOKIE = 'ck_token';

declare module 'fastify' {
  interface FastifyRequest {
    auth: Session | null;
  }
  interface FastifyInstance {
    /**
     * The request's session (and `request.auth` set), or 401; a cookie mutation from another site is
     * 403. Routes do not call it: they declare `config: { access }` and server/plugins/guards.ts does.
     */
    authenticate(request: FastifyRequest): Promise<Session>;
    setSessionCookie(reply: FastifyReply, token: string, request: FastifyRequest): void;
    clearSessionCookie(reply: FastifyReply): void;
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface AuthPluginOptions {
  /** Cookie value → live session (the auth module's `authenticate`, handed in by the composition root). */
  lookup: SessionLookup;
  /** How long the session cookie lives: the session's absolute lifetime (the auth module's ABSOLUTE_MS). */
  maxAgeMs: number;
  /** Origins (scheme://host[:port]) besides the request's own that cookie mutations may come from: PUBLIC_BASE_URL's. */
  trustedOrigins?: readonly string[];
}

/**
 * Whether a cookie-authenticated mutation comes from this server's own pages (issue 28 point 7).
 * A browser says where a request comes from: `Sec-Fetch-Site` (current browsers; only
 * `same-origin` passes: `same-site` includes other ports and subdomains of the same host, which
 * SameSite=Lax cookies reach) and otherwise `Origin`, which must be this server's own address or a
 * trusted one (`null` never is). A client that is no browser sends neither and passes: it cannot
 * carry someone else's cookie.
 */
export function fromOwnPages(request: FastifyRequest, trusted: readonly string[]): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== '') return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  if (origin === undefined || origin === '') return true;
  return origin === `${request.protocol}://${request.host}` || trusted.includes(origin);
}

async function authPlugin(app: FastifyInstance, opts: AuthPluginOptions): Promise<void> {
  app.decorateRequest('auth', null);
  const trusted = (opts.trustedOrigins ?? []).map((u) => new URL(u).origin);

  async function resolve(request: FastifyRequest): Promise<Session> {
    if (request.auth) return request.auth;
    const ctx = await opts.lookup(request.cookies[SESSION_COOKIE]);
    if (!ctx) throw unauthorized();
    // A cookie-authenticated mutation must be JSON (or multipart where uploads are allowed):
    // a cross-site HTML form cannot send either, so forms from other sites are kept out.
    if (MUTATING.has(request.method)) {
      if (!fromOwnPages(request, trusted)) {
        throw new AppError('FORBIDDEN', 'Dit verzoek komt van een andere website en is geweigerd. Gebruik de app van het restaurant zelf.');
      }
      const type = (request.headers['content-type'] ?? '').toLowerCase();
      if (type && !type.startsWith('application/json') && !type.startsWith('multipart/form-data')) {
        throw new AppError('VALIDATION', 'Ongeldige invoer: stuur de gegevens als JSON (Content-Type: application/json).');
      }
    }
    request.auth = ctx;
    return ctx;
  }

  app.decorate('authenticate', resolve);
  app.decorate('setSessionCookie', (reply: FastifyReply, token: string, request: FastifyRequest) => {
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: request.protocol === 'https',
      maxAge: Math.floor(opts.maxAgeMs / 1000),
    });
  });
  app.decorate('clearSessionCookie', (reply: FastifyReply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
  });
}

export default fp(authPlugin, { name: 'auth', dependencies: ['@fastify/cookie'] });

/** The session of a route whose access is `session` or `admin` (server/plugins/guards.ts checked it). */
export function sessionOf(request: FastifyRequest): Session {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
