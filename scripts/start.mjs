// `npm start` (issue 29 point 5): one node process after npm's own. It compiles app/, server/ and
// sync/ into dist/ when a source changed since the last build (scripts/build-if-stale.mjs; otherwise
// it only compares file times, a few ms), then runs the compiled server (dist/server/main.js `main`).
// Before, a `prestart` script ran the same check in a process of its own (a second node start, and
// npm's shell around it) before `npm start` began.
import { buildIfStale } from './build-if-stale.mjs';

await buildIfStale({ quiet: true });
const { main } = await import('../dist/server/main.js');
main();
