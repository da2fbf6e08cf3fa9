import { stringify } from 'csv-stringify/sync';
import type { DayCloseDto } from './journal.closes.js';

/**
 * The day close for the accountant: a printable 80 mm page and CSV (Dutch spreadsheet conventions),
 * both headed by the restaurant as its receipts are (name, address, BTW and KvK numbers).
 */
export interface CloseRestaurant {
  name: string;
  address: string | null;
  vat_number: string | null;
  kvk_number: string | null;
  timezone: string;
}

const euro = (c: number) => `${c < 0 ? '− ' : ''}€ ${(Math.abs(c) / 100).toFixed(2).replace('.', ',').replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
const num = (c: number) => (c / 100).toFixed(2).replace('.', ',');
const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
const METHOD: Record<string, string> = { contant: 'Contant', pin: 'Pin', creditcard: 'Creditcard', cadeaubon: 'Cadeaubon', overig: 'Overig', online: 'Online' };
const methodName = (m: string) => METHOD[m] ?? m;
const dutchDate = (ymd: string) => ymd.split('-').reverse().join('-');
/** `20-11-2026 19:00` in the restaurant's zone. */
const localTime = (iso: string, zone: string) => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('nl-NL', { timeZone: zone, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso)).map((x) => [x.type, x.value]),
  );
  return `${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}`;
};
/** A text cell a spreadsheet could run as a formula gets a leading apostrophe (as the payroll's, CONTRACT §13). */
const cell = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
const headLines = (r: CloseRestaurant) => [r.address, r.vat_number ? `BTW ${r.vat_number}` : null, r.kvk_number ? `KvK ${r.kvk_number}` : null].filter((x): x is string => !!x);

/** The close's figures as [label, amount in euros with a decimal comma] rows (CSV), restaurant first. */
export function closeRows(c: DayCloseDto, r: CloseRestaurant): string[][] {
  return [
    ['Restaurant', cell(r.name)],
    ...(r.address ? [['Adres', cell(r.address)]] : []),
    ...(r.vat_number ? [['Btw-nummer', cell(r.vat_number)]] : []),
    ...(r.kvk_number ? [['KvK-nummer', cell(r.kvk_number)]] : []),
    ['Dagafsluiting', String(c.number)],
    ['Bedrijfsdag', dutchDate(c.business_date)],
    ['Afgesloten op', localTime(c.closed_at, r.timezone)],
    ...(c.forced ? [['Afgesloten met voorrang', 'ja (synchronisatie liep achter)']] : []),
    ['Bestellingen', String(c.orders.count)],
    ['Omzet (incl. btw)', num(c.orders.gross_cents)],
    ...c.vat.flatMap((v) => [[`Omzet ${v.rate}% (incl. btw)`, num(v.gross_cents)], [`Btw ${v.rate}%`, num(v.vat_cents)], [`Netto ${v.rate}%`, num(v.net_cents)]]),
    ...c.by_method.flatMap((m) => [[`Betaald ${methodName(m.method)} (${m.count}x)`, num(m.amount_cents)], [`Fooi ${methodName(m.method)}`, num(m.tip_cents)]]),
    ['Kortingen', num(c.discounts_cents)],
    [`Geannuleerd (${c.voids.count}x)`, num(c.voids.cents)],
    ['Terugbetaald', num(c.refunds_cents)],
    ['Kas verwacht', num(c.cash_expected_cents)],
    ['Kas geteld', num(c.cash_counted_cents)],
    ['Kasverschil', num(c.cash_difference_cents)],
    [`Nagekomen (${c.late.count} ${c.late.count === 1 ? 'regel' : 'regels'})`, num(c.late.payments_cents)],
    ['Vorige hash', c.previous_hash],
    ['Hash', c.hash],
  ];
}

export const closeCsv = (c: DayCloseDto, r: CloseRestaurant): string =>
  stringify(closeRows(c, r), { bom: true, delimiter: ';', record_delimiter: 'windows', header: true, columns: ['Omschrijving', 'Bedrag (EUR)'] });

/** The printable page (80 mm): the restaurant as on its receipts, then the Z report in sections. */
export function closeHtml(c: DayCloseDto, r: CloseRestaurant): string {
  const row = (k: string, v: string, cls = '') => `<tr${cls ? ` class="${cls}"` : ''}><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`;
  const section = (title: string, rows: string) => `<h2>${esc(title)}</h2><table>${rows}</table>`;
  const vat = c.vat.length
    ? `<table class="vat"><thead><tr><th scope="col">Tarief</th><th scope="col">Netto</th><th scope="col">Btw</th><th scope="col">Bruto</th></tr></thead><tbody>${c.vat
        .map((v) => `<tr><th scope="row">${v.rate}%</th><td>${euro(v.net_cents)}</td><td>${euro(v.vat_cents)}</td><td>${euro(v.gross_cents)}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p>Geen omzet.</p>';
  const methods = c.by_method.map((m) => row(`${methodName(m.method)} (${m.count}×)`, euro(m.amount_cents)) + (m.tip_cents ? row(`  fooi ${methodName(m.method).toLowerCase()}`, euro(m.tip_cents)) : '')).join('') || row('Geen betalingen', euro(0));
  return `<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Dagafsluiting ${c.number} – ${esc(r.name)} – ${dutchDate(c.business_date)}</title>
<style>@page{size:80mm auto;margin:4mm}body{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;width:72mm;margin:0 auto;color:#000}h1{font-size:16px;text-align:center;margin:0 0 2px}h2{font-size:13px;margin:8px 0 2px;border-top:1px dashed #000;padding-top:4px}.c{text-align:center}table{width:100%;border-collapse:collapse}th{text-align:left;font-weight:normal}td{text-align:right;white-space:nowrap}.vat td,.vat thead th{text-align:right}.vat thead th:first-child{text-align:left}.total th,.total td{font-weight:bold}.hash td{white-space:normal;word-break:break-all;text-align:left;font-size:10px}@media screen{body{padding:12px;border:1px solid #ccc;margin-top:12px}}</style>
</head><body>
<h1>${esc(r.name)}</h1>
${headLines(r).map((h) => `<div class="c">${esc(h)}</div>`).join('\n')}
<h2>Dagafsluiting nr. ${c.number}</h2>
<table>${row('Bedrijfsdag', dutchDate(c.business_date))}${row('Afgesloten op', localTime(c.closed_at, r.timezone))}${c.forced ? row('Met voorrang', 'ja (sync liep achter)') : ''}</table>
${section('Omzet', row('Bestellingen', String(c.orders.count)) + row('Omzet incl. btw', euro(c.orders.gross_cents), 'total') + row('Kortingen', euro(c.discounts_cents)) + row(`Geannuleerd (${c.voids.count}×)`, euro(c.voids.cents)) + row('Terugbetaald', euro(c.refunds_cents)))}
<h2>Btw</h2>${vat}
${section('Betaalwijzen', methods)}
${section('Kas', row('Verwacht', euro(c.cash_expected_cents)) + row('Geteld', euro(c.cash_counted_cents)) + row('Verschil', euro(c.cash_difference_cents), 'total'))}
${c.late.count ? section('Nagekomen', row(`${c.late.count} ${c.late.count === 1 ? 'regel' : 'regels'} van ${c.late.days.map(dutchDate).join(', ')}`, euro(c.late.payments_cents)) + (c.late.refunds_cents ? row('Terugbetaald', euro(c.late.refunds_cents)) : '')) : ''}
${section('Controle', `<tr class="hash"><td>Vorige hash<br>${esc(c.previous_hash)}</td></tr><tr class="hash"><td>Hash<br>${esc(c.hash)}</td></tr>`)}
</body></html>`;
}
