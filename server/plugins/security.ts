import crypto from 'node:crypto';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Security headers on every answer (issue 28 point 6), through @fastify/helmet: a
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

async function securityPlugin(app: FastifyInstance, opts: SecurityOptions): Promise<void> {
  const hashes = [...new Set(opts.inlineScripts)].map(cspHash);
  await app.register(helmet, {
    global: true,
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
}

export default fp(securityPlugin, { name: 'security' });
