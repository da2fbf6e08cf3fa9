// Today's reservations (or another day): who, when, how many, which table; mark seated, no-show or
// cancelled. A booking that collided across sync carries its conflict for staff to resolve.
import { html, useState } from '../lib/html.js';
import { get, patch } from '../lib/api.js';
import { day as fmtDay, today } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { ErrorText, Loading, Pill, Screen, useAction, useAsync } from '../components/ui.js';

const STATUS = { booked: 'Geboekt', seated: 'Aan tafel', cancelled: 'Geannuleerd', no_show: 'Niet gekomen' };

export default function Reservations() {
  const [date, setDate] = useState(today());
  const list = useAsync(() => get(`/reservations?date=${date}`), [date]);
  const [run, busy, error] = useAction();
  useLive(['reservation:changed', 'resync'], () => void list.reload(), [date]);
  const set = (/** @type {string} */ id, /** @type {string} */ status) => run(async () => {
    await patch(`/reservations/${id}`, { status });
    await list.reload();
  });
  const rows = list.data?.data ?? [];
  const covers = rows.filter((r) => r.status === 'booked' || r.status === 'seated').reduce((s, r) => s + r.party_size, 0);
  return html`<${Screen} title=${`Reserveringen ${fmtDay(date)}`} id="reservations" actions=${html`
      <button type="button" onClick=${() => setDate(today())}>Vandaag</button>
      <input type="date" value=${date} onChange=${(e) => e.currentTarget.value && setDate(e.currentTarget.value)} style="width:auto" />`}>
    <p class="muted">${rows.length} reserveringen, ${covers} gasten.</p>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      <div class="table-wrap"><table class="list" id="reservation-list">
        <thead><tr><th>Tijd</th><th>Naam</th><th class="num">Pers.</th><th>Tafel</th><th>Status</th><th></th></tr></thead>
        <tbody>${rows.map((r) => html`<tr data-reservation=${r.name}>
          <td>${r.time}</td><td>${r.name}${r.notes ? html`<br /><span class="muted">${r.notes}</span>` : null}${r.conflict ? html`<br /><span class="error">${r.conflict}</span>` : null}</td>
          <td class="num">${r.party_size}</td><td>${r.table_name ?? '–'}</td>
          <td><${Pill} kind=${r.status === 'booked' ? 'gereserveerd' : r.status === 'seated' ? 'ok' : 'muted'}>${STATUS[r.status]}</${Pill}> ${r.source === 'web' ? html`<span class="muted">online</span>` : null}</td>
          <td>${r.status === 'booked'
            ? html`<button type="button" disabled=${busy} onClick=${() => set(r.id, 'seated')}>Aan tafel</button>
                <button type="button" disabled=${busy} onClick=${() => set(r.id, 'no_show')}>Niet gekomen</button>
                <button type="button" class="danger" disabled=${busy} onClick=${() => set(r.id, 'cancelled')}>Annuleren</button>`
            : null}</td>
        </tr>`)}</tbody>
      </table></div>
      ${rows.length === 0 ? html`<p class="muted">Geen reserveringen op deze dag.</p>` : null}
    </${Loading}>
  </${Screen}>`;
}
