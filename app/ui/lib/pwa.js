// The installable app (issue 27, docs/staff-app.md "Offline"): registers the service worker (sw.js)
// that keeps every file of this version, so the app opens and every screen loads without the
// server; notices a new version and lets it take over (with a reload) only when someone taps
// "Bijwerken", so a page never runs modules of two versions.
// Browsers allow a service worker only in a secure context (https, or localhost). A tablet that
// reaches the appliance over plain http gets the fallback instead: every screen's module is loaded
// into the page once the app runs, so screens still open while the server is away (as long as the
// page is not reloaded); the order queue and the last known reads work either way (IndexedDB).
import { setOffline } from './offline.js';

/** @type {ServiceWorkerRegistration|null} */
let registration = null;
let switching = false;

/** Whether this page can have a service worker (secure context and a browser that has them). */
export const canInstall = () => window.isSecureContext && 'serviceWorker' in navigator;

/** @param {string[]} screens the absolute URLs of every screen module (main.js SCREENS) */
export async function startApp(screens) {
  if (!canInstall()) {
    preload(screens);
    return;
  }
  try {
    navigator.serviceWorker.addEventListener('controllerchange', () => {
      // The new version took over because someone asked for it: load the page of that version.
      if (switching) location.reload();
    });
    registration = await navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' });
    const waitingNow = () => {
      if (registration?.waiting && navigator.serviceWorker.controller) setOffline({ update: true });
    };
    const watch = (/** @type {ServiceWorker|null} */ w) => w?.addEventListener('statechange', waitingNow);
    waitingNow();
    watch(registration.installing);
    registration.addEventListener('updatefound', () => watch(registration?.installing ?? null));
  } catch {
    // No service worker after all (storage off, a private window): the page-level fallback.
    preload(screens);
  }
}

/** Asks the server for a newer version (after a reconnect: the appliance may have been updated). */
export function checkForUpdate() {
  registration?.update().catch(() => {});
}

/** The waiting version takes over; the page reloads when it has (controllerchange). */
export function applyUpdate() {
  if (!registration?.waiting) return;
  switching = true;
  registration.waiting.postMessage({ type: 'skip-waiting' });
}

/** Without a service worker: every screen's module in memory, loaded while the server is there. */
function preload(/** @type {string[]} */ screens) {
  const load = () => screens.forEach((url) => void import(url).catch(() => {}));
  if ('requestIdleCallback' in window) requestIdleCallback(load);
  else setTimeout(load, 1000);
}
