// The kitchen board: tonight's live orders by status (GET /orders/live: the current business day only),
// oldest first; any staff member moves an order forward (POST /orders/:id/advance); cancelling is for
// admins (PATCH /orders/:id), with a second tap. A station (keuken, bar, ...) is chosen on the tablet and
// remembered in localStorage; its board shows only that station's lines (docs/kitchen.md).
// A card shows what a cook needs: per line the options, seat, notes (allergy notes set apart, with the
// dish's allergens), voided units struck through, held courses apart with a fire button and who fired
// what when; web and partner orders the guest's name, how it leaves and whether it is paid.
// The last step (Afgerond/Afgeleverd) is a bump: the card leaves at once and can be recalled for a minute.
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { get, patch, post } from '../lib/api.js';
import { minutesSince, time } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { toast, useStore } from '../lib/store.js';
import { go } from '../lib/router.js';
import { ALLERGEN_MARK, ALLERGEN_NL } from '../lib/allergens.js';

export const ACTIVE = ['new', 'accepted', 'preparing', 'ready', 'delivering'];
export const LABEL = { new: 'Nieuw', accepted: 'Geaccepteerd', preparing: 'In bereiding', ready: 'Klaar', delivering: 'Onderweg', completed: 'Afgerond', cancelled: 'Geannuleerd' };
/** Minutes after which a card's timer turns amber, then red. */
export const AMBER_MIN = 10;
export const RED_MIN = 20;
/** How long a bumped order can be recalled (ms): its completion is sent when this has passed. */
export const RECALL_MS = 60_000;
const STATION_KEY = 'kitchen.station';
const SOUND_KEY = 'kitchen.sound';
const STATIONS = [['', 'Alles'], ['keuken', 'Keuken'], ['bar', 'Bar']];
const SOURCE = { web: 'Web', external: 'Partner' };
const saved = (/** @type {string} */ key, fallback = '') => {
  try {
    return localStorage.getItem(key) ?? fallback;
  } catch {
    return fallback;
  }
};
const keep = (/** @type {string} */ key, /** @type {string} */ value) => {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: not remembered */
  }
};
/** The useful forward moves from each status (the rules allow skipping; these are the buttons). `completed` is the bump. */
const NEXT = {
  new: [['accepted', 'Accepteren']],
  accepted: [['preparing', 'Start bereiding']],
  preparing: [['ready', 'Klaar']],
  ready: [['completed', 'Afgerond'], ['delivering', 'Onderweg']],
  delivering: [['completed', 'Afgeleverd']],
};

/** Words in a note that name an allergen (Dutch and English, as people write them) → its code. */
const ALLERGY_WORDS = [
  [/gluten|coeliaki|tarwe|wheat/i, 'gluten'],
  [/schaaldier|garnal|kreeft|krab|crustace|shrimp|prawn/i, 'crustaceans'],
  [/\bei\b|eieren|egg/i, 'eggs'],
  [/\bvis\b|fish/i, 'fish'],
  [/pinda|peanut/i, 'peanuts'],
  [/noot|noten|\bnut/i, 'nuts'],
  [/soja|\bsoy/i, 'soybeans'],
  [/melk|lactose|zuivel|milk|dairy/i, 'milk'],
  [/selderij|celery/i, 'celery'],
  [/mosterd|mustard/i, 'mustard'],
  [/sesam/i, 'sesame'],
  [/sulfiet|sulphite|sulfite/i, 'sulphites'],
  [/lupine|lupin/i, 'lupin'],
  [/weekdier|mossel|oester|inktvis|mollus|mussel|oyster/i, 'molluscs'],
];
/** The allergen codes a note names. @param {string|null|undefined} text @returns {string[]} */
export function allergensIn(text) {
  if (!text) return [];
  return ALLERGY_WORDS.filter(([re]) => /** @type {RegExp} */ (re).test(text)).map(([, code]) => /** @type {string} */ (code));
}
/** A note about an allergy or intolerance: shown apart, in red. @param {string|null|undefined} text */
export const isAllergyNote = (text) => !!text && (/allerg|intoleran|coeliaki|glutenvrij|lactosevrij|notenvrij/i.test(text) || /\bzonder\b/i.test(text) && allergensIn(text).length > 0);

