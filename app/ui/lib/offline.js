// What the tablet keeps for when the appliance cannot be reached (issue 27, docs/staff-app.md
// "Offline"): the tablet's own IndexedDB (works on plain http too), the last known answers of the
// reading screens, the session it last had, and a small state the offline pieces share (lib/outbox.js,
// lib/offline-ui.js). Nothing here talks to the server.
import { openDB } from 'idb';
import { useEffect, useState } from './html.js';
import { store } from './store.js';

/** @type {Promise<import('idb').IDBPDatabase>|null} */
let opened = null;
/** The tablet's database: `outbox` (orders waiting to be sent, lib/outbox.js) and `reads` (last known answers). */
export function database() {
  opened ??= openDB('restaurant-staff', 1, {
    upgrade(db) {
      const outbox = db.createObjectStore('outbox', { keyPath: 'key' });
      outbox.createIndex('by_tenant', 'tenant_id');
      db.createObjectStore('reads', { keyPath: 'id' });
    },
  });
  return opened;
}

/**
 * The offline state the app shows: orders waiting and refused (the outbox), reads shown from the
 * tablet's copy (path → when that copy was fetched), since when the server is unreachable, and a new
 * version of the app waiting to take over.
 * @type {{ waiting: any[], refused: any[], stale: Map<string, number>, offlineSince: number|null, update: boolean }}
 */
export const offline = { waiting: [], refused: [], stale: new Map(), offlineSince: null, update: false };
/** @type {Set<() => void>} */
const listeners = new Set();
/** @param {Partial<typeof offline>} patch */
export function setOffline(patch) {
  Object.assign(offline, patch);
  for (const l of listeners) l();
}
/** Re-renders the calling component when the offline state changes. */
export function useOffline() {
  const [, bump] = useState(0);
  useEffect(() => {
    const l = () => bump((n) => n + 1);
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return offline;
}

/** The server did not answer (no connection, a timeout, or it is stopping/restarting): not the request's fault. */
export const unreachable = (/** @type {any} */ err) => err?.status === 0 || err?.status === 502 || err?.status === 503 || err?.status === 504;

/**
 * The reading screens whose last answer the tablet keeps: the kitchen board, the floor plan with its
 * bills, and the menu (to take orders offline). Other screens (customers, stock, the back office)
 * need the server; their data is not kept on the tablet.
 */
const KEPT_READS = [/^\/orders\/live(\?.*)?$/, /^\/floorplan$/, /^\/floorplan\/tables\/[^/?]+\/bill$/, /^\/floorplan\/bills\/[^/?]+$/, /^\/menu$/];
const kept = (/** @type {string} */ path) => KEPT_READS.some((r) => r.test(path));
const readId = (/** @type {string} */ path) => `${store.session?.tenant.id}|${path}`;

function markStale(/** @type {string} */ path, /** @type {number|null} */ at) {
  const stale = new Map(offline.stale);
  if (at === null) stale.delete(path);
  else stale.set(path, at);
  if (stale.size !== offline.stale.size || at !== null) setOffline({ stale });
}

/** A fresh answer from the server: kept for later (for the reading screens) and no longer stale. */
export async function remember(/** @type {string} */ path, /** @type {unknown} */ body) {
  if (!store.session || !kept(path)) return;
  if (offline.stale.has(path)) markStale(path, null);
  try {
    await (await database()).put('reads', { id: readId(path), path, body, at: Date.now() });
  } catch {
    /* a full or unavailable storage only loses the offline copy */
  }
}

/** The last answer the tablet kept for `path` (marked stale, with its time), or undefined. */
export async function recall(/** @type {string} */ path) {
  if (!store.session || !kept(path)) return undefined;
  try {
    const hit = await (await database()).get('reads', readId(path));
    if (!hit) return undefined;
    markStale(path, hit.at);
    return hit.body;
  } catch {
    return undefined;
  }
}

// Another screen fetches its own data: what the previous one showed no longer counts.
window.addEventListener('hashchange', () => offline.stale.size && setOffline({ stale: new Map() }));

/** Forgets the kept answers (logout: the next person may be of another restaurant). */
export async function forgetReads() {
  setOffline({ stale: new Map() });
  try {
    await (await database()).clear('reads');
  } catch {
    /* nothing kept */
  }
}

const SESSION_KEY = 'restaurant.session';
/** The session of the last login, so the app opens (offline) where it was; the server still decides on every request. */
export const rememberSession = (/** @type {any} */ session) => localStorage.setItem(SESSION_KEY, JSON.stringify(session));
export const forgetSession = () => localStorage.removeItem(SESSION_KEY);
export function lastSession() {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null');
  } catch {
    return null;
  }
}
