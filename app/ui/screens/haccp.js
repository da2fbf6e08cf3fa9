// Food safety at the unit: today's round (readings still owed per unit, checklists done or not), a
// temperature to register (the screen opens without a unit chosen; it shows the chosen unit's
// norm, ≤ max and ≥ min, and asks before a reading that would open a kritiek incident), the open
// incidents with a corrective action to record, and the inspector's export (print or PDF).
import { html, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, num, time } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { toast } from '../lib/store.js';
import { Field, FieldError, FormFoot, Loading, Pill, Screen, confirmDialog, useAsync, useForm } from '../components/ui.js';

const STATUS = { ok: 'OK', waarschuwing: 'Waarschuwing', kritiek: 'Kritiek' };
const c = (/** @type {number} */ t) => `${num(t, 1)} °C`;

/** The unit's norm in words a cook reads at a glance: "≤ 7 °C", "≥ 60 °C en ≤ 90 °C". */
export const norm = (/** @type {{ target_max: number, target_min: number|null }} */ u) =>
  u.target_min === null || u.target_min === undefined ? `≤ ${c(u.target_max)}` : `≥ ${c(u.target_min)} en ≤ ${c(u.target_max)}`;

/** The server's rule (CONTRACT §9, haccp.rules.ts) to warn before sending; the server decides. */
export function expectedStatus(/** @type {number} */ t, /** @type {{ target_max: number, target_min: number|null }} */ u, /** @type {number} */ margin) {
  const h = (/** @type {number} */ x) => Math.round(x * 100);
  const judge = (/** @type {number} */ d) => (d <= 0 ? 0 : d <= h(margin) ? 1 : 2);
  const worst = Math.max(judge(h(t) - h(u.target_max)), u.target_min === null || u.target_min === undefined ? 0 : judge(h(u.target_min) - h(t)));
  return ['ok', 'waarschuwing', 'kritiek'][worst];
}

function Incident({ incident, onDone }) {
  const form = useForm({ note: '' });
  return html`<li class="tile incident" data-incident=${incident.id}>
    <p><${Pill} kind="kritiek">Open</${Pill}> ${incident.description} <span class="muted">${dateTime(incident.created_at)}</span></p>
    <form novalidate class="inline" onSubmit=${form.submit(async (v) => {
      await post(`/haccp/incidents/${incident.id}/actions`, { note: v.note.trim() });
      toast('Corrigerende maatregel vastgelegd.');
      onDone();
    }, 'Vastgelegd.')}>
      <${Field} form=${form} name="note" label="Corrigerende maatregel" required maxlength="1000" placeholder="bv. product weggegooid, monteur gebeld" autocomplete="off" />
      <${FormFoot} form=${form} label="Vastleggen" />
    </form>
  </li>`;
}

function TemperatureForm({ units, margin, onLogged }) {
  // Never a unit chosen for the cook by accident (issue 26: a fridge reading logged at the
  // bain-marie): the cook picks it; the list says which still owe a reading today.
  const form = useForm({ unit: '', temperature: '' });
  const unit = units.find((u) => u.id === form.values.unit);
  return html`<form novalidate id="temperature-form" class="tile inline" onSubmit=${form.submit(async () => {
    if (!unit) throw new FieldError('unit', 'is nog niet gekozen.');
    const t = form.number('temperature', { min: -60, max: 150 });
    if (expectedStatus(t, unit, margin) === 'kritiek') {
      const yes = await confirmDialog({
        title: 'Kritieke temperatuur',
        message: `${c(t)} bij ${unit.name} valt buiten de norm (${norm(unit)}, marge ${c(margin)}). Vastleggen opent een incident dat in het HACCP-overzicht voor de inspecteur blijft. Klopt de koelcel en de meting?`,
        confirmLabel: 'Ja, vastleggen',
      });
      if (!yes) throw new Error('Niet vastgelegd: kies de juiste koelcel of meet opnieuw.');
    }
    const log = await post('/haccp/temperature', { unit_name: unit.name, temperature: t });
    form.setValues((cur) => ({ ...cur, temperature: '' }));
    onLogged(log);
  }, 'Meting vastgelegd.')}>
    <${Field} form=${form} name="unit" label="Koelcel, vriezer of bain-marie" as="select" required
      options=${[['', 'Kies…'], ...units.map((u) => [u.id, `${u.name} (${norm(u)})${u.due_today ? ` · nog ${u.due_today} meting${u.due_today === 1 ? '' : 'en'}` : ''}`])]} />
    <${Field} form=${form} name="temperature" label="Temperatuur (°C)" inputmode="decimal" required autocomplete="off"
      hint=${unit ? `Norm: ${norm(unit)}` : 'Kies eerst waar je meet.'} />
    <${FormFoot} form=${form} label="Registreren" />
  </form>`;
}

