// Reservations for staff (issue 26): a day at a time (previous / next day), as a list by time or
// per table; add a booking for a caller or a walk-in, change it (guest, party, moment, table),
// move it to another table, seat it, mark a no-show, cancel it (asked first). A booking that
// collided across sync carries its conflict for staff to resolve by moving or cancelling it.
import { html, useState } from '../lib/html.js';
import { get, patch, post } from '../lib/api.js';
import { addDays, longDay, today } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { toast } from '../lib/store.js';
import { Dialog, ErrorText, Field, FormFoot, Loading, Pill, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

const STATUS = { booked: 'Geboekt', seated: 'Aan tafel', cancelled: 'Geannuleerd', no_show: 'Niet gekomen' };
const KIND = { booked: 'gereserveerd', seated: 'ok', cancelled: 'muted', no_show: 'muted' };
const LABELS = { name: 'Naam', phone: 'Telefoonnummer', party_size: 'Aantal personen', date: 'Datum', time: 'Tijd', table_id: 'Tafel', notes: 'Opmerking', status: 'Status' };
const nowHm = () => {
  const d = new Date();
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
};

/** Add (phone or walk-in) or change a booking: one form, the same Dutch labels, errors beside their field. */
function BookingDialog({ booking, date, tables, walkIn = false, onClose, onSaved }) {
  const editing = !!booking;
  const form = useForm(
    editing
      ? { name: booking.name, phone: booking.phone ?? '', party_size: String(booking.party_size), date: booking.date, time: booking.time, table_id: booking.table_id ?? '', notes: booking.notes ?? '' }
      : { name: walkIn ? 'Inloop' : '', phone: '', party_size: '2', date: walkIn ? today() : date, time: walkIn ? nowHm() : '19:00', table_id: '', notes: '' },
  );
  const title = editing ? `Reservering van ${booking.name} wijzigen` : walkIn ? 'Inloop: gasten zonder reservering' : 'Reservering (telefonisch)';
  const tableOptions = [['', editing ? 'Geen tafel' : 'Kies zelf een passende tafel'], ...tables.map((t) => [t.id, `${t.name} (${t.zone}, ${t.seats} pl.)`])];
  return html`<${Dialog} title=${title} onClose=${onClose} id="booking-dialog">
    <form novalidate id="booking-form" onSubmit=${form.submit(async (v) => {
      const party = form.number('party_size', { min: 1, max: 100, integer: true });
      if (editing) {
        const body = {};
        if (v.name.trim() !== booking.name) body.name = v.name.trim();
        if ((v.phone.trim() || null) !== (booking.phone ?? null)) body.phone = v.phone.trim() || null;
        if (party !== booking.party_size) body.party_size = party;
        if (v.date !== booking.date || v.time !== booking.time) Object.assign(body, { date: v.date, time: v.time });
        if (v.table_id && v.table_id !== booking.table_id) body.table_id = v.table_id;
        if ((v.notes.trim() || null) !== (booking.notes ?? null)) body.notes = v.notes.trim() || null;
        if (Object.keys(body).length === 0) return onClose();
        await patch(`/reservations/${booking.id}`, body);
        toast('Reservering gewijzigd.');
      } else {
        const r = await post('/reservations', {
          name: v.name.trim(), party_size: party, date: v.date, time: v.time,
          ...(v.phone.trim() ? { phone: v.phone.trim() } : {}), ...(v.table_id ? { table_id: v.table_id } : {}), ...(v.notes.trim() ? { notes: v.notes.trim() } : {}),
        });
        toast(`Reservering vastgelegd: ${r.name}, tafel ${r.table_name}.`);
      }
      onSaved();
      onClose();
    }, 'Opgeslagen.')}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="120" autocomplete="off" />
        <${Field} form=${form} name="phone" label=${walkIn ? 'Telefoonnummer (niet nodig)' : LABELS.phone} type="tel" autocomplete="off" />
        <${Field} form=${form} name="party_size" label=${LABELS.party_size} inputmode="numeric" required />
        <${Field} form=${form} name="date" label=${LABELS.date} type="date" required />
        <${Field} form=${form} name="time" label=${LABELS.time} type="time" required />
        <${Field} form=${form} name="table_id" label=${LABELS.table_id} as="select" options=${tableOptions} />
      </div>
      <${Field} form=${form} name="notes" label=${LABELS.notes} as="textarea" rows="2" maxlength="500" />
      <${FormFoot} form=${form} label=${editing ? 'Wijzigingen opslaan' : 'Reservering vastleggen'} />
    </form>
  </${Dialog}>`;
}

/** The buttons of one booking; cancelling asks first. */
function Actions({ r, run, busy, onEdit, reload }) {
  const set = (/** @type {string} */ status) => run(async () => {
    await patch(`/reservations/${r.id}`, { status });
    await reload();
  });
  if (r.status !== 'booked') return r.status === 'no_show' ? html`<button type="button" disabled=${busy} onClick=${() => set('seated')}>Toch aan tafel</button>` : null;
  return html`<div class="row-actions">
    <button type="button" data-action="seated" disabled=${busy} onClick=${() => set('seated')}>Aan tafel</button>
    <button type="button" data-action="edit" disabled=${busy} onClick=${onEdit}>Wijzigen</button>
    <button type="button" data-action="no_show" disabled=${busy} onClick=${() => set('no_show')}>Niet gekomen</button>
    <button type="button" data-action="cancelled" class="danger" disabled=${busy} onClick=${async () => {
      if (await confirmDialog({ title: 'Reservering annuleren?', message: `${r.name}, ${r.time}, ${r.party_size} personen. De tafel komt weer vrij.`, confirmLabel: 'Annuleren', danger: true })) await set('cancelled');
    }}>Annuleren</button>
  </div>`;
}

const Guest = ({ r }) => html`${r.name}
  ${r.phone ? html`<br /><a href=${`tel:${r.phone}`} class="phone">${r.phone}</a>` : null}
  ${r.notes ? html`<br /><span class="muted">${r.notes}</span>` : null}
  ${r.conflict ? html`<br /><span class="error">${r.conflict}</span>` : null}`;

export default function Reservations({ query }) {
  const [date, setDate] = useState(query?.get('datum') || today());
  const [view, setView] = useState('list');
  const [dialog, setDialog] = useState(/** @type {null | { booking?: any, walkIn?: boolean }} */ (null));
  const list = useAsync(() => get(`/reservations?date=${date}`), [date]);
  const plan = useAsync(() => get('/floorplan'));
  const [run, busy, error] = useAction(LABELS);
  useLive(['reservation:changed', 'resync'], () => void list.reload(), [date]);
  const rows = list.data?.data ?? [];
  const tables = (plan.data?.zones ?? []).flatMap((z) => z.tables.map((t) => ({ ...t, zone: z.name })));
  const covers = rows.filter((r) => r.status === 'booked' || r.status === 'seated').reduce((s, r) => s + r.party_size, 0);
  const actions = (r) => html`<${Actions} r=${r} run=${run} busy=${busy} reload=${list.reload} onEdit=${() => setDialog({ booking: r })} />`;
  return html`<${Screen} title="Reserveringen" id="reservations" actions=${html`
      <button type="button" class="primary" id="new-booking" onClick=${() => setDialog({})}>+ Reservering</button>
      <button type="button" id="walk-in" onClick=${() => setDialog({ walkIn: true })}>+ Inloop</button>`}>
    <div class="day-nav tile">
      <button type="button" id="prev-day" onClick=${() => setDate(addDays(date, -1))}>← Vorige dag</button>
      <label class="sr-only" for="res-date">Datum</label>
      <input type="date" id="res-date" value=${date} onChange=${(e) => e.currentTarget.value && setDate(e.currentTarget.value)} />
      <button type="button" id="next-day" onClick=${() => setDate(addDays(date, 1))}>Volgende dag →</button>
      ${date !== today() ? html`<button type="button" onClick=${() => setDate(today())}>Vandaag</button>` : null}
      <div class="tabs" role="group" aria-label="Weergave">
        <button type="button" aria-pressed=${String(view === 'list')} onClick=${() => setView('list')}>Op tijd</button>
        <button type="button" id="view-tables" aria-pressed=${String(view === 'tables')} onClick=${() => setView('tables')}>Per tafel</button>
      </div>
    </div>
    <h2 id="res-day">${longDay(date)}</h2>
    <p class="muted">${rows.length} ${rows.length === 1 ? 'reservering' : 'reserveringen'}, ${covers} ${covers === 1 ? 'gast' : 'gasten'}.</p>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      ${view === 'list'
        ? html`<div class="table-wrap"><table class="list" id="reservation-list">
            <thead><tr><th>Tijd</th><th>Gast</th><th class="num">Personen</th><th>Tafel</th><th>Status</th><th><span class="sr-only">Acties</span></th></tr></thead>
            <tbody>${rows.map((r) => html`<tr data-reservation=${r.name} data-status=${r.status}>
              <td>${r.time}</td><td><${Guest} r=${r} /></td>
              <td class="num">${r.party_size}</td><td class="table-name">${r.table_name ?? '–'}</td>
              <td><${Pill} kind=${KIND[r.status]}>${STATUS[r.status]}</${Pill}> ${r.source === 'web' ? html`<span class="muted">online</span>` : null}</td>
              <td>${actions(r)}</td>
            </tr>`)}</tbody>
          </table></div>
          ${rows.length === 0 ? html`<p class="muted">Geen reserveringen op deze dag.</p>` : null}`
        : html`<div class="per-table" id="per-table">
            ${tables.map((t) => {
              const mine = rows.filter((r) => r.table_id === t.id);
              return html`<section class="tile" data-table=${t.name}>
                <h3><span>Tafel ${t.name}</span> <span class="muted">${t.seats} pl.</span></h3>
                ${mine.length === 0 ? html`<p class="muted">Vrij</p>` : mine.map((r) => html`<div class=${`booking st-${r.status}`} data-reservation=${r.name}>
                  <strong>${r.time}</strong> ${r.party_size} pers. · <${Guest} r=${r} /> <${Pill} kind=${KIND[r.status]}>${STATUS[r.status]}</${Pill}>
                  ${actions(r)}
                </div>`)}
              </section>`;
            })}
          </div>`}
    </${Loading}>
    ${dialog ? html`<${BookingDialog} booking=${dialog.booking} walkIn=${!!dialog.walkIn} date=${date} tables=${tables} onClose=${() => setDialog(null)} onSaved=${() => void list.reload()} />` : null}
  </${Screen}>`;
}
