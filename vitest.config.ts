import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { pgReachable } from './test/helpers/pg-reachable.js';

/**
 * Two lanes over the same suites (ARCHITECTURE §7): `sqlite` always, `postgres` against a real
 * server from TEST_DATABASE_URL (default: the local one). Without a reachable server the
 * PostgreSQL lane is reported as skipped, loudly; under CI=true that is a failure instead.
 */
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';


export default defineConfig(async () => {
  const reachable = await pgReachable(PG_URL);
  if (!reachable) {
    const banner = `\n${'!'.repeat(78)}\n!! PostgreSQL is NOT reachable at ${PG_URL}\n!! The PostgreSQL half of the suite is SKIPPED. Start PostgreSQL or set TEST_DATABASE_URL.\n${'!'.repeat(78)}\n`;
    if (process.env.CI) throw new Error(`${banner}CI requires the PostgreSQL lane.`);
    console.warn(banner);
  }
  const shared = {
    environment: 'node' as const,
    setupFiles: ['test/setup.ts'],
    include: ['test/**/*.test.ts'],
    exclude: ['test/pg-unavailable.test.ts', 'test/e2e/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A fresh module registry per file (the default). VITEST_ISOLATE=0 runs a worker's files one after
    // another in one registry, importing the server once instead of once per file (368 → 200 s for
    // both lanes on 2 cores; test/setup.ts undoes stubs and spies after each file), but not in CI:
    // one of two full runs that way failed the staff app's browser test (its socket never came up
    // within 30 s), which isolated runs have not.
    isolate: process.env.VITEST_ISOLATE !== '0',
  };
  return {
    test: {
      env: { TZ: 'UTC' },
      // Vitest's own default is one worker fewer than the cores: a single worker on a 2-core CI machine,
      // one test file at a time while much of a PostgreSQL test is waiting for the server. At least two
      // (there: the sqlite and postgres lanes together in 405 s instead of 267 + 468 s one file at a
      // time; three measured no better). `--maxWorkers=<n>` (or VITEST_MAX_WORKERS) still decides.
      maxWorkers: Math.max(2, os.availableParallelism() - 1),
      projects: [
        { test: { ...shared, name: 'sqlite', env: { TZ: 'UTC', TEST_DB: 'sqlite' } } },
        reachable
          ? { test: { ...shared, name: 'postgres', env: { TZ: 'UTC', TEST_DB: 'postgres', TEST_DATABASE_URL: PG_URL } } }
          : { test: { ...shared, name: 'postgres', include: ['test/pg-unavailable.test.ts'], exclude: [], env: { PG_URL } } },
        // End-to-end with real processes (test/e2e: a PostgreSQL cloud and a SQLite appliance, SIGKILLs):
        // needs PostgreSQL, so without it the lane is skipped as loudly as the postgres lane. It runs after
        // the other lanes (groupOrder 1), so its process starts do not compete with them for the CPU.
        reachable
          ? {
              test: {
                ...shared,
                name: 'e2e',
                include: ['test/e2e/**/*.e2e.test.ts'],
                exclude: [],
                isolate: true,
                testTimeout: 120_000,
                hookTimeout: 120_000,
                sequence: { groupOrder: 1 },
                env: { TZ: 'UTC', TEST_DATABASE_URL: PG_URL },
              },
            }
          : { test: { ...shared, name: 'e2e', include: ['test/pg-unavailable.test.ts'], exclude: [], env: { PG_URL } } },
      ],
    },
  };
});
