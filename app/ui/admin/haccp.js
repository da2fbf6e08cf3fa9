// Food safety set-up (issue 26): the temperature points with their norms (≤ maximum, and ≥ minimum
// for warm holding), readings a day, and the checklists with their items. Archiving asks first;
// earlier readings and runs stay in the inspector's export.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { num } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { Dialog, ErrorText, Field, FieldError, FormFoot, Loading, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';
import { norm } from '../screens/haccp.js';

const TYPES = [['koelcel', 'Koelcel'], ['koelkast', 'Koelkast'], ['koelvitrine', 'Koelvitrine'], ['vriezer', 'Vriezer'], ['warmhoud', 'Warmhouden (bain-marie)'], ['overig', 'Overig']];
const TYPE = Object.fromEntries(TYPES);
const WEEKDAYS = [['mon', 'maandag'], ['tue', 'dinsdag'], ['wed', 'woensdag'], ['thu', 'donderdag'], ['fri', 'vrijdag'], ['sat', 'zaterdag'], ['sun', 'zondag']];
const LABELS = { name: 'Naam', unit_type: 'Soort', target_max: 'Maximum (≤ °C)', target_min: 'Minimum (≥ °C)', readings_per_day: 'Metingen per dag', frequency: 'Hoe vaak', deadline: 'Klaar vóór', weekday: 'Dag', items: 'Punten' };

function UnitDialog({ unit, onClose, onSaved }) {
  const editing = !!unit?.id;
  const u = unit ?? {};
  const form = useForm({
    name: u.name ?? '', unit_type: u.unit_type ?? 'koelcel', target_max: u.target_max === undefined ? '7' : num(u.target_max, 1),
    target_min: u.target_min === null || u.target_min === undefined ? '' : num(u.target_min, 1), readings_per_day: String(u.readings_per_day ?? 2),
  });
  const warm = form.values.unit_type === 'warmhoud';
  return html`<${Dialog} title=${editing ? `${u.name} wijzigen` : 'Nieuwe koelcel, vriezer of bain-marie'} onClose=${onClose} id="unit-dialog">
    <form novalidate id="unit-form" onSubmit=${form.submit(async (v) => {
      const max = form.number('target_max', { min: -60, max: 150 });
      const min = form.number('target_min', { min: -60, max: 150, optional: true });
      if (warm && min === null) throw new FieldError('target_min', 'is nodig bij warmhouden (meestal 60 °C).');
      if (min !== null && min >= max) throw new FieldError('target_min', 'moet lager zijn dan het maximum.');
      const body = { name: v.name.trim(), unit_type: v.unit_type, target_max: max, target_min: min, readings_per_day: form.number('readings_per_day', { min: 0, max: 24, integer: true }) };
      if (editing) await patch(`/haccp/units/${u.id}`, body);
      else await post('/haccp/units', body);
      toast(`${body.name} opgeslagen.`);
      onSaved();
      onClose();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="80" autocomplete="off" />
        <${Field} form=${form} name="unit_type" label=${LABELS.unit_type} as="select" options=${TYPES} />
        <${Field} form=${form} name="target_max" label=${LABELS.target_max} inputmode="decimal" required hint="De temperatuur mag hoogstens dit zijn." />
        <${Field} form=${form} name="target_min" label=${LABELS.target_min} inputmode="decimal" required=${warm} hint=${warm ? 'Warm houden: minstens dit (meestal 60 °C).' : 'Alleen bij warmhouden; anders leeg.'} />
        <${Field} form=${form} name="readings_per_day" label=${LABELS.readings_per_day} inputmode="numeric" />
      </div>
      <${FormFoot} form=${form} />
    </form>
  </${Dialog}>`;
}

