// Shifts and payroll for the manager (issue 26): a week at a time, hours per employee per day, every
// shift with its corrections (the original times are kept by the server and shown here), a shift
// entered by hand, and the payroll CSV for the week or the month.
import { html, useState } from '../lib/html.js';
import { get, patch, post } from '../lib/api.js';
import { addDays, dateTime, day, euro, hours, shortDay, time, today, weekStart, ymd } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { Dialog, Field, FieldError, FormFoot, Loading, Pill, Screen, useAsync, useForm } from '../components/ui.js';

const LABELS = { start: 'Begin', end: 'Einde', break_minutes: 'Pauze (minuten)', reason: 'Reden', user_id: 'Medewerker', note: 'Notitie' };
const hm = (/** @type {string} */ iso) => time(iso);
const localYmd = (/** @type {string} */ iso) => ymd(new Date(iso));
/** A local date and HH:MM → ISO instant (the tablet's zone is the restaurant's). */
const instant = (/** @type {string} */ d, /** @type {string} */ t) => new Date(`${d}T${t}`).toISOString();

function ShiftDialog({ shift, users, onClose, onSaved }) {
  const editing = !!shift;
  const detail = useAsync(() => (editing ? get(`/shifts/${shift.id}`) : Promise.resolve(null)), [shift?.id]);
  const start = shift ? new Date(shift.start) : null;
  const form = useForm(
    editing
      ? { date: localYmd(shift.start), start: hm(shift.start), end: shift.end ? hm(shift.end) : '', break_minutes: String(shift.break_minutes), reason: '' }
      : { user_id: users[0]?.id ?? '', date: today(), start: '17:00', end: '23:00', break_minutes: '30', note: '' },
  );
  return html`<${Dialog} title=${editing ? `Dienst van ${shift.user_name} corrigeren` : 'Dienst invoeren'} onClose=${onClose} id="shift-dialog" wide>
    <form novalidate id="shift-form" onSubmit=${form.submit(async (v) => {
      const brk = form.number('break_minutes', { min: 0, max: 600, integer: true, optional: true }) ?? 0;
      if (!v.start) throw new FieldError('start', 'is verplicht.');
      const s = instant(v.date, v.start);
      let e = v.end ? instant(v.date, v.end) : null;
      if (e && e <= s) e = instant(addDays(v.date, 1), v.end); // a shift past midnight
      if (editing) {
        const body = { ...(s !== shift.start ? { start: s } : {}), ...(e && e !== shift.end ? { end: e } : {}), ...(brk !== shift.break_minutes ? { break_minutes: brk } : {}) };
        if (Object.keys(body).length === 0) throw new Error('Er is niets veranderd.');
        if (!v.reason.trim()) throw new FieldError('reason', 'is verplicht bij een correctie (het staat bij de oorspronkelijke tijden).');
        await patch(`/shifts/${shift.id}`, { ...body, reason: v.reason.trim() });
        toast('Dienst gecorrigeerd; de oorspronkelijke tijden zijn bewaard.');
      } else {
        if (!e) throw new FieldError('end', 'is verplicht.');
        await post('/shifts', { user_id: v.user_id, start: s, end: e, break_minutes: brk, ...(v.note.trim() ? { note: v.note.trim() } : {}) });
        toast('Dienst ingevoerd.');
      }
      onSaved();
      onClose();
    })}>
      <div class="form-grid">
        ${editing ? null : html`<${Field} form=${form} name="user_id" label=${LABELS.user_id} as="select" options=${users.map((u) => [u.id, u.name])} />`}
        <${Field} form=${form} name="date" label="Datum" type="date" api="start" required />
        <${Field} form=${form} name="start" label=${LABELS.start} type="time" required />
        <${Field} form=${form} name="end" label=${LABELS.end} type="time" required=${!editing} hint=${editing && !shift.end ? 'Nog ingeklokt: een einde sluit de dienst.' : ''} />
        <${Field} form=${form} name="break_minutes" label=${LABELS.break_minutes} inputmode="numeric" />
      </div>
      ${editing
        ? html`<${Field} form=${form} name="reason" label=${LABELS.reason} required maxlength="500" placeholder="bv. vergeten uit te klokken" autocomplete="off" />`
        : html`<${Field} form=${form} name="note" label=${LABELS.note} maxlength="500" autocomplete="off" />`}
      <${FormFoot} form=${form} label=${editing ? 'Correctie opslaan' : 'Dienst opslaan'} />
    </form>
    ${editing && start
      ? html`<${Loading} when=${detail.loading && !detail.data} error=${detail.error}>
          ${(detail.data?.corrections ?? []).length
            ? html`<h3>Eerdere correcties</h3><ul class="plain" id="corrections">${detail.data.corrections.map((c) => html`<li>
                ${dateTime(c.created_at)} door ${c.changed_by_name ?? 'onbekend'}${c.reason ? `: ${c.reason}` : ''}<br />
                <span class="muted">was ${dateTime(c.before.start)}–${c.before.end ? hm(c.before.end) : 'open'}, pauze ${c.before.break_minutes} min → ${dateTime(c.after.start)}–${c.after.end ? hm(c.after.end) : 'open'}, pauze ${c.after.break_minutes} min</span>
              </li>`)}</ul>`
            : html`<p class="muted">Nog niet eerder gecorrigeerd.</p>`}
        </${Loading}>`
      : null}
  </${Dialog}>`;
}

