// Staff app (issue 14): Preact + htm as plain ES modules, no build step. One file per screen
// (screens/ for the floor and the kitchen, admin/ for the back office), loaded when first opened.
// Everything comes from this server: its own files, /app/vendor/ (node_modules) and socket.io.
import { html, render, useEffect, useRef, useState } from './lib/html.js';
import { get, post, setOnExpired } from './lib/api.js';
import { connect, disconnect, useLive } from './lib/live.js';
import { go, useRoute } from './lib/router.js';
import { setStore, store, useStore } from './lib/store.js';
import { forgetReads, forgetSession, lastSession, rememberSession, unreachable } from './lib/offline.js';
import { OfflineBanners, OutboxBadge, useConnection, useStaleMark } from './lib/offline-ui.js';
import { flush, refresh } from './lib/outbox.js';
import { startApp } from './lib/pwa.js';
import { stackTables } from './lib/stack-tables.js';
import Login from './screens/login.js';

/** Every screen: where it lives, who sees it. `nav: false` screens are reached from other screens (`parent`: the entry lit in the navigation meanwhile). */
export const SCREENS = [
  { path: '/keuken', label: 'Keuken', file: './screens/kitchen.js' },
  { path: '/bestellen', label: 'Nieuwe bestelling', file: './screens/new-order.js', nav: false },
  { path: '/vloer', label: 'Plattegrond', file: './screens/floor.js' },
  { path: '/rekening', label: 'Rekening', file: './screens/bill.js', nav: false, parent: '/vloer' },
  { path: '/reserveringen', label: 'Reserveringen', file: './screens/reservations.js' },
  { path: '/haccp', label: 'Temperaturen', file: './screens/haccp.js' },
  { path: '/controlelijsten', label: 'Controlelijsten', file: './screens/checklists.js' },
  { path: '/voorraad', label: 'Voorraad', file: './screens/stock.js' },
  { path: '/klanten', label: 'Klanten en punten', file: './screens/loyalty.js' },
  { path: '/diensten', label: 'In- en uitklokken', file: './screens/shifts.js' },
  { path: '/beheer/inzichten', label: 'Inzichten', file: './admin/insights.js', admin: true },
  { path: '/beheer/omzet', label: 'Omzet', file: './admin/revenue.js', admin: true },
  { path: '/beheer/dagafsluiting', label: 'Dagafsluiting', file: './admin/dayclose.js', admin: true },
  { path: '/beheer/menu', label: 'Menu en recepten', file: './admin/menu.js', admin: true },
  { path: '/beheer/opties', label: 'Keuzes en opties', file: './admin/modifiers.js', admin: true },
  { path: '/beheer/tafels', label: 'Tafels', file: './admin/tables.js', admin: true },
  { path: '/beheer/medewerkers', label: 'Medewerkers', file: './admin/users.js', admin: true },
  { path: '/beheer/diensten', label: 'Diensten en loon', file: './admin/shifts.js', admin: true },
  { path: '/beheer/voedselveiligheid', label: 'Koelcellen en lijsten', file: './admin/haccp.js', admin: true },
  { path: '/beheer/locaties', label: 'Locaties', file: './admin/locations.js', admin: true },
  { path: '/beheer/printers', label: 'Printers', file: './admin/printers.js', admin: true },
  { path: '/beheer/koppelingen', label: 'API-sleutels en webhooks', file: './admin/integrations.js', admin: true },
  { path: '/beheer/instellingen', label: 'Instellingen', file: './admin/settings.js', admin: true },
];

const WARN_AFTER_S = 5 * 60;

function SyncBanner() {
  const s = useStore();
  const [, tick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 30_000);
    return () => clearInterval(t);
  }, []);
  const st = s.sync?.status;
  // A stand-alone appliance (no cloud configured) and the cloud itself never show the banner.
  if (!st || !st.enabled || st.pending === 0 || st.oldest_pending_age_seconds === null) return null;
  // The server's age at receipt plus the time since, so the banner appears at 5 minutes without a new event.
  const age = st.oldest_pending_age_seconds + Math.floor((Date.now() - (s.sync?.at ?? Date.now())) / 1000);
  if (!st.warning && age <= WARN_AFTER_S) return null;
  const minutes = Math.floor(age / 60);
  return html`<div id="sync-banner" class="banner" role="alert">
    Nog niet gesynchroniseerd met de cloud: ${st.pending} ${st.pending === 1 ? 'wijziging' : 'wijzigingen'}, oudste ${minutes} ${minutes === 1 ? 'minuut' : 'minuten'}
    ${st.last_error ? html`<span class="detail">Laatste fout: ${st.last_error}</span>` : null}
  </div>`;
}