export default function Haccp() {
  const today = useAsync(() => get('/haccp/today'));
  const incidents = useAsync(() => get('/haccp/incidents?status=open'));
  const [last, setLast] = useState(/** @type {any} */ (null));
  const [days, setDays] = useState('30');
  useLive(['haccp:incident', 'resync'], () => void incidents.reload());
  const d = today.data;
  const units = d?.units ?? [];
  return html`<${Screen} title="Temperaturen" id="haccp">
    <${Loading} when=${today.loading && !d} error=${today.error}>
      ${units.length === 0
        ? html`<p class="muted">Nog geen koelcellen of vriezers. Een beheerder legt ze vast onder Koelcellen en lijsten.</p>`
        : html`<${TemperatureForm} key=${units.map((u) => u.id).join()} units=${units} margin=${d.margin} onLogged=${(log) => {
            setLast(log);
            void today.reload();
            if (log.status === 'kritiek') void incidents.reload();
          }} />`}
    </${Loading}>
    ${last
      ? html`<p id="temperature-result" class="tile" data-status=${last.status} role="status">
          ${last.unit_name}: ${c(last.temperature)} <${Pill} kind=${last.status}>${STATUS[last.status]}</${Pill}>
          <span class="muted"> (norm ${norm(last)}, marge ${c(last.margin)})</span>
          ${last.status === 'kritiek' ? html`<br /><strong>Er is een incident geopend: leg hieronder vast wat je hebt gedaan.</strong>` : null}
        </p>`
      : null}
    ${d
      ? html`<h2>Vandaag</h2>
        ${!d.open ? html`<p class="muted">Vandaag is het restaurant gesloten: er zijn geen metingen verplicht.</p>` : null}
        <ul class="due-list" id="due-list">
          ${units.map((u) => html`<li class=${u.due_today ? 'due' : ''} data-unit=${u.name}>
            <strong>${u.name}</strong> <span class="norm">${norm(u)}</span><br />
            ${u.readings_per_day ? `${u.recorded_today} van ${u.readings_per_day} metingen` : `${u.recorded_today} metingen (geen verplicht)`}
            ${u.last ? html`<br /><span class="muted">laatste ${time(u.last.created_at)}: ${c(u.last.temperature)}</span> <${Pill} kind=${u.last.status}>${STATUS[u.last.status]}</${Pill}>` : null}
          </li>`)}
          ${d.checklists.map((l) => html`<li class=${l.done ? '' : 'due'}><strong>${l.name}</strong><br />${l.done ? 'afgevinkt' : l.frequency === 'daily' ? `nog doen, vóór ${l.deadline}` : 'nog doen deze week'}</li>`)}
        </ul>`
      : null}
    <h2>Open incidenten</h2>
    <${Loading} when=${incidents.loading && !incidents.data} error=${incidents.error}>
      ${(incidents.data?.data ?? []).length === 0
        ? html`<p class="muted" id="no-incidents">Geen open incidenten.</p>`
        : html`<ul class="plain" id="incidents">${incidents.data.data.map((i) => html`<${Incident} key=${i.id} incident=${i} onDone=${() => void incidents.reload()} />`)}</ul>`}
    </${Loading}>
    <h2>Overzicht voor de inspecteur</h2>
    <div class="tile inline export-links">
      <div class="field"><label for="export-days">Periode</label>
        <select id="export-days" value=${days} onChange=${(e) => setDays(e.currentTarget.value)}>${[['7', 'laatste 7 dagen'], ['30', 'laatste 30 dagen'], ['90', 'laatste 90 dagen'], ['365', 'laatste jaar']].map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></div>
      <a class="button" id="export-print" href=${`/api/v1/haccp/export?days=${days}&format=html`} target="_blank" rel="noopener">Afdrukken</a>
      <a class="button" id="export-pdf" href=${`/api/v1/haccp/export?days=${days}&format=pdf`} target="_blank" rel="noopener">PDF</a>
    </div>
  </${Screen}>`;
}
