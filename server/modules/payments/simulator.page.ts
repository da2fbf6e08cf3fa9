import type { SimulatorRow } from './simulator.provider.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
export const euro = (cents: number) => `€ ${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;

const STATUS_NL: Record<SimulatorRow['status'], string> = {
  open: 'Wacht op betaling',
  paid: 'Betaald',
  failed: 'Mislukt',
  expired: 'Verlopen',
  canceled: 'Geannuleerd',
};

/**
 * The simulator's checkout page: plain HTML, no script, Dutch. A person picks "betaald" or
 * "mislukt"; the form posts back here and the simulator then calls the service's callback as a
 * real provider would.
 */
export function checkoutPage(row: SimulatorRow): string {
  const open = row.status === 'open';
  return `<!doctype html>
<html lang="nl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Betalen (testomgeving)</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f1ea; margin: 0; padding: 2rem 1rem; color: #222; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 1.5rem; box-shadow: 0 2px 10px rgba(0,0,0,.08); }
  .badge { display: inline-block; background: #fde68a; color: #78350f; border-radius: 999px; padding: .15rem .6rem; font-size: .8rem; }
  .amount { font-size: 2.2rem; font-weight: 700; margin: .5rem 0 1rem; }
  button { width: 100%; font-size: 1.1rem; padding: .9rem; border: 0; border-radius: 8px; margin-top: .6rem; cursor: pointer; }
  .paid { background: #15803d; color: #fff; }
  .failed { background: #e5e7eb; color: #991b1b; }
  .status { font-weight: 600; }
</style>
</head>
<body>
<main>
  <span class="badge">Testomgeving: er wordt geen echt geld betaald</span>
  <h1>Betalen</h1>
  <p>${esc(row.description)}</p>
  <p class="amount" data-testid="amount">${euro(row.amount_cents)}</p>
  <p>Status: <span class="status" data-testid="status">${STATUS_NL[row.status]}</span></p>
  ${
    open
      ? `<form method="post">
    <button class="paid" type="submit" name="uitkomst" value="betaald">Betaald</button>
    <button class="failed" type="submit" name="uitkomst" value="mislukt">Mislukt</button>
  </form>`
      : `<p><a href="${esc(row.redirect_url)}">Terug naar de bestelling</a></p>`
  }
</main>
</body>
</html>`;
}
