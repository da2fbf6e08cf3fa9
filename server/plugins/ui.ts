import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Where the staff app's static files are: app/ui beside server/ when run from source (tsx), or
 * beside dist/ when built (dist/server/plugins → ../../../app/ui; electron-builder ships app/ui).
 */
export function uiRoot(): string | null {
  for (const candidate of [path.resolve(here, '..', '..', 'app', 'ui'), path.resolve(here, '..', '..', '..', 'app', 'ui')]) {
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/**
 * The staff web app (app/ui: plain HTML, CSS and an ES module, no build step) at `/app/`. Everything
 * it loads comes from this server: its own files, the API and socket.io's browser client
 * (`/socket.io/socket.io.esm.min.js`, served by socket.io itself). Encapsulated: `reply.sendFile`
 * stays inside this plugin.
 */
export const uiRoutes: FastifyPluginAsync = async (app) => {
  const root = uiRoot();
  if (!root) {
    app.log.warn('app/ui niet gevonden: de personeelsapp (/app/) wordt niet geserveerd');
    return;
  }
  // `/app` → `/app/` (keeping `?slug=`), so relative URLs in index.html resolve under /app/.
  app.get('/app', { schema: { hide: true } }, async (request, reply) => {
    const q = request.url.indexOf('?');
    return reply.redirect(`/app/${q >= 0 ? request.url.slice(q) : ''}`);
  });
  await app.register(fastifyStatic, {
    root,
    prefix: '/app/',
    index: ['index.html'],
    // Tablets revalidate (ETag) on every load, so an update of the appliance reaches them at once.
    cacheControl: true,
    maxAge: 0,
  });
};

export default uiRoutes;
