// The tablet's live connection (socket.io, docs/realtime.md): one socket per session; screens
// subscribe to the events they show. Every reconnect sends the last seq seen, so the server replays
// what was missed; `resync` (too far behind) tells screens to re-fetch.
import { io } from '/socket.io/socket.io.esm.min.js';
import { useEffect } from './html.js';
import { setStore } from './store.js';

/** @type {ReturnType<typeof io>|null} */
let socket = null;
let lastSeq = 0;
/** @type {Map<string, Set<(e: any) => void>>} */
const handlers = new Map();

/** @param {string} name @param {any} payload */
function dispatch(name, payload) {
  for (const h of handlers.get(name) ?? []) h(payload);
  for (const h of handlers.get('*') ?? []) h({ name, payload });
}

/** @param {() => void} onUnauthorized */
export function connect(onUnauthorized) {
  disconnect();
  lastSeq = 0;
  setStore({ conn: 'connecting' });
  // Back-off capped at 1 s (±30 %) and a 3 s limit per attempt: live again within 2 s of the server
  // being back (issue 27), while a tablet on a dead network still tries only about once a second.
  const s = io({ auth: (cb) => cb(lastSeq > 0 ? { last_seq: lastSeq } : {}), reconnectionDelay: 250, reconnectionDelayMax: 1000, randomizationFactor: 0.3, timeout: 3000 });
  socket = s;
  s.on('hello', (/** @type {{ seq: number }} */ e) => {
    const first = lastSeq === 0;
    lastSeq = Math.max(lastSeq, e.seq);
    setStore({ conn: 'live' });
    if (!first) dispatch('resync', e);
  });
  s.on('resync', (/** @type {{ seq: number }} */ e) => {
    lastSeq = Math.max(lastSeq, e.seq);
    dispatch('resync', e);
  });
  s.onAny((/** @type {string} */ name, /** @type {any} */ payload) => {
    if (name === 'hello' || name === 'resync' || name === 'server:closing') return;
    if (payload && typeof payload.seq === 'number') {
      if (payload.seq <= lastSeq) return; // already seen (a replay crossing a live event)
      lastSeq = payload.seq;
    }
    dispatch(name, payload);
  });
  // The server is stopping (docs/realtime.md): offline now, not when the socket notices.
  s.on('server:closing', () => setStore({ conn: 'offline' }));
  s.on('disconnect', (/** @type {string} */ reason) => {
    setStore({ conn: 'offline' });
    // The server closed this connection on purpose (it stops, or restarts): socket.io does not retry
    // that by itself; its reconnection (capped back-off, above) takes over when this first try fails.
    if (reason === 'io server disconnect') setTimeout(() => socket === s && s.connect(), 250);
  });
  s.on('connect_error', (/** @type {Error & { data?: { code?: string } }} */ err) => {
    setStore({ conn: 'offline' });
    if (err.data?.code === 'UNAUTHORIZED') onUnauthorized();
  });
}

/** Tells the screens to fetch everything again (they showed the tablet's last known copy: lib/offline.js). */
export const resync = () => dispatch('resync', { seq: lastSeq });

export function disconnect() {
  socket?.disconnect();
  socket = null;
}

/**
 * Subscribes a component to live events while it is shown. `names` may include 'resync' (re-fetch
 * everything) and '*' (every event, as `{ name, payload }`).
 * @param {string[]} names @param {(e: any, name: string) => void} handler @param {unknown[]} [deps]
 */
export function useLive(names, handler, deps = []) {
  useEffect(() => {
    /** @type {Array<[string, (e: any) => void]>} */
    const subs = names.map((n) => [n, (/** @type {any} */ e) => handler(e, n)]);
    for (const [n, h] of subs) {
      if (!handlers.has(n)) handlers.set(n, new Set());
      handlers.get(n)?.add(h);
    }
    return () => {
      for (const [n, h] of subs) handlers.get(n)?.delete(h);
    };
  }, deps);
}
