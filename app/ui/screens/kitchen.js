// The kitchen board: tonight's live orders by status (GET /orders/live: the current business day only),
// oldest first; any staff member moves an order forward (POST /orders/:id/advance); cancelling is for
// admins (PATCH /orders/:id), with a second tap. A station (keuken, bar, ...) is chosen on the tablet and
// remembered in localStorage; its board shows only that station's lines (docs/kitchen.md).
import { html, useEffect, useState } from '../lib/html.js';
import { get, patch, post } from '../lib/api.js';
import { minutesSince } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { toast, useStore } from '../lib/store.js';
import { go } from '../lib/router.js';

export const ACTIVE = ['new', 'accepted', 'preparing', 'ready', 'delivering'];
export const LABEL = { new: 'Nieuw', accepted: 'Geaccepteerd', preparing: 'In bereiding', ready: 'Klaar', delivering: 'Onderweg', completed: 'Afgerond', cancelled: 'Geannuleerd' };
/** The useful forward moves from each status (the rules allow skipping; these are the buttons). */
/** Minutes after which a card's timer turns amber, then red. */
export const AMBER_MIN = 10;
export const RED_MIN = 20;
const STATION_KEY = 'kitchen.station';
const STATIONS = [['', 'Alles'], ['keuken', 'Keuken'], ['bar', 'Bar']];
const savedStation = () => {
  try {
    return localStorage.getItem(STATION_KEY) ?? '';
  } catch {
    return '';
  }
};
const NEXT = {
  new: [['accepted', 'Accepteren']],
  accepted: [['preparing', 'Start bereiding']],
  preparing: [['ready', 'Klaar']],
  ready: [['completed', 'Afgerond'], ['delivering', 'Onderweg']],
  delivering: [['completed', 'Afgeleverd']],
};

/** Keeps the newest version of each order (an event and a fetch can cross); final statuses leave the board. */
function merge(/** @type {Map<string, any>} */ map, /** @type {any} */ o, fresh = false) {
  const cur = map.get(o.id);
  if (cur && cur.updated_at > o.updated_at) return map;
  const next = new Map(map);
  if (!ACTIVE.includes(o.status)) next.delete(o.id);
  else next.set(o.id, { ...o, _fresh: fresh });
  return next;
}

function Card({ o, admin, onMoved }) {
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const age = minutesSince(o.created_at);
  const move = async (/** @type {string} */ to) => {
    setBusy(true);
    try {
      onMoved(to === 'cancelled' ? await patch(`/orders/${o.id}`, { status: to }) : await post(`/orders/${o.id}/advance`, { status: to }));
    } catch (err) {
      toast(/** @type {Error} */ (err).message);
    } finally {
      setBusy(false);
    }
  };
  return html`<article class=${`card${o._fresh ? ' fresh' : ''}`} data-order-id=${o.id} data-status=${o.status} style=${`--c: var(--s-${o.status})`}>
    <div class="card-head"><span class="number">${o.number}</span><span class=${`age${age >= RED_MIN ? ' late' : age >= AMBER_MIN ? ' warn' : ''}`}>${age} min</span></div>
    <div class="status">${LABEL[o.status] ?? o.status}${o.table_name ? ` · ${o.table_name}` : ''}</div>
    <ul>${o.items.map((i) => html`<li><span class="qty">${i.quantity}× </span>${i.name}${i.notes ? html`<span class="item-note">${i.notes}</span>` : null}</li>`)}</ul>
    ${o.notes ? html`<span class="notes">${o.notes}</span>` : null}
    <div class="actions">
      ${(NEXT[o.status] ?? []).map(([to, label]) => html`<button type="button" class="primary" data-action=${to} disabled=${busy} onClick=${() => move(to)}>${label}</button>`)}
      ${admin
        ? html`<button type="button" class=${`danger${confirm ? ' confirm' : ''}`} data-action="cancelled" disabled=${busy} onClick=${() => {
            if (!confirm) {
              setConfirm(true);
              setTimeout(() => setConfirm(false), 3000);
            } else void move('cancelled');
          }}>${confirm ? 'Zeker? Tik nogmaals' : 'Annuleren'}</button>`
        : null}
    </div>
  </article>`;
}