/** A web order's notes start with how it leaves the kitchen ("[Afhalen]", "[Bezorgen: …]"); the rest is the guest's note. @param {string|null} notes */
function splitNotes(notes) {
  const m = /^\[([^\]]+)\]\s*(.*)$/s.exec(notes ?? '');
  return m ? { how: m[1], note: m[2] || null } : { how: null, note: notes };
}

/** A short beep through WebAudio (no sound file): two tones, a tenth of a second each. */
let audio = /** @type {AudioContext|null} */ (null);
function audioContext() {
  if (!audio) {
    const Ctx = window.AudioContext ?? /** @type {any} */ (window).webkitAudioContext;
    if (!Ctx) return null;
    audio = new Ctx();
  }
  if (audio.state === 'suspended') void audio.resume().catch(() => {});
  return audio;
}
export function beep() {
  const ctx = audioContext();
  if (!ctx) return;
  for (const [at, freq] of [[0, 880], [0.16, 1175]]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'sine';
    osc.frequency.value = freq;
    const t = ctx.currentTime + at;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.3, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.12);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.13);
  }
  /** @type {any} */ (window).__kitchenBeeps = (/** @type {any} */ (window).__kitchenBeeps ?? 0) + 1; // for the browser test
}

/** Keeps the newest version of each order (an event and a fetch can cross); final statuses leave the board. */
function merge(/** @type {Map<string, any>} */ map, /** @type {any} */ o, fresh = false) {
  const cur = map.get(o.id);
  if (cur && cur.updated_at > o.updated_at) return map;
  const next = new Map(map);
  if (!ACTIVE.includes(o.status)) next.delete(o.id);
  else next.set(o.id, { ...o, _fresh: fresh || (cur?._fresh ?? false) });
  return next;
}

/** The allergen marks of a line: a round icon per code, its Dutch name for a screen reader and on hover. */
function Allergens({ codes, warn }) {
  if (!codes?.length) return null;
  return html`<span class="allergens" role="img" aria-label=${`Bevat: ${codes.map((c) => ALLERGEN_NL[c] ?? c).join(', ')}`}>
    ${codes.map((c) => html`<span class=${`al al-${c}${warn.includes(c) ? ' hit' : ''}`} title=${ALLERGEN_NL[c] ?? c} aria-hidden="true">${ALLERGEN_MARK[c] ?? '?'}</span>`)}
  </span>`;
}

/** One line of a card: quantity, name, seat, options, note, allergens; voided units struck through. */
function Line({ i, warn }) {
  const left = i.quantity - (i.voided_quantity ?? 0);
  const hits = (i.allergens ?? []).filter((c) => warn.includes(c));
  const noteAllergy = isAllergyNote(i.notes);
  return html`<li class=${`line${left === 0 ? ' voided' : ''}`} data-item-id=${i.id}>
    <div class="line-main">
      <span class="qty">${left === 0 ? html`<s>${i.quantity}×</s> ` : `${left}× `}</span>
      ${i.seat ? html`<span class="seat" title="Stoel">S${i.seat}</span> ` : null}
      <span class="line-name">${left === 0 ? html`<s>${i.name}</s>` : i.name}</span>
    </div>
    ${left === 0 ? html`<span class="void-note">geannuleerd</span>` : i.voided_quantity > 0 ? html`<span class="void-note"><s>${i.voided_quantity}×</s> geannuleerd</span>` : null}
    ${i.modifiers?.length ? html`<ul class="options">${i.modifiers.map((m) => html`<li>${m.quantity > 1 ? `${m.quantity}× ` : ''}${m.name}</li>`)}</ul>` : null}
    ${i.notes ? html`<span class=${noteAllergy ? 'allergy-note' : 'item-note'}>${noteAllergy ? '⚠ ' : ''}${i.notes}</span>` : null}
    ${hits.length && left > 0 ? html`<span class="allergy-hit">⚠ Bevat ${hits.map((c) => (ALLERGEN_NL[c] ?? c).toLowerCase()).join(', ')}</span>` : null}
    <${Allergens} codes=${i.allergens} warn=${warn} />
  </li>`;
}

