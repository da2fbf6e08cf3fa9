import { it } from 'vitest';

// Included only when PostgreSQL is unreachable, so the summary shows the lane as skipped instead of passing silently.
it.skip(`PostgreSQL lane SKIPPED: no server at ${process.env.PG_URL ?? 'TEST_DATABASE_URL'}`, () => {});
