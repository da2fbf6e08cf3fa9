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

/**
 * The return page's script: the same text on every page (the payment id comes from the markup), so
 * the Content-Security-Policy allows it by its hash (server/plugins/security.ts).
 */
export const RETURN_PAGE_SCRIPT = `
const id = document.getElementById('betaling').dataset.payment;
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
`;

export function returnPage(paymentId: string): string {
  return shell(
    'Je betaling',
    `<h1 id="betaling" data-payment="${esc(paymentId)}">Je betaling</h1>
<p id="restaurant" class="muted"></p>
<p>Betaling: <span id="status" data-testid="payment-status">even kijken…</span></p>
<p id="bestelling" data-testid="order"></p>
<script type="module">${RETURN_PAGE_SCRIPT}</script>`,
  );
}