function Card({ o, admin, tables, onMoved, onBump, fireLog }) {
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const age = minutesSince(o.created_at);
  const guest = o.source !== 'pos';
  const { how, note } = guest ? splitNotes(o.notes) : { how: null, note: o.notes };
  const orderAllergy = isAllergyNote(note);
  // What the guests said they cannot have: every line's note and the order's; the lines that contain it are flagged.
  const warn = [...new Set([note, ...o.items.map((i) => i.notes)].filter(isAllergyNote).flatMap(allergensIn))];
  const act = async (/** @type {() => Promise<any>} */ call) => {
    setBusy(true);
    try {
      onMoved(await call());
    } catch (err) {
      toast(/** @type {Error} */ (err).message);
    } finally {
      setBusy(false);
    }
  };
  const move = (/** @type {string} */ to) => {
    if (to === 'completed') return onBump(o);
    return act(() => (to === 'cancelled' ? patch(`/orders/${o.id}`, { status: to }) : post(`/orders/${o.id}/advance`, { status: to })));
  };
  const fire = (/** @type {number} */ course) => act(() => post(`/orders/${o.id}/fire`, { course }));
  // Courses in order; course 1 without a header when it is the only one. Held courses come last, apart.
  const courses = [...new Set(o.items.map((i) => i.course ?? 1))].sort((a, b) => a - b);
  const live = (/** @type {any} */ i) => i.quantity - (i.voided_quantity ?? 0) > 0;
  const isHeld = (/** @type {number} */ c) => o.items.some((i) => (i.course ?? 1) === c && i.held && live(i));
  const sent = courses.filter((c) => !isHeld(c));
  const held = courses.filter(isHeld);
  const fired = (/** @type {number} */ c) => fireLog?.find((f) => f.course === c);
  const table = o.table_id ? tables.get(o.table_id) : null;
  return html`<article class=${`card${o._fresh ? ' fresh' : ''}${guest ? ' guest' : ''}`} data-order-id=${o.id} data-status=${o.status} style=${`--c: var(--s-${o.status})`}>
    <div class="card-head">
      <span class="number">${o.number}</span>
      ${table ? html`<span class="table-name">${table}</span>` : null}
      ${guest ? html`<span class="source">${SOURCE[o.source] ?? o.source}</span>` : null}
      <span class=${`age${age >= RED_MIN ? ' late' : age >= AMBER_MIN ? ' warn' : ''}`} title=${`Besteld om ${time(o.created_at)}`}>${age} min</span>
    </div>
    <div class="status">${LABEL[o.status] ?? o.status}</div>
    ${guest
      ? html`<div class="guest-info">
          <span class="guest-name">${o.customer?.name ?? 'Gast'}</span>
          <span class="pickup">${how ?? 'Afhalen'} · besteld ${time(o.created_at)}</span>
          <span class=${`paid ${o.payment_status === 'paid' ? 'yes' : 'no'}`}>${o.payment_status === 'paid' ? '✓ Betaald' : 'Niet betaald'}</span>
        </div>`
      : null}
    ${note ? html`<span class=${orderAllergy ? 'allergy-note order-note' : 'notes'}>${orderAllergy ? '⚠ ' : ''}${note}</span>` : null}
    ${sent.map((c) => {
      const f = c > 1 ? fired(c) : null;
      return html`<section class="course" data-course=${c}>
        ${courses.length > 1 || c > 1 ? html`<h3 class="course-head">Gang ${c}${c > 1 ? html`<span class="fired">${f ? ` — gevuurd ${time(f.created_at)}${f.user_name ? ` door ${f.user_name}` : ''}` : ' — gevuurd'}</span>` : null}</h3>` : null}
        <ul class="lines">${o.items.filter((i) => (i.course ?? 1) === c).map((i) => html`<${Line} key=${i.id} i=${i} warn=${warn} />`)}</ul>
      </section>`;
    })}
    ${held.map(
      (c) => html`<section class="course held" data-course=${c}>
        <h3 class="course-head">Gang ${c} — wacht</h3>
        <ul class="lines">${o.items.filter((i) => (i.course ?? 1) === c).map((i) => html`<${Line} key=${i.id} i=${i} warn=${warn} />`)}</ul>
        <button type="button" class="fire big" data-fire=${c} disabled=${busy} onClick=${() => fire(c)}>Vuur gang ${c}</button>
      </section>`,
    )}
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
  const [station, setStation] = useState(() => saved(STATION_KEY));
  const [sound, setSound] = useState(() => saved(SOUND_KEY) === '1');
  const [unfinished, setUnfinished] = useState(0);
  const [tables, setTables] = useState(/** @type {Map<string, string>} */ (new Map()));
  /** Who fired which course when, per order (GET /orders/:id/courses), for cards with a fired later course. */
  const [fires, setFires] = useState(/** @type {Map<string, { key: string, fires: any[] }>} */ (new Map()));
  /** Bumped orders that can still be recalled: id → { order, until }. Their completion is sent when the minute is over. */
  const [pending, setPending] = useState(/** @type {Map<string, { order: any, until: number }>} */ (new Map()));
  const timers = useRef(/** @type {Map<string, number>} */ (new Map()));
  /** The card to bring into view after the next render: the newest order that arrived, or one recalled. */
  const reveal = useRef(/** @type {string | null} */ (null));
  /** Print alerts (socket `print:failed`) not yet dismissed. */
  const [alerts, setAlerts] = useState(/** @type {any[]} */ ([]));
  const stationRef = useRef(station);
  stationRef.current = station;
  const soundRef = useRef(sound);
  soundRef.current = sound;
  const admin = s.session?.role === 'admin';

  /** A station board keeps only the lines it has (an answer or event carries the whole order). */
  const own = (/** @type {Map<string, any>} */ m, /** @type {any} */ o) => {
    if (!stationRef.current) return o;
    const cur = m.get(o.id);
    if (!cur) return null;
    const ids = new Set(cur.items.map((/** @type {any} */ i) => i.id));
    return { ...o, items: o.items.filter((/** @type {any} */ i) => ids.has(i.id)) };
  };
  /** The newest load started: an older answer that arrives after it (a station switch, an event's reload) is not applied over it. */
  const loads = useRef(0);
  const load = async (at = stationRef.current) => {
    const seq = ++loads.current;
    try {
      const { data } = await get(at ? `/orders/live?station=${encodeURIComponent(at)}` : '/orders/live');
      if (seq !== loads.current) return data;
      setOrders((cur) => {
        let next = new Map();
        for (const o of data) next = merge(next, o);
        // keep versions newer than the fetch (an event that crossed it), and a flash that is still running
        for (const [id, o] of cur) if (next.has(id)) next.set(id, { ...(next.get(id).updated_at < o.updated_at ? o : next.get(id)), _fresh: o._fresh });
        return next;
      });
      return data;
    } catch (err) {
      toast(/** @type {Error} */ (err).message);
      return [];
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
  const loadTables = async () => {
    try {
      const plan = await get('/floorplan');
      setTables(new Map(plan.zones.flatMap((/** @type {any} */ z) => z.tables.map((/** @type {any} */ t) => [t.id, `Tafel ${t.name}`]))));
    } catch {
      /* a card without its table's name still works */
    }
  };
  /** Sends a bump's completion (the minute is over, or the board is left). */
  const commit = async (/** @type {string} */ id) => {
    clearTimeout(timers.current.get(id));
    timers.current.delete(id);
    let had = false;
    setPending((m) => {
      had = m.has(id);
      if (!had) return m;
      const next = new Map(m);
      next.delete(id);
      return next;
    });
    try {
      const done = await post(`/orders/${id}/advance`, { status: 'completed' });
      setOrders((m) => merge(m, done));
    } catch (err) {
      toast(/** @type {Error} */ (err).message);
    }
  };
  const bump = (/** @type {any} */ o) => {
    setPending((m) => new Map(m).set(o.id, { order: o, until: Date.now() + RECALL_MS }));
    timers.current.set(o.id, window.setTimeout(() => void commit(o.id), RECALL_MS));
  };
  const recall = (/** @type {string} */ id) => {
    clearTimeout(timers.current.get(id));
    timers.current.delete(id);
    setPending((m) => {
      const next = new Map(m);
      next.delete(id);
      return next;
    });
    reveal.current = id;
    setOrders((m) => (m.has(id) ? new Map(m).set(id, { ...m.get(id), _fresh: true }) : m));
  };

  useEffect(() => {
    void load();
    void loadUnfinished();
    void loadTables();
    const t = setInterval(() => tick((n) => n + 1), 30_000); // ages tick on their own
    // A tablet that had the sound on: the browser lets it play after the first touch.
    const wake = () => soundRef.current && audioContext();
    window.addEventListener('pointerdown', wake, { once: true });
    return () => {
      clearInterval(t);
      window.removeEventListener('pointerdown', wake);
      // Leaving the board: bumps waiting for their minute are sent now.
      for (const id of [...timers.current.keys()]) void commit(id);
    };
  }, []);
  useEffect(() => {
    // The recall bar counts down each second while something can be recalled.
    if (pending.size === 0) return undefined;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [pending.size > 0]);

  useLive(['order:created', 'order:updated', 'resync'], (e, name) => {
    if (name === 'resync') {
      void load();
      void loadTables();
      return;
    }
    if (name === 'order:created') {
      const id = e.order.id;
      const ring = () => soundRef.current && beep();
      if (stationRef.current) {
        // A station board asks the server which lines are its own; a new order flashes (and rings) when it has any.
        void load().then((data) => {
          if (!data.some((/** @type {any} */ o) => o.id === id)) return;
          reveal.current = id;
          setOrders((m) => (m.has(id) ? new Map(m).set(id, { ...m.get(id), _fresh: true }) : m));
          ring();
        });
      } else {
        if (ACTIVE.includes(e.order.status)) reveal.current = id;
        setOrders((m) => merge(m, e.order, true));
        if (ACTIVE.includes(e.order.status)) ring();
      }
      return;
    }
    setOrders((m) => {
      const o = own(m, e.order);
      return o ? merge(m, o) : m;
    });
  });
  useLive(['print:failed'], (e) => {
    if (!e || !e.job_id) return;
    // One banner per job: a later alert about it (moved to the fallback, then failed there too) replaces it.
    setAlerts((list) => [...list.filter((a) => a.job_id !== e.job_id), e]);
  });
  useEffect(() => {
    // A new card is visible at once: its column scrolls to it (the flash is in the CSS). Only the newest
    // one, once: a card that flashed earlier keeps its class, and a later event (another order moving)
    // must neither leave the newest card out of view nor pull a column the cook scrolled back to it.
    const id = reveal.current;
    if (!id) return;
    const card = [...document.querySelectorAll('#columns .card')].find((c) => c.getAttribute('data-order-id') === id);
    if (!card) return; // not rendered yet (a station board's answer on its way): at the next render
    reveal.current = null;
    card.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [orders, pending]);
  useEffect(() => {
    // Who fired the later courses: asked once per card and fire.
    for (const o of orders.values()) {
      const key = o.items.filter((/** @type {any} */ i) => (i.course ?? 1) > 1 && i.fired_at).map((/** @type {any} */ i) => `${i.course}@${i.fired_at}`).sort().join(',');
      if (!key || fires.get(o.id)?.key === key) continue;
      setFires((m) => new Map(m).set(o.id, { key, fires: m.get(o.id)?.fires ?? [] }));
      get(`/orders/${o.id}/courses`)
        .then((log) => setFires((m) => new Map(m).set(o.id, { key, fires: log.fires })))
        .catch(() => {});
    }
  }, [orders]);

  const choose = (/** @type {string} */ st) => {
    setStation(st);
    stationRef.current = st;
    keep(STATION_KEY, st);
    setOrders(new Map());
    void load(st);
  };
  const toggleSound = () => {
    const on = !sound;
    setSound(on);
    keep(SOUND_KEY, on ? '1' : '0');
    if (on) beep(); // this tap lets the browser play, and the cook hears what it sounds like
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
  const list = [...orders.values()].filter((o) => !pending.has(o.id));
  const shown = alerts.filter((a) => !station || !a.stations?.length || a.stations.includes(station));
  return html`<section id="board" class="board-screen">
    ${shown.length
      ? html`<div id="print-alerts">
          ${shown.map(
            (a) => html`<div class="print-alert" role="alert" data-job-id=${a.job_id}>
              <span>Bon niet geprint op ${a.printer_name ?? 'de printer'}: ${a.error ?? 'onbekende fout'}${a.order_id && orders.get(a.order_id) ? ` (bestelling ${orders.get(a.order_id).number})` : ''}</span>
              <button type="button" class="dismiss" aria-label="Melding sluiten" onClick=${() => setAlerts((l) => l.filter((x) => x.job_id !== a.job_id))}>Sluiten</button>
            </div>`,
          )}
        </div>`
      : null}
    <div class="board-bar">
      <button type="button" id="new-order" class="primary" onClick=${() => go('/bestellen')}>+ Nieuwe bestelling</button>
      <div id="stations" role="group" aria-label="Station">
        ${STATIONS.map(([id, label]) => html`<button type="button" data-station=${id} aria-pressed=${station === id ? 'true' : 'false'} class=${station === id ? 'primary' : ''} onClick=${() => choose(id)}>${label}</button>`)}
      </div>
      <button type="button" id="sound" aria-pressed=${sound ? 'true' : 'false'} title="Een piep bij een nieuwe bestelling (alleen op deze tablet)" class=${sound ? 'on' : ''} onClick=${toggleSound}>${sound ? 'Geluid aan' : 'Geluid uit'}</button>
      ${admin && unfinished > 0
        ? html`<button type="button" id="unfinished" class="danger" title="Actieve bestellingen van eerdere dagen; ze staan niet op het bord" onClick=${closeUnfinished}>${sure ? 'Zeker? Tik nogmaals' : `Niet afgerond (${unfinished}) afsluiten`}</button>`
        : null}
    </div>
    <div id="columns" class="columns" style=${`--cols: ${ACTIVE.map((st) => (list.some((o) => o.status === st) ? 'minmax(9.5rem, 1fr)' : 'minmax(5.5rem, .35fr)')).join(' ')}`}>
      ${ACTIVE.map((status) => {
        const col = list.filter((o) => o.status === status).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
        return html`<section class=${`column${col.length ? '' : ' empty-col'}`} data-status=${status}>
          <h2>${LABEL[status]} <span class="count">${col.length ? `(${col.length})` : ''}</span></h2>
          <div class="cards">${col.map(
            (o) => html`<${Card} key=${o.id} o=${o} admin=${admin} tables=${tables} fireLog=${fires.get(o.id)?.fires}
              onMoved=${(/** @type {any} */ u) => setOrders((m) => { const x = own(m, u); return x ? merge(m, x) : m; })} onBump=${bump} />`,
          )}</div>
        </section>`;
      })}
    </div>
    ${list.length === 0 ? html`<p id="board-empty" class="empty">Geen openstaande bestellingen.</p>` : null}
    ${pending.size
      ? html`<div id="recall" class="recall-bar" role="status">
          ${[...pending.values()].map(
            (p) => html`<div class="recall-item" data-order-id=${p.order.id}>
              <span><strong>${p.order.number}</strong> ${p.order.status === 'delivering' ? 'afgeleverd' : 'afgerond'}</span>
              <button type="button" class="primary" data-recall=${p.order.id} onClick=${() => recall(p.order.id)}>Terughalen (${Math.max(0, Math.ceil((p.until - Date.now()) / 1000))} s)</button>
            </div>`,
          )}
        </div>`
      : null}
  </section>`;
}
