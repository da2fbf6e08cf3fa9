// Voiding lines (issue 23, CONTRACT §17): from a table's bill, pick a line, how many of it and why;
// POST /orders/:id/items/:item_id/void. Voided units stay on the list, struck through, with the
// total that is left. Its own module so the floor plan only opens it.
import { html, useState } from '../lib/html.js';
import { post } from '../lib/api.js';
import { euro } from '../lib/format.js';
import { Dialog, ErrorText, useAction } from '../components/ui.js';

/** The pad's short list; "Overig" asks for the reason in the staff member's own words. */
export const VOID_REASONS = ['Verkeerd aangeslagen', 'Gast wil niet meer', 'Teruggestuurd'];
const OTHER = 'Overig';

/** A line as the bill shows it: "2× Biefstuk met friet (Pepersaus, Medium)", the voided units struck through. */
export function VoidedLine({ item }) {
  const left = item.quantity - (item.voided_quantity ?? 0);
  const options = item.modifiers?.length ? ` (${item.modifiers.map((/** @type {any} */ m) => `${m.quantity > 1 ? `${m.quantity}× ` : ''}${m.name}`).join(', ')})` : '';
  return html`<span class="void-line">
    ${left > 0 ? html`<span>${left}× ${item.name}${options}</span>` : null}
    ${item.voided_quantity ? html` <del class="voided" title="Geannuleerd">${item.voided_quantity}× ${item.name}${options}</del><span class="sr-only"> (${item.voided_quantity} geannuleerd)</span>` : null}
  </span>`;
}

/**
 * The void dialog: every line of the table's open orders; "Annuleren…" on a line asks how many (at
 * most what is left) and the reason, then voids it. `orders` are the bill's orders.
 * @param {{ orders: any[], onClose: () => void, onChanged: () => void }} props
 */
export function VoidDialog({ orders, onClose, onChanged }) {
  const [picked, setPicked] = useState(/** @type {{ order: any, item: any } | null} */ (null));
  const [quantity, setQuantity] = useState(1);
  const [reason, setReason] = useState(VOID_REASONS[0]);
  const [other, setOther] = useState('');
  const [done, setDone] = useState('');
  const [run, busy, error, setError] = useAction({ quantity: 'aantal', reason: 'reden' });
  const open = orders.filter((o) => o.status !== 'cancelled' && o.status !== 'completed' && o.payment_status !== 'paid');
  const pick = (/** @type {any} */ order, /** @type {any} */ item) => {
    setPicked({ order, item });
    setQuantity(1);
    setReason(VOID_REASONS[0]);
    setOther('');
    setError('');
  };
  const submit = () =>
    run(async () => {
      if (!picked) return;
      const why = reason === OTHER ? other.trim() : reason;
      if (!why) throw new Error('Vul de reden in.');
      await post(`/orders/${picked.order.id}/items/${picked.item.id}/void`, { quantity, reason: why });
      setDone(`${quantity}× ${picked.item.name} geannuleerd (${why}).`);
      setPicked(null);
      onChanged();
    });
  return html`<${Dialog} title="Regels annuleren" onClose=${onClose} id="void-dialog" wide=${true}>
    ${open.length === 0 ? html`<p class="muted">Er staat op deze rekening niets meer dat geannuleerd kan worden (betaald of afgerond).</p>` : null}
    <ul id="void-lines" class="plain void-lines">
      ${open.flatMap((o) =>
        o.items.map((/** @type {any} */ i) => {
          const left = i.quantity - (i.voided_quantity ?? 0);
          return html`<li data-line=${i.name} data-order=${o.number} class=${picked?.item.id === i.id ? 'picked' : ''}>
            <div><${VoidedLine} item=${i} />
              <div class="muted">${o.number}${i.seat ? ` · stoel ${i.seat}` : ''}${i.course > 1 ? ` · gang ${i.course}${i.held ? ' (wacht)' : ''}` : ''} · ${euro(i.total_cents)}</div></div>
            <button type="button" class="void-pick" disabled=${left <= 0 || busy} onClick=${() => pick(o, i)}>${left > 0 ? 'Annuleren…' : 'Geannuleerd'}<span class="sr-only"> (${i.name})</span></button>
          </li>`;
        }),
      )}
    </ul>
    ${picked
      ? html`<form id="void-form" class="tile" onSubmit=${(e) => { e.preventDefault(); void submit(); }}>
          <h3>${picked.item.name} annuleren</h3>
          <label for="void-quantity">Aantal (er ${picked.item.quantity - picked.item.voided_quantity === 1 ? 'is' : 'zijn'} nog ${picked.item.quantity - picked.item.voided_quantity})</label>
          <div class="stepper">
            <button type="button" aria-label="Eén minder" disabled=${quantity <= 1} onClick=${() => setQuantity((q) => Math.max(1, q - 1))}>−</button>
            <input id="void-quantity" class="qty void-qty" inputmode="numeric" value=${String(quantity)} onInput=${(e) => setQuantity(Math.max(1, Math.min(picked.item.quantity - picked.item.voided_quantity, Number(e.currentTarget.value) || 1)))} />
            <button type="button" aria-label="Eén meer" disabled=${quantity >= picked.item.quantity - picked.item.voided_quantity} onClick=${() => setQuantity((q) => q + 1)}>+</button>
          </div>
          <fieldset class="void-reasons"><legend>Reden</legend>
            ${[...VOID_REASONS, OTHER].map((r) => html`<label class="check"><input type="radio" name="void-reason" value=${r} checked=${reason === r} onChange=${() => { setReason(r); setError(''); }} /> ${r}</label>`)}
          </fieldset>
          ${reason === OTHER ? html`<label for="void-other">Andere reden</label><input id="void-other" maxlength="200" autofocus value=${other} onInput=${(e) => setOther(e.currentTarget.value)} />` : null}
          <${ErrorText} text=${error} id="void-error" />
          <div class="screen-actions">
            <button type="submit" class="danger-solid" id="void-submit" disabled=${busy}>${quantity}× annuleren</button>
            <button type="button" onClick=${() => { setPicked(null); setError(''); }}>Terug</button>
          </div>
        </form>`
      : html`<${ErrorText} text=${error} id="void-error" />`}
    <p id="void-done" class="success" aria-live="polite">${picked ? '' : done}</p>
  </${Dialog}>`;
}