export default function Kitchen() {
  const s = useStore();
  const [orders, setOrders] = useState(/** @type {Map<string, any>} */ (new Map()));
  const [, tick] = useState(0);
  const [station, setStation] = useState(savedStation);
  const [unfinished, setUnfinished] = useState(0);
  const admin = s.session?.role === 'admin';
  const load = async (at = station) => {
    try {
      const { data } = await get(at ? `/orders/live?station=${encodeURIComponent(at)}` : '/orders/live');
      setOrders((cur) => {
        let next = new Map();
        for (const o of data) next = merge(next, o);
        // keep versions newer than the fetch (an event that crossed it)
        for (const [id, o] of cur) if (next.has(id) && next.get(id).updated_at < o.updated_at) next.set(id, o);
        return next;
      });
    } catch (err) {
      toast(/** @type {Error} */ (err).message);
    }
  };
  const loadUnfinished = async () => {
    if (!admin) return;
    try {
      setUnfinished((await get('/orders/unfinished')).data.length);
    } catch {
      /* the board works without the count */
    }
  };
  useEffect(() => {
    void load();
    void loadUnfinished();
    const t = setInterval(() => tick((n) => n + 1), 30_000); // ages tick on their own
    return () => clearInterval(t);
  }, []);
  useLive(['order:created', 'order:updated', 'resync'], (e, name) => {
    if (name === 'resync' || station) {
      // A station board asks the server which lines are its own; a new order still flashes.
      const fresh = name === 'order:created' ? e.order.id : null;
      void load().then(() => fresh && setOrders((m) => (m.has(fresh) ? new Map(m).set(fresh, { ...m.get(fresh), _fresh: true }) : m)));
    } else setOrders((m) => merge(m, e.order, true));
  });
  useEffect(() => {
    // A new card is visible at once: its column scrolls to it (the flash is in the CSS).
    document.querySelector('#columns .card.fresh')?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [orders]);
  const choose = (/** @type {string} */ st) => {
    setStation(st);
    try {
      localStorage.setItem(STATION_KEY, st);
    } catch {
      /* private mode: not remembered */
    }
    setOrders(new Map());
    void load(st);
  };
  const [sure, setSure] = useState(false);
  const closeUnfinished = async () => {
    if (!sure) {
      setSure(true);
      setTimeout(() => setSure(false), 3000);
      return;
    }
    try {
      await post('/orders/unfinished/close', { status: 'completed' });
      setUnfinished(0);
      toast('Niet afgeronde bestellingen zijn afgesloten.');
    } catch (err) {
      toast(/** @type {Error} */ (err).message);
    }
  };
  const list = [...orders.values()];
  return html`<section id="board" class="board-screen">
    <div class="board-bar">
      <button type="button" id="new-order" class="primary" onClick=${() => go('/bestellen')}>+ Nieuwe bestelling</button>
      <div id="stations" role="group" aria-label="Station">
        ${STATIONS.map(([id, label]) => html`<button type="button" data-station=${id} aria-pressed=${station === id ? 'true' : 'false'} class=${station === id ? 'primary' : ''} onClick=${() => choose(id)}>${label}</button>`)}
      </div>
      ${admin && unfinished > 0
        ? html`<button type="button" id="unfinished" class="danger" title="Actieve bestellingen van eerdere dagen; ze staan niet op het bord" onClick=${closeUnfinished}>${sure ? 'Zeker? Tik nogmaals' : `Niet afgerond (${unfinished}) afsluiten`}</button>`
        : null}
    </div>
    <div id="columns" class="columns">
      ${ACTIVE.map((status) => {
        const col = list.filter((o) => o.status === status).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
        return html`<section class="column" data-status=${status}>
          <h2>${LABEL[status]} <span class="count">${col.length ? `(${col.length})` : ''}</span></h2>
          <div class="cards">${col.map((o) => html`<${Card} key=${o.id} o=${o} admin=${admin} onMoved=${(u) => setOrders((m) => merge(m, u))} />`)}</div>
        </section>`;
      })}
    </div>
    ${list.length === 0 ? html`<p id="board-empty" class="empty">Geen openstaande bestellingen.</p>` : null}
  </section>`;
}
