import type { AddressInfo } from 'node:net';
import { markRunning } from './backup.js';
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig, servingProblem, type Config } from './config.js';
import { createRuntime, loggerOptions, type Runtime } from './runtime.js';

/**
 * When this module's imports were loaded (ms since the process began): what importing the server
 * cost (`startup.imported_ms` in the ready line). An ES module's body runs after all its imports.
 */
const importedMs = Math.round(performance.now());

export interface StartOptions {
  /**
   * Install SIGTERM/SIGINT (and fatal error) handlers that drain and exit the process. On by default
   * for `npm start`; the desktop shell turns it off and closes the runtime itself when it quits.
   */
  handleSignals?: boolean;
}

export interface Started extends Runtime {
  /** Where the server listens, e.g. http://127.0.0.1:8080/ (the real port when PORT=0). */
  url: string;
}

/** The only file that listens: config → db → migrate → buildApp → listen → jobs. */
export async function start(config: Config, opts: StartOptions = {}): Promise<Started> {
  const problem = servingProblem(config);
  if (problem) throw new ConfigError(problem);
  const runtime = await createRuntime(config, { logger: loggerOptions(config) });
  const { app } = runtime;
  try {
    await app.listen({ port: config.port, host: config.host });
    runtime.startup.listening_ms = Math.round(performance.now());
  } catch (err) {
    // e.g. EADDRINUSE: do not leave the database open behind a server that never listened.
    await runtime.close().catch(() => {});
    throw err;
  }
  const address = app.server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`;
  // `startup`: where the start's time went, each step's end in ms since the process began (issue 29 point 5).
  app.log.info({ role: config.role, dialect: runtime.handle.dialect, url, startup: { imported_ms: importedMs, ...runtime.startup } }, 'restaurant service ready');
  // Timed jobs (server/plugins/scheduler.ts), then sync last, once the appliance serves its own staff
  // (no-op without CLOUD_URL and SYNC_KEY).
  app.scheduler.start();
  runtime.sync?.start();
  // The appliance marks its data folder while it serves, so `cli restore` never runs under it.
  const unmark = config.databaseUrl ? () => {} : markRunning(config.dataDir);
  const closeRuntime = runtime.close;
  runtime.close = async () => {
    try {
      await closeRuntime();
    } finally {
      unmark();
    }
  };

  if (opts.handleSignals !== false) {
    // SIGTERM/SIGINT: stop accepting, let in-flight requests finish (Fastify's close drains them),
    // close the database, exit 0. A second signal or the 10 s limit exits 1.
    closeWithGrace({ delay: 10_000, logger: { error: (m: unknown) => app.log.error(m) } }, async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'fatal error, shutting down');
      else app.log.info({ signal }, 'shutting down');
      const began = performance.now();
      await runtime.close();
      app.log.info({ ms: Math.round(performance.now() - began) }, 'stopped');
    });
  }
  return Object.assign(runtime, { url });
}

/**
 * The command: config from the environment, start, and on failure a Dutch line and exit code 2 (the
 * configuration) or 1. `npm start` runs it from scripts/start.mjs after its up-to-date check of
 * dist/; `node dist/server/main.js` and `tsx server/main.ts` run it as the entry.
 */
export function main(): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  start(config).catch((err: unknown) => {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    const code = (err as { code?: string } | null)?.code;
    const reason =
      code === 'EADDRINUSE'
        ? `poort ${config.port} is al in gebruik (kies een andere met PORT).`
        : code === 'EACCES'
          ? `geen toegang (poort ${config.port} of DATA_DIR ${config.dataDir}).`
          : err instanceof Error
            ? err.message
            : String(err);
    console.error(`Start mislukt: ${reason}`);
    process.exit(1);
  });
}

// Tests and tsx run server/main.ts; a service unit may run the compiled dist/server/main.js.
const isEntry = import.meta.url === `file://${process.argv[1]}` || /server\/main\.[jt]s$/.test(process.argv[1] ?? '');
if (isEntry) main();
