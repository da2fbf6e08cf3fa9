// Menu and recipes: dishes by category with price, cost and availability; ingredients (never sold)
// are products off the menu; a dish's recipe says what a sale takes from stock.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post, put } from '../lib/api.js';
import { euro, num } from '../lib/format.js';
import { Dialog, ErrorText, Loading, Pill, Screen, useAction, useAsync } from '../components/ui.js';

const cents = (/** @type {unknown} */ v) => Math.round(Number(String(v).replace(',', '.')) * 100);

function Recipe({ product, products, onClose }) {
  const recipe = useAsync(() => get(`/recipes/${product.id}`), [product.id]);
  const [lines, setLines] = useState(/** @type {Array<{product_id: string, quantity: string}>|null} */ (null));
  const [run, busy, error] = useAction();
  const rows = lines ?? (recipe.data?.ingredients ?? []).map((i) => ({ product_id: i.product_id, quantity: String(i.quantity) }));
  const set = (i, patchLine) => setLines(rows.map((r, j) => (j === i ? { ...r, ...patchLine } : r)));
  const ingredients = products.filter((p) => p.id !== product.id);
  return html`<${Dialog} title=${`Recept: ${product.name}`} onClose=${onClose} id="recipe-dialog">
    <${Loading} when=${recipe.loading && !recipe.data} error=${recipe.error}>
      ${recipe.data?.cost_cents !== null && recipe.data?.cost_cents !== undefined ? html`<p class="muted">Kostprijs ingrediënten: ${euro(recipe.data.cost_cents)}</p>` : null}
      ${rows.map((r, i) => html`<div class="inline" style="display:flex;gap:.4rem;margin-bottom:.4rem">
        <select value=${r.product_id} onChange=${(e) => set(i, { product_id: e.currentTarget.value })}>${ingredients.map((p) => html`<option value=${p.id}>${p.name}${p.unit ? ` (${p.unit})` : ''}</option>`)}</select>
        <input inputmode="decimal" style="max-width:7rem" value=${r.quantity} onInput=${(e) => set(i, { quantity: e.currentTarget.value })} />
        <button type="button" aria-label="Weghalen" onClick=${() => setLines(rows.filter((_, j) => j !== i))}>✕</button>
      </div>`)}
      <button type="button" onClick=${() => setLines([...rows, { product_id: ingredients[0]?.id ?? '', quantity: '1' }])}>+ Ingrediënt</button>
      <${ErrorText} text=${error} />
      <button type="button" class="primary big" disabled=${busy} onClick=${() => run(async () => {
        await put(`/recipes/${product.id}`, { ingredients: rows.map((r) => ({ product_id: r.product_id, quantity: Number(r.quantity.replace(',', '.')) })) });
        onClose();
      })}>Recept opslaan</button>
    </${Loading}>
  </${Dialog}>`;
}

export default function Menu() {
  const categories = useAsync(() => get('/categories'));
  const products = useAsync(() => get('/products'));
  const [recipeFor, setRecipeFor] = useState(/** @type {any} */ (null));
  const [run, busy, error] = useAction();
  const cats = categories.data?.data ?? [];
  const list = products.data?.data ?? [];
  const catName = new Map(cats.map((c) => [c.id, c.name]));
  return html`<${Screen} title="Menu en recepten" id="menu-admin">
    <div class="grid">
      <form class="tile inline" onSubmit=${(e) => {
        e.preventDefault();
        const name = String(new FormData(e.currentTarget).get('name'));
        void run(async () => { await post('/categories', { name }); await categories.reload(); });
      }}><div><label>Nieuwe categorie</label><input name="name" required /></div><button type="submit" class="primary" disabled=${busy}>Toevoegen</button></form>
      <form class="tile inline" id="product-form" onSubmit=${(e) => {
        e.preventDefault();
        const f = Object.fromEntries(new FormData(e.currentTarget));
        void run(async () => {
          await post('/products', {
            name: f.name, price_cents: cents(f.price || 0), ...(f.cost ? { cost_cents: cents(f.cost) } : {}), ...(f.category_id ? { category_id: f.category_id } : {}),
            ...(f.unit ? { unit: f.unit } : {}), ...(f.kind === 'ingredient' ? { on_menu: false } : {}),
          });
          await products.reload();
        });
      }}>
        <div><label>Naam</label><input name="name" required /></div>
        <div><label>Soort</label><select name="kind"><option value="dish">Gerecht (op de kaart)</option><option value="ingredient">Ingrediënt (niet te koop)</option></select></div>
        <div><label>Categorie</label><select name="category_id"><option value="">–</option>${cats.map((c) => html`<option value=${c.id}>${c.name}</option>`)}</select></div>
        <div><label>Prijs (€)</label><input name="price" inputmode="decimal" /></div>
        <div><label>Kostprijs (€)</label><input name="cost" inputmode="decimal" /></div>
        <div><label>Eenheid</label><input name="unit" placeholder="st, kg, l" /></div>
        <button type="submit" class="primary" disabled=${busy}>Product toevoegen</button>
      </form>
    </div>
    <${ErrorText} text=${error} />
    <${Loading} when=${products.loading && !products.data} error=${products.error}>
      <div class="table-wrap"><table class="list" id="products-admin"><thead><tr><th>Product</th><th>Categorie</th><th class="num">Prijs</th><th class="num">Kostprijs</th><th>Status</th><th></th></tr></thead>
        <tbody>${list.map((p) => html`<tr data-product=${p.name}><td>${p.name}${p.unit ? html` <span class="muted">(${p.unit})</span>` : null}</td><td>${catName.get(p.category_id) ?? ''}</td>
          <td class="num">${p.on_menu === false ? '–' : euro(p.price_cents)}</td><td class="num">${p.cost_cents !== null && p.cost_cents !== undefined ? euro(p.cost_cents) : '–'}</td>
          <td>${p.on_menu === false ? html`<${Pill} kind="muted">ingrediënt</${Pill}>` : p.available ? html`<${Pill} kind="ok">beschikbaar</${Pill}>` : html`<${Pill} kind="kritiek">uitverkocht</${Pill}>`}</td>
          <td>${p.on_menu === false ? null : html`<button type="button" disabled=${busy} onClick=${() => run(async () => { await patch(`/products/${p.id}`, { available: !p.available }); await products.reload(); })}>${p.available ? 'Uitverkocht' : 'Weer beschikbaar'}</button>
            <button type="button" onClick=${() => setRecipeFor(p)}>Recept</button>`}
            <button type="button" class="danger" disabled=${busy} onClick=${() => run(async () => { await del(`/products/${p.id}`); await products.reload(); })}>Verwijderen</button></td></tr>`)}</tbody></table></div>
    </${Loading}>
    ${recipeFor ? html`<${Recipe} product=${recipeFor} products=${list} onClose=${() => setRecipeFor(null)} />` : null}
    <p class="muted">${num(list.length, 0)} producten.</p>
  </${Screen}>`;
}
