// Stock: levels per product and location (flagged below minimum or below zero), a movement
// (intake, removal, count, transfer), the latest movements and the purchase list with its suggestion.
import { html, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, num } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { ErrorText, Loading, Pill, Screen, useAction, useAsync } from '../components/ui.js';

const TYPES = { INTAKE: 'Levering', REMOVAL: 'Afboeken', ADJUSTMENT: 'Telling', TRANSFER_OUT: 'Verplaatsen', ADDITION: 'Bijboeken' };

function MovementForm({ stock, onDone }) {
  const [run, busy, error] = useAction();
  const [type, setType] = useState('INTAKE');
  const items = stock.data ?? [];
  const locations = stock.locations ?? [];
  return html`<form id="movement-form" class="tile inline" onSubmit=${(e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget));
    void run(async () => {
      await post('/stock', {
        productId: f.productId, locationId: f.locationId, type, quantity: Number(String(f.quantity).replace(',', '.')),
        ...(type === 'TRANSFER_OUT' ? { toLocationId: f.toLocationId } : {}), ...(f.note ? { note: f.note } : {}),
      });
      toast('Voorraad bijgewerkt.');
      e.currentTarget.reset?.();
      onDone();
    });
  }}>
    <div><label>Soort</label><select value=${type} onChange=${(e) => setType(e.currentTarget.value)}>${Object.entries(TYPES).map(([k, v]) => html`<option value=${k}>${v}</option>`)}</select></div>
    <div><label>Product</label><select name="productId" required>${items.map((i) => html`<option value=${i.product_id}>${i.name}${i.unit ? ` (${i.unit})` : ''}</option>`)}</select></div>
    <div><label>${type === 'TRANSFER_OUT' ? 'Van' : 'Locatie'}</label><select name="locationId" required>${locations.map((l) => html`<option value=${l.id} selected=${l.is_default}>${l.name}</option>`)}</select></div>
    ${type === 'TRANSFER_OUT' ? html`<div><label>Naar</label><select name="toLocationId" required>${locations.map((l) => html`<option value=${l.id}>${l.name}</option>`)}</select></div>` : null}
    <div><label>${type === 'ADJUSTMENT' ? 'Geteld' : 'Aantal'}</label><input name="quantity" inputmode="decimal" required /></div>
    <div><label>Notitie</label><input name="note" maxlength="500" /></div>
    <button type="submit" class="primary" disabled=${busy}>Boeken</button>
    <${ErrorText} text=${error} />
  </form>`;
}

export default function Stock() {
  const [tab, setTab] = useState('levels');
  const stock = useAsync(() => get('/stock'));
  const movements = useAsync(() => (tab === 'movements' ? get('/stock/movements?limit=50') : Promise.resolve(null)), [tab]);
  const purchase = useAsync(() => (tab === 'purchase' ? Promise.all([get('/purchase-list'), get('/purchase-list/suggest')]) : Promise.resolve(null)), [tab]);
  const names = new Map((stock.data?.data ?? []).map((i) => [i.product_id, i.name]));
  const locs = new Map((stock.data?.locations ?? []).map((l) => [l.id, l.name]));
  return html`<${Screen} title="Voorraad" id="stock" actions=${html`<nav class="tabs">
      ${[['levels', 'Niveaus'], ['movements', 'Mutaties'], ['purchase', 'Inkooplijst']].map(([k, v]) => html`<button type="button" aria-selected=${String(tab === k)} onClick=${() => setTab(k)}>${v}</button>`)}
    </nav>`}>
    <${Loading} when=${stock.loading && !stock.data} error=${stock.error}>
      ${tab === 'levels'
        ? html`<${MovementForm} stock=${stock.data ?? {}} onDone=${() => void stock.reload()} />
          <div class="table-wrap"><table class="list" id="stock-levels">
            <thead><tr><th>Product</th><th class="num">Totaal</th><th>Per locatie</th><th class="num">Minimum</th><th></th></tr></thead>
            <tbody>${(stock.data?.data ?? []).map((i) => html`<tr data-product=${i.name}>
              <td>${i.name}</td><td class="num">${num(i.total)} ${i.unit ?? ''}</td>
              <td>${i.locations.map((l) => html`<span class=${l.below_zero ? 'error' : ''}>${l.name}: ${num(l.quantity)} </span>`)}</td>
              <td class="num">${i.min_level ?? '–'}</td>
              <td>${i.below_zero ? html`<${Pill} kind="flag">onder nul: tellen</${Pill}>` : i.below_min ? html`<${Pill} kind="waarschuwing">bestellen</${Pill}>` : null}</td>
            </tr>`)}</tbody>
          </table></div>`
        : null}
      ${tab === 'movements'
        ? html`<${Loading} when=${movements.loading} error=${movements.error}><div class="table-wrap"><table class="list" id="stock-movements">
            <thead><tr><th>Wanneer</th><th>Product</th><th>Locatie</th><th>Soort</th><th class="num">Aantal</th><th class="num">Daarna</th><th>Notitie</th></tr></thead>
            <tbody>${(movements.data?.data ?? []).map((m) => html`<tr><td>${dateTime(m.created_at)}</td><td>${names.get(m.product_id) ?? ''}</td><td>${locs.get(m.location_id) ?? ''}</td><td>${m.type}${m.source !== 'staff' ? ` (${m.source === 'sale' ? 'verkoop' : 'derving'})` : ''}</td><td class="num">${num(m.quantity)}</td><td class="num">${num(m.level_after)}</td><td>${m.note ?? m.reason ?? ''}</td></tr>`)}</tbody>
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
