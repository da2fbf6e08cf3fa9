import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import type { TestApp } from '../../../helpers/app.js';

/** One POST as the receiver saw it: the raw bytes, before any parsing. */
export interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: { id: string; type: string; created_at: string; tenant: { id: string; slug: string }; data: Record<string, any> };
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** The status the next requests get (default 200); 'hang' never answers. */
  answer: number | 'hang';
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (the outside world of webhooks), closed when the test ends. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const requests: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const r: Receiver = { url: '', port: 0, requests, answer: 200, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      requests.push({ at: Date.now(), headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) as Received['body'] });
      if (r.answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(r.answer, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}${path}`;
  r.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  onTestFinished(() => r.close());
  return r;
}

/** What a partner does: HMAC-SHA256 over the raw body with the secret, compared in constant time. */
export function verifies(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = `sha256=${crypto.createHmac('sha256', secret).update(raw).digest('hex')}`;
  return header.length === expected.length && crypto.timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

export async function until(cond: () => boolean | Promise<boolean>, ms = 5000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** Until the change-log consumers and the delivery worker of an app have nothing in flight. */
export async function settle(t: Pick<TestApp, 'app' | 'services'>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await t.app.consumers.idle();
    await t.services.webhooks.worker.idle();
  }
}

/** The delivery job as the scheduler runs it (tests run it by hand after moving the clock). */
export const runDeliveryJob = (t: Pick<TestApp, 'app'>) => t.app.scheduler.run('webhooks-deliver');
