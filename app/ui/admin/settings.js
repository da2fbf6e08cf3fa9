// Settings of the restaurant (CONTRACT §16): name, address and phone for the guest pages, time zone,
// food-safety margin, loyalty, opening hours and reservations, public ordering pause. Each field's
// error stands beside it with its own label.
import { html } from '../lib/html.js';
import { get, patch } from '../lib/api.js';
import { num } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { Field, FieldError, FormFoot, Loading, Screen, useAsync, useForm } from '../components/ui.js';

export const DAYS = [['mon', 'maandag'], ['tue', 'dinsdag'], ['wed', 'woensdag'], ['thu', 'donderdag'], ['fri', 'vrijdag'], ['sat', 'zaterdag'], ['sun', 'zondag']];
const hoursText = (/** @type {string[][]|undefined} */ h) => (h ?? []).map(([a, b]) => `${a}-${b}`).join(', ');
/** "12:00-14:30, 17:00-22:00" (or empty, "gesloten") → [["12:00","14:30"], ...]; a FieldError when it cannot be read. */
function parseHours(/** @type {string} */ name, /** @type {string} */ t) {
  const text = t.trim().toLowerCase();
  if (text === '' || text === 'gesloten' || text === 'dicht') return [];
  return text.split(',').map((part) => {
    const m = part.trim().match(/^(\d{1,2})[:.](\d{2})\s*(?:-|–|tot)\s*(\d{1,2})[:.](\d{2})$/);
    if (!m) throw new FieldError(name, 'moet zijn als 17:00-22:00 (meer tijden met een komma), of leeg als het restaurant dicht is.');
    return [`${m[1].padStart(2, '0')}:${m[2]}`, `${m[3].padStart(2, '0')}:${m[4]}`];
  });
}

const NUMBERS = [
  ['haccp_margin', 'Temperatuurmarge (°C)', 'Zoveel boven de norm is een waarschuwing; daarboven kritiek.'],
  ['loyalty_points_per_euro', 'Punten per euro', ''],
  ['loyalty_offline_allowance', 'Punten inwisselbaar offline (per klant)', ''],
  ['slot_minutes', 'Tijdvak reserveringen (minuten)', ''],
  ['seating_minutes', 'Tafelduur (minuten)', 'Zo lang houdt een reservering de tafel vast.'],
  ['max_party_size', 'Grootste gezelschap online', 'Grotere gezelschappen bellen; gasten zien uw telefoonnummer.'],
  ['pause_public_orders_after_minutes', 'Online bestellen pauzeren na stilte (minuten)', 'Leeg: nooit pauzeren.'],
];
const TEXTS = [['name', 'Naam van het restaurant', true], ['address', 'Adres (voor gasten)', false], ['phone', 'Telefoonnummer (voor gasten)', false], ['timezone', 'Tijdzone', true]];

function SettingsForm({ d, onSaved }) {
  const form = useForm({
    ...Object.fromEntries(TEXTS.map(([k]) => [k, d[k] ?? ''])),
    ...Object.fromEntries(NUMBERS.map(([k]) => [k, d[k] === null || d[k] === undefined ? '' : num(d[k], 2)])),
    ...Object.fromEntries(DAYS.map(([k]) => [`h_${k}`, hoursText(d.opening_hours?.[k])])),
  });
  return html`<form novalidate class="tile" id="settings-form" onSubmit=${form.submit(async (v) => {
    const body = {
      name: v.name.trim(), timezone: v.timezone.trim(), address: v.address.trim() || null, phone: v.phone.trim() || null,
      opening_hours: Object.fromEntries(DAYS.map(([k]) => [k, parseHours(`h_${k}`, String(v[`h_${k}`]))])),
    };
    for (const [k] of NUMBERS) body[k] = form.number(k, { optional: k === 'pause_public_orders_after_minutes', min: 0 });
    await patch('/settings', body);
    toast('Instellingen opgeslagen.');
    await onSaved();
  }, 'Instellingen opgeslagen.')}>
    <div class="form-grid">
      ${TEXTS.map(([k, label, required]) => html`<${Field} form=${form} name=${k} label=${label} required=${required} maxlength=${k === 'address' ? 200 : 120} autocomplete="off" />`)}
      ${NUMBERS.map(([k, label, hint]) => html`<${Field} form=${form} name=${k} label=${label} hint=${hint} inputmode="decimal" />`)}
    </div>
    <h2>Openingstijden</h2>
    <p class="muted">Per dag de tijden, bijvoorbeeld 12:00-14:30, 17:00-22:00. Leeg is gesloten. Gasten zien ze bij het menu en bij reserveren.</p>
    <div class="form-grid">${DAYS.map(([k, label]) => html`<${Field} form=${form} name=${`h_${k}`} api=${`opening_hours.${k}`} label=${label} placeholder="gesloten" autocomplete="off" />`)}</div>
    <${FormFoot} form=${form} label="Opslaan" big />
  </form>`;
}

export default function Settings() {
  const s = useAsync(() => get('/settings'));
  return html`<${Screen} title="Instellingen" id="settings">
    <${Loading} when=${s.loading && !s.data} error=${s.error}>
      ${s.data ? html`<${SettingsForm} d=${s.data} onSaved=${s.reload} />` : null}
    </${Loading}>
  </${Screen}>`;
}
