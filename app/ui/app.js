// Staff app (app/ui): plain ES module, no build step, no framework, nothing fetched from outside this
// server. Plain JavaScript with JSDoc types (not part of `tsc`: tsconfig includes *.ts only).
// Screens: PIN login → live board (socket.io) → new-order panel; the sync banner on top.
import { io } from '/socket.io/socket.io.esm.min.js';

const API = '/api/v1';
const ACTIVE = ['new', 'accepted', 'preparing', 'ready', 'delivering'];
const LABEL = { new: 'Nieuw', accepted: 'Geaccepteerd', preparing: 'In bereiding', ready: 'Klaar', delivering: 'Onderweg', completed: 'Afgerond', cancelled: 'Geannuleerd' };
/** Forward moves an admin can make from each status (skipping is allowed by the rules; these are the useful ones). */
const NEXT = {
  new: [['accepted', 'Accepteren']],
  accepted: [['preparing', 'Start bereiding']],
  preparing: [['ready', 'Klaar']],
  ready: [['completed', 'Afgerond'], ['delivering', 'Onderweg']],
  delivering: [['completed', 'Afgeleverd']],
};
const WARN_AFTER_S = 5 * 60;
const SLUG_KEY = 'restaurant.slug';
const euro = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR' });

/**
 * @typedef {{ id: string, product_id: string, name: string, quantity: number, unit_price_cents: number, total_cents: number, notes: string|null }} OrderItem
 * @typedef {{ id: string, number: string, status: string, source: string, notes: string|null, items: OrderItem[], total_cents: number, created_at: string, updated_at: string }} Order
 * @typedef {{ id: string, name: string, description: string|null, price_cents: number, available: boolean }} MenuProduct
 * @typedef {{ id: string|null, name: string, products: MenuProduct[] }} MenuCategory
 * @typedef {{ enabled: boolean, pending: number, oldest_pending_age_seconds: number|null, warning: boolean, last_error: string|null, online: boolean, state: string }} SyncStatus
 */

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} tag @param {Record<string, string>} [attrs] @param {(Node|string)[]} [children] */
function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// ---------------------------------------------------------------- state
const state = {
  /** @type {{ tenant: { id: string, slug: string, name: string }, user: { name: string }, role: 'admin'|'staff' } | null} */
  session: null,
  /** @type {Map<string, Order>} */
  orders: new Map(),
  lastSeq: 0,
  /** @type {{ disconnect(): void } | null} */
  socket: null,
  /** @type {MenuCategory[]} */
  menu: [],
  activeCategory: 0,
  /** @type {{ key: string, lines: Map<string, number>, sending: boolean }} */
  draft: { key: newKey(), lines: new Map(), sending: false },
  /** @type {{ status: SyncStatus, at: number } | null} */
  sync: null,
  pin: '',
};

/** A UUID v4 from getRandomValues (crypto.randomUUID needs a secure context; tablets use plain http on the LAN). */
function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------------------------------------------------------------- http
class ApiError extends Error {
  /** @param {number} status @param {string} message @param {string} [code] */
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @param {string} method @param {string} path @param {unknown} [body] */
async function api(method, path, body) {
  let res;
  try {
    res = await fetch(API + path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'Geen verbinding met de server. Probeer het opnieuw.');
  }
  if (res.status === 204) return null;
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401 && state.session && !path.startsWith('/auth/')) expired();
    throw new ApiError(res.status, json.error ?? `Er ging iets mis (${res.status}).`, json.code);
  }
  return json;
}

let toastTimer = 0;
/** @param {string} text */
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (t.hidden = true), 3500);
}

// ---------------------------------------------------------------- login
function showLogin() {
  state.session = null;
  state.socket?.disconnect();
  state.socket = null;
  $('board').hidden = true;
  $('order-panel').hidden = true;
  $('sync-banner').hidden = true;
  $('login').hidden = false;
  const slug = new URLSearchParams(location.search).get('slug') || localStorage.getItem(SLUG_KEY) || '';
  /** @type {HTMLInputElement} */ ($('slug')).value = slug;
  /** @type {HTMLInputElement} */ ($('admin-slug')).value = slug;
  setPin('');
}

function expired() {
  showLogin();
  $('login-error').textContent = 'Je sessie is verlopen. Log opnieuw in.';
}

