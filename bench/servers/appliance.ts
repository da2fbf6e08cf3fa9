// (c) The real appliance: createRuntime on its own copy of the seeded SQLite file (WAL + synchronous=FULL), listening.
import { createRuntime } from '../../server/runtime.js';
import { serveUntilStopped } from '../lib/child.js';
import { assertDurability, fromTemplateEnv, SEED } from '../lib/seed.js';
import { benchConfig } from '../lib/tmp.js';

const template = fromTemplateEnv();
const { config, cleanup } = benchConfig('appliance', template.dir);
const rt = await createRuntime(config);
await assertDurability(rt);
const s = template.seeded;
const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: s.slug, pin: s.pin } });
const token = login.cookies.find((c) => c.name === 'ck_token');
if (!token) throw new Error(`bench: login failed (${login.statusCode}): ${login.body}`);
await rt.app.listen({ port: 0, host: '127.0.0.1' });
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped(
  { port: addr.port, cookie: `ck_token=${token.value}`, postBody: s.postBody, info: { file: config.sqliteFile, ...SEED } },
  async () => {
    await rt.close();
    cleanup();
  },
);
