// Stock: levels per product and location (flagged below minimum or below zero), a movement
// (intake, removal, count, transfer), the latest movements and the purchase list with its suggestion.
import { html, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, num } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { Field, FormFoot, Loading, Pill, Screen, useAsync, useForm } from '../components/ui.js';

const TYPES = { INTAKE: 'Levering', REMOVAL: 'Afboeken', ADJUSTMENT: 'Telling', TRANSFER_OUT: 'Verplaatsen', ADDITION: 'Bijboeken' };
/** Every movement type in the ledger, as staff call it. */
const LEDGER = { ...TYPES, TRANSFER_IN: 'Verplaatst (binnen)', TRANSFER_OUT: 'Verplaatst (weg)' };
const SOURCE = { sale: 'verkoop', waste: 'derving', staff: '' };

function MovementForm({ stock, onDone }) {
  const items = stock.data ?? [];
  const locations = stock.locations ?? [];
  const def = locations.find((l) => l.is_default)?.id ?? locations[0]?.id ?? '';
  const form = useForm({ type: 'INTAKE', productId: items[0]?.product_id ?? '', locationId: def, toLocationId: locations.find((l) => l.id !== def)?.id ?? '', quantity: '', note: '' });
  const v = form.values;
  const type = v.type;
  // The values are this component's state: nothing is read from the event after an await (the
  // "Cannot read properties of null (reading 'reset')" of issue 26).
  const submit = form.submit(async () => {
    const quantity = form.number('quantity', { min: type === 'ADJUSTMENT' ? 0 : 0.001, max: 1_000_000 });
    await post('/stock', {
      productId: v.productId || items[0]?.product_id, locationId: v.locationId || def, type, quantity,
      ...(type === 'TRANSFER_OUT' ? { toLocationId: v.toLocationId } : {}), ...(v.note.trim() ? { note: v.note.trim() } : {}),
    });
    toast('Voorraad bijgewerkt.');
    form.setValues((cur) => ({ ...cur, quantity: '', note: '' }));
    await onDone();
  }, 'Voorraad bijgewerkt.');
  return html`<form novalidate id="movement-form" class="tile inline" onSubmit=${submit}>
    <${Field} form=${form} name="type" label="Soort" as="select" options=${Object.entries(TYPES)} />
    <${Field} form=${form} name="productId" label="Product" as="select" options=${items.map((i) => [i.product_id, `${i.name}${i.unit ? ` (${i.unit})` : ''}`])} required />
    <${Field} form=${form} name="locationId" label=${type === 'TRANSFER_OUT' ? 'Van' : 'Locatie'} as="select" options=${locations.map((l) => [l.id, l.name])} required />
    ${type === 'TRANSFER_OUT' ? html`<${Field} form=${form} name="toLocationId" label="Naar" as="select" options=${locations.map((l) => [l.id, l.name])} required />` : null}
    <${Field} form=${form} name="quantity" label=${type === 'ADJUSTMENT' ? 'Geteld' : 'Aantal'} inputmode="decimal" required autocomplete="off" />
    <${Field} form=${form} name="note" label="Notitie" maxlength="500" autocomplete="off" />
    <${FormFoot} form=${form} label="Boeken" />
  </form>`;
}

