// New order: the menu by category, quantities, a note and (optionally) a table. One idempotency key
// per draft: a double tap or a retry of the same draft creates one order. Without a connection the
// order is kept on the tablet and sent when the server is back (lib/outbox.js).
// Menu depth (issue 23, CONTRACT §17): a dish with choices asks them first, as big buttons, the forced
// groups before the others; every line has its seat, course (the dish's default) and note; the total
// counts the options. "Vorige ronde herhalen" puts the table's last order's lines on the draft again
// (the units not voided, with their options, seat, course and note).
import { html, useEffect, useMemo, useState } from '../lib/html.js';
import { get, newKey } from '../lib/api.js';
import { placeOrder } from '../lib/outbox.js';
import { euro } from '../lib/format.js';
import { go } from '../lib/router.js';
import { toast } from '../lib/store.js';
import { allergenNames } from '../lib/allergens.js';

/** "kies 1", "kies 0 tot 2" for a group. @param {{ min_select: number, max_select: number }} g */
const choice = (g) => (g.min_select === g.max_select ? `kies ${g.min_select}` : g.min_select === 0 ? `kies maximaal ${g.max_select}` : `kies ${g.min_select} tot ${g.max_select}`);
const delta = (/** @type {number} */ c) => (c > 0 ? `+ ${euro(c)}` : c < 0 ? `− ${euro(-c)}` : '');
/** Forced groups first, each in the dish's own order. @param {any[]} groups */
const askOrder = (groups) => [...groups.filter((g) => g.min_select > 0), ...groups.filter((g) => g.min_select === 0)];

/**
 * A dish's choices before it goes on the order: big buttons (a second tap takes one off), the forced
 * groups first; "Toevoegen" shows the price with the choices and waits for every forced group.
 */
function Choices({ dish, onAdd, onClose }) {
  const groups = askOrder(dish.modifier_groups ?? []);
  const [chosen, setChosen] = useState(/** @type {Record<string, string[]>} */ ({}));
  useEffect(() => {
    const onKey = (/** @type {KeyboardEvent} */ e) => e.key === 'Escape' && (e.stopPropagation(), onClose());
    document.addEventListener('keydown', onKey, true);
    /** @type {HTMLElement|null} */ (document.querySelector('#choices .choice:not([disabled])'))?.focus();
    return () => document.removeEventListener('keydown', onKey, true);
  }, []);
  const options = new Map(groups.flatMap((g) => g.options.map((/** @type {any} */ o) => [o.id, o])));
  const ids = groups.flatMap((g) => chosen[g.id] ?? []);
  const price = dish.price_cents + ids.reduce((s, id) => s + (options.get(id)?.price_delta_cents ?? 0), 0);
  const missing = groups.filter((g) => (chosen[g.id] ?? []).length < g.min_select);
  const tap = (/** @type {any} */ g, /** @type {string} */ id) => setChosen((c) => {
    const now = c[g.id] ?? [];
    if (now.includes(id)) return { ...c, [g.id]: now.filter((x) => x !== id) };
    if (g.max_select === 1) return { ...c, [g.id]: [id] };
    return now.length >= g.max_select ? c : { ...c, [g.id]: [...now, id] };
  });
  return html`<div class="choices-backdrop" onClick=${(e) => e.target === e.currentTarget && onClose()}>
    <section id="choices" class="choices" role="dialog" aria-modal="true" aria-labelledby="choices-title">
      <div class="panel-head"><h2 id="choices-title">${dish.name}</h2><button type="button" id="choices-cancel" onClick=${onClose}>Annuleren</button></div>
      ${groups.map((g) => {
        const now = chosen[g.id] ?? [];
        return html`<fieldset class="choice-group" data-group=${g.name}>
          <legend>${g.name} <span class="muted">${choice(g)}</span>${g.min_select > 0 ? html` <span class="pill pill-waarschuwing">verplicht</span>` : null}</legend>
          <div class="choice-buttons">${g.options.map((/** @type {any} */ o) => {
            const on = now.includes(o.id);
            return html`<button type="button" class="choice" data-option=${o.name} aria-pressed=${String(on)}
              disabled=${!o.available || (!on && g.max_select > 1 && now.length >= g.max_select)} onClick=${() => tap(g, o.id)}>
              <span class="name">${o.name}</span>
              <span class="price">${o.available ? delta(o.price_delta_cents) : 'niet beschikbaar'}</span>
              ${o.allergens?.length ? html`<span class="desc">bevat ${allergenNames(o.allergens).toLowerCase()}</span>` : null}
            </button>`;
          })}</div>
        </fieldset>`;
      })}
      <p id="choices-missing" class="muted" aria-live="polite">${missing.length ? `Kies nog: ${missing.map((g) => g.name).join(', ')}` : ''}</p>
      <button type="button" id="choices-add" class="primary big" disabled=${missing.length > 0} onClick=${() => onAdd(ids)}>Toevoegen · ${euro(price)}</button>
    </section>
  </div>`;
}

