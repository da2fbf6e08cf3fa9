// `npm start` (issue 29 point 5): one node process after npm's own. It bundles app/, server/ and
// sync/ into dist/ when a source changed since the last build (scripts/build-if-stale.mjs; otherwise
// it only compares file times, a few ms), then runs the server's bundle (dist/server/main.js `main`).
// Before, a `prestart` script ran the same check in a process of its own (a second node start, and
// npm's shell around it) before `npm start` began.
import module from 'node:module';
import { buildIfStale } from './build-if-stale.mjs';

// Node >= 22.1 keeps the compiled code of the bundle and the packages on disk between starts
// (NODE_COMPILE_CACHE chooses the folder); Node 20 has no compile cache, so this does nothing there.
module.enableCompileCache?.();
await buildIfStale({ quiet: true });
const { main } = await import('../dist/server/main.js');
main();
