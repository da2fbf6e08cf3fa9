import crypto from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { VERSION } from '../../version.js';

/**
 * The outside world of webhooks: where an address points (SSRF rules, issue 16 item 5), the
 * signature, and one HTTP POST with a hard deadline. Tests fake the resolver (DNS rebinding) and
 * run real receivers on 127.0.0.1.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Name → every address it resolves to (all of them are checked: one private record is enough to refuse). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The signature header's value: `sha256=` + hex HMAC-SHA256 of the exact body bytes, keyed with the secret (UTF-8). */
export function signature(secret: string, body: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

function v4Reason(b: number[]): string | null {
  const [a, c] = [b[0]!, b[1]!];
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168) || (a === 100 && c >= 64 && c <= 127)) return 'privé';
  if (a === 169 && c === 254) return 'link-local';
  if (a === 0 || a >= 224 || (a === 192 && c === 0 && b[2] === 0) || (a === 198 && (c === 18 || c === 19))) return 'gereserveerd';
  return null;
}

/** 16 bytes of an IPv6 address (with an optional dotted IPv4 tail), or null. */
function v6Bytes(address: string): number[] | null {
  let s = address.replace(/^\[|\]$/g, '').split('%')[0]!.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (tail) {
    const q = tail.slice(1).map(Number);
    s = `${s.slice(0, tail.index)}${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array<string>(Math.max(0, fill)).fill('0'), ...rest];
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

/**
 * Why the cloud may not send to this address, in the staff's words ('privé', 'loopback',
 * 'link-local', 'gereserveerd'), or null when it is a public address. IPv4 inside IPv6 (mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, the old compatible form) is judged by its IPv4 part.
 */
export function addressReason(address: string): string | null {
  const kind = net.isIP(address.replace(/^\[|\]$/g, '').split('%')[0]!);
  if (kind === 4) return v4Reason(address.split('.').map(Number));
  if (kind !== 6) return 'gereserveerd';
  const b = v6Bytes(address);
  if (!b) return 'gereserveerd';
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 16)) return 'gereserveerd';
  if (zero(0, 15) && b[15] === 1) return 'loopback';
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4Reason(b.slice(12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4Reason(b.slice(12));
  if (zero(0, 12)) return v4Reason(b.slice(12));
  if ((b[0]! & 0xfe) === 0xfc) return 'privé';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'privé';
  if (b[0] === 0xff) return 'gereserveerd';
  return null;
}

const REASON_TEXT: Record<string, string> = {
  privé: 'een privé-adres (intern netwerk)',
  loopback: 'deze server zelf (loopback)',
  'link-local': 'een link-local adres',
  gereserveerd: 'een gereserveerd adres',
};

export class AddressRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const what = REASON_TEXT[reason] ?? reason;
    super(`${host === address ? `${address} is ${what}` : `'${host}' wijst naar ${address}: ${what}`}. De cloud stuurt geen webhooks naar zulke adressen (WEBHOOK_ALLOW_PRIVATE staat uit).`);
    this.name = 'AddressRefused';
  }
}

export class AddressNotFound extends Error {
  constructor(readonly host: string) {
    super(`Het adres '${host}' kon niet worden gevonden.`);
    this.name = 'AddressNotFound';
  }
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * The addresses a URL's host stands for, checked against the rules: with `allowPrivate` anything
 * goes (the appliance on the restaurant's own network, or the operator's choice); otherwise every
 * address must be public. Throws AddressRefused / AddressNotFound.
 */
export async function resolveChecked(url: URL, opts: { allowPrivate: boolean; resolve: Resolver }): Promise<ResolvedAddress[]> {
  const host = hostOf(url);
  const literal = net.isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await opts.resolve(host);
    } catch {
      throw new AddressNotFound(host);
    }
    if (addresses.length === 0) throw new AddressNotFound(host);
  }
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const reason = addressReason(a.address);
      if (reason) throw new AddressRefused(host, a.address, reason);
    }
  }
  return addresses;
}

export interface PostResult {
  ok: boolean;
  status: number | null;
  /** Dutch, for the admin's delivery list; null on success. */
  error: string | null;
  /** Not worth retrying (a refused address): the delivery fails at once. */
  final: boolean;
  ms: number;
}

/**
 * One pool of kept-alive connections per protocol, keyed by host and port (Node's agent). Free
 * connections close before the receiver's own keep-alive timeout (Node honours its `Keep-Alive:
 * timeout=` hint) and never keep the process alive.
 */
const keepAlive = {
  http: new http.Agent({ keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: 30_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: 30_000 }),
};

/** A lookup that answers with the address already checked, so the connection goes exactly there (no second DNS answer: rebinding). */
const pinned =
  (a: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, list: Array<{ address: string; family: number }>) => void)(null, [{ address: a.address, family: a.family }]);
    else callback(null, a.address, a.family);
  };

function describeError(err: unknown, timedOutAfterMs: number | null): string {
  if (timedOutAfterMs !== null) return `Geen antwoord binnen ${timedOutAfterMs >= 1000 ? `${Math.round(timedOutAfterMs / 1000)} seconden` : `${timedOutAfterMs} ms`}.`;
  if (err instanceof AddressRefused || err instanceof AddressNotFound) return err.message;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'De verbinding werd geweigerd.';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'De verbinding werd verbroken.';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'Het adres is niet bereikbaar.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'Het adres kon niet worden gevonden.';
    default:
      return code && /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code) ? 'Het certificaat van de ontvanger is niet geldig.' : `Versturen mislukt${code ? ` (${code})` : ''}.`;
  }
}

/**
 * One POST of `body` to `url` within `timeoutMs` (address check, connect, answer, all of it).
 * 2xx is success; anything else, a refused connection or the deadline is a failed attempt.
 * Redirects are not followed (a 3xx is a failure: the target could be anywhere).
 */
export async function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowPrivate: boolean; resolve: Resolver; timeoutMs: number },
): Promise<PostResult> {
  const started = Date.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  const done = (r: Omit<PostResult, 'ms'>): PostResult => ({ ...r, ms: Date.now() - started });
  try {
    const target = new URL(url);
    const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(new Error('timeout')), { once: true }));
    let addresses: ResolvedAddress[];
    try {
      addresses = await Promise.race([resolveChecked(target, opts), aborted]);
    } catch (err) {
      return done({ ok: false, status: null, error: describeError(err, timedOut ? opts.timeoutMs : null), final: err instanceof AddressRefused });
    }
    const attemptOn = (agent: http.Agent | false) => new Promise<number>((resolve, reject) => {
      const mod = target.protocol === 'https:' ? https : http;
      const req = mod.request(
        {
          protocol: target.protocol,
          hostname: hostOf(target),
          port: target.port || undefined,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': `restaurant-webhooks/${VERSION}`,
            ...(target.username ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}` } : {}),
            ...headers,
          },
          lookup: pinned(addresses[0]!),
          // Kept-alive connections per receiver (a busy queue sends thousands of deliveries to one
          // URL; a new TCP connection for each cost more than the request). A reused connection is
          // always to an address that was checked when it was opened.
          agent,
          signal: controller.signal,
        },
        (res) => {
          // Read (and drop) the answer, so the connection ends cleanly; its size does not matter.
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      req.end(body);
    });
    let status: number;
    try {
      status = await attemptOn(keepAlive[target.protocol === 'https:' ? 'https' : 'http']);
    } catch (err) {
      // A kept-alive connection the receiver closed just as this request went out: the receiver never
      // read it, so it is sent once more on a new connection (Node's advice for reused sockets).
      const code = (err as { code?: string }).code;
      if (!(err as { reusedSocket?: boolean }).reusedSocket || (code !== 'ECONNRESET' && code !== 'EPIPE') || timedOut) throw err;
      status = await attemptOn(false);
    }
    if (status >= 200 && status < 300) return done({ ok: true, status, error: null, final: false });
    return done({ ok: false, status, error: `De ontvanger antwoordde ${status}.`, final: false });
  } catch (err) {
    return done({ ok: false, status: null, error: describeError(err, timedOut ? opts.timeoutMs : null), final: false });
  } finally {
    clearTimeout(timer);
  }
}

/** The sender's view of the outside world: the address rule, the resolver and the attempt deadline (tests change them). */
export interface SendNet {
  resolve: Resolver;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** One attempt of a delivery: sign the stored body with the webhook's current secret and POST it (inline and in the sender thread alike). */
export function sendDelivery(
  d: { id: string; body: string; event_type: string; attempts: number },
  hook: { url: string; secret: string },
  net: SendNet,
): Promise<PostResult> {
  const headers = {
    'x-service-signature': signature(hook.secret, d.body),
    'x-service-delivery': d.id,
    'x-service-event': d.event_type,
    'x-service-attempt': String(d.attempts + 1),
  };
  return postOnce(hook.url, d.body, headers, { allowPrivate: net.allowPrivate, resolve: net.resolve, timeoutMs: net.timeoutMs });
}
