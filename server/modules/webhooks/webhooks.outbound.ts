import crypto from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
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

/** IPv4 ranges (ipaddr.js names) and the staff's word for them; `unicast` is a public address. */
const V4_REASON: Record<string, string | null> = {
  unicast: null,
  loopback: 'loopback',
  private: 'privé',
  carrierGradeNat: 'privé',
  linkLocal: 'link-local',
};
/** IPv6 ranges that are not judged by an IPv4 address inside them. */
const V6_REASON: Record<string, string | null> = {
  unicast: null,
  loopback: 'loopback',
  uniqueLocal: 'privé',
  deprecatedSiteLocal: 'privé',
  linkLocal: 'link-local',
};

function v4Reason(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range in V4_REASON ? V4_REASON[range]! : 'gereserveerd';
}

/**
 * The IPv4 addresses an IPv6 address carries and would reach, or null when it carries none:
 * mapped `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, the old
 * compatible `::a.b.c.d`, 6to4 `2002:AABB:CCDD::/48` and Teredo `2001:0:SSSS:SSSS:…:CCCC:CCCC`
 * (the relay server and the client, whose bits Teredo inverts).
 */
function embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] | null {
  const b = address.toByteArray();
  const v4 = (bytes: number[]) => new ipaddr.IPv4(bytes);
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4(b.slice(12))];
    case 'rfc6052':
      // 64:ff9b::/96 ends with the IPv4 address; the local-use 64:ff9b:1::/48 is some operator's own network.
      return b[4] === 0 && b[5] === 0 ? [v4(b.slice(12))] : [new ipaddr.IPv4([10, 0, 0, 0])];
    case '6to4':
      return [v4(b.slice(2, 6))];
    case 'teredo':
      return [v4(b.slice(4, 8)), v4(b.slice(12).map((x) => x ^ 0xff))];
    default:
      // The deprecated IPv4-compatible form ::a.b.c.d (not :: and ::1, which have ranges of their own).
      return range === 'unicast' && b.slice(0, 12).every((x) => x === 0) ? [v4(b.slice(12))] : null;
  }
}

/**
 * Why the cloud may not send to this address, in the staff's words ('privé', 'loopback',
 * 'link-local', 'gereserveerd'), or null when it is a public address. The ranges are ipaddr.js's
 * (IANA's special-purpose registries); an IPv6 address that carries an IPv4 address (mapped,
 * NAT64, compatible, 6to4, Teredo) is judged by that IPv4 address (issue 28 point 8).
 */
export function addressReason(address: string): string | null {
  const text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text) || net.isIP(text.split('%')[0]!) === 0) return 'gereserveerd';
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return v4Reason(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const inside = embeddedV4(v6, range);
  if (inside) {
    for (const a of inside) {
      const reason = v4Reason(a);
      if (reason) return reason;
    }
    return null;
  }
  return range in V6_REASON ? V6_REASON[range]! : 'gereserveerd';
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
  opts: { allowPrivate: boolean; resolve: Resolver; timeoutMs: number; signal?: AbortSignal },
): Promise<PostResult> {
  const started = Date.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  // The sender is stopping (shutdown): the attempt ends now, like a timeout (the caller knows why).
  const stop = () => controller.abort();
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener('abort', stop, { once: true });
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
    opts.signal?.removeEventListener('abort', stop);
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
  signal?: AbortSignal,
): Promise<PostResult> {
  const headers = {
    'x-service-signature': signature(hook.secret, d.body),
    'x-service-delivery': d.id,
    'x-service-event': d.event_type,
    'x-service-attempt': String(d.attempts + 1),
  };
  return postOnce(hook.url, d.body, headers, { allowPrivate: net.allowPrivate, resolve: net.resolve, timeoutMs: net.timeoutMs, signal });
}
