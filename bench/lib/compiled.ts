// The bench's child processes as compiled JavaScript, as a restaurant runs the product (issue 29
// point 4: memory is measured on what ships, not on tsx compiling TypeScript in memory). The product
// is built into dist/ by `node scripts/build-if-stale.mjs` (what `npm start` runs), and the few bench
// files a compiled child needs are compiled next to it into dist/bench/ with the same esbuild (per
// file, no bundling), so their `../../server/...` imports resolve to dist/server/...
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The bench files compiled children import (nothing here may import tsx-only code or the bench's generators). */
const BENCH_FILES = ['bench/servers/appliance-catchup.ts', 'bench/servers/cloud.ts', 'bench/lib/child.ts', 'bench/lib/sync-counters.ts'];
let built = false;

/** Builds dist/ if stale and compiles the bench's child files into dist/bench/ (once per bench process). */
export async function buildCompiledChildren(): Promise<void> {
  if (built) return;
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.mjs'), '--quiet'], { stdio: 'inherit', cwd: root });
  const requireFromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const esbuild = (await import(requireFromTsx.resolve('esbuild'))) as { build(o: Record<string, unknown>): Promise<unknown> };
  await esbuild.build({
    entryPoints: BENCH_FILES.map((f) => path.join(root, f)),
    outdir: path.join(root, 'dist'),
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
  });
  built = true;
}

/** The compiled file of bench/servers/<kind>.ts. */
export function compiledServer(kind: string): string {
  return path.join(root, 'dist', 'bench', 'servers', `${kind}.js`);
}
