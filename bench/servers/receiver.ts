// A partner's webhook receiver on 127.0.0.1 for the sync benches, in its own process: the bench
// process generates a week of data in long synchronous stretches (better-sqlite3), and a receiver
// sharing its event loop would answer late, so the cloud's attempts time out and are retried
// (correctly, with the same delivery id) although nothing is wrong with the sender.
// Answers 204 at once and records, per delivery id, each request's X-Service-Attempt.
// IPC {type:'receiver-stats'} answers {type:'receiver-stats', requests, ids: [[id, [attempt, ...]], ...]}.
import http from 'node:http';
import { serveUntilStopped } from '../lib/child.js';

const seen = new Map<string, number[]>();
let requests = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests += 1;
    const id = String(req.headers['x-service-delivery']);
    const attempt = Number(req.headers['x-service-attempt'] ?? 0);
    const list = seen.get(id);
    if (list) list.push(attempt);
    else seen.set(id, [attempt]);
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const addr = server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
process.on('message', (m: { type?: string }) => {
  if (m?.type === 'receiver-stats') process.send!({ type: 'receiver-stats', requests, ids: [...seen] });
});
serveUntilStopped({ port: addr.port }, () => new Promise<void>((r) => server.close(() => r())));
