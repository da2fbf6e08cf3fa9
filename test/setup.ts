import { afterAll, vi } from 'vitest';

process.env.TZ = 'UTC';

// The sqlite and postgres lanes run their files without isolation (vitest.config.ts): a worker runs
// one file after another in the same process and module registry. Whatever a file left stubbed or
// spied on is undone before the next file starts (files restore their own, this is the backstop).
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  process.env.TZ = 'UTC';
});
