// `npm start`'s up-to-date check (issue 29 point 5): the server, sync and the desktop shell run as
// compiled JavaScript from dist/, so a start no longer compiles TypeScript in memory (tsx). This
// builds app/, server/ and sync/ into dist/ only when a source is newer than the last build, or one
// was added or removed; otherwise it only looks at the files' times (a few ms). `npm start`
// (scripts/start.mjs) runs it in its own process before importing the server, so a start is one
// node process after npm's; `npm run desktop` and `npm run build:if-stale` run it as a command,
// `npm run build` (and so `npm run app:build` for electron-builder) with --force.
//
// The compiler is esbuild, without type checks (type checking stays with `npm run typecheck` and
// CI). It bundles our own modules into one file per entry (ENTRIES), so a start loads one file of
// ours instead of ≈ 300 (node's module loader was the largest part of a start's CPU). The server's
// bundle (dist/server/main.js, what `npm start` runs) also holds the pure-JavaScript packages a start
// loads (fastify and its plugins, zod, kysely, pino, ajv, ...: ≈ 500 CommonJS files of node_modules
// that node would otherwise find, read and compile one by one); SERVER_EXTERNAL lists what stays an
// import of node_modules there, and why. The other bundles (the desktop shell, the sender thread) keep
// every package external. The lazy `import()`s and `createRequire` loads of packages stay lazy. Source
// maps are written beside the bundles (`--enable-source-maps` in `npm start`). esbuild is taken from
// tsx's own dependency (tsx is a regular dependency), so nothing is added to the install; it is
// loaded only for a build.
//
//   node scripts/build-if-stale.mjs [--force] [--quiet]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
const stampFile = path.join(out, '.build-stamp.json');
const DIRS = ['app', 'server', 'sync'];
/**
 * The bundles, each one file one folder below dist/ (server/version.ts reads `../package.json`
 * relative to the running file): the server (`npm start`), the desktop shell (with its own copy of
 * the server) and the webhook sender thread (a worker's module; webhooks.thread.ts looks for it there).
 */
const ENTRIES = [
  { in: 'server/main.ts', out: 'server/main', bundlePackages: true },
  { in: 'app/main.ts', out: 'app/main' },
  { in: 'server/modules/webhooks/webhooks.sender-thread.ts', out: 'server/webhooks.sender-thread' },
];

/**
 * Packages the server's bundle leaves as imports of node_modules (issue 29 point 5). Everything else
 * it imports is bundled, so this list is the whole decision:
 * - a native addon: better-sqlite3 (its `.node` file is found relative to the package);
 * - packages that read their own files at run time through `__dirname` or `import.meta.url`:
 *   socket.io (its browser client from `client-dist/`, `/socket.io/socket.io.esm.min.js`),
 *   @fastify/swagger-ui (its page and files); the build refuses any other bundled package that refers
 *   to its own location unless LOCATION_CHECKED says why that is harmless;
 * - packages loaded at their first use, not at start (`import()` or `createRequire` in our code):
 *   bundled, they would be parsed at every start; external, they cost nothing until used.
 */
export const SERVER_EXTERNAL = new Set([
  'better-sqlite3',
  'socket.io',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  // first use: a holiday, a phone number, a QR code, a kitchen ticket, a photo, Mollie, Redis, PostgreSQL, a PDF
  'date-holidays',
  'libphonenumber-js',
  'qrcode',
  '@point-of-sale/receipt-printer-encoder',
  'file-type',
  '@mollie/api-client',
  'ioredis',
  '@socket.io/redis-adapter',
  'pg',
  'playwright-core',
  'tsx',
  'electron',
]);

/**
 * Bundled packages whose code names its own location, and why that is harmless in the bundle (there
 * `__dirname` is not defined and `import.meta.url` is the bundle's): only in code a server never runs.
 */
const LOCATION_CHECKED = {
  // pino.transport() (worker threads by file name); the server logs through pino.destination / stdout.
  pino: 'transport() only',
  'thread-stream': "pino's transports only",
  // A task given as a file name runs in a forked daemon found beside the package; our jobs are functions.
  'node-cron': 'file-name tasks only',
};