/** @param {string} pin */
function setPin(pin) {
  state.pin = pin;
  $('pin-display').textContent = '•'.repeat(pin.length);
}

$('pin-form').addEventListener('click', (e) => {
  const key = /** @type {HTMLElement} */ (e.target).closest('[data-key]')?.getAttribute('data-key');
  if (!key) return;
  if (key === 'clear') setPin('');
  else if (key === 'back') setPin(state.pin.slice(0, -1));
  else if (state.pin.length < 8) setPin(state.pin + key);
  $('login-error').textContent = '';
});
document.addEventListener('keydown', (e) => {
  if ($('login').hidden || $('pin-form').hidden || document.activeElement === $('slug')) return;
  if (/^\d$/.test(e.key) && state.pin.length < 8) setPin(state.pin + e.key);
  else if (e.key === 'Backspace') setPin(state.pin.slice(0, -1));
  else if (e.key === 'Enter') $('pin-form').requestSubmit();
});

$('pin-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const slug = /** @type {HTMLInputElement} */ ($('slug')).value.trim();
  if (!slug) return void ($('login-error').textContent = 'Vul de naam van het restaurant in.');
  if (state.pin.length < 4) return void ($('login-error').textContent = 'Een pincode heeft minstens 4 cijfers.');
  await login('/auth/login', { slug, pin: state.pin }, $('login-error'), /** @type {HTMLButtonElement} */ ($('pin-submit')));
});
$('admin-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = /** @type {HTMLFormElement} */ (e.target);
  const body = Object.fromEntries(new FormData(f));
  await login('/auth/admin-login', body, $('admin-error'), /** @type {HTMLButtonElement} */ (f.querySelector('[type=submit]')));
});
$('show-admin').addEventListener('click', () => {
  $('pin-form').hidden = true;
  $('admin-form').hidden = false;
});
$('show-pin').addEventListener('click', () => {
  $('admin-form').hidden = true;
  $('pin-form').hidden = false;
});

/** @param {string} path @param {Record<string, unknown>} body @param {HTMLElement} errorEl @param {HTMLButtonElement} button */
async function login(path, body, errorEl, button) {
  errorEl.textContent = '';
  button.disabled = true;
  try {
    const session = await api('POST', path, body);
    localStorage.setItem(SLUG_KEY, String(body.slug));
    setPin('');
    await enter(session);
  } catch (err) {
    errorEl.textContent = /** @type {Error} */ (err).message;
    setPin('');
  } finally {
    button.disabled = false;
  }
}

$('logout').addEventListener('click', async () => {
  await api('POST', '/auth/logout').catch(() => {});
  showLogin();
});

// ---------------------------------------------------------------- board
/** @param {NonNullable<typeof state.session>} session */
async function enter(session) {
  state.session = session;
  state.orders.clear();
  state.lastSeq = 0;
  $('login').hidden = true;
  $('board').hidden = false;
  $('tenant-name').textContent = session.tenant.name;
  $('user-name').textContent = session.user.name;
  $('role-badge').hidden = session.role !== 'admin';
  document.body.dataset.role = session.role;
  render();
  connect();
  await Promise.all([loadOrders(), loadSync(), loadMenu()]);
}

async function loadOrders() {
  try {
    const { data } = await api('GET', '/orders/live');
    /** @type {Set<string>} */
    const live = new Set();
    for (const o of data) {
      live.add(o.id);
      upsert(o, false);
    }
    // Orders that left the active list while we were away (completed elsewhere, missed events).
    for (const id of [...state.orders.keys()]) if (!live.has(id)) state.orders.delete(id);
    render();
  } catch (err) {
    toast(/** @type {Error} */ (err).message);
  }
}

/** Keeps the newest version of an order (an event and a fetch can cross); final statuses leave the board. @param {Order} o @param {boolean} fresh */
function upsert(o, fresh) {
  const cur = state.orders.get(o.id);
  if (cur && cur.updated_at > o.updated_at) return;
  if (!ACTIVE.includes(o.status)) state.orders.delete(o.id);
  else state.orders.set(o.id, { ...o, ...(fresh ? { _fresh: true } : {}) });
}

/** @param {string} iso */
function minutesSince(iso) {
  return Math.max(0, Math.floor((Date.now() - new Date(iso).getTime()) / 60000));
}