function ChecklistDialog({ list, onClose, onSaved }) {
  const editing = !!list?.id;
  const l = list ?? {};
  const form = useForm({ name: l.name ?? '', frequency: l.frequency ?? 'daily', deadline: l.deadline ?? '11:00', weekday: l.weekday ?? 'mon', items: (l.items ?? []).map((i) => i.label).join('\n') });
  return html`<${Dialog} title=${editing ? `${l.name} wijzigen` : 'Nieuwe controlelijst'} onClose=${onClose} id="checklist-dialog">
    <form novalidate id="checklist-form" onSubmit=${form.submit(async (v) => {
      const labels = String(v.items).split('\n').map((x) => x.trim()).filter(Boolean);
      if (labels.length === 0) throw new FieldError('items', 'moet minstens één punt bevatten (één per regel).');
      const old = new Map((l.items ?? []).map((i) => [i.label, i.id]));
      const items = labels.map((label) => (old.has(label) ? { id: old.get(label), label } : { label }));
      const body = { name: v.name.trim(), frequency: v.frequency, deadline: v.deadline, ...(v.frequency === 'weekly' ? { weekday: v.weekday } : editing ? { weekday: null } : {}), items };
      if (editing) await patch(`/haccp/checklists/${l.id}`, body);
      else await post('/haccp/checklists', { ...body, items: labels.map((label) => ({ label })) });
      toast(`${body.name} opgeslagen.`);
      onSaved();
      onClose();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="80" autocomplete="off" />
        <${Field} form=${form} name="frequency" label=${LABELS.frequency} as="select" options=${[['daily', 'Dagelijks'], ['weekly', 'Wekelijks']]} />
        <${Field} form=${form} name="deadline" label=${LABELS.deadline} type="time" required />
        ${form.values.frequency === 'weekly' ? html`<${Field} form=${form} name="weekday" label=${LABELS.weekday} as="select" options=${WEEKDAYS} />` : null}
      </div>
      <${Field} form=${form} name="items" label="Punten (één per regel)" as="textarea" rows="6" required />
      <${FormFoot} form=${form} />
    </form>
  </${Dialog}>`;
}

export default function HaccpAdmin() {
  const units = useAsync(() => get('/haccp/units'));
  const lists = useAsync(() => get('/haccp/checklists'));
  const [dialog, setDialog] = useState(/** @type {null | { unit?: any, list?: any }} */ (null));
  const [run, busy, error] = useAction(LABELS);
  const archive = async (/** @type {string} */ what, /** @type {string} */ name, /** @type {string} */ path, /** @type {() => void} */ reload) => {
    if (await confirmDialog({ title: `${name} verwijderen?`, message: `${what} Eerdere gegevens blijven in het HACCP-overzicht voor de inspecteur.` })) {
      await run(async () => { await del(path); toast(`${name} verwijderd.`); reload(); });
    }
  };
  return html`<${Screen} title="Koelcellen en controlelijsten" id="haccp-admin">
    <${ErrorText} text=${error} />
    <h2>Temperatuurpunten <button type="button" class="primary" id="new-unit" onClick=${() => setDialog({ unit: {} })}>+ Toevoegen</button></h2>
    <${Loading} when=${units.loading && !units.data} error=${units.error}>
      <div class="table-wrap"><table class="list" id="unit-list"><thead><tr><th>Naam</th><th>Soort</th><th>Norm</th><th class="num">Metingen per dag</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${(units.data?.data ?? []).map((u) => html`<tr data-unit=${u.name}><td>${u.name}</td><td>${TYPE[u.unit_type] ?? u.unit_type}</td><td class="norm">${norm(u)}</td><td class="num">${u.readings_per_day}</td>
          <td><div class="row-actions"><button type="button" data-action="edit" onClick=${() => setDialog({ unit: u })}>Wijzigen</button>
            <button type="button" class="danger" disabled=${busy} onClick=${() => archive('Er hoeven geen metingen meer te komen.', u.name, `/haccp/units/${u.id}`, units.reload)}>Verwijderen</button></div></td></tr>`)}</tbody></table></div>
    </${Loading}>
    <h2>Controlelijsten <button type="button" class="primary" id="new-checklist" onClick=${() => setDialog({ list: {} })}>+ Toevoegen</button></h2>
    <${Loading} when=${lists.loading && !lists.data} error=${lists.error}>
      <div class="table-wrap"><table class="list" id="checklist-list"><thead><tr><th>Naam</th><th>Wanneer</th><th class="num">Punten</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${(lists.data?.data ?? []).map((l) => html`<tr data-checklist=${l.name}><td>${l.name}</td><td>${l.frequency === 'daily' ? `dagelijks vóór ${l.deadline}` : `wekelijks op ${Object.fromEntries(WEEKDAYS)[l.weekday] ?? 'maandag'} vóór ${l.deadline}`}</td><td class="num">${l.items.length}</td>
          <td><div class="row-actions"><button type="button" data-action="edit" onClick=${() => setDialog({ list: l })}>Wijzigen</button>
            <button type="button" class="danger" disabled=${busy} onClick=${() => archive('De lijst komt niet meer terug.', l.name, `/haccp/checklists/${l.id}`, lists.reload)}>Verwijderen</button></div></td></tr>`)}</tbody></table></div>
    </${Loading}>
    ${dialog?.unit ? html`<${UnitDialog} unit=${dialog.unit} onClose=${() => setDialog(null)} onSaved=${() => void units.reload()} />` : null}
    ${dialog?.list ? html`<${ChecklistDialog} list=${dialog.list} onClose=${() => setDialog(null)} onSaved=${() => void lists.reload()} />` : null}
  </${Screen}>`;
}