/** The package a bare import names (`@scope/name/sub` → `@scope/name`). */
const packageName = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/** The package a file in node_modules belongs to (the innermost node_modules). */
function packageOfFile(file) {
  const rest = file.slice(file.lastIndexOf(`${path.sep}node_modules${path.sep}`) + '/node_modules/'.length).split(path.sep);
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** esbuild plugin: bundle packages but SERVER_EXTERNAL; note each bundled package that refers to its own location. */
function bundlePackages(located) {
  return {
    name: 'bundle-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => (SERVER_EXTERNAL.has(packageName(args.path)) ? { path: args.path, external: true } : undefined));
      build.onLoad({ filter: /[\\/]node_modules[\\/].*\.(c?js|mjs)$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        if (/\b__dirname\b|\b__filename\b|\bimport\.meta\b/.test(text)) located.add(packageOfFile(args.path));
        return undefined;
      });
    },
  };
}

/** Every .ts source under the compiled folders (not declarations), relative to the root. */
function sources() {
  const found = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(r);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) found.push(r);
    }
  };
  for (const d of DIRS) if (fs.existsSync(path.join(root, d))) walk(d);
  return found.sort();
}

/** Compiles into dist/ when a source changed (or `force`); true when it compiled, false when dist/ was up to date. */
export async function buildIfStale({ force = false, quiet = false } = {}) {
  const files = sources();
  const inputs = [...files, 'scripts/build-if-stale.mjs', 'tsconfig.json', 'package.json'];
  const newest = Math.max(...inputs.map((f) => fs.statSync(path.join(root, f)).mtimeMs));
  let stamp = null;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    // never built (or by tsc only): build
  }
  const upToDate = !force && stamp && stamp.newest >= newest && stamp.files === files.join('\n');
  if (upToDate) {
    if (!quiet) console.error('dist/ is up to date');
    return false;
  }

  const t0 = performance.now();
  const requireFromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const esbuild = await import(requireFromTsx.resolve('esbuild'));
  // Start clean, so a removed or renamed source leaves no compiled file behind.
  for (const d of DIRS) fs.rmSync(path.join(out, d), { recursive: true, force: true });
  const common = {
    outdir: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
  };
  const entry = (e) => ({ in: path.join(root, e.in), out: e.out });
  const located = new Set();
  await Promise.all([
    // The server with its packages (but SERVER_EXTERNAL). Bundled CommonJS calls `require` for node's
    // own modules: the bundle has one, made for its own location.
    esbuild.build({
      ...common,
      entryPoints: ENTRIES.filter((e) => e.bundlePackages).map(entry),
      plugins: [bundlePackages(located)],
      banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);" },
    }),
    // The others: packages stay imports of node_modules (loaded by node as before, the lazy ones at first use).
    esbuild.build({ ...common, entryPoints: ENTRIES.filter((e) => !e.bundlePackages).map(entry), packages: 'external' }),
  ]);
  const unchecked = [...located].filter((p) => !(p in LOCATION_CHECKED)).sort();
  if (unchecked.length) {
    fs.rmSync(stampFile, { force: true });
    throw new Error(`bundled packages refer to their own location (__dirname, __filename, import.meta): ${unchecked.join(', ')}; add them to SERVER_EXTERNAL or, when harmless, to LOCATION_CHECKED (scripts/build-if-stale.mjs)`);
  }
  // dist/server/version.js reads ../package.json (as in the desktop app's dist/).
  fs.copyFileSync(path.join(root, 'package.json'), path.join(out, 'package.json'));
  fs.writeFileSync(stampFile, JSON.stringify({ newest, files: files.join('\n'), built_at: new Date().toISOString() }));
  if (!quiet) console.error(`bundled ${files.length} files into dist/ (${ENTRIES.length} entries) in ${Math.round(performance.now() - t0)} ms`);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildIfStale({ force: process.argv.includes('--force'), quiet: process.argv.includes('--quiet') });
}
