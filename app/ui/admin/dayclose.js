// The day close (dagafsluiting, issue 25, docs/till.md "Day close") for the manager: the X report of
// a business day so far, the cash counted against what the journal expects (the difference shown
// while typing), the close itself (final: asked first), the sync-behind refusal with its reason and a
// "toch afsluiten" for the manager who knows, and the history of closes with their printable page
// and CSV for the accountant.
import { html, useState } from '../lib/html.js';
import { ApiError, get, post } from '../lib/api.js';
import { dateTime, euro, longDay, parseCents, shortDay } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { ErrorText, Field, Loading, Screen, confirmDialog, plainError, useAsync, useForm } from '../components/ui.js';

const METHOD = { contant: 'Contant', pin: 'Pin', creditcard: 'Creditcard', cadeaubon: 'Cadeaubon', overig: 'Overig', online: 'Online' };
/** The appliance's refusal while its sync with the cloud is behind (journal.closes.ts): the one 409 a manager may override. */
const SYNC_BEHIND = /^De dag kan nog niet worden afgesloten:/;

/** "− € 5,00 (te weinig)", "€ 2,50 (te veel)", "€ 0,00 (klopt)". @param {number} cents */
export const differenceText = (cents) => (cents < 0 ? `− ${euro(-cents)} (te weinig)` : cents > 0 ? `${euro(cents)} (te veel)` : `${euro(0)} (klopt)`);
const signOf = (/** @type {number} */ cents) => (cents < 0 ? 'short' : cents > 0 ? 'over' : 'even');

function Tile({ id, label, value, note = '', kind = '' }) {
  return html`<div class=${`tile kpi ${kind}`} id=${id}><div class="kpi-label">${label}</div><div class="kpi-value">${value}</div>${note ? html`<div class="kpi-note muted">${note}</div>` : null}</div>`;
}

/** The figures of an X or Z report (the same shape). */
function Figures({ r }) {
  return html`
    <div class="kpis" id="close-figures">
      <${Tile} id="x-gross" label="Omzet incl. btw" value=${euro(r.orders.gross_cents)} />
      <${Tile} id="x-orders" label="Bestellingen" value=${String(r.orders.count)} />
      <${Tile} id="x-discounts" label="Kortingen" value=${euro(r.discounts_cents)} />
      <${Tile} id="x-voids" label="Geannuleerd" value=${euro(r.voids.cents)} note=${`${r.voids.count}×`} />
      <${Tile} id="x-refunds" label="Terugbetaald" value=${euro(r.refunds_cents)} />
      <${Tile} id="x-cash" label="Contant verwacht in de kassa" value=${euro(r.cash_expected_cents)} />
    </div>
    ${r.late.count
      ? html`<p class="close-warning" id="x-late">Nagekomen: ${r.late.count} ${r.late.count === 1 ? 'regel' : 'regels'} van ${r.late.days.map(shortDay).join(', ')} (${euro(r.late.payments_cents)} betaald) kwamen binnen na de afsluiting van die dag; ze staan in deze afsluiting.</p>`
      : null}
    <div class="grid two">
      <div><h2>Btw per tarief</h2>
        <div class="table-wrap" tabindex="0" role="region" aria-label="Btw per tarief"><table class="list" id="x-vat"><thead><tr><th scope="col">Tarief</th><th class="num" scope="col">Excl. btw</th><th class="num" scope="col">Btw</th><th class="num" scope="col">Incl. btw</th></tr></thead>
          <tbody>${r.vat.length ? r.vat.map((v) => html`<tr><th scope="row">${v.rate} %</th><td class="num">${euro(v.net_cents)}</td><td class="num">${euro(v.vat_cents)}</td><td class="num">${euro(v.gross_cents)}</td></tr>`) : html`<tr><td colspan="4" class="muted">Nog geen omzet.</td></tr>`}</tbody></table></div></div>
      <div><h2>Betaalwijzen</h2>
        <div class="table-wrap" tabindex="0" role="region" aria-label="Betaalwijzen"><table class="list" id="x-methods"><thead><tr><th scope="col">Betaalwijze</th><th class="num" scope="col">Aantal</th><th class="num" scope="col">Bedrag</th><th class="num" scope="col">Fooi</th></tr></thead>
          <tbody>${r.by_method.length ? r.by_method.map((m) => html`<tr><th scope="row">${METHOD[m.method] ?? m.method}</th><td class="num">${m.count}</td><td class="num">${euro(m.amount_cents)}</td><td class="num">${euro(m.tip_cents)}</td></tr>`) : html`<tr><td colspan="4" class="muted">Nog geen betalingen.</td></tr>`}</tbody></table></div></div>
    </div>`;
}

