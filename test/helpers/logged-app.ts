import { Writable } from 'node:stream';
import { onTestFinished } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { freshDb } from './db.js';

export interface LogLine {
  level: number;
  msg?: string;
  reqId?: string;
  err?: { message?: string; stack?: string; type?: string };
  [key: string]: unknown;
}

/**
 * Like createTestApp, but with a real pino logger writing JSON lines into `logs`, for tests that
 * check what is logged (and what is not sent to the client).
 */
export async function createLoggedTestApp(opts: { env?: Record<string, string> } = {}): Promise<Runtime & { logs: LogLine[] }> {
  const testDb = await freshDb();
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as LogLine);
      cb();
    },
  });
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'info', DATA_DIR: '/tmp/restaurant-test', ...opts.env });
  const rt = await createRuntime(config, { clock: new ManualClock(), handle: testDb.handle, logger: { level: 'info', stream } });
  onTestFinished(async () => {
    await rt.close();
    await testDb.drop();
  });
  return { ...rt, logs };
}
