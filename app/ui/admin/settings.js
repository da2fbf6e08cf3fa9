// Settings of the restaurant (CONTRACT §16): name, time zone, food safety margin, loyalty, opening
// hours and reservations, public ordering pause.
import { html, useState } from '../lib/html.js';
import { get, patch } from '../lib/api.js';
import { toast } from '../lib/store.js';
import { ErrorText, Loading, Screen, useAction, useAsync } from '../components/ui.js';

const DAYS = [['mon', 'maandag'], ['tue', 'dinsdag'], ['wed', 'woensdag'], ['thu', 'donderdag'], ['fri', 'vrijdag'], ['sat', 'zaterdag'], ['sun', 'zondag']];
const hoursText = (/** @type {string[][]|undefined} */ h) => (h ?? []).map(([a, b]) => `${a}-${b}`).join(', ');
const parseHours = (/** @type {string} */ t) => t.split(',').map((s) => s.trim()).filter(Boolean).map((s) => s.split('-').map((x) => x.trim()));

const NUMBERS = [
  ['haccp_margin', 'Temperatuurmarge (°C)'], ['loyalty_points_per_euro', 'Punten per euro'], ['loyalty_offline_allowance', 'Punten inwisselbaar offline (per klant)'],
  ['slot_minutes', 'Tijdvak reserveringen (min)'], ['seating_minutes', 'Tafelduur (min)'], ['max_party_size', 'Grootste gezelschap'], ['pause_public_orders_after_minutes', 'Online bestellen pauzeren na stilte (min, leeg = nooit)'],
];

export default function Settings() {
  const s = useAsync(() => get('/settings'));
  const [run, busy, error] = useAction();
  const [ok, setOk] = useState(false);
  const d = s.data;
  return html`<${Screen} title="Instellingen" id="settings">
    <${Loading} when=${s.loading && !d} error=${s.error}>
      ${d
        ? html`<form class="tile" id="settings-form" onSubmit=${(e) => {
            e.preventDefault();
            const f = Object.fromEntries(new FormData(e.currentTarget));
            const body = { name: f.name, timezone: f.timezone, opening_hours: Object.fromEntries(DAYS.map(([k]) => [k, parseHours(String(f[`h_${k}`]))])) };
            for (const [k] of NUMBERS) body[k] = f[k] === '' ? null : Number(String(f[k]).replace(',', '.'));
            void run(async () => {
              await patch('/settings', body);
              toast('Instellingen opgeslagen.');
              setOk(true);
              await s.reload();
            });
          }}>
            <div class="grid">
              <div><label>Naam</label><input name="name" value=${d.name} required /></div>
              <div><label>Tijdzone</label><input name="timezone" value=${d.timezone} required /></div>
              ${NUMBERS.map(([k, label]) => html`<div><label>${label}</label><input name=${k} inputmode="decimal" value=${d[k] ?? ''} /></div>`)}
            </div>
            <h2>Openingstijden</h2>
            <div class="grid">${DAYS.map(([k, label]) => html`<div><label>${label}</label><input name=${`h_${k}`} value=${hoursText(d.opening_hours?.[k])} placeholder="gesloten, of 17:00-22:00" /></div>`)}</div>
            <${ErrorText} text=${error} />
            <button type="submit" class="primary big" disabled=${busy}>${ok ? 'Opgeslagen' : 'Opslaan'}</button>
          </form>`
        : null}
    </${Loading}>
  </${Screen}>`;
}