function render() {
  const admin = state.session?.role === 'admin';
  for (const status of ACTIVE) {
    const col = /** @type {HTMLElement} */ (document.querySelector(`.column[data-status="${status}"]`));
    const list = [...state.orders.values()].filter((o) => o.status === status).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
    /** @type {HTMLElement} */ (col.querySelector('.count')).textContent = list.length ? `(${list.length})` : '';
    const cards = /** @type {HTMLElement} */ (col.querySelector('.cards'));
    cards.replaceChildren(...list.map((o) => card(o, admin)));
  }
  $('board-empty').hidden = state.orders.size > 0;
}

/** @param {Order & { _fresh?: boolean }} o @param {boolean} admin */
function card(o, admin) {
  const age = minutesSince(o.created_at);
  const c = el('article', { class: `card${o._fresh ? ' fresh' : ''}`, 'data-order-id': o.id, 'data-status': o.status, style: `--c: var(--s-${o.status})` }, [
    el('div', { class: 'card-head' }, [el('span', { class: 'number', text: o.number }), el('span', { class: `age${age >= 20 ? ' late' : ''}`, text: `${age} min` })]),
    el('div', { class: 'status', text: LABEL[/** @type {keyof typeof LABEL} */ (o.status)] ?? o.status }),
    el(
      'ul',
      {},
      o.items.map((i) => el('li', {}, [el('span', { class: 'qty', text: `${i.quantity}× ` }), i.name, ...(i.notes ? [el('span', { class: 'item-note', text: i.notes })] : [])])),
    ),
  ]);
  delete o._fresh;
  if (o.notes) c.append(el('span', { class: 'notes', text: o.notes }));
  if (admin) {
    const actions = el('div', { class: 'actions' });
    for (const [to, label] of NEXT[/** @type {keyof typeof NEXT} */ (o.status)] ?? []) {
      const b = el('button', { type: 'button', class: 'primary', 'data-action': to, text: label });
      b.addEventListener('click', () => move(o, to, /** @type {HTMLButtonElement} */ (b)));
      actions.append(b);
    }
    const cancel = el('button', { type: 'button', class: 'danger', 'data-action': 'cancelled', text: 'Annuleren' });
    // Two taps: a cancelled order cannot come back, so a stray touch must not cancel it.
    cancel.addEventListener('click', () => {
      if (!cancel.classList.contains('confirm')) {
        cancel.classList.add('confirm');
        cancel.textContent = 'Zeker? Tik nogmaals';
        setTimeout(() => {
          cancel.classList.remove('confirm');
          cancel.textContent = 'Annuleren';
        }, 3000);
        return;
      }
      void move(o, 'cancelled', /** @type {HTMLButtonElement} */ (cancel));
    });
    actions.append(cancel);
    c.append(actions);
  }
  return c;
}

/** @param {Order} o @param {string} to @param {HTMLButtonElement} button */
async function move(o, to, button) {
  button.disabled = true;
  try {
    upsert(await api('PATCH', `/orders/${o.id}`, { status: to }), false);
    render();
  } catch (err) {
    button.disabled = false;
    toast(/** @type {Error} */ (err).message);
  }
}

// Ages tick on their own; the sync banner's age too.
setInterval(() => {
  if (state.session) {
    render();
    renderSync();
  }
}, 30_000);

// ---------------------------------------------------------------- live (socket.io)
/** @param {'connecting'|'live'|'offline'} s */
function setConn(s) {
  const c = $('conn');
  c.dataset.state = s;
  c.textContent = s === 'live' ? 'Live' : s === 'offline' ? 'Geen verbinding' : 'Verbinden…';
}

