/**
 * Two deliberately small guest pages (the real guest pages come with issue 15): ordering from the
 * public menu (pickup, paid online) and the page a guest returns to after the checkout. Plain HTML
 * and a few lines of script against the public JSON API; Dutch.
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #faf7f2; margin: 0; padding: 1.5rem 1rem; color: #222; }
  main { max-width: 34rem; margin: 0 auto; }
  h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; }
  .product { display: flex; justify-content: space-between; align-items: center; padding: .5rem 0; border-bottom: 1px solid #e7e2d8; }
  .product input { width: 4rem; font-size: 1rem; padding: .3rem; }
  label { display: block; margin: .8rem 0 .2rem; font-weight: 600; }
  input[type=text], input[type=tel], input[type=email] { width: 100%; box-sizing: border-box; font-size: 1rem; padding: .5rem; border: 1px solid #bbb; border-radius: 6px; }
  button { margin-top: 1.2rem; width: 100%; font-size: 1.1rem; padding: .8rem; border: 0; border-radius: 8px; background: #b45309; color: #fff; }
  .err { color: #b42318; } .ok { color: #15803d; font-weight: 700; } .muted { color: #666; }
`;

const shell = (title: string, body: string) => `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

export function orderPage(slug: string): string {
  return shell(
    'Bestellen',
    `<h1 id="naam">Bestellen</h1>
<p id="pauze" class="err" hidden></p>
<form id="f">
  <div id="menu"><p class="muted">Menukaart laden…</p></div>
  <h2>Jouw gegevens (afhalen)</h2>
  <label for="name">Naam</label><input id="name" name="name" type="text" required maxlength="120">
  <label for="phone">Telefoonnummer</label><input id="phone" name="phone" type="tel" required>
  <label for="email">E-mail (niet verplicht)</label><input id="email" name="email" type="email">
  <button id="bestel" type="submit">Bestellen en betalen</button>
  <p id="msg" role="status"></p>
</form>
<script type="module">
const slug = ${JSON.stringify(slug)};
const euro = (c) => '€ ' + Math.floor(c / 100) + ',' + String(c % 100).padStart(2, '0');
const key = crypto.randomUUID();
const r = await fetch('/api/v1/public/menu/' + encodeURIComponent(slug));
const menu = await r.json();
if (!r.ok) { document.getElementById('menu').textContent = menu.error; throw new Error(menu.error); }
document.getElementById('naam').textContent = 'Bestellen bij ' + menu.restaurant.name;
if (!menu.ordering.accepting) { const p = document.getElementById('pauze'); p.hidden = false; p.textContent = menu.ordering.message; }
const box = document.getElementById('menu'); box.textContent = '';
for (const c of menu.categories) {
  const h = document.createElement('h2'); h.textContent = c.name; box.append(h);
  for (const p of c.products) {
    const row = document.createElement('div'); row.className = 'product';
    const l = document.createElement('span'); l.textContent = p.name + ' — ' + euro(p.price_cents);
    const q = document.createElement('input'); q.type = 'number'; q.min = '0'; q.max = '99'; q.value = '0'; q.dataset.product = p.id; q.setAttribute('aria-label', 'Aantal ' + p.name);
    row.append(l, q); box.append(row);
  }
}
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const msg = document.getElementById('msg');
  const items = [...document.querySelectorAll('input[data-product]')].filter((i) => Number(i.value) > 0).map((i) => ({ product_id: i.dataset.product, quantity: Number(i.value) }));
  const f = new FormData(e.target);
  const customer = { name: f.get('name'), phone: f.get('phone') };
  if (f.get('email')) customer.email = f.get('email');
  const res = await fetch('/api/v1/public/order/' + encodeURIComponent(slug), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items, customer, type: 'pickup', idempotency_key: key }) });
  const body = await res.json();
  if (!res.ok) { msg.className = 'err'; msg.textContent = body.error; return; }
  if (body.checkout_url) location.href = body.checkout_url;
  else { msg.className = 'ok'; msg.textContent = 'Bestelling ' + body.order.number + ' is ontvangen.'; }
});
</script>`,
  );
}

export function returnPage(paymentId: string): string {
  return shell(
    'Je betaling',
    `<h1>Je betaling</h1>
<p id="restaurant" class="muted"></p>
<p>Betaling: <span id="status" data-testid="payment-status">even kijken…</span></p>
<p id="bestelling" data-testid="order"></p>
<script type="module">
const id = ${JSON.stringify(paymentId)};
const NL = { open: 'nog niet afgerond', paid: 'betaald', failed: 'mislukt', expired: 'verlopen', canceled: 'geannuleerd' };
async function load() {
  const r = await fetch('/api/v1/public/betaling/' + encodeURIComponent(id) + '/status');
  const p = await r.json();
  if (!r.ok) { document.getElementById('status').textContent = p.error; return; }
  document.getElementById('restaurant').textContent = p.restaurant.name;
  const s = document.getElementById('status'); s.textContent = NL[p.status]; s.className = p.status === 'paid' ? 'ok' : p.status === 'open' ? '' : 'err';
  if (p.order) document.getElementById('bestelling').textContent = 'Bestelling ' + p.order.number + ': ' + (p.order.payment_status === 'paid' ? 'betaald' : 'nog niet betaald');
  else if (p.table_name) document.getElementById('bestelling').textContent = 'Tafel ' + p.table_name;
  if (p.status === 'open') setTimeout(load, 2000);
}
load();
</script>`,
  );
}
