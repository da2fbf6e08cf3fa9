import { describe, expect, it } from 'vitest';
import { Fuzzer, formatFindings } from '../../bench/fuzz/engine.js';
import { createFuzzTarget } from '../../bench/fuzz/target.js';
import { lane } from '../helpers/db.js';

/**
 * Issue 28 point 12, the short run of the project's own fuzzer (bench/fuzz; the long run is
 * `npm run fuzz`): every operation of the served OpenAPI document, a few thousand requests in all, in
 * process against a seeded restaurant in the cloud role, with the credential each operation needs.
 * Fails on any 5xx, any 4xx outside the contract's error shape (CONTRACT §2), any answer its declared
 * response schema rejects, and any status or content type the operation does not declare.
 *
 * FUZZ_SEED replays a run (the seed is printed with every failure), FUZZ_REQUESTS sets its length.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261120;
const REQUESTS = process.env.FUZZ_REQUESTS ? Number(process.env.FUZZ_REQUESTS) : 2000;

describe(`OpenAPI-driven fuzzer, short run (${lane})`, () => {
  it(`${REQUESTS} requests over every operation: no 5xx, every error in the contract's shape, every answer as declared (seed ${SEED})`, { timeout: 180_000 }, async () => {
    const target = await createFuzzTarget({ role: 'cloud' });
    try {
      const docRes = await target.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      expect(docRes.statusCode).toBe(200);
      const fuzzer = new Fuzzer(docRes.json(), target);
      expect(fuzzer.operations.length).toBeGreaterThan(100);
      const result = await fuzzer.run({ seed: SEED, requests: REQUESTS });

      // Every operation was tried, and the requests got past the guards: most answers are not 401/403.
      const untried = fuzzer.operations.filter((op) => !result.byOperation.get(op.name)).map((op) => op.name);
      expect(untried, 'operations never tried').toEqual([]);
      const denied = (result.byStatus.get(401) ?? 0) + (result.byStatus.get(403) ?? 0);
      expect(denied / result.requests, 'share of 401/403 answers').toBeLessThan(0.2);
      const ok = [...result.byStatus.entries()].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
      expect(ok / result.requests, 'share of 2xx answers').toBeGreaterThan(0.2);

      expect(result.findings.length, `${formatFindings(result)}\n(replay: FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS} npx vitest run test/server/fuzz.test.ts)`).toBe(0);
    } finally {
      await target.close();
    }
  });
});
