import { stringify } from 'csv-stringify/sync';
import type { DayCloseDto } from './journal.closes.js';

/** The day close printable (80 mm) and as CSV for the accountant (Dutch spreadsheet conventions). */
const euro = (c: number) => `€ ${(c / 100).toFixed(2).replace('.', ',')}`;
const num = (c: number) => (c / 100).toFixed(2).replace('.', ',');
const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);

export function closeRows(c: DayCloseDto): string[][] {
  return [
    ['Dagafsluiting', String(c.number)],
    ['Bedrijfsdag', c.business_date],
    ['Afgesloten op', c.closed_at],
    ['Bestellingen', String(c.orders.count)],
    ['Omzet (incl. btw)', num(c.orders.gross_cents)],
    ...c.vat.flatMap((v) => [[`Omzet ${v.rate}% (incl. btw)`, num(v.gross_cents)], [`Btw ${v.rate}%`, num(v.vat_cents)], [`Netto ${v.rate}%`, num(v.net_cents)]]),
    ...c.by_method.flatMap((m) => [[`Betaald ${m.method} (${m.count}x)`, num(m.amount_cents)], [`Fooi ${m.method}`, num(m.tip_cents)]]),
    ['Kortingen', num(c.discounts_cents)],
    [`Geannuleerd (${c.voids.count}x)`, num(c.voids.cents)],
    ['Terugbetaald', num(c.refunds_cents)],
    ['Kas verwacht', num(c.cash_expected_cents)],
    ['Kas geteld', num(c.cash_counted_cents)],
    ['Kasverschil', num(c.cash_difference_cents)],
    [`Nagekomen (${c.late.count} regels)`, num(c.late.payments_cents)],
    ['Vorige hash', c.previous_hash],
    ['Hash', c.hash],
  ];
}

export const closeCsv = (c: DayCloseDto): string => stringify(closeRows(c), { bom: true, delimiter: ';', record_delimiter: 'windows', header: true, columns: ['Omschrijving', 'Bedrag (EUR)'] });

export function closeHtml(c: DayCloseDto, restaurant: string): string {
  const rows = closeRows(c)
    .map(([k, v]) => `<tr><th scope="row">${esc(k!)}</th><td>${esc(/^-?\d+,\d\d$/.test(v!) ? euro(Math.round(Number(v!.replace(',', '.')) * 100)) : v!)}</td></tr>`)
    .join('');
  return `<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Dagafsluiting ${c.number} – ${esc(restaurant)}</title>
<style>@page{size:80mm auto;margin:4mm}body{font:12px/1.4 monospace;width:72mm}h1{font-size:14px}table{width:100%;border-collapse:collapse}th{text-align:left;font-weight:normal}td{text-align:right;word-break:break-all}</style>
</head><body><h1>${esc(restaurant)}<br>Dagafsluiting nr. ${c.number}</h1><table>${rows}</table></body></html>`;
}
