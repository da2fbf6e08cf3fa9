import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Security headers on every answer (issue 28 point 6), as helmet makes them: a
 * Content-Security-Policy, `X-Content-Type-Options: nosniff`, a Referrer-Policy, `X-Frame-Options`
 * and `frame-ancestors 'none'`, and helmet's other defaults. SECURITY.md "Rules" says why each
 * directive is what it is.
 *
 * Scripts come from this server only; an inline script runs only when its exact text is one the
 * pages declared (`inlineScripts`, allowed by SHA-256 hash), so markup injected into a page cannot
 * run script. Styles may be inline (the server-rendered pages carry their own `<style>`; CSS cannot
 * run script). No `upgrade-insecure-requests`: the appliance is served over plain HTTP on the
 * restaurant's network.
 */
export interface SecurityOptions {
  /** The text of every inline `<script>` the pages serve (import maps, the first-run page's form). */
  inlineScripts: readonly string[];
}

export const cspHash = (script: string) => `'sha256-${crypto.createHash('sha256').update(script, 'utf8').digest('base64')}'`;

/** The inline scripts (`<script>` without `src`) of an HTML page, as the browser hashes them. */
export function inlineScriptsOf(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]!);
}

export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

/** Swagger UI's own hash-based policy (@fastify/swagger-ui `staticCSP`), made as strict as ours about framing and plain HTTP. */
export function swaggerCsp(header: string): string {
  return header
    .replace(/frame-ancestors [^;]*/, "frame-ancestors 'none'")
    .replace(/\s*upgrade-insecure-requests;?/, '')
    .trim();
}

/**
 * What helmet's middleware does to a response with these options (it sets and removes headers, the
 * same for every request: nothing in our options depends on the request), worked out once by running
 * it against a stand-in response. @fastify/helmet built the whole middleware again for every request
 * (helmet(options): the policy's directives parsed and their names rewritten) in two hooks, ≈ 3 % of
 * the appliance's CPU per order and per kitchen board (bench/README.md "The order path, session 13").
 */
export function helmetHeaders(options: HelmetOptions): { set: Array<[string, string]>; removed: string[] } {
  const set: Array<[string, string]> = [];
  const removed: string[] = [];
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      if (typeof value !== 'string') throw new Error(`security: helmet set ${name} to a ${typeof value}`);
      set.push([name, value]);
      return res;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let nextCalled = false;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err as Error;
    nextCalled = true;
  });
  if (!nextCalled) throw new Error('security: helmet did not finish synchronously');
  return { set, removed };
}

async function securityPlugin(app: FastifyInstance, opts: SecurityOptions): Promise<void> {
  const hashes = [...new Set(opts.inlineScripts)].map(cspHash);
  const { set, removed } = helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...hashes],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: REFERRER_POLICY },
    frameguard: { action: 'deny' },
    // Browsers honour it over HTTPS only (the cloud); not for every subdomain of the operator's domain.
    strictTransportSecurity: { maxAge: 180 * 24 * 3600, includeSubDomains: false },
  });
  // On the raw response at the start of every request, as helmet's own middleware did: an answer
  // that sets one of these itself (Swagger UI's policy) replaces it.
  app.addHook('onRequest', (_request, reply, done) => {
    const res = reply.raw;
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    done();
  });
}

export default fp(securityPlugin, { name: 'security' });
