// New order: the menu by category, quantities, a note and (optionally) a table. One idempotency key
// per draft: a double tap or a retry of the same draft creates one order. Without a connection the
// order is kept on the tablet and sent when the server is back (lib/outbox.js).
import { html, useEffect, useMemo, useState } from '../lib/html.js';
import { get, newKey } from '../lib/api.js';
import { placeOrder } from '../lib/outbox.js';
import { euro } from '../lib/format.js';
import { go } from '../lib/router.js';
import { toast } from '../lib/store.js';

export default function NewOrder({ query }) {
  const [menu, setMenu] = useState(/** @type {any[]} */ ([]));
  const [tables, setTables] = useState(/** @type {any[]} */ ([]));
  const [active, setActive] = useState(0);
  const [lines, setLines] = useState(/** @type {Map<string, number>} */ (new Map()));
  const [notes, setNotes] = useState('');
  const [tableId, setTableId] = useState(query.get('tafel') ?? '');
  const [key, setKey] = useState(newKey());
  const [sending, setSending] = useState(false);
  const [error, setError] = useState('');

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
  const byId = useMemo(() => new Map(menu.flatMap((c) => c.products.map((p) => [p.id, p]))), [menu]);
  const changed = () => {
    setKey(newKey()); // another draft is another order
    setError('');
  };
  const change = (/** @type {string} */ id, /** @type {number} */ delta) => {
    if (sending) return;
    setLines((cur) => {
      const next = new Map(cur);
      const n = Math.max(0, Math.min(999, (next.get(id) ?? 0) + delta));
      if (n === 0) next.delete(id);
      else next.set(id, n);
      return next;
    });
    changed();
  };
  const total = [...lines].reduce((s, [id, q]) => s + (byId.get(id)?.price_cents ?? 0) * q, 0);
  const submit = async () => {
    if (sending || lines.size === 0) return;
    setSending(true);
    try {
      const body = {
        items: [...lines].map(([product_id, quantity]) => ({ product_id, quantity })),
        ...(notes.trim() ? { notes: notes.trim() } : {}),
        ...(tableId ? { table_id: tableId } : {}),
        idempotency_key: key,
      };
      const table = tables.find((t) => t.id === tableId);
      const summary = { table: table ? `Tafel ${table.name}` : undefined, lines: [...lines].map(([id, quantity]) => ({ name: byId.get(id)?.name ?? 'Onbekend gerecht', quantity })), total_cents: total };
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
  return html`<div id="order-panel" class="panel" role="dialog" aria-modal="true" aria-labelledby="order-title">
    <div class="panel-menu">
      <div class="panel-head"><h2 id="order-title">Nieuwe bestelling</h2><button type="button" id="close-order" onClick=${() => history.back()}>Sluiten</button></div>
      <nav id="category-tabs" class="tabs" role="tablist" aria-label="Categorieën">
        ${menu.map((c, i) => html`<button type="button" role="tab" aria-selected=${String(i === active)} onClick=${() => setActive(i)}>${c.name}</button>`)}
      </nav>
      <div id="products" class="products">
        ${cat
          ? cat.products.map((p) => {
              const n = lines.get(p.id) ?? 0;
              return html`<button type="button" class=${`product${p.available ? '' : ' unavailable'}`} data-product-id=${p.id} disabled=${!p.available} onClick=${() => change(p.id, 1)}>
                <span class="name">${p.name}</span>
                ${p.description ? html`<span class="desc">${p.description}</span>` : null}
                <span class="price">${p.available ? euro(p.price_cents) : 'Niet beschikbaar'}</span>
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
      <ul id="draft-lines" class="draft-lines">
        ${[...lines].map(([id, qty]) => {
          const p = byId.get(id);
          return html`<li data-product-id=${id}>
            <div><div class="line-name">${p?.name ?? 'Onbekend gerecht'}</div><div class="line-price">${euro((p?.price_cents ?? 0) * qty)}</div></div>
            <div class="stepper"><button type="button" aria-label="Eén minder" onClick=${() => change(id, -1)}>−</button><span class="qty">${qty}</span><button type="button" aria-label="Eén meer" onClick=${() => change(id, 1)}>+</button></div>
          </li>`;
        })}
      </ul>
      ${lines.size === 0 ? html`<p id="draft-empty" class="muted">Tik op een gerecht om het toe te voegen.</p>` : null}
      <label for="order-notes">Opmerking</label>
      <textarea id="order-notes" rows="2" maxlength="500" placeholder="bv. zonder ui" value=${notes} onInput=${(e) => { setNotes(e.currentTarget.value); changed(); }}></textarea>
      <p id="order-error" class="error" role="alert">${error}</p>
      <button type="button" id="submit-order" class="primary big" disabled=${lines.size === 0 || sending} onClick=${submit}>
        ${sending ? 'Bezig…' : lines.size ? `Bestelling plaatsen (${euro(total)})` : 'Bestelling plaatsen'}
      </button>
    </aside>
  </div>`;
}