const links = (c) => html`<a href=${`/api/v1/day-closes/${c.id}?format=html`} target="_blank" rel="noopener" aria-label=${`Afdruk van dagafsluiting ${c.number}`}>Afdruk</a>${' · '}<a href=${`/api/v1/day-closes/${c.id}?format=csv`} download=${`dagafsluiting-${c.number}-${c.business_date}.csv`} aria-label=${`CSV van dagafsluiting ${c.number}`}>CSV</a>`;

export default function DayClose() {
  const [date, setDate] = useState('');
  const preview = useAsync(() => get(`/day-closes/preview${date ? `?date=${date}` : ''}`), [date]);
  const closes = useAsync(() => get('/day-closes?limit=60'));
  const form = useForm({ counted: '' });
  const [behind, setBehind] = useState('');
  const [forceError, setForceError] = useState('');
  const p = preview.data;
  // A closed day's preview counts only what arrived after its close: the close itself has the day's figures.
  const closed = useAsync(() => (p?.close_id ? get(`/day-closes/${p.close_id}`) : Promise.resolve(null)), [p?.close_id ?? '']);
  const z = p?.closed ? closed.data : null;
  const typed = parseCents(form.values.counted);
  const difference = p && !Number.isNaN(typed) && String(form.values.counted).trim() !== '' ? typed - p.cash_expected_cents : null;

  const close = async (/** @type {boolean} */ force) => {
    const cents = form.cents('counted', { max: 100_000_000 });
    const diff = cents - p.cash_expected_cents;
    const ok = await confirmDialog({
      title: `${longDay(p.business_date)} afsluiten?`,
      message: `Omzet ${euro(p.orders.gross_cents)}; contant verwacht ${euro(p.cash_expected_cents)}, geteld ${euro(cents)}, verschil ${differenceText(diff)}. Een afgesloten dag is definitief: er kan daarna niets meer op worden geboekt.${force ? ' De synchronisatie met de cloud loopt achter; online betalingen die nog binnenkomen staan in de volgende afsluiting.' : ''}`,
      confirmLabel: force ? 'Toch afsluiten' : 'Dag afsluiten',
      danger: force,
    });
    if (!ok) return;
    try {
      const made = await post('/day-closes', { business_date: p.business_date, cash_counted_cents: cents, ...(force ? { force: true } : {}) });
      setBehind('');
      setForceError('');
      form.reset({ counted: '' });
      toast(`Dagafsluiting ${made.number} gemaakt.`);
      await Promise.all([preview.reload(), closes.reload()]);
    } catch (err) {
      if (!force && err instanceof ApiError && err.status === 409 && SYNC_BEHIND.test(err.message)) {
        setBehind(err.message);
        return;
      }
      if (force) {
        setForceError(plainError(err));
        return;
      }
      throw err;
    }
  };

  return html`<${Screen} title="Dagafsluiting" id="dayclose" actions=${html`<div class="day-nav">
      <label for="close-date" class="sr-only">Bedrijfsdag</label>
      <input id="close-date" type="date" value=${date || p?.business_date || ''} onChange=${(e) => setDate(e.currentTarget.value)} />
    </div>`}>
    <${Loading} when=${preview.loading && !p} error=${preview.error}>
      ${p
        ? html`<h2 id="x-title">${p.closed ? `Afgesloten (Z-rapport nr. ${z?.number ?? '…'})` : 'Tussenstand (X-rapport)'} · ${longDay(p.business_date)}</h2>
          ${p.closed
            ? html`<${Loading} when=${!z} error=${closed.error}>${z
                ? html`<${Figures} r=${z} />
                  <p class="close-done" id="close-done">Deze dag is afgesloten op ${dateTime(z.closed_at)}: contant verwacht ${euro(z.cash_expected_cents)}, geteld ${euro(z.cash_counted_cents)}, kasverschil ${differenceText(z.cash_difference_cents)} · ${links(z)}</p>
                  ${p.entries ? html`<p class="close-warning" id="after-close">Na de afsluiting kwamen nog ${p.entries} ${p.entries === 1 ? 'regel' : 'regels'} van deze dag binnen (${euro(p.orders.gross_cents)} betaald); ze staan in de volgende afsluiting.</p>` : null}`
                : null}</${Loading}>`
            : html`<${Figures} r=${p} />
              <section aria-labelledby="count-title">
                <h2 id="count-title">Kas tellen en afsluiten</h2>
                <form novalidate id="close-form" onSubmit=${form.submit(() => close(false), '')}>
                  <div class="cash-count">
                    <${Field} form=${form} name="counted" label="Geteld contant geld (€)" api="cash_counted_cents" money required autocomplete="off" />
                    <div class="tile kpi" id="cash-expected"><div class="kpi-label">Verwacht</div><div class="kpi-value">${euro(p.cash_expected_cents)}</div></div>
                    <div class="tile kpi" id="cash-difference"><div class="kpi-label">Verschil</div>
                      <div class="kpi-value difference" data-sign=${difference === null ? null : signOf(difference)} aria-live="polite">${difference === null ? '–' : differenceText(difference)}</div></div>
                  </div>
                  <div class="form-foot">
                    <${ErrorText} text=${form.error} id="close-error" />
                    <div class="form-buttons"><button type="submit" class="primary big" id="close-submit" disabled=${form.busy}>${form.busy ? 'Bezig…' : 'Dag afsluiten'}</button></div>
                  </div>
                </form>
                ${behind
                  ? html`<div class="close-warning" id="close-behind" role="alert">
                      <p>${behind}</p>
                      <${ErrorText} text=${forceError} id="force-error" />
                      <button type="button" class="danger-solid" id="close-force" onClick=${() => void form.submit(() => close(true), '')()}>Toch afsluiten</button>
                    </div>`
                  : null}
              </section>`}
        `
        : null}
    </${Loading}>
    <h2>Eerdere afsluitingen</h2>
    <${Loading} when=${closes.loading && !closes.data} error=${closes.error}>
      ${closes.data?.data.length
        ? html`<div class="table-wrap"><table class="list" id="close-history">
            <thead><tr><th scope="col">Nr.</th><th scope="col">Bedrijfsdag</th><th class="num" scope="col">Omzet</th><th class="num" scope="col">Contant verwacht</th><th class="num" scope="col">Geteld</th><th class="num" scope="col">Verschil</th><th scope="col">Afgesloten</th><th scope="col">Stukken</th></tr></thead>
            <tbody>${closes.data.data.map(
              (c) => html`<tr data-close=${c.number}>
                <td><span class="stack-only">Nr. </span>${c.number}</td><td>${shortDay(c.business_date)}</td><td class="num">${euro(c.orders.gross_cents)}</td><td class="num">${euro(c.cash_expected_cents)}</td><td class="num">${euro(c.cash_counted_cents)}</td>
                <td class="num"><span class="difference" data-sign=${signOf(c.cash_difference_cents)}>${differenceText(c.cash_difference_cents)}</span></td>
                <td>${dateTime(c.closed_at)}${c.forced ? html` <span class="pill pill-waarschuwing">met voorrang</span>` : null}</td><td>${links(c)}</td>
              </tr>`,
            )}</tbody></table></div>`
        : html`<p class="muted" id="close-history-empty">Nog geen dag afgesloten.</p>`}
    </${Loading}>
  </${Screen}>`;
}
