// Food safety at the unit: register a temperature (the status ok / waarschuwing / kritiek is shown
// at once), and the open incidents with a corrective action to record. A kritiek reading anywhere
// arrives live (haccp:incident).
import { html, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, num } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { toast } from '../lib/store.js';
import { ErrorText, Loading, Pill, Screen, useAction, useAsync } from '../components/ui.js';

const STATUS = { ok: 'OK', waarschuwing: 'Waarschuwing', kritiek: 'Kritiek' };

function Incident({ incident, onDone }) {
  const [note, setNote] = useState('');
  const [run, busy, error] = useAction();
  return html`<li class="tile incident" data-incident=${incident.id}>
    <p><${Pill} kind="kritiek">Open</${Pill}> ${incident.description} <span class="muted">${dateTime(incident.created_at)}</span></p>
    <form class="inline" onSubmit=${(e) => {
      e.preventDefault();
      void run(async () => {
        await post(`/haccp/incidents/${incident.id}/actions`, { note });
        toast('Corrigerende maatregel vastgelegd.');
        onDone();
      });
    }}>
      <div><label>Corrigerende maatregel</label><input name="note" required maxlength="1000" placeholder="bv. product weggegooid, monteur gebeld" value=${note} onInput=${(e) => setNote(e.currentTarget.value)} /></div>
      <button type="submit" class="primary" disabled=${busy || !note.trim()}>Vastleggen</button>
    </form>
    <${ErrorText} text=${error} />
  </li>`;
}

export default function Haccp() {
  const units = useAsync(() => get('/haccp/units'));
  const incidents = useAsync(() => get('/haccp/incidents?status=open'));
  const [unitName, setUnitName] = useState('');
  const [temperature, setTemperature] = useState('');
  const [last, setLast] = useState(/** @type {any} */ (null));
  const [run, busy, error] = useAction();
  useLive(['haccp:incident', 'resync'], () => void incidents.reload());
  const list = units.data?.data ?? [];
  const unit = list.find((u) => u.name === unitName) ?? list[0];
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    void run(async () => {
      const log = await post('/haccp/temperature', { unit_name: unit.name, temperature: Number(temperature.replace(',', '.')) });
      setLast(log);
      setTemperature('');
      if (log.status === 'kritiek') void incidents.reload();
    });
  };
  return html`<${Screen} title="Temperaturen" id="haccp">
    <${Loading} when=${units.loading && !units.data} error=${units.error}>
      ${list.length === 0
        ? html`<p class="muted">Nog geen koelcellen of vriezers. Een beheerder registreert ze (of registreer een meting via de API met type en maximum).</p>`
        : html`<form id="temperature-form" class="tile inline" onSubmit=${submit}>
            <div><label for="unit">Koelcel, vriezer …</label>
              <select id="unit" value=${unit?.name} onChange=${(e) => setUnitName(e.currentTarget.value)}>
                ${list.map((u) => html`<option value=${u.name}>${u.name} (max ${num(u.target_max, 1)} °C)</option>`)}
              </select></div>
            <div><label for="temperature">Temperatuur (°C)</label><input id="temperature" inputmode="decimal" required value=${temperature} onInput=${(e) => setTemperature(e.currentTarget.value)} /></div>
            <button type="submit" class="primary big" disabled=${busy || !temperature}>Registreren</button>
          </form>`}
    </${Loading}>
    <${ErrorText} text=${error} />
    ${last
      ? html`<p id="temperature-result" class="tile" data-status=${last.status}>
          ${last.unit_name}: ${num(last.temperature, 2)} °C <${Pill} kind=${last.status}>${STATUS[last.status]}</${Pill}>
          <span class="muted"> (maximum ${num(last.target_max, 2)} °C, marge ${num(last.margin, 2)} °C)</span>
          ${last.status === 'kritiek' ? html`<br /><strong>Er is een incident geopend: leg hieronder vast wat je hebt gedaan.</strong>` : null}
        </p>`
      : null}
    <h2>Open incidenten</h2>
    <${Loading} when=${incidents.loading && !incidents.data} error=${incidents.error}>
      ${(incidents.data?.data ?? []).length === 0
        ? html`<p class="muted" id="no-incidents">Geen open incidenten.</p>`
        : html`<ul class="plain" id="incidents">${incidents.data.data.map((i) => html`<${Incident} key=${i.id} incident=${i} onDone=${() => void incidents.reload()} />`)}</ul>`}
    </${Loading}>
  </${Screen}>`;
}
