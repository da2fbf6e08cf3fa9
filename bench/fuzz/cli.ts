/**
 * `npm run fuzz -- --requests 100000 --seed 7 --db sqlite|postgres [--role cloud|local] [--budget-s 3600] [--only 'PATCH /api/v1/reservations/{id},PATCH /api/v1/settings']`
 *
 * The long run of the OpenAPI-driven fuzzer (bench/fuzz/engine.ts; the short one is
 * test/server/fuzz.test.ts). In-process against a fresh database: SQLite in memory, or a PostgreSQL
 * schema of its own on TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), dropped
 * at the end. Prints progress every 1,000 requests and, at the end, every distinct finding with the
 * first request that showed it. Exit code 1 when there are findings, 2 on a usage error.
 */
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    db: { type: 'string', default: 'sqlite' },
    role: { type: 'string', default: 'cloud' },
    'budget-s': { type: 'string' },
    only: { type: 'string' },
  },
  allowPositionals: false,
});

const requests = Number(values.requests);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed) || !['sqlite', 'postgres'].includes(values.db!) || !['cloud', 'local'].includes(values.role!)) {
  console.error('usage: npm run fuzz -- [--requests N] [--seed N] [--db sqlite|postgres] [--role cloud|local] [--budget-s S]');
  process.exit(2);
}
// test/helpers/db.ts picks the lane when it is first imported.
process.env.TEST_DB = values.db;
process.env.TZ ??= 'UTC';

const { createFuzzTarget } = await import('./target.js');
const { Fuzzer, formatFindings } = await import('./engine.js');

const target = await createFuzzTarget({ role: values.role as 'cloud' | 'local' });
let code = 0;
try {
  const doc = (await target.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const fuzzer = new Fuzzer(doc, target, only);
  console.log(`fuzz: seed ${seed}, ${requests} requests over ${fuzzer.operations.length} operations, ${values.db}, role ${values.role}`);
  const result = await fuzzer.run({
    seed,
    requests,
    timeBudgetMs: values['budget-s'] ? Number(values['budget-s']) * 1000 : undefined,
    onStall: (n, operation, url, body) => console.log(`  request #${n} (${operation} ${url}${body ? ` body ${JSON.stringify(body.slice(0, 200))}` : ''}) unanswered after 10 s`),
    onProgress: (done, r) => console.log(`  ${done} requests, ${r.findings.length} distinct findings so far`),
  });
  const statuses = [...result.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}: ${c}`).join(', ');
  console.log(`statuses: ${statuses}`);
  const neverOk = fuzzer.operations.filter((op) => !result.okByOperation.get(op.name)).map((op) => op.name);
  console.log(`operations that never answered 2xx/3xx (${neverOk.length} of ${fuzzer.operations.length}): ${neverOk.join(', ') || '-'}`);
  console.log(`slowest: ${result.slowest.map((x) => `${x.ms} ms ${x.operation} ${x.url.slice(0, 80)}`).join('; ')}`);
  console.log(formatFindings(result));
  console.log(`(replay: npm run fuzz -- --requests ${requests} --seed ${seed} --db ${values.db} --role ${values.role}${only ? ` --only '${only.join(',')}'` : ''})`);
  if (result.findings.length) code = 1;
} finally {
  await target.close();
}
process.exit(code);
