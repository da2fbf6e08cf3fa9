import crypto from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { inlineScriptsOf } from './security.js';
import { VERSION } from '../version.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/**
 * The front-end libraries the staff app and the guest pages import (through the import map in their
 * index.html), served from node_modules so nothing is fetched from outside this server and nothing
 * needs a build step. A fixed list: only these files, never a path from the request.
 */
const VENDOR: Record<string, { pkg: string; file: string }> = {
  'preact.mjs': { pkg: 'preact', file: 'dist/preact.module.js' },
  'preact-hooks.mjs': { pkg: 'preact', file: 'hooks/dist/hooks.module.js' },
  'htm.mjs': { pkg: 'htm', file: 'dist/htm.module.js' },
  'chart.umd.js': { pkg: 'chart.js', file: 'dist/chart.umd.min.js' },
  'idb.mjs': { pkg: 'idb', file: 'build/index.js' },
};

/** A package's folder: from its main entry up to its own package.json (some packages do not export package.json). */
function packageDir(pkg: string): string {
  let dir = path.dirname(require.resolve(pkg));
  while (dir !== path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg) return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`package ${pkg} not found`);
}

const vendorCache = new Map<string, { body: string; etag: string }>();
function vendorFile(name: string): { body: string; etag: string } | undefined {
  const entry = VENDOR[name];
  if (!entry) return undefined;
  let hit = vendorCache.get(name);
  if (!hit) {
    const dir = packageDir(entry.pkg);
    const body = readFileSync(path.join(dir, entry.file), 'utf8');
    hit = { body, etag: `"${crypto.createHash('sha1').update(body).digest('hex').slice(0, 16)}"` };
    vendorCache.set(name, hit);
  }
  return hit;
}

/** Serves the VENDOR files under `prefix` (the staff app's /app/vendor/, the guest pages' /g/vendor/). */
export function vendorRoute(app: Parameters<FastifyPluginAsync>[0], prefix: string): void {
  app.get(`${prefix}:file`, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const hit = vendorFile((request.params as { file: string }).file);
    if (!hit) return reply.callNotFound();
    reply.header('etag', hit.etag).header('cache-control', 'public, max-age=3600');
    if (request.headers['if-none-match'] === hit.etag) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(hit.body);
  });
}

/**
 * Where the staff app's static files are: app/ui beside server/ when run from source (tsx), or
 * beside dist/ when built (the bundles dist/server/main.js and dist/app/main.js → ../../app/ui; a
 * build file by file, dist/server/plugins → ../../../app/ui; electron-builder ships app/ui).
 */
export function uiRoot(): string | null {
  for (const candidate of [path.resolve(here, '..', '..', 'app', 'ui'), path.resolve(here, '..', '..', '..', 'app', 'ui')]) {
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/** Every file under `dir` (relative paths with '/'), sorted. */
function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(dir, `${rel}${e.name}/`) : [`${rel}${e.name}`]))
    .sort();
}

/** The service worker's script in app/ui; served with its version and file list in front, never cached by itself. */
const SW_FILE = 'sw.js';

/**
 * What the staff app's service worker keeps (docs/staff-app.md "Offline"): the shell, every screen
 * and library module, the vendor files and socket.io's client, under one version: the app's version
 * (server/version.ts) plus a hash of the files' bytes, so a changed file is a new version too.
 */
export function appShell(root: string, version: string): { version: string; files: string[] } {
  const own = filesUnder(root).filter((f) => f !== SW_FILE);
  const hash = crypto.createHash('sha256');
  for (const f of own) hash.update(f).update(readFileSync(path.join(root, f)));
  for (const name of Object.keys(VENDOR)) hash.update(name).update(vendorFile(name)!.body);
  return {
    version: `${version}-${hash.digest('hex').slice(0, 12)}`,
    files: ['/app/', ...own.filter((f) => f !== 'index.html').map((f) => `/app/${f}`), ...Object.keys(VENDOR).map((n) => `/app/vendor/${n}`), '/socket.io/socket.io.esm.min.js'],
  };
}

