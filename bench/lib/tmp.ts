import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../server/config.js';

/** A fresh DATA_DIR under the OS temp dir (a real file system here, not tmpfs: see README) and its config. */
export function benchConfig(tag: string, template?: string): { config: Config; dataDir: string; cleanup(): void } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `ck-bench-${tag}-`));
  // A copy of the seeded template database (see seed.ts), so every server starts from the same rows.
  if (template) for (const f of fs.readdirSync(template)) if (f.startsWith('restaurant.sqlite')) fs.copyFileSync(path.join(template, f), path.join(dataDir, f));
  const config = loadConfig({
    ROLE: 'local',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
  });
  return { config, dataDir, cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}