export default function ShiftsAdmin() {
  const [week, setWeek] = useState(weekStart(today()));
  const [dialog, setDialog] = useState(/** @type {any} */ (null));
  const end = addDays(week, 6);
  const shifts = useAsync(() => get(`/shifts?from=${week}&to=${end}`), [week]);
  const users = useAsync(() => get('/users'));
  const days = [0, 1, 2, 3, 4, 5, 6].map((i) => addDays(week, i));
  const list = shifts.data?.data ?? [];
  const staff = (users.data?.data ?? []).filter((u) => u.role === 'staff' || list.some((s) => s.user_id === u.id));
  const minutes = (/** @type {string} */ uid, /** @type {string} */ d) => list.filter((s) => s.user_id === uid && localYmd(s.start) === d).reduce((n, s) => n + (s.worked_minutes ?? 0), 0);
  const monthFrom = `${week.slice(0, 7)}-01`;
  const monthTo = addDays(`${ymd(new Date(Number(week.slice(0, 4)), Number(week.slice(5, 7)), 1))}`, -1);
  return html`<${Screen} title="Diensten en loon" id="shifts-admin" actions=${html`<button type="button" class="primary" id="new-shift" onClick=${() => setDialog({})}>+ Dienst</button>`}>
    <div class="day-nav tile">
      <button type="button" id="prev-week" onClick=${() => setWeek(addDays(week, -7))}>← Vorige week</button>
      <strong id="week-label">Week van ${shortDay(week)} t/m ${shortDay(end)}</strong>
      <button type="button" id="next-week" onClick=${() => setWeek(addDays(week, 7))}>Volgende week →</button>
      <a class="button" id="payroll-week" href=${`/api/v1/shifts/export-payroll?from=${week}&to=${end}`} download=${`loonlijst-${week}-${end}.csv`}>Loonlijst deze week (CSV)</a>
      <a class="button" id="payroll-month" href=${`/api/v1/shifts/export-payroll?from=${monthFrom}&to=${monthTo}`} download=${`loonlijst-${monthFrom.slice(0, 7)}.csv`}>Loonlijst hele maand (CSV)</a>
    </div>
    <${Loading} when=${(shifts.loading && !shifts.data) || (users.loading && !users.data)} error=${shifts.error || users.error}>
      <h2>Uren per dag</h2>
      <div class="table-wrap"><table class="list week" id="week-hours">
        <thead><tr><th>Medewerker</th>${days.map((d) => html`<th class="num">${day(d)}</th>`)}<th class="num">Totaal</th><th class="num">Bruto</th></tr></thead>
        <tbody>${staff.map((u) => {
          const total = days.reduce((n, d) => n + minutes(u.id, d), 0);
          return html`<tr data-user=${u.name}><td>${u.name}${u.job ? html` <span class="muted">${u.job}</span>` : null}</td>
            ${days.map((d) => html`<td class="num">${minutes(u.id, d) ? hours(minutes(u.id, d)) : ''}</td>`)}
            <td class="num"><strong>${hours(total)}</strong></td><td class="num">${u.hourly_wage_cents ? euro(Math.round((total / 60) * u.hourly_wage_cents)) : '–'}</td></tr>`;
        })}</tbody>
      </table></div>
      <h2>Diensten</h2>
      ${list.length === 0 ? html`<p class="muted">Geen diensten in deze week.</p>` : null}
      <div class="table-wrap"><table class="list" id="shift-list">
        <thead><tr><th>Medewerker</th><th>Dag</th><th>Van</th><th>Tot</th><th class="num">Pauze</th><th class="num">Gewerkt</th><th>Soort</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${list.map((s) => html`<tr data-shift=${s.id}>
          <td>${s.user_name}</td><td>${day(localYmd(s.start))}</td><td>${hm(s.start)}</td><td>${s.end ? hm(s.end) : html`<${Pill} kind="gereserveerd">ingeklokt</${Pill}>`}</td>
          <td class="num">${s.break_minutes} min</td><td class="num">${hours(s.worked_minutes)}</td>
          <td>${s.source === 'admin' ? 'ingevoerd' : 'geklokt'} ${s.corrected ? html`<${Pill} kind="waarschuwing">gecorrigeerd</${Pill}>` : null} ${s.overlaps ? html`<${Pill} kind="kritiek">overlapt</${Pill}>` : null}</td>
          <td><button type="button" data-action="correct" onClick=${() => setDialog({ shift: s })}>Corrigeren</button></td>
        </tr>`)}</tbody>
      </table></div>
    </${Loading}>
    ${dialog ? html`<${ShiftDialog} shift=${dialog.shift} users=${staff} onClose=${() => setDialog(null)} onSaved=${() => void shifts.reload()} />` : null}
  </${Screen}>`;
}
