import autocannon from 'autocannon';
import { startServer } from './lib/child.js';
import { prepareTemplate } from './lib/seed.js';
const tpl = await prepareTemplate();
const s = await startServer('appliance', { env: tpl.env, execArgv: ['--cpu-prof', '--cpu-prof-dir=/tmp/ckprof'] });
const r = await autocannon({ url: s.url + '/api/v1/orders', method: 'POST', connections: 10, duration: 8, headers: { 'content-type': 'application/json', cookie: s.ready.cookie! }, body: JSON.stringify(s.ready.postBody) });
console.log(r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
await s.stop();
tpl.cleanup();
