// Clock in and out: the logged-in employee's open shift and the last two weeks.
import { html } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, time } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { ErrorText, Loading, Screen, useAction, useAsync } from '../components/ui.js';

const hours = (/** @type {number|null} */ m) => (m === null ? '–' : `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}`);

export default function Shifts() {
  const me = useAsync(() => get('/shifts/me'));
  const [run, busy, error] = useAction();
  const open = me.data?.open;
  return html`<${Screen} title="In- en uitklokken" id="shifts">
    <${Loading} when=${me.loading && !me.data} error=${me.error}>
      <div class="tile">
        ${open
          ? html`<p id="clock-state">Ingeklokt sinds <strong>${time(open.start)}</strong>.</p>
              <button type="button" id="clock-out" class="primary big" disabled=${busy} onClick=${() => run(async () => { await post('/shifts/clock-out'); toast('Uitgeklokt.'); await me.reload(); })}>Uitklokken</button>`
          : html`<p id="clock-state">Je bent niet ingeklokt.</p>
              <button type="button" id="clock-in" class="primary big" disabled=${busy} onClick=${() => run(async () => { await post('/shifts/clock-in'); toast('Ingeklokt.'); await me.reload(); })}>Inklokken</button>`}
        <${ErrorText} text=${error} />
      </div>
      <h2>Laatste twee weken</h2>
      <div class="table-wrap"><table class="list"><thead><tr><th>Begin</th><th>Einde</th><th class="num">Pauze</th><th class="num">Gewerkt</th></tr></thead>
        <tbody>${(me.data?.data ?? []).map((s) => html`<tr><td>${dateTime(s.start)}</td><td>${s.end ? dateTime(s.end) : 'nu'}</td><td class="num">${s.break_minutes} min</td><td class="num">${hours(s.worked_minutes)}</td></tr>`)}</tbody></table></div>
    </${Loading}>
  </${Screen}>`;
}