function connect() {
  state.socket?.disconnect();
  setConn('connecting');
  // auth is a function: every reconnect sends the last seq seen, so the server replays what we missed.
  const socket = io({ auth: (cb) => cb(state.lastSeq > 0 ? { last_seq: state.lastSeq } : {}), reconnectionDelayMax: 5000 });
  state.socket = socket;
  /** @param {{ seq: number }} e */
  const seen = (e) => {
    if (e.seq <= state.lastSeq) return true;
    state.lastSeq = e.seq;
    return false;
  };
  socket.on('hello', (/** @type {{ seq: number }} */ e) => {
    const first = state.lastSeq === 0;
    state.lastSeq = Math.max(state.lastSeq, e.seq);
    setConn('live');
    if (first) void loadOrders();
  });
  socket.on('order:created', (/** @type {{ seq: number, order: Order }} */ e) => {
    if (seen(e)) return;
    upsert(e.order, true);
    render();
  });
  socket.on('order:updated', (/** @type {{ seq: number, order: Order }} */ e) => {
    if (seen(e)) return;
    upsert(e.order, true);
    render();
  });
  socket.on('resync', (/** @type {{ seq: number }} */ e) => {
    state.lastSeq = Math.max(state.lastSeq, e.seq);
    void loadOrders();
  });
  socket.on('sync:status', (/** @type {SyncStatus} */ s) => setSync(s));
  socket.on('disconnect', (/** @type {string} */ reason) => {
    setConn('offline');
    // The server closed this connection on purpose (e.g. a restart of the fan-out): socket.io does
    // not retry that by itself. Retry; a session that has ended is refused and leads to the login.
    if (reason === 'io server disconnect') setTimeout(() => state.socket === socket && socket.connect(), 1000);
  });
  socket.on('connect_error', (/** @type {Error & { data?: { code?: string } }} */ err) => {
    setConn('offline');
    if (err.data?.code === 'UNAUTHORIZED') expired();
  });
}
// Coming back to the tab (tablet woke up): make sure the status is fresh too.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && state.session) void loadSync();
});

// ---------------------------------------------------------------- sync banner
async function loadSync() {
  try {
    setSync(await api('GET', '/sync/status'));
  } catch {
    /* the banner keeps its last state */
  }
}
// A status event only comes when something visible changes, so poll now and then as well.
setInterval(() => state.session && void loadSync(), 60_000);

/** @param {SyncStatus} s */
function setSync(s) {
  state.sync = { status: s, at: Date.now() };
  renderSync();
}

function renderSync() {
  const banner = $('sync-banner');
  const s = state.sync?.status;
  // A stand-alone appliance (no cloud configured) and the cloud itself never show the banner.
  if (!s || !s.enabled || !state.session || s.pending === 0 || s.oldest_pending_age_seconds === null) {
    banner.hidden = true;
    return;
  }
  // The server's age at receipt plus the time since, so the banner appears at 5 minutes without a new event.
  const age = s.oldest_pending_age_seconds + Math.floor((Date.now() - (state.sync?.at ?? Date.now())) / 1000);
  if (!s.warning && age <= WARN_AFTER_S) {
    banner.hidden = true;
    return;
  }
  const minutes = Math.floor(age / 60);
  banner.replaceChildren(
    `Nog niet gesynchroniseerd met de cloud: ${s.pending} ${s.pending === 1 ? 'wijziging' : 'wijzigingen'}, oudste ${minutes} ${minutes === 1 ? 'minuut' : 'minuten'}`,
    ...(s.last_error ? [el('span', { class: 'detail', text: `Laatste fout: ${s.last_error}` })] : []),
  );
  banner.hidden = false;
}

// ---------------------------------------------------------------- new order
async function loadMenu() {
  try {
    state.menu = (await api('GET', '/menu')).categories;
    state.activeCategory = Math.min(state.activeCategory, Math.max(0, state.menu.length - 1));
    renderMenu();
  } catch (err) {
    toast(/** @type {Error} */ (err).message);
  }
}

$('new-order').addEventListener('click', () => {
  $('order-panel').hidden = false;
  $('order-error').textContent = '';
  renderMenu();
  renderDraft();
  void loadMenu();
});
$('close-order').addEventListener('click', () => ($('order-panel').hidden = true));
$('order-notes').addEventListener('input', () => draftChanged());

/** @type {Map<string, MenuProduct>} */
const productsById = new Map();

