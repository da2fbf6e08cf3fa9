import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createRuntime, loggerOptions } from './runtime.js';

/** The only file that listens: config → db → migrate → buildApp → listen → jobs. */
export async function start(config: Config) {
  const runtime = await createRuntime(config, { logger: loggerOptions(config) });
  const { app } = runtime;
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ role: config.role, dialect: runtime.handle.dialect }, 'restaurant service ready');

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish (Fastify's close drains them), close the database.
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'fatal error, shutting down');
    else app.log.info({ signal }, 'shutting down');
    await runtime.close();
  });
  return runtime;
}

const isEntry = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('server/main.ts');
if (isEntry) {
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
    console.error('Start mislukt:', err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
