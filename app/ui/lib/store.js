// One small store for what every screen shares: the session, the live connection, the sync status
// and a toast. Screens keep their own data in their own state.
import { useEffect, useState } from './html.js';

/**
 * @typedef {{ tenant: { id: string, slug: string, name: string }, user: { id: string, name: string, email?: string }, role: 'admin'|'staff' }} Session
 * @typedef {{ enabled: boolean, pending: number, oldest_pending_age_seconds: number|null, warning: boolean, last_error: string|null, online: boolean, state: string }} SyncStatus
 */
export const store = {
  /** @type {Session|null} */ session: null,
  /** @type {'connecting'|'live'|'offline'} */ conn: 'connecting',
  /** @type {{ status: SyncStatus, at: number }|null} */ sync: null,
  /** @type {string} */ toast: '',
  /** @type {string} */ loginMessage: '',
};
/** @type {Set<() => void>} */
const listeners = new Set();

/** @param {Partial<typeof store>} patch */
export function setStore(patch) {
  Object.assign(store, patch);
  for (const l of listeners) l();
}

/** Re-renders the calling component whenever the store changes. */
export function useStore() {
  const [, bump] = useState(0);
  useEffect(() => {
    const l = () => bump((n) => n + 1);
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return store;
}

let toastTimer = 0;
/** @param {string} text */
export function toast(text) {
  setStore({ toast: text });
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => setStore({ toast: '' }), 3500);
}