function renderMenu() {
  productsById.clear();
  for (const c of state.menu) for (const p of c.products) productsById.set(p.id, p);
  const tabs = $('category-tabs');
  tabs.replaceChildren(
    ...state.menu.map((c, i) => {
      const b = el('button', { type: 'button', role: 'tab', 'aria-selected': String(i === state.activeCategory), text: c.name });
      b.addEventListener('click', () => {
        state.activeCategory = i;
        renderMenu();
      });
      return b;
    }),
  );
  const cat = state.menu[state.activeCategory];
  $('products').replaceChildren(
    ...(cat
      ? cat.products.map((p) => {
          const n = state.draft.lines.get(p.id) ?? 0;
          const b = el('button', { type: 'button', class: `product${p.available ? '' : ' unavailable'}`, 'data-product-id': p.id }, [
            el('span', { class: 'name', text: p.name }),
            ...(p.description ? [el('span', { class: 'desc', text: p.description })] : []),
            el('span', { class: 'price', text: p.available ? euro.format(p.price_cents / 100) : 'Niet beschikbaar' }),
            ...(n ? [el('span', { class: 'in-draft', text: `${n}×` })] : []),
          ]);
          if (!p.available) /** @type {HTMLButtonElement} */ (b).disabled = true;
          b.addEventListener('click', () => changeQty(p.id, 1));
          return b;
        })
      : [el('p', { class: 'muted', text: 'De menukaart is nog leeg. Een beheerder voegt gerechten toe.' })]),
  );
}

/** @param {string} productId @param {number} delta */
function changeQty(productId, delta) {
  if (state.draft.sending) return;
  const n = Math.max(0, Math.min(999, (state.draft.lines.get(productId) ?? 0) + delta));
  if (n === 0) state.draft.lines.delete(productId);
  else state.draft.lines.set(productId, n);
  draftChanged();
  renderMenu();
  renderDraft();
}

/** A changed draft is another order: it gets a new idempotency key. Resubmitting the same draft (double tap, retry) reuses its key. */
function draftChanged() {
  state.draft.key = newKey();
  $('order-error').textContent = '';
}

function renderDraft() {
  const lines = [...state.draft.lines.entries()];
  let total = 0;
  $('draft-lines').replaceChildren(
    ...lines.map(([id, qty]) => {
      const p = productsById.get(id);
      total += (p?.price_cents ?? 0) * qty;
      const minus = el('button', { type: 'button', 'aria-label': 'Eén minder', text: '−' });
      const plus = el('button', { type: 'button', 'aria-label': 'Eén meer', text: '+' });
      minus.addEventListener('click', () => changeQty(id, -1));
      plus.addEventListener('click', () => changeQty(id, 1));
      return el('li', { 'data-product-id': id }, [
        el('div', {}, [el('div', { class: 'line-name', text: p?.name ?? 'Onbekend gerecht' }), el('div', { class: 'line-price', text: euro.format(((p?.price_cents ?? 0) * qty) / 100) })]),
        el('div', { class: 'stepper' }, [minus, el('span', { class: 'qty', text: String(qty) }), plus]),
      ]);
    }),
  );
  $('draft-empty').hidden = lines.length > 0;
  const submit = /** @type {HTMLButtonElement} */ ($('submit-order'));
  submit.disabled = lines.length === 0 || state.draft.sending;
  submit.textContent = state.draft.sending ? 'Bezig…' : lines.length ? `Bestelling plaatsen (${euro.format(total / 100)})` : 'Bestelling plaatsen';
}

$('submit-order').addEventListener('click', async () => {
  const d = state.draft;
  if (d.sending || d.lines.size === 0) return;
  d.sending = true;
  renderDraft();
  const notes = /** @type {HTMLTextAreaElement} */ ($('order-notes')).value.trim();
  const body = {
    items: [...d.lines.entries()].map(([product_id, quantity]) => ({ product_id, quantity })),
    ...(notes ? { notes } : {}),
    idempotency_key: d.key,
  };
  try {
    const order = await api('POST', '/orders', body);
    upsert(order, true);
    render();
    state.draft = { key: newKey(), lines: new Map(), sending: false };
    /** @type {HTMLTextAreaElement} */ ($('order-notes')).value = '';
    $('order-panel').hidden = true;
    toast(`Bestelling ${order.number} geplaatst.`);
  } catch (err) {
    d.sending = false;
    // The key stays: tapping again retries the same order, and the server answers with the original if it was created.
    $('order-error').textContent = /** @type {Error} */ (err).message;
    if (/** @type {ApiError} */ (err).status === 400) void loadMenu();
  }
  renderMenu();
  renderDraft();
});

// ---------------------------------------------------------------- start
(async () => {
  try {
    await enter(await api('GET', '/auth/me'));
  } catch {
    showLogin();
  }
})();
