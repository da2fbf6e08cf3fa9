// The tablet's order queue (issue 27, docs/staff-app.md "Offline"). An order taken while the
// appliance cannot be reached is kept in the tablet's IndexedDB with its idempotency key and sent
// when the server is back. The POST body is kept exactly as the screen made it (items with whatever
// they carry: options, seat, course, notes), so new order fields need no change here. The server's
// idempotency (CONTRACT §5) makes every resend safe: a body sent twice is one order, so an order is
// removed from the queue only after the server answered it (2xx), and sent again otherwise.
// An order the server refuses (a dish archived meanwhile: 400) stays, marked refused with the
// server's reason, until the waiter sends it again or removes it: never dropped silently.
import { api } from './api.js';
import { database, offline, setOffline, unreachable } from './offline.js';
import { store, toast } from './store.js';

/**
 * One queued order.
 * @typedef {{ key: string, tenant_id: string, user_id: string, body: any, summary: Summary, created_at: string,
 *   state: 'waiting'|'refused', error?: string, code?: string, details?: Array<{ field: string, error: string }>, refused_at?: string }} Queued
 * @typedef {{ table?: string, lines: Array<{ name: string, quantity: number }>, total_cents?: number }} Summary
 */

/** How long a direct POST may take before the order is queued instead (a half-dead Wi-Fi). */
const DIRECT_TIMEOUT_MS = 8000;
/** How often a queue with orders in it tries again (besides reconnects and the browser's "online"). */
const RETRY_MS = 5000;

/** The current restaurant's queued orders, oldest first. @returns {Promise<Queued[]>} */
async function queued() {
  const tenant = store.session?.tenant.id;
  if (!tenant) return [];
  const all = /** @type {Queued[]} */ (await (await database()).getAllFromIndex('outbox', 'by_tenant', tenant));
  return all.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

/** Reads the queue into the offline state the screens show. */
export async function refresh() {
  const all = await queued().catch(() => []);
  setOffline({ waiting: all.filter((q) => q.state === 'waiting'), refused: all.filter((q) => q.state === 'refused') });
  return all;
}

/**
 * Places an order: straight to the server when it is live and nothing waits before it, otherwise (or
 * when the server turns out unreachable) into the queue. A refusal of a direct POST (a dish just
 * made unavailable) is thrown as before, for the screen to show at its form.
 * @param {{ idempotency_key: string }} body the POST /orders body, kept as is
 * @param {Summary} summary what the waiter sees of it while it waits
 * @returns {Promise<{ order: any } | { queued: true }>}
 */
export async function placeOrder(body, summary) {
  if (!body.idempotency_key) throw new Error('placeOrder: idempotency_key ontbreekt');
  const before = (await refresh()).some((q) => q.state === 'waiting');
  if (store.conn === 'live' && !before) {
    try {
      return { order: await api('POST', '/orders', body, { timeoutMs: DIRECT_TIMEOUT_MS }) };
    } catch (err) {
      if (!unreachable(err)) throw err;
    }
  }
  const session = /** @type {NonNullable<typeof store.session>} */ (store.session);
  /** @type {Queued} */
  const item = { key: body.idempotency_key, tenant_id: session.tenant.id, user_id: session.user.id, body, summary, created_at: new Date().toISOString(), state: 'waiting' };
  await (await database()).put('outbox', item);
  await refresh();
  void flush();
  return { queued: true };
}

/** @type {Promise<void>|null} */
let flushing = null;
/** Sends the waiting orders, oldest first, one at a time; one flush at a time in this tab. */
export function flush() {
  flushing ??= send().finally(() => {
    flushing = null;
  });
  return flushing;
}

async function send() {
  let sent = 0;
  for (;;) {
    const next = (await queued()).find((q) => q.state === 'waiting');
    if (!next) break;
    try {
      await api('POST', '/orders', next.body, { timeoutMs: 15_000 });
      await (await database()).delete('outbox', next.key);
      sent += 1;
    } catch (/** @type {any} */ err) {
      // Not the order's fault (no connection, the server restarting, too many requests, the session
      // ended: the login comes first): it stays and is sent on the next try.
      if (unreachable(err) || err.status === 401 || err.status === 429 || err.status >= 500) break;
      /** @type {Queued} */
      const refused = { ...next, state: 'refused', error: err.message, code: err.code, details: err.details, refused_at: new Date().toISOString() };
      await (await database()).put('outbox', refused);
    }
  }
  await refresh();
  if (sent) toast(sent === 1 ? 'De bewaarde bestelling is verstuurd.' : `${sent} bewaarde bestellingen zijn verstuurd.`);
}

/** A refused order goes back into the queue (after the dish is available again) and is sent. */
export async function retry(/** @type {string} */ key) {
  const db = await database();
  const item = /** @type {Queued|undefined} */ (await db.get('outbox', key));
  if (!item) return;
  await db.put('outbox', { ...item, state: 'waiting', error: undefined, code: undefined, details: undefined, refused_at: undefined });
  await refresh();
  await flush();
}

/** Removes a queued order for good (the waiter decided; the screen asked first). */
export async function discard(/** @type {string} */ key) {
  await (await database()).delete('outbox', key);
  await refresh();
}

// Tries again: when the browser says the network is back, and every few seconds while orders wait.
window.addEventListener('online', () => void flush());
setInterval(() => {
  if (store.session && offline.waiting.length) void flush();
}, RETRY_MS);
