// The API client: JSON in and out, Dutch errors from the server as they are. GETs of the reading
// screens fall back to the tablet's last known answer when the server cannot be reached (lib/offline.js).
import { recall, remember, unreachable } from './offline.js';

const API = '/api/v1';

export class ApiError extends Error {
  /** @param {number} status @param {string} message @param {string} [code] @param {Array<{field: string, error: string}>} [details] */
  constructor(status, message, code, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Called on a 401 for a logged-in request (the session ended): the app shows the login. */
let onExpired = () => {};
/** @param {() => void} fn */
export const setOnExpired = (fn) => (onExpired = fn);

/** @param {string} method @param {string} path @param {unknown} [body] @param {{ timeoutMs?: number }} [opts] */
export async function api(method, path, body, opts = {}) {
  let res;
  try {
    res = await fetch(API + path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
    });
  } catch {
    throw new ApiError(0, 'Geen verbinding met de server. Probeer het opnieuw.');
  }
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') ?? '';
  const json = type.includes('json') ? await res.json().catch(() => ({})) : await res.text();
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) onExpired();
    throw new ApiError(res.status, json?.error ?? `Er ging iets mis (${res.status}).`, json?.code, json?.details);
  }
  return json;
}

/** A GET; for the reading screens the answer is kept, and given back (marked stale) while the server is unreachable. */
export async function get(/** @type {string} */ path) {
  try {
    const body = await api('GET', path);
    void remember(path, body);
    return body;
  } catch (err) {
    if (unreachable(err)) {
      const kept = await recall(path);
      if (kept !== undefined) return kept;
    }
    throw err;
  }
}
export const post = (/** @type {string} */ path, /** @type {unknown} */ body) => api('POST', path, body ?? {});
export const patch = (/** @type {string} */ path, /** @type {unknown} */ body) => api('PATCH', path, body);
export const put = (/** @type {string} */ path, /** @type {unknown} */ body) => api('PUT', path, body);
export const del = (/** @type {string} */ path) => api('DELETE', path);

/** A UUID v4 from getRandomValues (crypto.randomUUID needs a secure context; tablets use plain http on the LAN). */
export function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
