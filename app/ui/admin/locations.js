// Stock locations (cold store, freezer, bar, dry store): exactly one is the default (deliveries land
// there unless staff choose another). A location can be renamed; deleting one asks first.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { toast } from '../lib/store.js';
import { ErrorText, Field, FormFoot, Loading, Pill, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

function Row({ l, onChanged, run, busy }) {
  const [editing, setEditing] = useState(false);
  const form = useForm({ name: l.name });
  if (editing) {
    return html`<tr><td colspan="2"><form novalidate class="inline" onSubmit=${form.submit(async (v) => { await patch(`/locations/${l.id}`, { name: v.name.trim() }); setEditing(false); onChanged(); })}>
      <${Field} form=${form} name="name" label=${`Nieuwe naam voor ${l.name}`} required maxlength="80" />
      <${FormFoot} form=${form} label="Opslaan"><button type="button" onClick=${() => setEditing(false)}>Annuleren</button></${FormFoot}>
    </form></td></tr>`;
  }
  return html`<tr data-location=${l.name}><td>${l.name} ${l.is_default ? html`<${Pill} kind="ok">standaard</${Pill}>` : null}</td>
    <td><div class="row-actions">
      <button type="button" onClick=${() => setEditing(true)}>Naam wijzigen</button>
      ${l.is_default ? null : html`<button type="button" disabled=${busy} onClick=${() => run(async () => { await patch(`/locations/${l.id}`, { is_default: true }); onChanged(); })}>Maak standaard</button>
        <button type="button" class="danger" disabled=${busy} onClick=${async () => {
          if (await confirmDialog({ title: `Locatie ${l.name} verwijderen?`, message: 'Alleen een lege locatie kan weg; haar mutaties blijven in de geschiedenis.' })) await run(async () => { await del(`/locations/${l.id}`); toast(`${l.name} verwijderd.`); onChanged(); });
        }}>Verwijderen</button>`}
    </div></td></tr>`;
}

export default function Locations() {
  const list = useAsync(() => get('/locations'));
  const [run, busy, error] = useAction({ name: 'naam' });
  const form = useForm({ name: '' });
  return html`<${Screen} title="Locaties" id="locations">
    <form novalidate class="tile inline" id="location-form" onSubmit=${form.submit(async (v) => { await post('/locations', { name: v.name.trim() }); form.reset({ name: '' }); await list.reload(); }, 'Locatie toegevoegd.')}>
      <${Field} form=${form} name="name" label="Nieuwe locatie" required maxlength="80" placeholder="bv. Vriezer" autocomplete="off" />
      <${FormFoot} form=${form} label="Toevoegen" />
    </form>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      <table class="list" id="location-list"><thead><tr><th>Locatie</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${(list.data?.data ?? []).map((l) => html`<${Row} key=${l.id} l=${l} run=${run} busy=${busy} onChanged=${() => void list.reload()} />`)}</tbody></table>
    </${Loading}>
  </${Screen}>`;
}
