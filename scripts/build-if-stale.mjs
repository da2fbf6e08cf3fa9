// `npm start`'s up-to-date check (issue 29 point 5): the server, sync and the desktop shell run as
// compiled JavaScript from dist/, so a start no longer compiles TypeScript in memory (tsx). This
// builds app/, server/ and sync/ into dist/ only when a source is newer than the last build, or one
// was added or removed; otherwise it only looks at the files' times (a few ms). `npm start`
// (scripts/start.mjs) runs it in its own process before importing the server, so a start is one
// node process after npm's; `npm run desktop` and `npm run build:if-stale` run it as a command,
// `npm run build` (and so `npm run app:build` for electron-builder) with --force.
//
// The compiler is esbuild, without type checks (type checking stays with `npm run typecheck` and
// CI). It bundles our own modules into one file per entry (ENTRIES) with packages left as imports of
// node_modules, so a start loads one file of ours instead of ≈ 300 (node's module loader was the
// largest part of a start's CPU), and the lazy `import()`s and `createRequire` loads of packages stay
// lazy. Source maps are written beside the bundles (`--enable-source-maps` in `npm start`). esbuild
// is taken from tsx's own dependency (tsx is a regular dependency), so nothing is added to the
// install; it is loaded only for a build.
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
  { in: 'server/main.ts', out: 'server/main' },
  { in: 'app/main.ts', out: 'app/main' },
  { in: 'server/modules/webhooks/webhooks.sender-thread.ts', out: 'server/webhooks.sender-thread' },
];

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
  await esbuild.build({
    entryPoints: ENTRIES.map((e) => ({ in: path.join(root, e.in), out: e.out })),
    outdir: out,
    bundle: true,
    // Packages stay imports of node_modules (loaded by node as before, the lazy ones still at first use).
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
  });
  // dist/server/version.js reads ../package.json (as in the desktop app's dist/).
  fs.copyFileSync(path.join(root, 'package.json'), path.join(out, 'package.json'));
  fs.writeFileSync(stampFile, JSON.stringify({ newest, files: files.join('\n'), built_at: new Date().toISOString() }));
  if (!quiet) console.error(`bundled ${files.length} files into dist/ (${ENTRIES.length} entries) in ${Math.round(performance.now() - t0)} ms`);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildIfStale({ force: process.argv.includes('--force'), quiet: process.argv.includes('--quiet') });
}
