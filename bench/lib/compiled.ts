// The bench's child processes as compiled JavaScript, as a restaurant runs the product (issue 29
// point 4: memory is measured on what ships, not on tsx compiling TypeScript in memory). The product
// is built into dist/ by `node scripts/build-if-stale.mjs` (what `npm start` runs: one bundle per
// entry), and each compiled child is bundled the same way (our own code inlined, packages external)
// into dist/bench/<kind>.js: one folder below dist/ like the product's bundles, so what the server
// finds relative to the running file resolves the same (../package.json, ../../app/ui, the webhook
// sender thread's dist/server/webhooks.sender-thread.js).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The bench servers run compiled (nothing they import may be tsx-only code or the bench's generators). */
const BENCH_SERVERS = ['appliance-catchup', 'appliance-synced', 'cloud'];
let built = false;

/** Builds dist/ if stale and compiles the bench's child files into dist/bench/ (once per bench process). */
export async function buildCompiledChildren(): Promise<void> {
  if (built) return;
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.mjs'), '--quiet'], { stdio: 'inherit', cwd: root });
  const requireFromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const esbuild = (await import(requireFromTsx.resolve('esbuild'))) as { build(o: Record<string, unknown>): Promise<unknown> };
  await esbuild.build({
    entryPoints: BENCH_SERVERS.map((kind) => ({ in: path.join(root, 'bench', 'servers', `${kind}.ts`), out: `bench/${kind}` })),
    outdir: path.join(root, 'dist'),
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
  });
  built = true;
}

/** The compiled file (bundle) of bench/servers/<kind>.ts. */
export function compiledServer(kind: string): string {
  return path.join(root, 'dist', 'bench', `${kind}.js`);
}