/** Always visible: is this tablet live with the server, and is the restaurant online with the cloud. */
function Indicators() {
  const s = useStore();
  const st = s.sync?.status;
  const cloud = !st || !st.enabled ? ['none', 'Zonder cloud'] : st.state === 'online' ? ['online', st.pending ? `Online · ${st.pending} te synchroniseren` : 'Online'] : st.state === 'stopped' ? ['offline', 'Synchronisatie gestopt'] : ['offline', `Offline${st.pending ? ` · ${st.pending} wachten` : ''}`];
  return html`<div class="indicators">
    <span id="conn" class="conn" data-state=${s.conn}>${s.conn === 'live' ? 'Live' : s.conn === 'offline' ? 'Geen verbinding' : 'Verbinden…'}</span>
    <span id="cloud" class="conn" data-state=${cloud[0]}>${cloud[1]}</span>
    <${OutboxBadge} />
  </div>`;
}

/** Narrower than a landscape tablet: the menu folds away behind the top bar's "Menu" button. */
const NARROW = '(max-width: 900px)';

/**
 * The screens' menu. On a landscape tablet a column on the left, always there. From 900 px down (a
 * portrait tablet, a phone) it is closed behind the top bar's "Menu" button (aria-expanded) and opens
 * as a panel over the screen: the focus goes to the current screen's entry; Escape closes it and gives
 * the focus back to the button; choosing a screen, tapping beside it, or tabbing out of it closes it.
 */
function Nav({ path, admin, open, onClose }) {
  const items = SCREENS.filter((x) => x.nav !== false && (!x.admin || admin));
  const ref = useRef(/** @type {HTMLElement|null} */ (null));
  useEffect(() => {
    const nav = ref.current;
    if (!open || !nav) return;
    /** @type {HTMLElement|null} */ (nav.querySelector('[aria-current="page"]') ?? nav.querySelector('a'))?.focus();
    const onKey = (/** @type {KeyboardEvent} */ e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      onClose('button');
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  /** Tab or Shift+Tab past its first or last entry (to anything but the Menu button, which toggles it itself). */
  const onFocusOut = (/** @type {FocusEvent} */ e) => {
    const to = /** @type {Node|null} */ (e.relatedTarget);
    if (open && to && !ref.current?.contains(to) && !(to instanceof Element && to.id === 'menu-button')) onClose('');
  };
  return html`<nav class=${`nav${open ? ' open' : ''}`} id="nav" aria-label="Schermen" ref=${ref} onFocusOut=${onFocusOut}>
    ${items.map((x) => html`<a href=${`#${x.path}`} class=${path === x.path ? 'active' : ''} aria-current=${path === x.path ? 'page' : null} onClick=${() => open && onClose('main')}>${x.label}</a>`)}
  </nav>
  ${open ? html`<div class="nav-backdrop" onClick=${() => onClose('button')}></div>` : null}`;
}

/** Whether the menu is open (only ever on a narrow screen), and closing it with the focus put where it belongs. */
function useMenu() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const mq = matchMedia(NARROW);
    const wide = () => !mq.matches && setOpen(false);
    mq.addEventListener('change', wide);
    return () => mq.removeEventListener('change', wide);
  }, []);
  /** @param {'button'|'main'|''} focus where the focus goes: back to the Menu button, to the screen just chosen, or where it went. */
  const close = (focus) => {
    setOpen(false);
    if (focus) document.getElementById(focus === 'button' ? 'menu-button' : 'main')?.focus({ preventScroll: true });
  };
  return { open, toggle: () => setOpen((o) => !o), close };
}

/** Loads a screen's module the first time it is opened; one that could not load is tried again when the server is back. */
function Lazy({ screen, query }) {
  const s = useStore();
  const [mod, setMod] = useState(/** @type {any} */ (null));
  const [error, setError] = useState('');
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true; // a slower earlier import must not replace the screen asked for later
    setMod(null);
    setError('');
    // A failed import stays failed for its URL in the page: a retry asks with another one.
    import(attempt ? `${screen.file}?poging=${attempt}` : screen.file).then(
      (m) => current && setMod(m),
      () => current && setError('Dit scherm kon niet laden: er is geen verbinding met de server. Het laadt vanzelf zodra de verbinding terug is.'),
    );
    return () => {
      current = false;
    };
  }, [screen.file, attempt]);
  useEffect(() => {
    if (error && s.conn === 'live') setAttempt((n) => n + 1);
  }, [s.conn, error]);
  if (error) return html`<p class="error" role="alert">${error} <button type="button" onClick=${() => setAttempt((n) => n + 1)}>Opnieuw proberen</button></p>`;
  if (!mod) return html`<p class="muted loading" aria-busy="true">Bezig met laden…</p>`;
  const C = mod.default;
  return html`<${C} query=${query} />`;
}

