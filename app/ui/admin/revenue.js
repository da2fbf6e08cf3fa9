// Revenue for the manager (issue 25, docs/till.md "Revenue"): a period of business days, its omzet
// incl. and excl. VAT, orders, average ticket, tips, discounts and labour %, VAT per rate, payment
// methods, and bars per day, per hour and per weekday. The money comes from the till's journal (GET
// /analytics/revenue), so a day here is the day's close. The bars are plain CSS: every bar has its
// figure as text for a screen reader, and every chart can be read as a table.
import { html, useState } from '../lib/html.js';
import { get } from '../lib/api.js';
import { addDays, day, euro, num, shortDay, today } from '../lib/format.js';
import { Loading, Screen, useAsync } from '../components/ui.js';

const WEEKDAY = { mon: 'maandag', tue: 'dinsdag', wed: 'woensdag', thu: 'donderdag', fri: 'vrijdag', sat: 'zaterdag', sun: 'zondag' };
const WEEKDAY_SHORT = { mon: 'ma', tue: 'di', wed: 'wo', thu: 'do', fri: 'vr', sat: 'za', sun: 'zo' };
const METHOD = { contant: 'Contant', pin: 'Pin', creditcard: 'Creditcard', cadeaubon: 'Cadeaubon', overig: 'Overig', online: 'Online' };
const percent = (/** @type {number|null} */ p) => (p === null || p === undefined ? '–' : `${num(p, 1)} %`);
const orders = (/** @type {number} */ n) => `${n} ${n === 1 ? 'bestelling' : 'bestellingen'}`;

/** The quick periods: [label, from, to] relative to today. */
const presets = () => {
  const t = today();
  const first = `${t.slice(0, 8)}01`;
  return [
    ['Vandaag', t, t],
    ['Gisteren', addDays(t, -1), addDays(t, -1)],
    ['Laatste 7 dagen', addDays(t, -6), t],
    ['Laatste 28 dagen', addDays(t, -27), t],
    ['Deze maand', first, t],
  ];
};

/**
 * Bars of one series (gross per day, hour or weekday): the bar is decoration (aria-hidden), its
 * figure is text; a table with the same figures follows in a <details>.
 */
function Bars({ id, title, rows, label, long }) {
  const max = Math.max(1, ...rows.map((r) => r.gross_cents));
  const dense = rows.length > 14;
  return html`<figure class="bars-figure" id=${id}>
    <figcaption><h2>${title}</h2></figcaption>
    <ol class=${`bars${dense ? ' dense' : ''}`} aria-label=${`${title}: omzet incl. btw`}>
      ${rows.map(
        (r) => html`<li data-key=${r.key}>
          <span class="bar-track" aria-hidden="true">
            <span class="bar-fill" style=${`height:${Math.round((r.gross_cents / max) * 100)}%`}></span>
            ${r.gross_cents ? html`<span class="bar-value" style=${`bottom:${Math.round((r.gross_cents / max) * 100)}%`}>${euro(r.gross_cents).replace(/,00$/, '')}</span>` : null}
          </span>
          <span class="bar-label" aria-hidden="true">${label(r)}</span>
          <span class="sr-only">${long(r)}: ${euro(r.gross_cents)}, ${orders(r.orders)}</span>
        </li>`,
      )}
    </ol>
    <details>
      <summary>${title} als tabel</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-label=${`${title} als tabel`}><table class="list">
        <thead><tr><th scope="col">${title.replace(/^Omzet per /, '').replace(/^./, (c) => c.toUpperCase())}</th><th class="num" scope="col">Omzet incl. btw</th><th class="num" scope="col">Excl. btw</th><th class="num" scope="col">Bestellingen</th><th class="num" scope="col">Gem. bon</th>${rows[0]?.labour_cents !== null ? html`<th class="num" scope="col">Loonkosten</th><th class="num" scope="col">Loon %</th>` : null}</tr></thead>
        <tbody>${rows.map(
          (r) => html`<tr><th scope="row">${long(r)}</th><td class="num">${euro(r.gross_cents)}</td><td class="num">${euro(r.net_cents)}</td><td class="num">${r.orders}</td><td class="num">${euro(r.avg_ticket_cents)}</td>${r.labour_cents !== null ? html`<td class="num">${euro(r.labour_cents)}</td><td class="num">${percent(r.labour_percent)}</td>` : null}</tr>`,
        )}</tbody>
      </table></div>
    </details>
  </figure>`;
}