/**
 * The staff web app (app/ui: plain HTML, CSS and an ES module, no build step) at `/app/`. Everything
 * it loads comes from this server: its own files, the API and socket.io's browser client
 * (`/socket.io/socket.io.esm.min.js`, served by socket.io itself). Encapsulated: `reply.sendFile`
 * stays inside this plugin.
 */
export const uiRoutes: FastifyPluginAsync<{ version?: string }> = async (app, opts) => {
  const root = uiRoot();
  if (!root) {
    app.log.warn('app/ui niet gevonden: de personeelsapp (/app/) wordt niet geserveerd');
    return;
  }
  // `/app` → `/app/` (keeping `?slug=`), so relative URLs in index.html resolve under /app/.
  app.get('/app', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const q = request.url.indexOf('?');
    return reply.redirect(`/app/${q >= 0 ? request.url.slice(q) : ''}`);
  });
  // Compressed (gzip/brotli) for the browsers that ask; only these static routes, never the API.
  await app.register(fastifyCompress, { global: true, threshold: 1024 });
  // The installable app (PWA): every file says which version it belongs to, and the service worker
  // is its script with the version and the files to keep in front (a new version is a changed
  // script, which is how browsers notice an update).
  const shell = appShell(root, opts.version ?? VERSION);
  const sw = `const VERSION = ${JSON.stringify(shell.version)};\nconst FILES = ${JSON.stringify(shell.files)};\n${readFileSync(path.join(root, SW_FILE), 'utf8')}`;
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-app-version', shell.version);
  });
  app.get(`/app/${SW_FILE}`, { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(sw),
  );
  vendorRoute(app, '/app/vendor/');
  await app.register(fastifyStatic, {
    root,
    prefix: '/app/',
    index: ['index.html'],
    // Tablets revalidate (ETag) on every load, so an update of the appliance reaches them at once.
    cacheControl: true,
    maxAge: 0,
  });
};

/** Where the guest pages' static files are (app/guest), like uiRoot. */
export function guestRoot(): string | null {
  for (const candidate of [path.resolve(here, '..', '..', 'app', 'guest'), path.resolve(here, '..', '..', '..', 'app', 'guest')]) {
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/** The inline scripts (import maps) of the staff app's and the guest pages' HTML, for the Content-Security-Policy. */
export function staticInlineScripts(): string[] {
  return [uiRoot(), guestRoot()].flatMap((root) => (root ? inlineScriptsOf(readFileSync(path.join(root, 'index.html'), 'utf8')) : []));
}

/**
 * The guest pages (issue 15, app/guest) under `/g/:slug/...`: one small HTML shell for every guest
 * path (menu, order status, payment result, a table's bill from its QR code, booking), its script
 * and styles under /g/assets/, and the same vendor files as the staff app under /g/vendor/. None
 * of the staff app's code is loaded.
 */
export const guestRoutes: FastifyPluginAsync = async (app) => {
  const root = guestRoot();
  if (!root) {
    app.log.warn('app/guest niet gevonden: de gastpagina’s (/g/) worden niet geserveerd');
    return;
  }
  await app.register(fastifyCompress, { global: true, threshold: 1024 });
  vendorRoute(app, '/g/vendor/');
  await app.register(fastifyStatic, { root, prefix: '/g/assets/', decorateReply: false, cacheControl: true, maxAge: 0, index: false });
  const shell = readFileSync(path.join(root, 'index.html'), 'utf8');
  // On a poor mobile connection every round trip counts: the menu page asks for the restaurant's
  // menu while its scripts still load (the script's fetch then takes the preloaded answer).
  const page = (withMenu: boolean) => async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const slug = encodeURIComponent((request.params as { slug: string }).slug);
    const html = withMenu ? shell.replace('<!--preload-->', `<link rel="preload" as="fetch" crossorigin href="/api/v1/public/menu/${slug}">`) : shell;
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  };
  app.get('/g/:slug', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => reply.redirect(`/g/${encodeURIComponent((request.params as { slug: string }).slug)}/`));
  app.get('/g/:slug/', { config: { access: 'public' }, schema: { hide: true } }, page(true));
  app.get('/g/:slug/*', { config: { access: 'public' }, schema: { hide: true } }, page(false));
};

export default uiRoutes;