async function loadSync() {
  try {
    setStore({ sync: { status: await get('/sync/status'), at: Date.now() } });
  } catch {
    /* keeps its last state */
  }
}

function App() {
  const s = useStore();
  const route = useRoute();
  useLive(['sync:status'], (st) => setStore({ sync: { status: st, at: Date.now() } }));
  useConnection();
  const stale = useStaleMark();
  const menu = useMenu();
  // Another screen (chosen, the back button, a link in a screen): the menu closes.
  useEffect(() => menu.close(''), [route.path]);
  useEffect(() => {
    const t = setInterval(() => store.session && void loadSync(), 60_000);
    const vis = () => document.visibilityState === 'visible' && store.session && void loadSync();
    document.addEventListener('visibilitychange', vis);
    return () => {
      clearInterval(t);
      document.removeEventListener('visibilitychange', vis);
    };
  }, []);
  if (!s.session) {
    document.title = 'Inloggen · Restaurant';
    return html`<${Login} onLogin=${enter} />`;
  }
  const admin = s.session.role === 'admin';
  const screen = SCREENS.find((x) => x.path === route.path && (!x.admin || admin)) ?? SCREENS[0];
  // Every screen has its own title (the browser's tab, a screen reader's first words).
  document.title = `${screen.label} · ${s.session.tenant.name}`;
  document.body.dataset.role = s.session.role;
  return html`<div class="app">
    <${SyncBanner} />
    <${OfflineBanners} />
    <header class="topbar">
      <button type="button" id="menu-button" class="menu-button" aria-expanded=${menu.open ? 'true' : 'false'} aria-controls="nav" onClick=${menu.toggle}><span class="menu-icon" aria-hidden="true"></span>Menu</button>
      <div class="who" title=${`${s.session.tenant.name} · ${s.session.user.name}`}><strong id="tenant-name">${s.session.tenant.name}</strong> <span class="who-user"><span id="user-name">${s.session.user.name}</span>${admin ? html` <span id="role-badge" class="badge">beheerder</span>` : null}</span></div>
      <${Indicators} />
      <button type="button" id="logout" onClick=${logout}>Uitloggen</button>
    </header>
    <${Nav} path=${screen.parent ?? screen.path} admin=${admin} open=${menu.open} onClose=${menu.close} />
    <main class=${`content${stale ? ' stale' : ''}`} id="main" tabindex="-1"><${Lazy} screen=${screen} query=${route.query} /></main>
    ${s.toast ? html`<div id="toast" class="toast" role="status">${s.toast}</div>` : null}
  </div>`;
}

/** @param {any} session */
async function enter(session) {
  setStore({ session, loginMessage: '' });
  rememberSession(session);
  void refresh().then(() => flush());
  connect(expired);
  if (!location.hash) go('/keuken');
  await loadSync();
}

function expired() {
  forgetSession();
  disconnect();
  setStore({ session: null, loginMessage: 'Je sessie is verlopen. Log opnieuw in.' });
}
setOnExpired(expired);

async function logout() {
  await post('/auth/logout').catch(() => {});
  forgetSession();
  void forgetReads();
  disconnect();
  setStore({ session: null, loginMessage: '', sync: null });
}

(async () => {
  // Installable app and offline (lib/pwa.js): the service worker, or every screen loaded up front.
  void startApp(SCREENS.map((x) => new URL(x.file, import.meta.url).href));
  try {
    const session = await get('/auth/me');
    await enter(session);
  } catch (err) {
    // The server cannot be reached: open where this tablet was (its last session), with what it
    // kept; the server decides again as soon as it answers (an ended session shows the login).
    const last = unreachable(err) ? lastSession() : null;
    if (last) await enter(last);
    else setStore({ session: null });
  }
  // Every table on a phone as cards (lib/stack-tables.js): its cells learn their columns' names; dialogs have roots of their own in the body.
  stackTables(document.body);
  render(html`<${App} />`, /** @type {HTMLElement} */ (document.getElementById('root')));
})();