/**
 * @typedef {{ key: string, product_id: string, options: string[], counts?: Record<string, number>, quantity: number, seat: string, course: string, notes: string, open?: boolean }} Line
 * (`counts`: an option taken more than once, as a repeated round may have it.)
 */
let lineSeq = 0;

export default function NewOrder({ query }) {
  const [menu, setMenu] = useState(/** @type {any[]} */ ([]));
  const [tables, setTables] = useState(/** @type {any[]} */ ([]));
  const [active, setActive] = useState(0);
  const [lines, setLines] = useState(/** @type {Line[]} */ ([]));
  const [asking, setAsking] = useState(/** @type {any} */ (null));
  const [seat, setSeat] = useState('');
  const [notes, setNotes] = useState('');
  const [tableId, setTableId] = useState(query.get('tafel') ?? '');
  const [key, setKey] = useState(newKey());
  const [sending, setSending] = useState(false);
  const [error, setError] = useState('');
  const [lastRound, setLastRound] = useState(/** @type {any} */ (null));
  const [repeatNote, setRepeatNote] = useState('');

  const loadMenu = async () => {
    try {
      setMenu((await get('/menu')).categories);
    } catch (err) {
      setError(/** @type {Error} */ (err).message);
    }
  };
  useEffect(() => {
    void loadMenu();
    // Tables come with the floor plan; without one the order simply has no table.
    get('/floorplan').then((f) => setTables(f.zones.flatMap((z) => z.tables.map((t) => ({ ...t, zone: z.name }))))).catch(() => {});
  }, []);
  // The table's last round (its open bill's latest order that was not cancelled), to repeat it.
  useEffect(() => {
    setLastRound(null);
    setRepeatNote('');
    if (!tableId) return;
    get(`/floorplan/tables/${tableId}/bill`)
      .then((b) => setLastRound([...b.orders].filter((o) => o.status !== 'cancelled').sort((x, y) => (x.created_at < y.created_at ? -1 : 1)).pop() ?? null))
      .catch(() => {});
  }, [tableId]);
  const byId = useMemo(() => new Map(menu.flatMap((c) => c.products.map((p) => [p.id, p]))), [menu]);
  const optionOf = (/** @type {any} */ p, /** @type {string} */ id) => p?.modifier_groups?.flatMap((/** @type {any} */ g) => g.options).find((/** @type {any} */ o) => o.id === id);
  const unitPrice = (/** @type {Line} */ l) => {
    const p = byId.get(l.product_id);
    return (p?.price_cents ?? 0) + l.options.reduce((s, id) => s + (optionOf(p, id)?.price_delta_cents ?? 0) * (l.counts?.[id] ?? 1), 0);
  };
  const optionNames = (/** @type {Line} */ l) =>
    l.options.map((id) => { const o = optionOf(byId.get(l.product_id), id); return o && `${(l.counts?.[id] ?? 1) > 1 ? `${l.counts?.[id]}× ` : ''}${o.name}`; }).filter(Boolean).join(', ');
  const changed = () => {
    setKey(newKey()); // another draft is another order
    setError('');
  };
  /** A dish (with its choices) for the seat being served: one more on the same line, else a new line. */
  const add = (/** @type {any} */ p, /** @type {string[]} */ options) => {
    if (sending) return;
    const course = String(p.course ?? 1);
    setLines((cur) => {
      const same = cur.find((l) => l.product_id === p.id && l.seat === seat && l.course === course && !l.notes && !l.counts && l.options.join() === options.join());
      if (same) return cur.map((l) => (l === same ? { ...l, quantity: Math.min(999, l.quantity + 1) } : l));
      return [...cur, { key: `l${++lineSeq}`, product_id: p.id, options, quantity: 1, seat, course, notes: '' }];
    });
    changed();
  };
  /** The last round again: every line's units that were not voided, as they were taken (a dish or option that is off now is left out and named). */
  const repeatRound = () => {
    if (sending || !lastRound) return;
    const skipped = [];
    const again = [];
    for (const i of lastRound.items) {
      const left = i.quantity - (i.voided_quantity ?? 0);
      if (left <= 0) continue;
      const p = byId.get(i.product_id);
      const ids = (i.modifiers ?? []).map((/** @type {any} */ m) => m.option_id);
      if (!p || !p.available || ids.some((/** @type {string} */ id) => !optionOf(p, id)?.available)) {
        skipped.push(i.name);
        continue;
      }
      const counts = Object.fromEntries((i.modifiers ?? []).filter((/** @type {any} */ m) => m.quantity > 1).map((/** @type {any} */ m) => [m.option_id, m.quantity]));
      again.push({ key: `l${++lineSeq}`, product_id: p.id, options: ids, ...(Object.keys(counts).length ? { counts } : {}), quantity: left, seat: i.seat ? String(i.seat) : '', course: String(i.course ?? p.course ?? 1), notes: i.notes ?? '' });
    }
    setLines((cur) => [...cur, ...again]);
    setRepeatNote(skipped.length ? `Niet herhaald (niet meer te bestellen): ${skipped.join(', ')}.` : `${again.length} ${again.length === 1 ? 'regel' : 'regels'} van ${lastRound.number} toegevoegd.`);
    changed();
  };
  const tapDish = (/** @type {any} */ p) => (p.modifier_groups?.some((/** @type {any} */ g) => g.options.length) ? setAsking(p) : add(p, []));
  const update = (/** @type {string} */ k, /** @type {Partial<Line>} */ patch) => {
    if (sending) return;
    setLines((cur) => cur.map((l) => (l.key === k ? { ...l, ...patch } : l)).filter((l) => l.quantity > 0));
    changed();
  };
  const total = lines.reduce((s, l) => s + unitPrice(l) * l.quantity, 0);
  const table = tables.find((t) => t.id === tableId);
  const seats = Math.max(table?.seats ?? 0, 8, ...lines.map((l) => Number(l.seat) || 0));
  const submit = async () => {
    if (sending || lines.length === 0) return;
    setSending(true);
    try {
      const body = {
        // CONTRACT §17: options as modifiers, the seat when one is set, the course when it is not the dish's own.
        items: lines.map((l) => ({
          product_id: l.product_id,
          quantity: l.quantity,
          ...(l.options.length ? { modifiers: l.options.map((option_id) => ({ option_id, ...((l.counts?.[option_id] ?? 1) > 1 ? { quantity: l.counts?.[option_id] } : {}) })) } : {}),
          ...(l.seat ? { seat: Number(l.seat) } : {}),
          ...(Number(l.course) !== (byId.get(l.product_id)?.course ?? 1) ? { course: Number(l.course) } : {}),
          ...(l.notes.trim() ? { notes: l.notes.trim() } : {}),
        })),
        ...(notes.trim() ? { notes: notes.trim() } : {}),
        ...(tableId ? { table_id: tableId } : {}),
        idempotency_key: key,
      };
      const summary = {
        table: table ? `Tafel ${table.name}` : undefined,
        lines: lines.map((l) => ({ name: `${byId.get(l.product_id)?.name ?? 'Onbekend gerecht'}${l.options.length ? ` (${optionNames(l)})` : ''}`, quantity: l.quantity })),
        total_cents: total,
      };
      const placed = await placeOrder(body, summary);
      toast('order' in placed ? `Bestelling ${placed.order.number} geplaatst.` : 'Geen verbinding: de bestelling is bewaard en wordt verstuurd zodra de server terug is.');
      go(query.get('terug') ?? '/keuken');
    } catch (err) {
      // The key stays: tapping again retries the same order (the server answers with the original).
      setError(/** @type {Error} */ (err).message);
      if (/** @type {any} */ (err).status === 400) void loadMenu();
      setSending(false);
    }
  };
  const cat = menu[active];
  const count = (/** @type {string} */ id) => lines.filter((l) => l.product_id === id).reduce((n, l) => n + l.quantity, 0);
  return html`<div id="order-panel" class="panel" role="dialog" aria-modal="true" aria-labelledby="order-title">
    <div class="panel-menu">
      <div class="panel-head"><h2 id="order-title">Nieuwe bestelling</h2><button type="button" id="close-order" onClick=${() => history.back()}>Sluiten</button></div>
      <nav id="category-tabs" class="tabs" role="tablist" aria-label="Categorieën">
        ${menu.map((c, i) => html`<button type="button" role="tab" aria-selected=${String(i === active)} onClick=${() => setActive(i)}>${c.name}</button>`)}
      </nav>
      <div id="seat-bar" class="tabs" role="group" aria-label="Voor welke stoel">
        <span class="muted seat-label">Stoel:</span>
        ${['', ...Array.from({ length: Math.min(seats, 12) }, (_, i) => String(i + 1))].map((s) => html`<button type="button" data-seat=${s || 'geen'} aria-pressed=${String(seat === s)} onClick=${() => setSeat(s)}>${s || 'Tafel'}</button>`)}
      </div>
      <div id="products" class="products">
        ${cat
          ? cat.products.map((p) => {
              const n = count(p.id);
              return html`<button type="button" class=${`product${p.available ? '' : ' unavailable'}`} data-product-id=${p.id} disabled=${!p.available} onClick=${() => tapDish(p)}>
                <span class="name">${p.name}</span>
                ${p.description ? html`<span class="desc">${p.description}</span>` : null}
                ${p.allergens?.length ? html`<span class="desc allergens">bevat ${allergenNames(p.allergens).toLowerCase()}</span>` : null}
                <span class="price">${p.available ? euro(p.price_cents) : 'Niet beschikbaar'}${p.available && p.modifier_groups?.length ? html` <span class="desc">· met keuze</span>` : null}</span>
                ${n ? html`<span class="in-draft">${n}×</span>` : null}
              </button>`;
            })
          : html`<p class="muted">De menukaart is nog leeg. Een beheerder voegt gerechten toe.</p>`}
      </div>
    </div>
    <aside class="panel-draft">
      <h3>Bestelling</h3>
      ${tables.length
        ? html`<label for="order-table">Tafel</label>
            <select id="order-table" value=${tableId} onChange=${(e) => { setTableId(e.currentTarget.value); changed(); }}>
              <option value="">Geen tafel (afhalen, bar)</option>
              ${tables.map((t) => html`<option value=${t.id}>${t.name} (${t.zone})</option>`)}
            </select>`
        : null}
      ${lastRound && lastRound.items.some((/** @type {any} */ i) => i.quantity > (i.voided_quantity ?? 0))
        ? html`<button type="button" id="repeat-round" disabled=${sending || menu.length === 0} onClick=${repeatRound}>Vorige ronde herhalen <span class="muted">(${lastRound.number})</span></button>`
        : null}
      <p id="repeat-note" class="muted" aria-live="polite">${repeatNote}</p>
      <ul id="draft-lines" class="draft-lines">
        ${lines.map((l) => {
          const p = byId.get(l.product_id);
          const name = p?.name ?? 'Onbekend gerecht';
          return html`<li data-product-id=${l.product_id} data-line=${l.key}>
            <div><div class="line-name">${name}</div>
              ${l.options.length ? html`<div class="line-options">${optionNames(l)}</div>` : null}
              <div class="line-price">${euro(unitPrice(l) * l.quantity)}${l.seat ? ` · stoel ${l.seat}` : ''}${Number(l.course) > 1 ? ` · gang ${l.course}` : ''}${l.notes ? ` · ${l.notes}` : ''}</div></div>
            <div class="stepper"><button type="button" aria-label="Eén minder" onClick=${() => update(l.key, { quantity: l.quantity - 1 })}>−</button><span class="qty">${l.quantity}</span><button type="button" aria-label="Eén meer" onClick=${() => update(l.key, { quantity: Math.min(999, l.quantity + 1) })}>+</button></div>
            <div class="line-more">
              <button type="button" class="link" aria-expanded=${String(!!l.open)} onClick=${() => setLines((cur) => cur.map((x) => (x.key === l.key ? { ...x, open: !x.open } : x)))}>${l.open ? 'Klaar' : 'Stoel, gang, notitie'}<span class="sr-only"> (${name})</span></button>
              ${l.open ? html`<div class="line-edit">
                <label for=${`seat-${l.key}`}>Stoel</label>
                <select id=${`seat-${l.key}`} value=${l.seat} onChange=${(e) => update(l.key, { seat: e.currentTarget.value })}>
                  <option value="">–</option>${Array.from({ length: Math.min(50, Math.max(seats, 12)) }, (_, i) => html`<option value=${String(i + 1)}>${i + 1}</option>`)}
                </select>
                <label for=${`course-${l.key}`}>Gang</label>
                <select id=${`course-${l.key}`} value=${l.course} onChange=${(e) => update(l.key, { course: e.currentTarget.value })}>
                  ${[1, 2, 3, 4, 5].map((c) => html`<option value=${String(c)}>${c}${c === (p?.course ?? 1) ? ' (standaard)' : ''}</option>`)}
                </select>
                <label for=${`notes-${l.key}`}>Notitie</label>
                <input id=${`notes-${l.key}`} maxlength="200" placeholder="bv. medium, zonder ui" value=${l.notes} onInput=${(e) => update(l.key, { notes: e.currentTarget.value })} />
              </div>` : null}
            </div>
          </li>`;
        })}
      </ul>
      ${lines.length === 0 ? html`<p id="draft-empty" class="muted">Tik op een gerecht om het toe te voegen.</p>` : null}
      <label for="order-notes">Opmerking</label>
      <textarea id="order-notes" rows="2" maxlength="500" placeholder="bv. zonder ui" value=${notes} onInput=${(e) => { setNotes(e.currentTarget.value); changed(); }}></textarea>
      <p id="order-error" class="error" role="alert">${error}</p>
      <button type="button" id="submit-order" class="primary big" disabled=${lines.length === 0 || sending} onClick=${submit}>
        ${sending ? 'Bezig…' : lines.length ? `Bestelling plaatsen (${euro(total)})` : 'Bestelling plaatsen'}
      </button>
    </aside>
    ${asking ? html`<${Choices} dish=${asking} onClose=${() => setAsking(null)} onAdd=${(/** @type {string[]} */ ids) => { add(asking, ids); setAsking(null); }} />` : null}
  </div>`;
}
