import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A fake Mollie API on 127.0.0.1 (the outside world, the only thing these tests fake): the v2
 * endpoints the official client calls for payments and refunds, with Mollie's JSON shapes, its
 * Idempotency-Key behaviour and its 404 for unknown ids. Tests steer it (`setStatus`) the way a
 * customer at Mollie's checkout would, and count how often it was asked.
 *
 * HTTPS, because the official client only speaks HTTPS (it creates an https.Agent) and pins its own
 * CA bundle: a local fake cannot be trusted by that bundle, so while the fake runs the test process
 * skips certificate verification (NODE_TLS_REJECT_UNAUTHORIZED=0, restored on close). The
 * certificate is made at test time with openssl; no key is kept in the repository.
 */
export type MollieStatus = 'open' | 'pending' | 'authorized' | 'paid' | 'failed' | 'expired' | 'canceled';

export interface FakePayment {
  id: string;
  status: MollieStatus;
  amount: { currency: string; value: string };
  description: string;
  redirectUrl: string;
  webhookUrl: string;
  metadata: unknown;
  createdAt: string;
  refunds: Array<{ id: string; amount: { currency: string; value: string }; status: string; createdAt: string }>;
}

let certCache: { key: string; cert: string } | null = null;
function selfSigned(): { key: string; cert: string } {
  if (certCache) return certCache;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-mollie-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    certCache = { key: fs.readFileSync(path.join(dir, 'k.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'c.pem'), 'utf8') };
    return certCache;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const cents = (v: string) => Math.round(Number(v) * 100);
const value = (c: number) => (c / 100).toFixed(2);

export class FakeMollie {
  readonly payments = new Map<string, FakePayment>();
  private readonly byKey = new Map<string, string>();
  /** How many times each payment id was looked up (GET /v2/payments/:id). */
  readonly lookups = new Map<string, number>();
  /** Every request, for assertions: method and path. */
  readonly requests: Array<{ method: string; path: string; idempotencyKey?: string }> = [];
  /** When set, every request gets this HTTP status (503: an outage) instead of an answer. */
  failWith: number | null = null;
  private server!: https.Server;
  private previousTls: string | undefined;
  url = '';

  static async start(): Promise<FakeMollie> {
    const f = new FakeMollie();
    await f.listen();
    return f;
  }

  private async listen(): Promise<void> {
    this.previousTls = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    this.server = https.createServer(selfSigned(), (req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => this.handle(req.method ?? 'GET', req.url ?? '/', req.headers, body, res));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/v2/`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.previousTls === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = this.previousTls;
  }

  /** What a customer did at Mollie's checkout (or Mollie itself, for expired). */
  setStatus(id: string, status: MollieStatus): void {
    const p = this.payments.get(id);
    if (!p) throw new Error(`fake mollie: no payment ${id}`);
    p.status = status;
  }

  /** The one payment created for our payment id (metadata.payment_id). */
  paymentFor(ourId: string): FakePayment {
    const p = [...this.payments.values()].find((x) => (x.metadata as { payment_id?: string })?.payment_id === ourId);
    if (!p) throw new Error(`fake mollie: no payment for ${ourId}`);
    return p;
  }

  private json(res: import('node:http').ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/hal+json' });
    res.end(JSON.stringify(body));
  }

  private error(res: import('node:http').ServerResponse, status: number, title: string, detail: string): void {
    this.json(res, status, { status, title, detail, _links: { documentation: { href: 'https://docs.mollie.com/errors', type: 'text/html' } } });
  }

  private view(p: FakePayment) {
    const refunded = p.refunds.filter((r) => r.status !== 'failed' && r.status !== 'canceled').reduce((s, r) => s + cents(r.amount.value), 0);
    return {
      resource: 'payment',
      id: p.id,
      mode: 'test',
      createdAt: p.createdAt,
      status: p.status,
      amount: p.amount,
      amountRefunded: { currency: 'EUR', value: value(refunded) },
      amountRemaining: { currency: 'EUR', value: value(cents(p.amount.value) - refunded) },
      description: p.description,
      method: null,
      metadata: p.metadata,
      isCancelable: p.status === 'open',
      redirectUrl: p.redirectUrl,
      webhookUrl: p.webhookUrl,
      profileId: 'pfl_fake',
      sequenceType: 'oneoff',
      ...(p.status === 'paid' ? { paidAt: new Date().toISOString() } : {}),
      _links: {
        self: { href: `${this.url}payments/${p.id}`, type: 'application/hal+json' },
        ...(p.status === 'open' ? { checkout: { href: `https://www.mollie.com/checkout/select-method/${p.id.slice(3)}`, type: 'text/html' } } : {}),
        documentation: { href: 'https://docs.mollie.com/reference/get-payment', type: 'text/html' },
      },
    };
  }

  private handle(method: string, url: string, headers: import('node:http').IncomingHttpHeaders, body: string, res: import('node:http').ServerResponse): void {
    const path = url.split('?')[0]!;
    const key = typeof headers['idempotency-key'] === 'string' ? headers['idempotency-key'] : undefined;
    this.requests.push({ method, path, ...(key ? { idempotencyKey: key } : {}) });
    if (this.failWith) return this.error(res, this.failWith, 'Service Unavailable', 'The fake is down.');
    if (!/^Bearer (test|live)_\w+$/.test(String(headers.authorization ?? ''))) return this.error(res, 401, 'Unauthorized Request', 'Missing authentication, or failed to authenticate');
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v2/payments') {
      if (key && this.byKey.has(key)) return this.json(res, 201, this.view(this.payments.get(this.byKey.get(key)!)!));
      const b = JSON.parse(body) as Omit<FakePayment, 'id' | 'status' | 'createdAt' | 'refunds'>;
      if (!b.amount || !/^\d+\.\d{2}$/.test(b.amount.value)) return this.error(res, 422, 'Unprocessable Entity', 'The amount is invalid');
      const p: FakePayment = { id: `tr_${crypto.randomBytes(5).toString('hex')}`, status: 'open', amount: b.amount, description: b.description, redirectUrl: b.redirectUrl, webhookUrl: b.webhookUrl, metadata: b.metadata, createdAt: new Date().toISOString(), refunds: [] };
      this.payments.set(p.id, p);
      if (key) this.byKey.set(key, p.id);
      return this.json(res, 201, this.view(p));
    }
    if (method === 'GET' && (m = /^\/v2\/payments\/([^/]+)$/.exec(path))) {
      const id = decodeURIComponent(m[1]!);
      this.lookups.set(id, (this.lookups.get(id) ?? 0) + 1);
      const p = this.payments.get(id);
      return p ? this.json(res, 200, this.view(p)) : this.error(res, 404, 'Not Found', `No payment exists with token ${id}.`);
    }
    if (method === 'POST' && (m = /^\/v2\/payments\/([^/]+)\/refunds$/.exec(path))) {
      const p = this.payments.get(decodeURIComponent(m[1]!));
      if (!p) return this.error(res, 404, 'Not Found', 'No payment exists with this token.');
      const b = JSON.parse(body) as { amount: { value: string } };
      const existing = key ? p.refunds.find((r) => (r as { key?: string }).key === key) : undefined;
      if (existing) return this.json(res, 201, { resource: 'refund', ...existing, paymentId: p.id });
      if (p.status !== 'paid') return this.error(res, 422, 'Unprocessable Entity', 'The payment cannot be refunded');
      const left = cents(p.amount.value) - p.refunds.reduce((s, r) => s + cents(r.amount.value), 0);
      if (cents(b.amount.value) > left) return this.error(res, 422, 'Unprocessable Entity', 'The amount is higher than the amount remaining');
      const r = { id: `re_${crypto.randomBytes(5).toString('hex')}`, amount: { currency: 'EUR', value: b.amount.value }, status: 'pending', createdAt: new Date().toISOString(), key };
      p.refunds.push(r);
      return this.json(res, 201, { resource: 'refund', id: r.id, amount: r.amount, status: r.status, createdAt: r.createdAt, paymentId: p.id, _links: { self: { href: `${this.url}payments/${p.id}/refunds/${r.id}`, type: 'application/hal+json' } } });
    }
    return this.error(res, 404, 'Not Found', 'The resource does not exist');
  }
}
