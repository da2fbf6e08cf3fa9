import type { Receipt } from './till.schemas.js';

/** A receipt as a printable 80 mm page (GET .../receipt?format=html): Dutch, money in Dutch notation, nothing from outside. */
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const money = (cents: number): string => `€ ${(cents / 100).toFixed(2).replace('.', ',').replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
const METHOD: Record<string, string> = { contant: 'Contant', pin: 'Pin', creditcard: 'Creditcard', cadeaubon: 'Cadeaubon', overig: 'Overig', online: 'Online' };
const when = (iso: string | null, zone: string): string =>
  iso ? new Intl.DateTimeFormat('nl-NL', { timeZone: zone, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(iso)) : '';

export function renderReceiptHtml(r: Receipt, zone: string): string {
  const row = (left: string, right: string, cls = '') => `<tr${cls ? ` class="${cls}"` : ''}><td>${left}</td><td class="r">${right}</td></tr>`;
  const lines = r.lines
    .map((l) => row(`${l.quantity}× ${esc(l.name)}${l.options.length ? `<br><small>${l.options.map(esc).join(', ')}</small>` : ''}`, money(l.total_cents)))
    .join('');
  const discounts = r.discounts.map((d) => row(`Korting: ${esc(d.reason)}`, `− ${money(d.amount_cents)}`)).join('');
  const vat = r.vat.map((v) => `<tr><td>${v.rate}%</td><td class="r">${money(v.net_cents)}</td><td class="r">${money(v.vat_cents)}</td><td class="r">${money(v.gross_cents)}</td></tr>`).join('');
  const payments = r.payments
    .map((p) => row(esc(METHOD[p.method] ?? p.method), money(p.amount_cents)) + (p.tip_cents ? row('Fooi', money(p.tip_cents)) : '') + (p.received_cents !== null ? row('Ontvangen', money(p.received_cents)) : '') + (p.change_cents ? row('Wisselgeld', money(p.change_cents)) : ''))
    .join('');
  const head = [r.restaurant.address, r.restaurant.vat_number ? `BTW ${r.restaurant.vat_number}` : null, r.restaurant.kvk_number ? `KvK ${r.restaurant.kvk_number}` : null].filter((x): x is string => !!x).map(esc);
  return `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><title>Bon ${esc(r.receipt_number ?? '')}</title>
<style>
@page { size: 80mm auto; margin: 4mm; }
body { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; width: 72mm; margin: 0 auto; color: #000; }
h1 { font-size: 16px; text-align: center; margin: 0 0 2px; }
.c { text-align: center; } .r { text-align: right; white-space: nowrap; }
table { width: 100%; border-collapse: collapse; } td { vertical-align: top; padding: 1px 0; }
hr { border: 0; border-top: 1px dashed #000; margin: 6px 0; }
.total td { font-weight: bold; font-size: 14px; } small { color: #333; }
@media screen { body { padding: 12px; border: 1px solid #ccc; margin-top: 12px; } }
</style></head><body>
<h1>${esc(r.restaurant.name)}</h1>
${head.map((h) => `<div class="c">${h}</div>`).join('\n')}
<hr>
<div>Bon ${esc(r.receipt_number ?? '(nog niet betaald)')}</div>
<div>${esc(when(r.paid_at, zone))}${r.table_name ? ` · Tafel ${esc(r.table_name)}` : ''}</div>
<hr>
<table>${lines}${discounts}${row('Totaal', money(r.total_cents), 'total')}</table>
<hr>
<table><tr><td>BTW</td><td class="r">excl.</td><td class="r">BTW</td><td class="r">incl.</td></tr>${vat}</table>
<hr>
<table>${payments}</table>
${r.footer ? `<hr><div class="c">${esc(r.footer)}</div>` : ''}
</body></html>`;
}

/** The receipt as text lines for a receipt printer (32 columns: fits 58 and 80 mm paper). */
export function receiptLines(r: Receipt, zone: string): string[] {
  const W = 32;
  const m = (c: number) => money(c).replace('€ ', '€');
  const lr = (left: string, right: string) => {
    const l = left.length + right.length + 1 > W ? left.slice(0, W - right.length - 2) + '…' : left;
    return l + ' '.repeat(Math.max(1, W - l.length - right.length)) + right;
  };
  const center = (s: string) => ' '.repeat(Math.max(0, Math.floor((W - s.length) / 2))) + s;
  const rule = '-'.repeat(W);
  const out: string[] = [center(r.restaurant.name)];
  if (r.restaurant.address) out.push(center(r.restaurant.address));
  if (r.restaurant.vat_number) out.push(center(`BTW ${r.restaurant.vat_number}`));
  if (r.restaurant.kvk_number) out.push(center(`KvK ${r.restaurant.kvk_number}`));
  out.push(rule, `Bon ${r.receipt_number ?? '(nog niet betaald)'}`, `${when(r.paid_at, zone)}${r.table_name ? ` Tafel ${r.table_name}` : ''}`, rule);
  for (const l of r.lines) {
    out.push(lr(`${l.quantity}x ${l.name}`, m(l.total_cents)));
    for (const o of l.options) out.push(`   ${o}`.slice(0, W));
  }
  for (const d of r.discounts) out.push(lr(`Korting ${d.reason}`, `-${m(d.amount_cents)}`));
  out.push(rule, lr('TOTAAL', m(r.total_cents)), rule, lr('BTW', 'excl.    BTW'));
  for (const v of r.vat) out.push(lr(`${v.rate}%`, `${m(v.net_cents)} ${m(v.vat_cents)}`));
  out.push(rule);
  for (const p of r.payments) {
    out.push(lr(METHOD[p.method] ?? p.method, m(p.amount_cents)));
    if (p.tip_cents) out.push(lr('Fooi', m(p.tip_cents)));
    if (p.received_cents !== null) out.push(lr('Ontvangen', m(p.received_cents)));
    if (p.change_cents) out.push(lr('Wisselgeld', m(p.change_cents)));
  }
  if (r.footer) out.push(rule, center(r.footer));
  return out;
}
