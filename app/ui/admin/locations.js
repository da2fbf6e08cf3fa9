// Stock locations (cold store, freezer, bar, dry store): exactly one is the default.
import { html } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { ErrorText, Loading, Pill, Screen, useAction, useAsync } from '../components/ui.js';

export default function Locations() {
  const list = useAsync(() => get('/locations'));
  const [run, busy, error] = useAction();
  return html`<${Screen} title="Locaties" id="locations">
    <form class="tile inline" onSubmit=${(e) => {
      e.preventDefault();
      const name = String(new FormData(e.currentTarget).get('name'));
      void run(async () => { await post('/locations', { name }); await list.reload(); });
    }}><div><label>Nieuwe locatie</label><input name="name" required maxlength="80" placeholder="bv. Vriezer" /></div><button type="submit" class="primary" disabled=${busy}>Toevoegen</button></form>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      <table class="list"><tbody>${(list.data?.data ?? []).map((l) => html`<tr><td>${l.name} ${l.is_default ? html`<${Pill} kind="ok">standaard</${Pill}>` : null}</td>
        <td>${l.is_default ? null : html`<button type="button" disabled=${busy} onClick=${() => run(async () => { await patch(`/locations/${l.id}`, { is_default: true }); await list.reload(); })}>Maak standaard</button>
          <button type="button" class="danger" disabled=${busy} onClick=${() => run(async () => { await del(`/locations/${l.id}`); await list.reload(); })}>Verwijderen</button>`}</td></tr>`)}</tbody></table>
    </${Loading}>
  </${Screen}>`;
}
