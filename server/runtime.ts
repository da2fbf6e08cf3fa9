import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { buildApp, REDACT } from './app.js';
import { ChangeLog } from './db/change-log.js';
import { migrateToLatest, openDb, pgLib, type DbHandle, type OpenDbOptions } from './db/connection.js';
import { originName } from './db/meta.js';
import { createServices, type Services } from './modules/index.js';
import { systemClock, type Clock } from './shared/clock.js';
import { syncRegistry } from './modules/sync-descriptors.js';
import { createSyncWorker, type SyncWorker } from '../sync/worker.js';

export interface Runtime {
  config: Config;
  handle: DbHandle;
  clock: Clock;
  changes: ChangeLog;
  services: Services;
  app: FastifyInstance;
  /** The appliance's sync worker when CLOUD_URL and SYNC_KEY are set (main starts it); null otherwise. */
  sync: SyncWorker | null;
  /** Where the start-up's time went: ms since the process began (performance.now()) at the end of each step. */
  startup: StartupMarks;
  close(): Promise<void>;
}

/** The end of each step of createRuntime, in ms since the process began (main.ts adds its own). */
export interface StartupMarks {
  db_opened_ms: number;
  migrated_ms: number;
  services_ms: number;
  app_built_ms: number;
  [step: string]: number;
}

const msNow = () => Math.round(performance.now());

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  if (config.logLevel === 'silent') return false;
  if (config.logFile) fs.mkdirSync(path.dirname(config.logFile), { recursive: true });
  return { level: config.logLevel, redact: { paths: REDACT, censor: '[verborgen]' }, ...(config.logFile ? { file: config.logFile } : {}) };
}

/** config → db → migrate → services → app: the start-up order of ARCHITECTURE §2, shared by main, CLI and tests. */
export async function createRuntime(
  config: Config,
  opts: { clock?: Clock; logger?: FastifyServerOptions['logger']; db?: OpenDbOptions; handle?: DbHandle; appVersion?: string; eagerDocs?: boolean } = {},
): Promise<Runtime> {
  const handle = opts.handle ?? openDb(opts.db ?? { databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  // A handle made outside openDb (its own pg pool) still needs node-postgres' number parsers.
  if (handle.dialect === 'postgres') pgLib();
  const startup = { db_opened_ms: msNow() } as StartupMarks;
  try {
    await migrateToLatest(handle.db, { pgSchema: handle.pgSchema });
    startup.migrated_ms = msNow();
    const clock = opts.clock ?? systemClock;
    const changes = new ChangeLog(handle.db, clock, await originName(handle.db, config.role));
    const deps = { config, handle, clock, changes };
    const services = createServices(deps);
    startup.services_ms = msNow();
    const app = await buildApp({ ...deps, services, logger: opts.logger ?? false, appVersion: opts.appVersion, eagerDocs: opts.eagerDocs });
    startup.app_built_ms = msNow();
    const sync = createSyncWorker({ ...deps, registry: syncRegistry, board: services.sync.board, log: (msg, extra) => app.log.info(extra ?? {}, msg) });
    let closed = false;
    return {
      ...deps,
      services,
      app,
      sync,
      startup,
      close: async () => {
        if (closed) return;
        closed = true;
        await sync?.stop();
        await app.close();
        await handle.close();
      },
    };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}
