// (a) The ceiling of the framework: bare Fastify, no plugins, one JSON route.
import Fastify from 'fastify';
import { serveUntilStopped } from '../lib/child.js';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped({ port: addr.port }, () => app.close());