function Tile({ id, label, value, note = '' }) {
  return html`<div class="tile kpi" id=${id}><div class="kpi-label">${label}</div><div class="kpi-value">${value}</div>${note ? html`<div class="kpi-note muted">${note}</div>` : null}</div>`;
}

export default function Revenue() {
  const [period, setPeriod] = useState(() => ({ from: addDays(today(), -6), to: today() }));
  const [draft, setDraft] = useState(period);
  const q = `from=${period.from}&to=${period.to}`;
  const byDay = useAsync(() => get(`/analytics/revenue?${q}&group=day`), [q]);
  const byHour = useAsync(() => get(`/analytics/revenue?${q}&group=hour`), [q]);
  const byWeekday = useAsync(() => get(`/analytics/revenue?${q}&group=weekday`), [q]);
  const d = byDay.data;
  const t = d?.totals;
  const pick = (/** @type {string} */ from, /** @type {string} */ to) => {
    setDraft({ from, to });
    setPeriod({ from, to });
  };
  return html`<${Screen} title="Omzet" id="revenue">
    <form class="inline period" id="revenue-period" novalidate onSubmit=${(e) => {
      e.preventDefault();
      setPeriod(draft);
    }}>
      <div class="field"><label for="revenue-from">Van</label><input id="revenue-from" type="date" value=${draft.from} onInput=${(e) => setDraft({ ...draft, from: e.currentTarget.value })} /></div>
      <div class="field"><label for="revenue-to">Tot en met</label><input id="revenue-to" type="date" value=${draft.to} onInput=${(e) => setDraft({ ...draft, to: e.currentTarget.value })} /></div>
      <div class="form-buttons"><button type="submit" class="primary">Toon</button></div>
    </form>
    <div class="presets" role="group" aria-label="Snel kiezen">
      ${presets().map(([label, from, to]) => html`<button type="button" aria-pressed=${period.from === from && period.to === to ? 'true' : 'false'} onClick=${() => pick(from, to)}>${label}</button>`)}
    </div>
    <${Loading} when=${byDay.loading && !d} error=${byDay.error}>
      ${d
        ? html`<p class="muted" id="revenue-range">${d.from === d.to ? shortDay(d.from) : `${shortDay(d.from)} t/m ${shortDay(d.to)}`} · ${d.days} ${d.days === 1 ? 'bedrijfsdag' : 'bedrijfsdagen'} · uit het kassajournaal, gelijk aan de dagafsluitingen</p>
          <div class="kpis" id="revenue-totals">
            <${Tile} id="kpi-gross" label="Omzet incl. btw" value=${euro(t.gross_cents)} />
            <${Tile} id="kpi-net" label="Omzet excl. btw" value=${euro(t.net_cents)} note=${`btw ${euro(t.vat_cents)}`} />
            <${Tile} id="kpi-orders" label="Bestellingen" value=${String(t.orders)} />
            <${Tile} id="kpi-avg" label="Gemiddelde bon" value=${euro(t.avg_ticket_cents)} />
            <${Tile} id="kpi-tips" label="Fooien" value=${euro(t.tips_cents)} />
            <${Tile} id="kpi-discounts" label="Kortingen" value=${euro(t.discounts_cents)} />
            <${Tile} id="kpi-labour" label="Loonkosten" value=${euro(d.labour_cents)} note=${`${num(d.labour_hours)} uur gewerkt`} />
            <${Tile} id="kpi-labour-percent" label="Loonkosten % van omzet excl. btw" value=${percent(d.labour_percent)} />
          </div>
          ${d.open_shifts || d.labour_unpriced_hours
            ? html`<p class="muted" id="labour-note">${[
                d.open_shifts ? `${d.open_shifts} ${d.open_shifts === 1 ? 'dienst loopt' : 'diensten lopen'} nog en ${d.open_shifts === 1 ? 'telt' : 'tellen'} pas mee na het uitklokken.` : '',
                d.labour_unpriced_hours ? `${num(d.labour_unpriced_hours)} uur van medewerkers zonder uurloon telt niet mee in de loonkosten.` : '',
              ].filter(Boolean).join(' ')}</p>`
            : null}
          <${Bars} id="chart-day" title="Omzet per dag" rows=${d.data} label=${(r) => (d.data.length > 14 ? String(Number(r.key.slice(8))) : day(r.key).split(' ').slice(0, 2).join(' '))} long=${(r) => day(r.key)} />
        `
        : null}
    </${Loading}>
    <div class="grid two">
      <${Loading} when=${byHour.loading && !byHour.data} error=${byHour.error}>
        ${byHour.data
          ? html`<${Bars} id="chart-hour" title="Omzet per uur" rows=${byHour.data.data} label=${(r) => r.key} long=${(r) => `${r.key}:00–${String((Number(r.key) + 1) % 24).padStart(2, '0')}:00`} />`
          : null}
      </${Loading}>
      <${Loading} when=${byWeekday.loading && !byWeekday.data} error=${byWeekday.error}>
        ${byWeekday.data
          ? html`<${Bars} id="chart-weekday" title="Omzet per weekdag" rows=${byWeekday.data.data} label=${(r) => WEEKDAY_SHORT[r.key]} long=${(r) => WEEKDAY[r.key]} />`
          : null}
      </${Loading}>
    </div>
    ${d
      ? html`<div class="grid two">
          <div><h2>Btw per tarief</h2>
            <div class="table-wrap" tabindex="0" role="region" aria-label="Btw per tarief"><table class="list" id="revenue-vat"><thead><tr><th scope="col">Tarief</th><th class="num" scope="col">Excl. btw</th><th class="num" scope="col">Btw</th><th class="num" scope="col">Incl. btw</th></tr></thead>
              <tbody>${d.vat.length ? d.vat.map((v) => html`<tr><th scope="row">${v.rate} %</th><td class="num">${euro(v.net_cents)}</td><td class="num">${euro(v.vat_cents)}</td><td class="num">${euro(v.gross_cents)}</td></tr>`) : html`<tr><td colspan="4" class="muted">Geen omzet in deze periode.</td></tr>`}</tbody></table></div></div>
          <div><h2>Betaalwijzen</h2>
            <div class="table-wrap" tabindex="0" role="region" aria-label="Betaalwijzen"><table class="list" id="revenue-methods"><thead><tr><th scope="col">Betaalwijze</th><th class="num" scope="col">Aantal</th><th class="num" scope="col">Bedrag</th><th class="num" scope="col">Fooi</th></tr></thead>
              <tbody>${d.by_method.length ? d.by_method.map((m) => html`<tr><th scope="row">${METHOD[m.method] ?? m.method}</th><td class="num">${m.count}</td><td class="num">${euro(m.amount_cents)}</td><td class="num">${euro(m.tip_cents)}</td></tr>`) : html`<tr><td colspan="4" class="muted">Geen betalingen in deze periode.</td></tr>`}</tbody></table></div>
            ${t.refunds_cents || t.voids_cents ? html`<p class="muted">Terugbetaald ${euro(t.refunds_cents)} · geannuleerd ${euro(t.voids_cents)}</p>` : null}</div>
        </div>`
      : null}
  </${Screen}>`;
}