export default function Stock() {
  const [tab, setTab] = useState('levels');
  const stock = useAsync(() => get('/stock'));
  const movements = useAsync(() => (tab === 'movements' ? get('/stock/movements?limit=50') : Promise.resolve(null)), [tab]);
  const purchase = useAsync(() => (tab === 'purchase' ? Promise.all([get('/purchase-list'), get('/purchase-list/suggest')]) : Promise.resolve(null)), [tab]);
  const names = new Map((stock.data?.data ?? []).map((i) => [i.product_id, i.name]));
  const locs = new Map((stock.data?.locations ?? []).map((l) => [l.id, l.name]));
  return html`<${Screen} title="Voorraad" id="stock" actions=${html`<div class="tabs" role="group" aria-label="Weergave">
      ${[['levels', 'Niveaus'], ['movements', 'Mutaties'], ['purchase', 'Inkooplijst']].map(([k, v]) => html`<button type="button" aria-pressed=${String(tab === k)} onClick=${() => setTab(k)}>${v}</button>`)}
    </div>`}>
    <${Loading} when=${stock.loading && !stock.data} error=${stock.error}>
      ${tab === 'levels'
        ? html`<${MovementForm} key=${(stock.data?.locations ?? []).length} stock=${stock.data ?? {}} onDone=${() => stock.reload()} />
          <div class="table-wrap"><table class="list" id="stock-levels">
            <thead><tr><th>Product</th><th class="num">Totaal</th><th>Per locatie</th><th class="num">Minimum</th><th></th></tr></thead>
            <tbody>${(stock.data?.data ?? []).map((i) => html`<tr data-product=${i.name}>
              <td>${i.name}</td><td class="num">${num(i.total)} ${i.unit ?? ''}</td>
              <td>${i.locations.map((l) => html`<span class=${`per-loc${l.below_zero ? " error" : ""}`}>${l.name}: ${num(l.quantity)}</span>`)}</td>
              <td class="num">${i.min_level === null || i.min_level === undefined ? '–' : num(i.min_level)}</td>
              <td>${i.below_zero ? html`<${Pill} kind="flag">onder nul: tellen</${Pill}>` : i.below_min ? html`<${Pill} kind="waarschuwing">bestellen</${Pill}>` : null}</td>
            </tr>`)}</tbody>
          </table></div>`
        : null}
      ${tab === 'movements'
        ? html`<${Loading} when=${movements.loading} error=${movements.error}><div class="table-wrap"><table class="list" id="stock-movements">
            <thead><tr><th>Wanneer</th><th>Product</th><th>Locatie</th><th>Soort</th><th class="num">Aantal</th><th class="num">Daarna</th><th>Notitie</th></tr></thead>
            <tbody>${(movements.data?.data ?? []).map((m) => html`<tr><td>${dateTime(m.created_at)}</td><td>${names.get(m.product_id) ?? ''}</td><td>${locs.get(m.location_id) ?? ''}</td><td>${LEDGER[m.type] ?? m.type}${SOURCE[m.source] ? ` (${SOURCE[m.source]})` : ''}</td><td class="num">${num(m.quantity)}</td><td class="num">${num(m.level_after)}</td><td>${m.note ?? m.reason ?? ''}</td></tr>`)}</tbody>
          </table></div></${Loading}>`
        : null}
      ${tab === 'purchase'
        ? html`<${Loading} when=${purchase.loading} error=${purchase.error}>
            <h2>Onder het minimum</h2>
            <div class="table-wrap"><table class="list" id="purchase-list"><thead><tr><th>Product</th><th class="num">Voorraad</th><th class="num">Minimum</th><th class="num">Bestellen</th></tr></thead>
              <tbody>${(purchase.data?.[0]?.data ?? []).map((p) => html`<tr><td>${p.name}</td><td class="num">${num(p.total)}</td><td class="num">${num(p.min_level)}</td><td class="num"><strong>${num(p.quantity_to_order)} ${p.unit ?? ''}</strong></td></tr>`)}</tbody></table></div>
            <h2>Voorstel op basis van verbruik</h2>
            <div class="table-wrap"><table class="list" id="purchase-suggest"><thead><tr><th>Product</th><th class="num">Per dag</th><th class="num">Dagen voorraad</th><th class="num">Bestellen</th></tr></thead>
              <tbody>${(purchase.data?.[1]?.data ?? []).map((p) => html`<tr><td>${p.name}</td><td class="num">${num(p.daily_use)}</td><td class="num">${p.days_of_cover === null || p.days_of_cover === undefined ? '–' : num(p.days_of_cover, 1)}</td><td class="num"><strong>${num(p.quantity_to_order)} ${p.unit ?? ''}</strong></td></tr>`)}</tbody></table></div>
          </${Loading}>`
        : null}
    </${Loading}>
  </${Screen}>`;
}
