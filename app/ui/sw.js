// The staff app's service worker (issue 27, docs/staff-app.md "Offline"). The server serves this
// file at /app/sw.js with two constants in front: VERSION (the app's version plus a hash of its
// files) and FILES (the shell, every screen and library module, the vendor files and socket.io's
// client). Everything in FILES comes from this version's cache, so every screen opens without the
// server and a page never mixes modules of two versions. A new version installs next to the old one
// and waits; the page shows "Nieuwe versie" and switches (and reloads) when someone taps it.
// The API and the live socket are never cached here: reads fall back in the page (lib/offline.js).
/* global VERSION, FILES */
const PREFIX = 'staff-app-';
const CACHE = `${PREFIX}${VERSION}`;
const KEPT = new Set(FILES);

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // All or nothing (addAll fails if one file fails), fetched past the HTTP cache.
      await cache.addAll(FILES.map((url) => new Request(url, { cache: 'reload' })));
      // The first install has no old version to mix with: take over at once.
      if (!self.registration.active) await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** The page asks for the waiting version to take over (someone tapped "Bijwerken"). */
self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'skip-waiting') void self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  // The app's page (/app/?slug=..., /app/index.html) is the shell; the screen is in the hash.
  const key = url.pathname === '/app/index.html' ? '/app/' : url.pathname;
  if (!KEPT.has(key)) return;
  event.respondWith(
    (async () => {
      const hit = await (await caches.open(CACHE)).match(key);
      return hit ?? fetch(req);
    })(),
  );
});
