// Checklists to tick off (opening, closing ...): every item, notes, and the run is recorded with who
// did it; items left open are recorded as missing.
import { html, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { toast } from '../lib/store.js';
import { ErrorText, Loading, Screen, useAction, useAsync } from '../components/ui.js';

function Run({ checklist, onDone }) {
  const [done, setDone] = useState(/** @type {Set<string>} */ (new Set()));
  const [notes, setNotes] = useState('');
  const [run, busy, error] = useAction();
  const toggle = (/** @type {string} */ id) => setDone((s) => {
    const n = new Set(s);
    if (n.has(id)) n.delete(id);
    else n.add(id);
    return n;
  });
  return html`<form class="tile checklist" data-checklist=${checklist.name} onSubmit=${(e) => {
    e.preventDefault();
    void run(async () => {
      const r = await post(`/haccp/checklists/${checklist.id}/run`, { completed_items: [...done], ...(notes.trim() ? { notes: notes.trim() } : {}) });
      toast(r.complete ? `${checklist.name}: volledig afgevinkt.` : `${checklist.name}: vastgelegd, ${r.missing_items.length} punt(en) niet gedaan.`);
      setDone(new Set());
      setNotes('');
      onDone();
    });
  }}>
    <h3>${checklist.name} <span class="muted">${checklist.frequency === 'daily' ? `dagelijks, vóór ${checklist.deadline}` : 'wekelijks'}</span></h3>
    ${checklist.items.map((i) => html`<label class="check"><input type="checkbox" checked=${done.has(i.id)} onChange=${() => toggle(i.id)} /> ${i.label}</label>`)}
    <label for=${`notes-${checklist.id}`}>Opmerkingen</label>
    <textarea id=${`notes-${checklist.id}`} rows="2" maxlength="1000" value=${notes} onInput=${(e) => setNotes(e.currentTarget.value)}></textarea>
    <${ErrorText} text=${error} />
    <button type="submit" class="primary" disabled=${busy}>Lijst vastleggen (${done.size}/${checklist.items.length})</button>
  </form>`;
}

export default function Checklists() {
  const lists = useAsync(() => get('/haccp/checklists'));
  return html`<${Screen} title="Controlelijsten" id="checklists">
    <${Loading} when=${lists.loading && !lists.data} error=${lists.error}>
      ${(lists.data?.data ?? []).length === 0 ? html`<p class="muted">Nog geen controlelijsten. Een beheerder maakt ze aan.</p>` : null}
      <div class="grid">${(lists.data?.data ?? []).map((c) => html`<${Run} key=${c.id} checklist=${c} onDone=${() => void lists.reload()} />`)}</div>
    </${Loading}>
  </${Screen}>`;
}
