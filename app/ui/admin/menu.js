// Menu and recipes: dishes by category with price, cost, VAT and availability; ingredients (never
// sold) are products off the menu; a dish's recipe says what a sale takes from stock and what its
// ingredients cost. Every product and category can be changed; deleting asks first.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post, put } from '../lib/api.js';
import { euro, euroInput, num, parseDecimal } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { Dialog, ErrorText, Field, FieldError, FormFoot, Loading, Pill, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';
import { ALLERGENS, COURSES, DIETARY, allergenNames } from '../lib/allergens.js';

const UNITS = [['', '–'], ['stuk', 'stuk'], ['portie', 'portie'], ['kg', 'kg'], ['gram', 'gram'], ['liter', 'liter'], ['ml', 'ml'], ['fles', 'fles'], ['doos', 'doos']];
const VAT = [['', 'standaard'], ['9', '9 % (eten, frisdrank)'], ['21', '21 % (alcohol)'], ['0', '0 %']];
const LABELS = { name: 'Naam', price_cents: 'Prijs (€)', cost_cents: 'Kostprijs (€)', category_id: 'Categorie', vat_rate: 'Btw', unit: 'Eenheid', min_level: 'Minimumvoorraad', description: 'Omschrijving', course: 'Gang', allergens: 'Allergenen', dietary: 'Dieet', modifier_group_ids: 'Keuzegroepen' };
const courseWord = (/** @type {number|null|undefined} */ c) => (c ? `gang ${c}` : 'gang 1');

/**
 * The dish's choice groups in the order they are asked: move up and down, take off, add one. Its
 * select feeds the API's `modifier_group_ids`, so an error on a group lands beside it.
 */
function GroupPicker({ form, groups }) {
  const ids = /** @type {string[]} */ (form.values.groups);
  const byId = new Map(groups.map((g) => [g.id, g]));
  const free = groups.filter((g) => !ids.includes(g.id));
  const setIds = (/** @type {string[]} */ next) => form.set('groups', next);
  const move = (/** @type {number} */ i, /** @type {number} */ d) => {
    const next = [...ids];
    [next[i], next[i + d]] = [next[i + d], next[i]];
    setIds(next);
  };
  return html`<fieldset class="group-picker" id="product-groups"><legend>Keuzegroepen, in de volgorde waarin ze gevraagd worden</legend>
    ${ids.length ? html`<ol class="plain">${ids.map((id, i) => {
      const g = byId.get(id);
      const name = g?.name ?? 'verwijderde groep';
      return html`<li key=${id} data-group=${name} class="row-actions" style="justify-content:space-between;align-items:center">
        <span>${i + 1}. <strong>${name}</strong>${g ? html` <span class="muted">(${g.min_select > 0 ? 'verplicht, ' : ''}${g.min_select === g.max_select ? `kies ${g.min_select}` : `${g.min_select} tot ${g.max_select}`})</span>` : null}</span>
        <span class="row-actions">
          <button type="button" aria-label=${`${name} eerder vragen`} disabled=${i === 0} onClick=${() => move(i, -1)}>↑</button>
          <button type="button" aria-label=${`${name} later vragen`} disabled=${i === ids.length - 1} onClick=${() => move(i, 1)}>↓</button>
          <button type="button" class="danger" aria-label=${`${name} weghalen`} onClick=${() => setIds(ids.filter((x) => x !== id))}>✕</button>
        </span></li>`;
    })}</ol>` : html`<p class="muted">Geen keuzes bij dit gerecht.</p>`}
    ${free.length ? html`<div class="inline" style="display:flex;gap:.4rem;align-items:flex-end">
      <${Field} form=${form} name="add_group" api="modifier_group_ids" label="Keuzegroep toevoegen" as="select" options=${[['', '– kies een groep –'], ...free.map((g) => [g.id, g.name])]} class="grow" />
      <button type="button" id="add-group" disabled=${!form.values.add_group} onClick=${() => { setIds([...ids, form.values.add_group]); form.set('add_group', ''); }}>Toevoegen</button>
    </div>` : groups.length ? null : html`<p class="muted">Maak eerst een keuzegroep bij <a href="#/beheer/opties">Keuzes en opties</a>.</p>`}
  </fieldset>`;
}

/** Checkboxes for a list of codes (allergens, dietary marks); errors on `api.<n>` land on the first. */
function CodeChecks({ form, name, api, legend, codes, hint = '' }) {
  const chosen = /** @type {string[]} */ (form.values[name]);
  const err = form.errors[`${name}_${codes[0][0]}`];
  return html`<fieldset class="checks code-checks" id=${`${form.id}-${name}`}><legend>${legend}</legend>
    ${codes.map(([code, label], i) => {
      form.fields.set(`${name}_${code}`, { label: legend, api: i === 0 ? api : `${api}#${code}`, money: false, required: false, gen: form.gen });
      return html`<label class="check" for=${`${form.id}-${name}-${code}`}><input type="checkbox" id=${`${form.id}-${name}-${code}`} data-code=${code} checked=${chosen.includes(code)}
        onChange=${(e) => form.set(name, e.currentTarget.checked ? codes.map(([c]) => c).filter((c) => c === code || chosen.includes(c)) : chosen.filter((c) => c !== code))} /> ${label}</label>`;
    })}
    ${hint ? html`<p class="hint" style="flex-basis:100%">${hint}</p>` : null}
    ${err ? html`<p class="field-error" style="flex-basis:100%">${err}</p>` : null}
  </fieldset>`;
}

function Recipe({ product, products, onClose, onSaved }) {
  const recipe = useAsync(() => get(`/recipes/${product.id}`), [product.id]);
  const [lines, setLines] = useState(/** @type {Array<{product_id: string, quantity: string}>|null} */ (null));
  const [run, busy, error] = useAction({ product_id: 'ingrediënt', quantity: 'hoeveelheid' });
  const rows = lines ?? (recipe.data?.ingredients ?? []).map((i) => ({ product_id: i.product_id, quantity: num(i.quantity, 3) }));
  const set = (i, patchLine) => setLines(rows.map((r, j) => (j === i ? { ...r, ...patchLine } : r)));
  const ingredients = products.filter((p) => p.id !== product.id);
  const r = recipe.data;
  return html`<${Dialog} title=${`Recept: ${product.name}`} onClose=${onClose} id="recipe-dialog" wide>
    <${Loading} when=${recipe.loading && !r} error=${recipe.error}>
      ${r?.cost_cents !== null && r?.cost_cents !== undefined ? html`<p>Kosten van de ingrediënten: <strong>${euro(r.cost_cents)}</strong>${r.complete ? '' : ' (niet alle ingrediënten hebben een kostprijs)'}</p>` : null}
      ${rows.map((row, i) => html`<div class="inline recipe-line" style="display:flex;gap:.4rem;margin-bottom:.4rem;align-items:flex-end">
        <div class="field" style="flex:2"><label for=${`rl-p-${i}`}>Ingrediënt ${i + 1}</label>
          <select id=${`rl-p-${i}`} value=${row.product_id} onChange=${(e) => set(i, { product_id: e.currentTarget.value })}>${ingredients.map((p) => html`<option value=${p.id}>${p.name}${p.unit ? ` (${p.unit})` : ''}</option>`)}</select></div>
        <div class="field" style="flex:1"><label for=${`rl-q-${i}`}>Hoeveelheid</label>
          <input id=${`rl-q-${i}`} inputmode="decimal" value=${row.quantity} onInput=${(e) => set(i, { quantity: e.currentTarget.value })} /></div>
        <button type="button" aria-label=${`Ingrediënt ${i + 1} weghalen`} onClick=${() => setLines(rows.filter((_, j) => j !== i))}>✕</button>
      </div>`)}
      <button type="button" onClick=${() => setLines([...rows, { product_id: ingredients[0]?.id ?? '', quantity: '1' }])}>+ Ingrediënt</button>
      <${ErrorText} text=${error} />
      <button type="button" class="primary big" disabled=${busy} onClick=${() => run(async () => {
        const bad = rows.findIndex((x) => !(parseDecimal(x.quantity) > 0));
        if (bad >= 0) throw new Error(`De hoeveelheid van ingrediënt ${bad + 1} moet een getal groter dan 0 zijn.`);
        await put(`/recipes/${product.id}`, { ingredients: rows.map((x) => ({ product_id: x.product_id, quantity: parseDecimal(x.quantity) })) });
        toast(`Recept van ${product.name} opgeslagen.`);
        onSaved?.();
        onClose();
      })}>Recept opslaan</button>
    </${Loading}>
  </${Dialog}>`;
}

/** New or changed product: every field the API has, with the menu's own words. */
function ProductDialog({ product, categories, groups, onClose, onSaved }) {
  const editing = !!product;
  const p = product ?? {};
  const form = useForm({
    name: p.name ?? '', description: p.description ?? '', kind: p.on_menu === false ? 'ingredient' : 'dish', category_id: p.category_id ?? '',
    price: euroInput(p.price_cents ?? null), cost: euroInput(p.cost_cents ?? null), vat_rate: p.vat_rate === null || p.vat_rate === undefined ? '' : String(p.vat_rate),
    unit: p.unit ?? '', min_level: p.min_level === null || p.min_level === undefined ? '' : num(p.min_level, 3), available: p.available ?? true,
    allergens: p.own_allergens ?? [], dietary: p.dietary ?? [], course: p.course ? String(p.course) : '', groups: p.modifier_group_ids ?? [], add_group: '',
  });
  const recipe = useAsync(() => (editing && p.on_menu !== false ? get(`/recipes/${p.id}`) : Promise.resolve(null)), [p.id]);
  const recipeCost = recipe.data?.cost_cents ?? null;
  const v = form.values;
  const cost = form.values.cost.trim() === '' ? null : Math.round(parseDecimal(v.cost) * 100);
  return html`<${Dialog} title=${editing ? `${p.name} wijzigen` : 'Nieuw product'} onClose=${onClose} id="product-dialog" wide>
    <form novalidate id="product-edit" onSubmit=${form.submit(async () => {
      const ingredient = v.kind === 'ingredient';
      const body = {
        name: v.name.trim(),
        price_cents: ingredient ? (form.cents('price', { optional: true }) ?? 0) : form.cents('price'),
        cost_cents: form.cents('cost', { optional: true }),
        category_id: v.category_id || null,
        vat_rate: v.vat_rate === '' ? null : Number(v.vat_rate),
        unit: v.unit || null,
        min_level: form.number('min_level', { optional: true, min: 0 }),
        description: v.description.trim() || null,
        available: !!v.available,
        on_menu: !ingredient,
        allergens: v.allergens,
        ...(ingredient ? {} : { dietary: v.dietary, course: v.course ? Number(v.course) : null, modifier_group_ids: v.groups }),
      };
      if (!body.name) throw new FieldError('name', 'mag niet leeg zijn.');
      if (editing) {
        await patch(`/products/${p.id}`, body);
        toast(`${body.name} opgeslagen.`);
      } else {
        const create = Object.fromEntries(Object.entries(body).filter(([, x]) => x !== null && x !== ''));
        await post('/products', create);
        toast(`${body.name} toegevoegd.`);
      }
      onSaved();
      onClose();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="120" autocomplete="off" />
        <${Field} form=${form} name="kind" label="Soort" as="select" options=${[['dish', 'Gerecht of drank (op de kaart)'], ['ingredient', 'Ingrediënt (niet te koop)']]} />
        <${Field} form=${form} name="category_id" label=${LABELS.category_id} as="select" options=${[['', '–'], ...categories.map((c) => [c.id, c.name])]} />
        ${v.kind === 'dish' ? html`<${Field} form=${form} name="price" label=${LABELS.price_cents} api="price_cents" money required />` : null}
        <${Field} form=${form} name="cost" label=${v.kind === 'dish' ? LABELS.cost_cents : 'Kostprijs per eenheid (€)'} api="cost_cents" money
          hint=${recipeCost !== null ? (cost === recipeCost ? 'Gelijk aan de kosten van het recept.' : `Het recept kost ${euro(recipeCost)}. Menu-engineering rekent met de kostprijs hier.`) : ''} />
        ${v.kind === 'dish' ? html`<${Field} form=${form} name="vat_rate" label=${LABELS.vat_rate} as="select" options=${VAT} />` : null}
        <${Field} form=${form} name="unit" label=${LABELS.unit} as="select" options=${UNITS} />
        <${Field} form=${form} name="min_level" label=${LABELS.min_level} inputmode="decimal" hint="Daaronder komt het op de inkooplijst." />
      </div>
      ${recipeCost !== null && cost !== recipeCost
        ? html`<p><button type="button" id="cost-from-recipe" onClick=${() => form.set('cost', euroInput(recipeCost))}>Kostprijs = receptkosten (${euro(recipeCost)})</button></p>`
        : null}
      <${Field} form=${form} name="description" label=${LABELS.description} as="textarea" rows="2" maxlength="1000" />
      ${v.kind === 'dish' ? html`<${Field} form=${form} name="available" label="Beschikbaar (niet uitverkocht)" type="checkbox" />` : null}
      <${CodeChecks} form=${form} name="allergens" api="allergens" legend=${v.kind === 'dish' ? 'Allergenen van het gerecht zelf' : 'Allergenen van dit ingrediënt'} codes=${ALLERGENS.map(([c, nl]) => [c, nl])}
        hint=${v.kind === 'dish'
          ? (() => {
              const fromRecipe = (p.allergens ?? []).filter((/** @type {string} */ c) => !(p.own_allergens ?? []).includes(c));
              return fromRecipe.length ? `Uit het recept komen er al bij: ${allergenNames(fromRecipe)}.` : 'De allergenen van de ingrediënten in het recept tellen vanzelf mee.';
            })()
          : 'Elk gerecht met dit ingrediënt in het recept krijgt deze allergenen.'} />
      ${v.kind === 'dish' ? html`
        <${CodeChecks} form=${form} name="dietary" api="dietary" legend="Dieet" codes=${DIETARY} />
        <div class="form-grid">
          <${Field} form=${form} name="course" label=${LABELS.course} as="select"
            options=${[['', `Zoals de categorie (${courseWord(categories.find((c) => c.id === v.category_id)?.course)})`], ...COURSES]} hint="Gang 2 en later wachten in de keuken tot de bediening ze afroept." />
        </div>
        <${GroupPicker} form=${form} groups=${groups} />` : null}
      <${FormFoot} form=${form} label=${editing ? 'Opslaan' : 'Product toevoegen'} />
    </form>
  </${Dialog}>`;
}

function CategoryRow({ c, count, onChanged }) {
  const [editing, setEditing] = useState(false);
  const form = useForm({ name: c.name, course: c.course ? String(c.course) : '', vat_rate: c.vat_rate === null || c.vat_rate === undefined ? '' : String(c.vat_rate) });
  const [run, busy, error] = useAction(LABELS);
  if (editing) {
    return html`<li><form novalidate class="inline" onSubmit=${form.submit(async (v) => {
      await patch(`/categories/${c.id}`, { name: v.name.trim(), course: v.course ? Number(v.course) : null, vat_rate: v.vat_rate === '' ? null : Number(v.vat_rate) });
      setEditing(false);
      onChanged();
    })}>
      <${Field} form=${form} name="name" label=${`Nieuwe naam voor ${c.name}`} required maxlength="80" />
      <${Field} form=${form} name="course" label="Gang van de gerechten" as="select" options=${[['', 'Gang 1 (standaard)'], ...COURSES]} />
      <${Field} form=${form} name="vat_rate" label="Btw van de gerechten zonder eigen btw" as="select" options=${[['', 'standaard (instelling)'], ...VAT.slice(1)]} />
      <${FormFoot} form=${form} label="Opslaan"><button type="button" onClick=${() => setEditing(false)}>Annuleren</button></${FormFoot}>
    </form></li>`;
  }
  return html`<li data-category=${c.name} class="row-actions" style="justify-content:space-between;align-items:center">
    <span>${c.name} <span class="muted">(${count}${c.course > 1 ? `, gang ${c.course}` : ''}${c.vat_rate === null || c.vat_rate === undefined ? '' : `, btw ${c.vat_rate} %`})</span></span>
    <span class="row-actions">
      <button type="button" onClick=${() => setEditing(true)}>Wijzigen</button>
      <button type="button" class="danger" disabled=${busy} onClick=${async () => {
        if (await confirmDialog({ title: `Categorie ${c.name} verwijderen?`, message: count ? `De ${count} producten erin blijven bestaan, zonder categorie.` : 'Er staan geen producten in.' })) {
          await run(async () => { await del(`/categories/${c.id}`); onChanged(); });
        }
      }}>Verwijderen</button>
    </span>
    <${ErrorText} text=${error} />
  </li>`;
}

export default function Menu() {
  const categories = useAsync(() => get('/categories'));
  const products = useAsync(() => get('/products'));
  const groups = useAsync(() => get('/modifier-groups'));
  const [recipeFor, setRecipeFor] = useState(/** @type {any} */ (null));
  const [editing, setEditing] = useState(/** @type {any} */ (null));
  const [run, busy, error] = useAction(LABELS);
  const [show, setShow] = useState('dish');
  const catForm = useForm({ name: '' });
  const cats = categories.data?.data ?? [];
  const all = products.data?.data ?? [];
  const catPos = new Map(cats.map((c, i) => [c.id, i]));
  // Dishes by category as on the menu; ingredients apart (they are never sold).
  const list = all
    .filter((p) => show === 'all' || (show === 'dish' ? p.on_menu !== false : p.on_menu === false))
    .sort((a, b) => (catPos.get(a.category_id) ?? 999) - (catPos.get(b.category_id) ?? 999) || a.name.localeCompare(b.name, 'nl'));
  const catName = new Map(cats.map((c) => [c.id, c.name]));
  const reload = () => {
    void products.reload();
    void categories.reload();
  };
  return html`<${Screen} title="Menu en recepten" id="menu-admin" actions=${html`<button type="button" class="primary" id="new-product" onClick=${() => setEditing({})}>+ Product</button>`}>
    <div class="grid">
      <form novalidate class="tile inline" id="category-form" onSubmit=${catForm.submit(async (v) => {
        await post('/categories', { name: v.name.trim() });
        catForm.reset({ name: '' });
        await categories.reload();
      }, 'Categorie toegevoegd.')}>
        <${Field} form=${catForm} name="name" label="Nieuwe categorie" required maxlength="80" autocomplete="off" />
        <${FormFoot} form=${catForm} label="Toevoegen" />
      </form>
      <div class="tile"><h2 style="margin-top:0">Categorieën</h2>
        <ul class="plain" id="categories">${cats.map((c) => html`<${CategoryRow} key=${c.id} c=${c} count=${all.filter((p) => p.category_id === c.id).length} onChanged=${reload} />`)}</ul></div>
    </div>
    <${ErrorText} text=${error} />
    <div class="tabs" role="group" aria-label="Welke producten">
      ${[['dish', 'Gerechten en dranken'], ['ingredient', 'Ingrediënten'], ['all', 'Alles']].map(([k, l]) => html`<button type="button" data-show=${k} aria-pressed=${String(show === k)} onClick=${() => setShow(k)}>${l}</button>`)}
    </div>
    <${Loading} when=${products.loading && !products.data} error=${products.error}>
      <div class="table-wrap"><table class="list" id="products-admin"><thead><tr><th>Product</th><th>Categorie</th><th class="num">Prijs</th><th class="num">Kostprijs</th><th>Status</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${list.map((p) => html`<tr data-product=${p.name}><td>${p.name}${p.unit ? html` <span class="muted">(${p.unit})</span>` : null}
            ${p.allergens?.length || p.dietary?.length || p.modifier_group_ids?.length ? html`<br /><span class="muted product-marks">${[
              p.dietary?.includes('vegan') ? 'veganistisch' : p.dietary?.includes('vegetarian') ? 'vegetarisch' : '',
              p.allergens?.length ? `bevat ${allergenNames(p.allergens).toLowerCase()}` : '',
              p.modifier_group_ids?.length ? `${p.modifier_group_ids.length} ${p.modifier_group_ids.length === 1 ? 'keuzegroep' : 'keuzegroepen'}` : '',
            ].filter(Boolean).join(' · ')}</span>` : null}</td><td>${catName.get(p.category_id) ?? ''}</td>
          <td class="num price">${p.on_menu === false ? '–' : euro(p.price_cents)}</td><td class="num">${p.cost_cents !== null && p.cost_cents !== undefined ? euro(p.cost_cents) : '–'}</td>
          <td>${p.on_menu === false ? html`<${Pill} kind="muted">ingrediënt</${Pill}>` : p.available ? html`<${Pill} kind="ok">beschikbaar</${Pill}>` : html`<${Pill} kind="kritiek">uitverkocht</${Pill}>`}</td>
          <td><div class="row-actions">
            <button type="button" data-action="edit" onClick=${() => setEditing(p)}>Wijzigen</button>
            ${p.on_menu === false ? null : html`<button type="button" disabled=${busy} onClick=${() => run(async () => { await patch(`/products/${p.id}`, { available: !p.available }); await products.reload(); })}>${p.available ? 'Uitverkocht' : 'Weer beschikbaar'}</button>
              <button type="button" onClick=${() => setRecipeFor(p)}>Recept</button>`}
            <button type="button" class="danger" data-action="delete" disabled=${busy} onClick=${async () => {
              if (await confirmDialog({ title: `${p.name} verwijderen?`, message: 'Het verdwijnt van de kaart en uit de voorraad. Eerdere bestellingen houden het.' })) {
                await run(async () => { await del(`/products/${p.id}`); toast(`${p.name} verwijderd.`); await products.reload(); });
              }
            }}>Verwijderen</button></div></td></tr>`)}</tbody></table></div>
    </${Loading}>
    ${recipeFor ? html`<${Recipe} product=${recipeFor} products=${all} onClose=${() => setRecipeFor(null)} onSaved=${reload} />` : null}
    ${editing ? html`<${ProductDialog} product=${editing.id ? editing : null} categories=${cats} groups=${groups.data?.data ?? []} onClose=${() => setEditing(null)} onSaved=${reload} />` : null}
    <p class="muted">${num(list.length, 0)} van ${num(all.length, 0)} producten.</p>
  </${Screen}>`;
}
