// Choices and options (issue 23, CONTRACT §17): modifier groups such as "Saus (kies 1)" (a forced
// choice: at least 1, at most 1) or "Extra's" (0 to 5), each with its options: a price difference in
// euros, available or not, and optionally an ingredient the option takes from stock. Dishes list
// their groups in the product form (Menu en recepten → Wijzigen); deleting archives and asks first.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { euro, euroInput, num, parseCents } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { allergenNames } from '../lib/allergens.js';
import { Dialog, ErrorText, Field, FieldError, FormFoot, Loading, Pill, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

const LABELS = { name: 'Naam van de groep', min_select: 'Minimaal te kiezen', max_select: 'Maximaal te kiezen', options: 'opties' };

/** "kies 1", "0 tot 5", "1 tot 3": how many a guest or waiter picks. @param {{ min_select: number, max_select: number }} g */
export const choiceWords = (g) => (g.min_select === g.max_select ? `kies ${g.min_select}` : `${g.min_select} tot ${g.max_select}`);
/** "+ € 1,50", "− € 0,50", "" for none. @param {number} cents */
export const deltaWords = (cents) => (cents > 0 ? `+ ${euro(cents)}` : cents < 0 ? `− ${euro(-cents)}` : '');

let rowSeq = 0;

/** New or changed group with its options in order. */
function GroupDialog({ group, ingredients, onClose, onSaved }) {
  const editing = !!group;
  const g = group ?? { name: '', min_select: 0, max_select: 1, options: [] };
  const initialRows = (g.options.length ? g.options : [{ name: '', price_delta_cents: 0, available: true, ingredient_product_id: null, ingredient_quantity: null }]).map((o) => ({ key: `r${++rowSeq}`, id: o.id ?? null, o }));
  const [rows, setRows] = useState(initialRows);
  const initial = { name: g.name, min_select: String(g.min_select), max_select: String(g.max_select) };
  for (const r of initialRows) {
    Object.assign(initial, {
      [`${r.key}_name`]: r.o.name,
      [`${r.key}_delta`]: r.o.price_delta_cents ? euroInput(r.o.price_delta_cents) : '',
      [`${r.key}_available`]: r.o.available !== false,
      [`${r.key}_ingredient`]: r.o.ingredient_product_id ?? '',
      [`${r.key}_quantity`]: r.o.ingredient_quantity === null || r.o.ingredient_quantity === undefined ? '' : num(r.o.ingredient_quantity, 3),
    });
  }
  const form = useForm(initial);
  const v = form.values;
  const addRow = () => {
    const key = `r${++rowSeq}`;
    form.setValues((x) => ({ ...x, [`${key}_name`]: '', [`${key}_delta`]: '', [`${key}_available`]: true, [`${key}_ingredient`]: '', [`${key}_quantity`]: '' }));
    setRows([...rows, { key, id: null, o: {} }]);
    setTimeout(() => /** @type {HTMLElement|null} */ (document.getElementById(`${form.id}-${key}_name`))?.focus(), 0);
  };
  const move = (/** @type {number} */ i, /** @type {number} */ d) => {
    const next = [...rows];
    [next[i], next[i + d]] = [next[i + d], next[i]];
    setRows(next);
  };
  const unitOf = (/** @type {string} */ id) => ingredients.find((p) => p.id === id)?.unit;
  return html`<${Dialog} title=${editing ? `${g.name} wijzigen` : 'Nieuwe keuzegroep'} onClose=${onClose} id="group-dialog" wide>
    <form novalidate id="group-edit" onSubmit=${form.submit(async () => {
      const name = String(v.name).trim();
      if (!name) throw new FieldError('name', 'mag niet leeg zijn.');
      const min = form.number('min_select', { integer: true, min: 0, max: 20 });
      const max = form.number('max_select', { integer: true, min: 1, max: 20 });
      if (max < min) throw new FieldError('max_select', `mag niet kleiner zijn dan het minimum (${min}).`);
      if (rows.length === 0) throw new Error('Voeg minstens één optie toe.');
      const options = rows.map((r) => {
        const optName = String(v[`${r.key}_name`] ?? '').trim();
        if (!optName) throw new FieldError(`${r.key}_name`, 'mag niet leeg zijn.');
        const rawDelta = String(v[`${r.key}_delta`] ?? '').trim();
        const delta = rawDelta === '' ? 0 : parseCents(rawDelta);
        if (Number.isNaN(delta)) throw new FieldError(`${r.key}_delta`, 'moet een bedrag zijn, bijvoorbeeld 1,50 of -0,50.');
        const ingredient = v[`${r.key}_ingredient`] || null;
        const quantity = ingredient ? form.number(`${r.key}_quantity`, { min: 0.001 }) : null;
        return { ...(r.id ? { id: r.id } : {}), name: optName, price_delta_cents: delta, available: !!v[`${r.key}_available`], ingredient_product_id: ingredient, ingredient_quantity: quantity };
      });
      const body = { name, min_select: min, max_select: max, options };
      if (editing) {
        await patch(`/modifier-groups/${g.id}`, body);
        toast(`${name} opgeslagen.`);
      } else {
        await post('/modifier-groups', body);
        toast(`${name} toegevoegd.`);
      }
      onSaved();
      onClose();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="80" autocomplete="off" hint="Zoals gast en bediening het zien, bijvoorbeeld Saus of Bakwijze." />
        <${Field} form=${form} name="min_select" label=${LABELS.min_select} inputmode="numeric" hint="0: mag overslaan. 1 of meer: een verplichte keuze, die eerst gevraagd wordt." />
        <${Field} form=${form} name="max_select" label=${LABELS.max_select} inputmode="numeric" hint="Het aantal opties (per stuk) dat samen gekozen mag worden." />
      </div>
      <h3>Opties</h3>
      <ol class="option-rows plain" id="option-rows">
        ${rows.map((r, i) => html`<li key=${r.key} class="option-row" data-option=${v[`${r.key}_name`] ?? ''}>
          <div class="form-grid option-grid">
            <${Field} form=${form} name=${`${r.key}_name`} api=${`options.${i}.name`} label=${`Optie ${i + 1}: naam`} required maxlength="80" autocomplete="off" />
            <${Field} form=${form} name=${`${r.key}_delta`} api=${`options.${i}.price_delta_cents`} label="Meerprijs (€)" money hint="Leeg: geen meerprijs; -0,50 voor korting." />
            <${Field} form=${form} name=${`${r.key}_ingredient`} api=${`options.${i}.ingredient_product_id`} label="Ingrediënt uit de voorraad" as="select"
              options=${[['', '– geen –'], ...ingredients.map((p) => [p.id, `${p.name}${p.unit ? ` (${p.unit})` : ''}`])]} />
            ${v[`${r.key}_ingredient`]
              ? html`<${Field} form=${form} name=${`${r.key}_quantity`} api=${`options.${i}.ingredient_quantity`} label=${`Hoeveelheid per keer${unitOf(v[`${r.key}_ingredient`]) ? ` (${unitOf(v[`${r.key}_ingredient`])})` : ''}`} inputmode="decimal" required />`
              : null}
          </div>
          <div class="row-actions option-tools">
            <${Field} form=${form} name=${`${r.key}_available`} api=${`options.${i}.available`} label=${`Optie ${i + 1} beschikbaar`} type="checkbox" />
            <button type="button" aria-label=${`Optie ${i + 1} omhoog`} disabled=${i === 0} onClick=${() => move(i, -1)}>↑</button>
            <button type="button" aria-label=${`Optie ${i + 1} omlaag`} disabled=${i === rows.length - 1} onClick=${() => move(i, 1)}>↓</button>
            <button type="button" class="danger" aria-label=${`Optie ${i + 1} weghalen`} onClick=${() => setRows(rows.filter((x) => x.key !== r.key))}>✕</button>
          </div>
        </li>`)}
      </ol>
      <button type="button" id="add-option" onClick=${addRow}>+ Optie</button>
      <${FormFoot} form=${form} label=${editing ? 'Opslaan' : 'Keuzegroep toevoegen'} />
    </form>
  </${Dialog}>`;
}

export default function Modifiers() {
  const groups = useAsync(() => get('/modifier-groups'));
  const products = useAsync(() => get('/products'));
  const [editing, setEditing] = useState(/** @type {any} */ (null));
  const [run, busy, error] = useAction(LABELS);
  const all = products.data?.data ?? [];
  const ingredients = all.filter((p) => p.on_menu === false).sort((a, b) => a.name.localeCompare(b.name, 'nl'));
  const list = groups.data?.data ?? [];
  const usedBy = (/** @type {string} */ id) => all.filter((p) => (p.modifier_group_ids ?? []).includes(id));
  const reload = () => {
    void groups.reload();
    void products.reload();
  };
  return html`<${Screen} title="Keuzes en opties" id="modifiers-admin" actions=${html`<button type="button" class="primary" id="new-group" onClick=${() => setEditing({})}>+ Keuzegroep</button>`}>
    <p class="muted">Een keuzegroep met minimaal 1 is een verplichte keuze (zoals de saus bij de biefstuk): de bediening en de gast kiezen die eerst. Koppel groepen aan een gerecht bij <a href="#/beheer/menu">Menu en recepten</a> → Wijzigen.</p>
    <${ErrorText} text=${error} />
    <${Loading} when=${groups.loading && !groups.data} error=${groups.error}>
      ${list.length === 0 ? html`<p id="no-groups">Nog geen keuzegroepen. Begin met <strong>+ Keuzegroep</strong>.</p>` : null}
      <div class="table-wrap"><table class="list" id="groups"><thead><tr><th>Groep</th><th>Keuze</th><th>Opties</th><th>Bij gerechten</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${list.map((g) => {
          const dishes = usedBy(g.id);
          return html`<tr key=${g.id} data-group=${g.name}>
            <td><strong>${g.name}</strong></td>
            <td>${g.min_select > 0 ? html`<${Pill} kind="waarschuwing">verplicht</${Pill}> ` : null}${choiceWords(g)}</td>
            <td><ul class="plain options">${g.options.map((o) => html`<li data-option=${o.name} class=${o.available ? '' : 'muted'}>
              ${o.name}${o.price_delta_cents ? html` <span class="price">${deltaWords(o.price_delta_cents)}</span>` : null}
              ${o.available ? null : html` <${Pill} kind="kritiek">niet beschikbaar</${Pill}>`}
              ${o.ingredient_product_id ? html` <span class="muted">· ${all.find((p) => p.id === o.ingredient_product_id)?.name ?? 'ingrediënt'} ${num(o.ingredient_quantity, 3)}</span>` : null}
              ${o.allergens?.length ? html` <span class="muted">· ${allergenNames(o.allergens)}</span>` : null}
            </li>`)}</ul></td>
            <td class="dishes">${dishes.length ? dishes.map((p) => p.name).join(', ') : html`<span class="muted">nog bij geen gerecht</span>`}</td>
            <td><div class="row-actions">
              <button type="button" data-action="edit" onClick=${() => setEditing(g)}>Wijzigen</button>
              <button type="button" class="danger" data-action="delete" disabled=${busy} onClick=${async () => {
                const n = dishes.length;
                if (await confirmDialog({ title: `Keuzegroep ${g.name} verwijderen?`, message: n ? `${n === 1 ? 'Het gerecht' : `De ${n} gerechten`} ${dishes.map((p) => p.name).join(', ')} ${n === 1 ? 'vraagt' : 'vragen'} deze keuze dan niet meer. Eerdere bestellingen houden hun opties.` : 'Eerdere bestellingen houden hun opties.' })) {
                  await run(async () => { await del(`/modifier-groups/${g.id}`); toast(`${g.name} verwijderd.`); reload(); });
                }
              }}>Verwijderen</button>
            </div></td>
          </tr>`;
        })}</tbody></table></div>
    </${Loading}>
    ${editing ? html`<${GroupDialog} group=${editing.id ? editing : null} ingredients=${ingredients} onClose=${() => setEditing(null)} onSaved=${reload} />` : null}
  </${Screen}>`;
}
