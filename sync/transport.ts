/** How the appliance reaches the cloud. The HTTP one is used in production; tests pass their own (inject + faults). */
export interface SyncRequest {
  method: 'GET' | 'POST';
  /** e.g. '/api/v1/sync/pull' */
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface SyncReply {
  status: number;
  body: unknown;
}

export interface SyncTransport {
  /** Resolves with any HTTP answer; rejects only when no answer arrived (network, timeout, abort). */
  send(req: SyncRequest): Promise<SyncReply>;
}

/**
 * A request body that is JSON text already (the push: its ops' payloads are the change log's stored
 * text, sent as they are instead of parsed and serialized again). `toJSON` gives the value, so a
 * transport that serializes bodies itself still sends the same JSON.
 */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text) as unknown;
  }
}

/** The JSON text of a request body. */
export function jsonBody(body: unknown): string {
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}

export function withQuery(path: string, query?: Record<string, string | number>): string {
  if (!query) return path;
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return qs ? `${path}?${qs}` : path;
}

/** fetch-based transport to CLOUD_URL with the SYNC_KEY as bearer token. */
export function httpTransport(cloudUrl: string, syncKey: string, opts: { timeoutMs?: number } = {}): SyncTransport {
  const base = cloudUrl.replace(/\/+$/, '');
  return {
    async send(req) {
      // Long-polls may take up to their `wait`; allow that plus the normal timeout.
      const wait = Number(req.query?.wait ?? 0);
      const timeout = AbortSignal.timeout((opts.timeoutMs ?? 15_000) + wait);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      const res = await fetch(base + withQuery(req.path, req.query), {
        method: req.method,
        headers: { authorization: `Bearer ${syncKey}`, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: req.body !== undefined ? jsonBody(req.body) : undefined,
        signal,
      });
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { error: text.slice(0, 200) };
      }
      return { status: res.status, body };
    },
  };
}
