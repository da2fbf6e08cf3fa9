// The bill at the table (issue 25 item 9, CONTRACT §19, docs/till.md): the lines with their options
// and discounts, VAT per rate, and paying it: a button per method, a tip, the cash keypad with quick
// amounts and the change; split by dish (the chosen units) or in equal parts (the last part takes
// the rounding rest); a discount, a guest by phone (and paying with their points), moving or merging
// the bill to another table, the receipt on screen, as a printable page or on the receipt printer.
// Reached from the floor plan's table dialog: #/rekening?id=<bill id> (or ?tafel=<table id>).
import { html, useEffect, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, euro, euroInput, num, parseCents, time } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { go } from '../lib/router.js';
import { toast } from '../lib/store.js';
import { METHODS, METHOD_WORD, billLines, equalParts, pickedAmount, quickAmounts } from '../lib/till.js';
import { Dialog, ErrorText, Field, FieldError, FormFoot, Loading, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

const LABELS = { amount_cents: 'bedrag', tip_cents: 'fooi', received_cents: 'ontvangen', items: 'gerechten', table_id: 'tafel' };
const KIND_WORD = { percent: 'Korting', amount: 'Korting', comp: 'Gratis', points: 'Punten ingewisseld' };
const MODES = [
  ['all', 'Alles'],
  ['items', 'Per gerecht'],
  ['parts', 'Gelijke delen'],
  ['amount', 'Bedrag'],
];

/** "(Pepersaus, 2× Extra kaas)" for a line's options. @param {any} item */
const optionsOf = (item) => (item.modifiers ?? []).map((/** @type {any} */ m) => `${m.quantity > 1 ? `${m.quantity}× ` : ''}${m.name}`).join(', ');
/** A discount in words: "Korting 10%", "Korting € 5,00", "Gratis", "100 punten ingewisseld". @param {any} d */
function discountWords(d) {
  if (d.kind === 'percent') return `Korting ${d.value}%`;
  if (d.kind === 'amount') return `Korting ${euro(d.value)}`;
  if (d.kind === 'points') return `${num(d.value, 0)} punten ingewisseld`;
  return 'Gratis';
}
/** A Dutch number as people write it: +31612345678 → 06 12345678. @param {string} phone */
const localPhone = (phone) => (/^\+316\d{8}$/.test(phone) ? `06 ${phone.slice(4)}` : /^\+31\d{9}$/.test(phone) ? `0${phone.slice(3)}` : phone);
const liveOrders = (/** @type {any} */ b) => (b?.orders ?? []).filter((/** @type {any} */ o) => o.status !== 'cancelled');
const openOrders = (/** @type {any} */ b) => liveOrders(b).filter((/** @type {any} */ o) => o.payment_status !== 'paid');

/** The parts of an equal split, kept per bill on this tablet (a reload keeps the count and what is paid). */
function useParts(billId) {
  const key = `bill-parts-${billId}`;
  const [parts, setParts] = useState(() => {
    try {
      return JSON.parse(sessionStorage.getItem(key) ?? 'null');
    } catch {
      return null;
    }
  });
  const save = (/** @type {{ n: number, base: number, paid: number } | null} */ p) => {
    setParts(p);
    if (p) sessionStorage.setItem(key, JSON.stringify(p));
    else sessionStorage.removeItem(key);
  };
  return [parts, save];
}

// ── The lines ────────────────────────────────────────────────────────────────────────────────────
function Lines({ bill, groups, mode, picked, setPicked }) {
  const many = groups.length > 1;
  const seats = [...new Set(groups.flatMap((g) => g.order.payment_status === 'paid' ? [] : g.lines.filter((l) => l.item.seat && l.units > l.paid_units).map((l) => l.item.seat)))].sort((a, b) => a - b);
  const pickSeat = (/** @type {number} */ seat) => {
    const next = { ...picked };
    for (const g of groups) for (const l of g.lines) if (g.order.payment_status !== 'paid' && l.item.seat === seat && l.units > l.paid_units) next[l.item.id] = l.units - l.paid_units;
    setPicked(next);
  };
  return html`<section class="tile bill-lines" aria-labelledby="bill-lines-title">
    <h2 id="bill-lines-title">${mode === 'items' ? 'Kies wat er nu betaald wordt' : 'Rekening'}</h2>
    ${mode === 'items' && seats.length
      ? html`<div class="seat-picks" role="group" aria-label="Per stoel kiezen">${seats.map((s) => html`<button type="button" data-seat=${s} onClick=${() => pickSeat(s)}>Stoel ${s}</button>`)}</div>`
      : null}
    ${groups.map(
      (g) => html`<div class="bill-order" data-order=${g.order.number}>
        ${many ? html`<h3 class="bill-round">Bestelling ${g.order.number} <span class="muted">· ${time(g.order.created_at)}${g.order.payment_status === 'paid' ? ' · betaald' : ''}</span></h3>` : null}
        <ul class="bill-items">
          ${g.lines.map((l) => {
            const i = l.item;
            const left = g.order.payment_status === 'paid' ? 0 : l.units - l.paid_units;
            const q = picked[i.id] ?? 0;
            const opts = optionsOf(i);
            const own = (g.order.discounts ?? []).filter((/** @type {any} */ d) => d.item_id === i.id);
            const body = html`<span class="bill-item-text">
                <span class="bill-item-name">${l.units > 0 ? `${l.units}× ` : ''}${i.name}</span>
                ${opts ? html`<span class="bill-item-opts">${opts}</span>` : null}
                ${i.voided_quantity ? html`<span class="bill-item-note"><del class="voided">${i.voided_quantity}× geannuleerd</del></span>` : null}
                ${i.seat ? html`<span class="bill-item-note muted">stoel ${i.seat}</span>` : null}
                ${own.map((/** @type {any} */ d) => html`<span class="bill-item-note discount">${discountWords(d)} – ${d.reason}: −${euro(d.amount_cents)}</span>`)}
                ${l.paid_units ? html`<span class="bill-item-note paid">${l.paid_units === l.units ? 'betaald' : `${l.paid_units} van ${l.units} betaald`}</span>` : null}
              </span>`;
            // Split by dish: what the line costs now (the order's discounts spread over the lines); otherwise
            // the line after its own discounts, the order's discounts standing below as their own lines.
            const shown = mode === 'items' ? l.gross_cents : i.total_cents - Math.min(i.total_cents, own.reduce((t, /** @type {any} */ d) => t + d.amount_cents, 0));
            const amount = html`<span class="bill-item-amount">${shown !== i.total_cents ? html`<s class="muted">${euro(i.total_cents)}</s> ` : null}${euro(shown)}</span>`;
            if (mode !== 'items' || l.units === 0) return html`<li data-line=${i.name} data-item=${i.id} class=${left === 0 && l.units > 0 ? 'done' : ''}>${body}${amount}</li>`;
            const id = `pick-${i.id}`;
            return html`<li data-line=${i.name} data-item=${i.id} class=${`pickable${q > 0 ? ' picked' : ''}${left === 0 ? ' done' : ''}`}>
              <input type="checkbox" id=${id} checked=${q > 0} disabled=${left === 0}
                onChange=${(e) => setPicked({ ...picked, [i.id]: e.currentTarget.checked ? left : 0 })} />
              <label for=${id}>${body}</label>
              ${amount}
              ${q > 0 && left > 1
                ? html`<div class="stepper pick-qty" role="group" aria-label=${`Aantal ${i.name}`}>
                    <button type="button" aria-label=${`Eén ${i.name} minder`} disabled=${q <= 1} onClick=${() => setPicked({ ...picked, [i.id]: q - 1 })}>−</button>
                    <span class="qty" aria-live="polite">${q} van ${left}</span>
                    <button type="button" aria-label=${`Eén ${i.name} meer`} disabled=${q >= left} onClick=${() => setPicked({ ...picked, [i.id]: q + 1 })}>+</button>
                  </div>`
                : null}
            </li>`;
          })}
          ${(g.order.discounts ?? [])
            .filter((/** @type {any} */ d) => !d.item_id)
            .map((/** @type {any} */ d) => html`<li class="discount" data-discount=${d.kind}><span class="bill-item-text">${discountWords(d)} <span class="muted">– ${d.reason}</span></span><span class="bill-item-amount">−${euro(d.amount_cents)}</span></li>`)}
        </ul>
      </div>`,
    )}
    <${Totals} bill=${bill} groups=${groups} />
  </section>`;
}

function Totals({ bill, groups }) {
  const gross = groups.reduce((s, g) => s + g.lines.reduce((t, l) => t + l.item.total_cents, 0), 0);
  const discount = groups.reduce((s, g) => s + (g.order.discount_cents ?? 0), 0);
  return html`<dl class="bill-totals">
      ${discount ? html`<div><dt>Subtotaal</dt><dd>${euro(gross)}</dd></div><div><dt>Korting</dt><dd id="bill-discount">−${euro(discount)}</dd></div>` : null}
      <div class="total"><dt>Totaal</dt><dd id="bill-total">${euro(bill.total_cents)}</dd></div>
      <div><dt>Betaald</dt><dd id="bill-paid">${euro(bill.paid_cents)}</dd></div>
      <div class="open"><dt>Open</dt><dd id="bill-open">${euro(bill.open_cents)}</dd></div>
    </dl>
    ${bill.vat?.length
      ? html`<table class="list vat-table" id="bill-vat">
          <caption>BTW per tarief</caption>
          <thead><tr><th scope="col">Tarief</th><th scope="col" class="num">Bedrag</th><th scope="col" class="num">BTW</th><th scope="col" class="num">Netto</th></tr></thead>
          <tbody>${bill.vat.map((/** @type {any} */ v) => html`<tr data-rate=${v.rate}><td>${v.rate}%</td><td class="num">${euro(v.gross_cents)}</td><td class="num">${euro(v.vat_cents)}</td><td class="num">${euro(v.net_cents)}</td></tr>`)}</tbody>
        </table>`
      : null}
    ${bill.payments?.length
      ? html`<h3 class="payments-title">Betalingen</h3>
        <ul class="plain bill-payments" id="bill-payments">
          ${bill.payments.map(
            (/** @type {any} */ p) => html`<li data-paid-method=${p.method}>
              <span><strong>${METHOD_WORD[p.method] ?? p.method}</strong> ${euro(p.amount_cents)}${p.tip_cents ? ` + fooi ${euro(p.tip_cents)}` : ''}${p.items?.length ? ' (gerechten)' : ''}
                ${p.received_cents !== null && p.received_cents !== undefined ? html`<span class="muted"> · ontvangen ${euro(p.received_cents)}, wisselgeld ${euro(p.change_cents)}</span>` : null}</span>
              <span class="muted">${time(p.created_at)}</span>
            </li>`,
          )}
        </ul>`
      : null}`;
}

// ── Paying ───────────────────────────────────────────────────────────────────────────────────────
/** The cash keypad: what the guest hands over, typed or tapped, the quick amounts and the change. */
function CashPad({ due, received, setReceived, busy, onPay, onCancel }) {
  const cents = received.trim() ? parseCents(received) : due;
  const change = Number.isNaN(cents) ? null : cents - due;
  const key = (/** @type {string} */ k) => {
    if (k === 'back') setReceived(received.slice(0, -1));
    else if (k === ',') setReceived(received.includes(',') ? received : `${received || '0'},`);
    else if (/,\d\d$/.test(received)) return;
    else setReceived(received === '0' ? k : received + k);
  };
  return html`<div class="cash-pad" id="cash-pad" role="group" aria-labelledby="cash-title">
    <h3 id="cash-title">Contant: te betalen ${euro(due)}</h3>
    <div class="quick" role="group" aria-label="Snelle bedragen">
      ${quickAmounts(due).map((c, n) => html`<button type="button" data-quick=${c} onClick=${() => setReceived(euroInput(c))}>${n === 0 && c === due ? `Gepast ${euro(c)}` : euro(c)}</button>`)}
    </div>
    <label for="cash-received">Ontvangen (€)</label>
    <input id="cash-received" inputmode="decimal" autocomplete="off" placeholder=${euroInput(due)} value=${received} onInput=${(e) => setReceived(e.currentTarget.value)} aria-describedby="cash-change-line" />
    <div class="keypad cash-keys">
      ${['1', '2', '3', '4', '5', '6', '7', '8', '9', ',', '0'].map((k) => html`<button type="button" data-key=${k} onClick=${() => key(k)}>${k}</button>`)}
      <button type="button" data-key="back" aria-label="Laatste cijfer wissen" onClick=${() => key('back')}>⌫</button>
    </div>
    <p class=${`change${change !== null && change < 0 ? ' short' : ''}`} id="cash-change-line" aria-live="polite">
      ${change === null ? 'Vul een bedrag in, bijvoorbeeld 50.' : change < 0 ? html`Nog <strong>${euro(-change)}</strong> tekort` : html`Wisselgeld <strong id="cash-change">${euro(change)}</strong>`}
    </p>
    <div class="screen-actions">
      <button type="button" class="primary big" id="cash-pay" disabled=${busy || change === null || change < 0} onClick=${() => onPay(received.trim() ? cents : null)}>Contant afrekenen</button>
      <button type="button" onClick=${onCancel}>Andere betaalwijze</button>
    </div>
  </div>`;
}

function PayPanel({ bill, groups, mode, setMode, picked, setPicked, parts, setParts, onPaid }) {
  const [tip, setTip] = useState('');
  const [cash, setCash] = useState(false);
  const [received, setReceived] = useState('');
  const [amount, setAmount] = useState('');
  const [run, busy, error, setError] = useAction(LABELS);
  const open = bill.open_cents;
  const pickedItems = Object.entries(picked).filter(([, q]) => q > 0);
  const partList = parts ? equalParts(parts.base, parts.n) : [];
  let due = open;
  if (mode === 'items') due = pickedAmount(groups, picked);
  else if (mode === 'parts' && parts) due = parts.paid >= parts.n - 1 ? open : Math.min(open, partList[parts.paid] ?? open);
  let amountProblem = '';
  if (mode === 'amount') {
    const c = amount.trim() ? parseCents(amount) : 0;
    due = 0;
    if (Number.isNaN(c) || c < 0) amountProblem = 'Vul een bedrag in, bijvoorbeeld 20 of 12,50.';
    else if (c > open) amountProblem = `Dat is meer dan er openstaat (${euro(open)}).`;
    else due = c;
  }
  const tipCents = tip.trim() ? parseCents(tip) : 0;
  const startParts = (/** @type {number} */ n) => setParts({ n: Math.max(2, Math.min(20, n)), base: open, paid: 0 });

  const pay = (/** @type {string} */ method, /** @type {number|null} */ receivedCents = null) =>
    run(async () => {
      if (Number.isNaN(tipCents) || tipCents < 0) throw new Error('De fooi moet een bedrag zijn, bijvoorbeeld 2,50.');
      if (mode === 'items' && pickedItems.length === 0) throw new Error('Kies eerst de gerechten die nu betaald worden.');
      if (!(due > 0)) throw new Error('Er is niets te betalen.');
      const body = /** @type {Record<string, unknown>} */ ({ method });
      if (mode === 'items') body.items = pickedItems.map(([item_id, quantity]) => ({ item_id, quantity }));
      else body.amount_cents = due;
      if (tipCents) body.tip_cents = tipCents;
      if (method === 'contant' && receivedCents !== null) body.received_cents = receivedCents;
      const r = await post(`/floorplan/bills/${bill.id}/payments`, body);
      const word = METHOD_WORD[method];
      const text = method === 'contant' ? `${word} ${euro(r.payment.amount_cents)} ontvangen; wisselgeld ${euro(r.change_cents)}.` : `${word} ${euro(r.payment.amount_cents)} vastgelegd.`;
      toast(text);
      setTip('');
      setCash(false);
      setReceived('');
      setPicked({});
      setAmount('');
      if (mode === 'parts' && parts) setParts(r.bill.status === 'open' ? { ...parts, paid: parts.paid + 1 } : null);
      onPaid(r, method === 'contant' ? r.change_cents : null, text);
    });

  return html`<section class="tile bill-pay" aria-labelledby="pay-title">
    <h2 id="pay-title">Afrekenen</h2>
    <div class="seg" role="group" aria-label="Hoe wordt er betaald">
      ${MODES.map(([m, label]) => html`<button type="button" data-mode=${m} aria-pressed=${mode === m ? 'true' : 'false'} onClick=${() => { setMode(m); setCash(false); setError(''); if (m === 'parts' && !parts) startParts(2); }}>${label}</button>`)}
    </div>
    ${mode === 'items' && groups.some((g) => (g.order.discounts ?? []).some((/** @type {any} */ d) => !d.item_id)) ? html`<p class="hint">De korting op de bestelling is over de gerechten verdeeld.</p>` : null}
    ${mode === 'items' ? html`<p class="hint" id="items-hint">${pickedItems.length ? `${pickedItems.reduce((s, [, q]) => s + q, 0)} gekozen.` : 'Vink de gerechten aan die deze gast betaalt.'} ${pickedItems.length ? html`<button type="button" class="link" onClick=${() => setPicked({})}>Wissen</button>` : null}</p>` : null}
    ${mode === 'parts' && parts
      ? html`<div class="parts" id="parts">
          <div class="stepper" role="group" aria-label="Aantal delen">
            <button type="button" aria-label="Eén deel minder" disabled=${parts.n <= 2 || parts.paid > 0} onClick=${() => startParts(parts.n - 1)}>−</button>
            <span class="qty" id="parts-count">${parts.n} delen</span>
            <button type="button" aria-label="Eén deel meer" disabled=${parts.n >= 20 || parts.paid > 0} onClick=${() => startParts(parts.n + 1)}>+</button>
          </div>
          <ul class="plain part-list">
            ${partList.map((c, n) => html`<li data-part=${n + 1} class=${n < parts.paid ? 'done' : n === parts.paid ? 'current' : ''}>Deel ${n + 1}: ${euro(n === parts.paid && n === parts.n - 1 ? due : c)}${n < parts.paid ? ' · betaald' : n === parts.paid ? ' · nu' : ''}</li>`)}
          </ul>
          ${parts.paid > 0 ? html`<button type="button" class="link" onClick=${() => startParts(parts.n)}>Opnieuw verdelen (${euro(open)} open)</button>` : null}
        </div>`
      : null}
    ${mode === 'amount'
      ? html`<div class="field amount-field">
          <label for="pay-amount">Bedrag (€), open ${euro(open)}</label>
          <input id="pay-amount" inputmode="decimal" autocomplete="off" placeholder=${euroInput(open)} value=${amount} onInput=${(e) => setAmount(e.currentTarget.value)}
            aria-invalid=${amountProblem ? 'true' : null} aria-describedby=${amountProblem ? 'pay-amount-error' : null} />
          ${amountProblem ? html`<p class="field-error" id="pay-amount-error">${amountProblem}</p>` : null}
        </div>`
      : null}
    <p class="due">Nu te betalen <strong id="pay-due">${euro(due)}</strong></p>
    <div class="field tip-field">
      <label for="pay-tip">Fooi (€)</label>
      <input id="pay-tip" inputmode="decimal" autocomplete="off" placeholder="0,00" value=${tip} onInput=${(e) => setTip(e.currentTarget.value)} />
    </div>
    ${cash
      ? html`<${CashPad} due=${due + (Number.isNaN(tipCents) ? 0 : tipCents)} received=${received} setReceived=${setReceived} busy=${busy} onPay=${(c) => pay('contant', c)} onCancel=${() => setCash(false)} />`
      : html`<div class="methods" role="group" aria-label="Betaalwijze">
          ${METHODS.map(([m, label]) => html`<button type="button" class=${m === 'contant' || m === 'pin' ? 'primary' : ''} data-method=${m} disabled=${busy || !(due > 0)}
            onClick=${() => (m === 'contant' ? (setCash(true), setReceived(''), setError('')) : void pay(m))}>${label}<span class="method-amount">${euro(due + (Number.isNaN(tipCents) ? 0 : tipCents))}</span></button>`)}
        </div>`}
    <${ErrorText} text=${error} id="pay-error" />
  </section>`;
}

// ── Dialogs ──────────────────────────────────────────────────────────────────────────────────────
function DiscountDialog({ bill, guest, onClose, onDone, onReload }) {
  const orders = openOrders(bill);
  const targets = /** @type {Array<[string, string]>} */ ([]);
  if (orders.length > 1) targets.push(['all', `Hele rekening (${orders.length} bestellingen)`]);
  for (const o of orders) {
    targets.push([`order:${o.id}`, orders.length > 1 ? `Bestelling ${o.number} (${euro(o.total_cents)})` : `Hele rekening (${euro(o.total_cents)})`]);
    for (const i of o.items) if (i.quantity - i.voided_quantity > 0) targets.push([`item:${o.id}:${i.id}`, `– ${i.quantity - i.voided_quantity}× ${i.name} (${euro(i.total_cents)})`]);
  }
  const form = useForm({ kind: 'percent', value: '', target: targets[0]?.[0] ?? '', reason: '' });
  const kind = form.values.kind;
  const kinds = [['percent', 'Procent'], ['amount', 'Vast bedrag'], ['comp', 'Gratis (alles)'], ...(guest ? [['points', 'Punten van de gast']] : [])];
  const valueLabel = kind === 'percent' ? 'Percentage' : kind === 'amount' ? 'Bedrag (€)' : 'Aantal punten';
  const submit = form.submit(async (v) => {
    let value = null;
    if (kind === 'percent') value = form.number('value', { min: 1, max: 100, integer: true });
    else if (kind === 'amount') {
      value = form.cents('value');
      if (!(value > 0)) throw new FieldError('value', 'moet meer dan € 0,00 zijn.');
    } else if (kind === 'points') value = form.number('value', { min: 1, integer: true, ...(guest ? { max: guest.balance } : {}) });
    if (!v.reason.trim()) throw new FieldError('reason', 'is verplicht.');
    if ((kind === 'amount' || kind === 'points') && v.target === 'all') throw new FieldError('target', 'kies één bestelling of regel voor een bedrag of punten.');
    const calls = v.target === 'all' ? orders.map((/** @type {any} */ o) => [o.id, undefined]) : [v.target.split(':').slice(1)];
    let took = 0;
    let given = 0;
    try {
      for (const [orderId, itemId] of calls) {
        const r = await post(`/orders/${orderId}/discounts`, { kind, ...(value !== null ? { value } : {}), ...(itemId ? { item_id: itemId } : {}), reason: v.reason.trim() });
        took += r.discount.amount_cents;
        given += 1;
      }
    } catch (err) {
      if (given > 0) onReload(); // the orders before the refused one have their discount: the bill shows it
      throw err;
    }
    toast(kind === 'points' ? `${num(value, 0)} punten ingewisseld: ${euro(took)} korting.` : `Korting ${euro(took)} gegeven.`);
    onDone();
  }, 'Korting gegeven.');
  return html`<${Dialog} title="Korting geven" onClose=${onClose} id="discount-dialog">
    ${orders.length === 0
      ? html`<p class="muted">Er staat niets meer open om korting op te geven.</p>`
      : html`<form novalidate id="discount-form" onSubmit=${submit}>
          <fieldset class="kinds">
            <legend>Soort korting</legend>
            ${kinds.map(([k, label]) => html`<label class="check"><input type="radio" name="discount-kind" value=${k} checked=${kind === k} onChange=${() => { form.set('kind', k); form.set('value', ''); }} /> ${label}</label>`)}
          </fieldset>
          ${kind === 'points' && guest ? html`<p class="hint" id="points-hint">${guest.name ?? localPhone(guest.phone)} heeft <strong>${num(guest.balance, 0)}</strong> punten.</p>` : null}
          ${kind !== 'comp' ? html`<${Field} form=${form} name="value" label=${valueLabel} inputmode=${kind === 'amount' ? 'decimal' : 'numeric'} money=${kind === 'amount'} autocomplete="off" required />` : null}
          <${Field} form=${form} name="target" label="Waarop" as="select" options=${targets} api="item_id" />
          <${Field} form=${form} name="reason" label="Reden" maxlength="200" autocomplete="off" required />
          <div class="reason-picks" role="group" aria-label="Veelgebruikte redenen">
            ${['Vaste gast', 'Wachttijd', 'Klacht', 'Personeel'].map((r) => html`<button type="button" onClick=${() => form.set('reason', r)}>${r}</button>`)}
          </div>
          <p class="hint">Een medewerker mag korting geven tot het maximum van het restaurant; daarboven vraag je een beheerder. Punten tellen niet mee.</p>
          <${FormFoot} form=${form} label="Korting geven" />
        </form>`}
  </${Dialog}>`;
}

function GuestDialog({ bill, guest, onClose, onDone }) {
  const form = useForm({ phone: '', name: '' });
  const orders = openOrders(bill);
  const submit = form.submit(async (v) => {
    if (orders.length === 0) throw new Error('Er staat geen open bestelling op deze rekening om een gast aan te koppelen.');
    let order = null;
    for (const o of orders) order = await post(`/orders/${o.id}/customer`, { phone: v.phone.trim(), ...(v.name.trim() ? { name: v.name.trim() } : {}) });
    const c = await get(`/loyalty/customer/${encodeURIComponent(order.customer.phone)}`);
    toast(`${c.name ?? c.phone} gekoppeld: ${num(c.balance, 0)} punten.`);
    onDone();
  }, 'Gast gekoppeld.');
  return html`<${Dialog} title="Gast koppelen" onClose=${onClose} id="guest-dialog">
    ${guest ? html`<p>Nu gekoppeld: <strong>${guest.name ?? guest.phone}</strong> (${localPhone(guest.phone)}), ${num(guest.balance, 0)} punten.</p>` : null}
    <form novalidate id="guest-form" onSubmit=${submit}>
      <${Field} form=${form} name="phone" label="Telefoonnummer van de gast" type="tel" autocomplete="off" hint="Elke schrijfwijze: 06 12345678, +31 6 …" required />
      <${Field} form=${form} name="name" label="Naam (als de gast nieuw is)" autocomplete="off" />
      <p class="hint">De gast spaart punten met deze rekening en kan met punten betalen.</p>
      <${FormFoot} form=${form} label="Gast koppelen" />
    </form>
  </${Dialog}>`;
}

function MoveDialog({ bill, onClose, onMoved }) {
  const plan = useAsync(() => get('/floorplan'));
  const [run, busy, error] = useAction(LABELS);
  const move = (/** @type {any} */ t) =>
    run(async () => {
      if (t.bill && !(await confirmDialog({ title: `Samenvoegen met tafel ${t.name}?`, message: `Tafel ${t.name} heeft al een open rekening (${euro(t.bill.open_cents)}). De rekeningen worden één.`, confirmLabel: 'Samenvoegen', danger: false }))) return;
      const r = await post(`/floorplan/bills/${bill.id}/move`, { table_id: t.id });
      toast(t.bill ? `Samengevoegd met de rekening van tafel ${t.name}.` : `Rekening verplaatst naar tafel ${t.name}.`);
      onMoved(r);
    });
  return html`<${Dialog} title="Rekening verplaatsen" onClose=${onClose} id="move-dialog">
    <p class="muted">Kies de tafel. Heeft die al een open rekening, dan worden ze samengevoegd.</p>
    <${Loading} when=${plan.loading && !plan.data} error=${plan.error}>
      ${(plan.data?.zones ?? []).map(
        (/** @type {any} */ z) => html`<h3 class="move-zone">${z.name}</h3>
          <div class="move-tables">
            ${z.tables
              .filter((/** @type {any} */ t) => t.id !== bill.table_id)
              .map((/** @type {any} */ t) => html`<button type="button" data-table=${t.name} disabled=${busy} onClick=${() => move(t)}>
                <strong>Tafel ${t.name}</strong><span class="muted"><span class="sr-only">, </span>${t.bill ? `open ${euro(t.bill.open_cents)} · samenvoegen` : t.status}</span>
              </button>`)}
          </div>`,
      )}
    </${Loading}>
    <${ErrorText} text=${error} id="move-error" />
  </${Dialog}>`;
}

/** The receipt as JSON, laid out as the paper one; print it or open the printable page. */
function ReceiptDialog({ bill, onClose }) {
  const receipt = useAsync(() => get(`/floorplan/bills/${bill.id}/receipt`), [bill.id]);
  const [run, busy, error] = useAction();
  const [sent, setSent] = useState('');
  const r = receipt.data;
  const print = () =>
    run(async () => {
      setSent('');
      await post(`/floorplan/bills/${bill.id}/receipt/print`);
      setSent('De bon is naar de bonprinter gestuurd.');
    });
  return html`<${Dialog} title=${r?.receipt_number ? `Bon ${r.receipt_number}` : 'Rekening (nog niet betaald)'} onClose=${onClose} id="receipt-dialog">
    <${Loading} when=${receipt.loading && !r} error=${receipt.error}>
      ${r
        ? html`<div class="receipt" id="receipt">
            <p class="receipt-head"><strong>${r.restaurant.name}</strong>${r.restaurant.address ? html`<br />${r.restaurant.address}` : null}
              ${r.restaurant.vat_number ? html`<br />BTW ${r.restaurant.vat_number}` : null}${r.restaurant.kvk_number ? html`<br />KvK ${r.restaurant.kvk_number}` : null}</p>
            <p>${r.receipt_number ? html`Bon <strong id="receipt-number">${r.receipt_number}</strong>` : html`<strong>Voorlopige rekening</strong>`}
              <br />${[r.table_name ? `Tafel ${r.table_name}` : '', r.order_numbers.join(', ')].filter(Boolean).join(' · ')}${r.paid_at ? html`<br />${dateTime(r.paid_at)}` : null}</p>
            <table class="receipt-lines">
              <caption class="sr-only">Regels</caption>
              <thead><tr><th scope="col">Omschrijving</th><th scope="col" class="num">BTW</th><th scope="col" class="num">Bedrag</th></tr></thead>
              <tbody>
                ${r.lines.map((/** @type {any} */ l) => html`<tr><td>${l.quantity}× ${l.name}${l.options.length ? html`<br /><span class="muted">${l.options.join(', ')}</span>` : null}</td><td class="num">${l.vat_rate}%</td><td class="num">${euro(l.total_cents)}</td></tr>`)}
                ${r.discounts.map((/** @type {any} */ d) => html`<tr class="discount"><td>${KIND_WORD[d.kind] ?? 'Korting'}: ${d.reason}</td><td></td><td class="num">−${euro(d.amount_cents)}</td></tr>`)}
              </tbody>
              <tfoot><tr><th scope="row" colspan="2">Totaal</th><td class="num"><strong id="receipt-total">${euro(r.total_cents)}</strong></td></tr></tfoot>
            </table>
            <table class="receipt-vat">
              <caption>BTW</caption>
              <thead><tr><th scope="col">Tarief</th><th scope="col" class="num">Over</th><th scope="col" class="num">BTW</th></tr></thead>
              <tbody>${r.vat.map((/** @type {any} */ v) => html`<tr><td>${v.rate}%</td><td class="num">${euro(v.gross_cents)}</td><td class="num">${euro(v.vat_cents)}</td></tr>`)}</tbody>
            </table>
            ${r.payments.length
              ? html`<ul class="plain receipt-payments">${r.payments.map((/** @type {any} */ p) => html`<li>${METHOD_WORD[p.method] ?? p.method} ${euro(p.amount_cents)}${p.tip_cents ? ` + fooi ${euro(p.tip_cents)}` : ''}${p.received_cents !== null ? ` · ontvangen ${euro(p.received_cents)}, wisselgeld ${euro(p.change_cents)}` : ''}</li>`)}</ul>`
              : null}
            ${r.footer ? html`<p class="receipt-foot">${r.footer}</p>` : null}
          </div>`
        : null}
    </${Loading}>
    <${ErrorText} text=${error} id="receipt-error" />
    ${sent ? html`<p class="ok" role="status" id="receipt-sent">${sent}</p>` : null}
    <div class="dialog-actions">
      <a class="button" id="receipt-html" href=${`/api/v1/floorplan/bills/${bill.id}/receipt?format=html`} target="_blank" rel="noopener">Afdrukbare bon openen</a>
      <button type="button" class="primary" id="receipt-print" disabled=${busy || !r} onClick=${print}>${busy ? 'Bezig…' : 'Bon printen'}</button>
    </div>
  </${Dialog}>`;
}

// ── The screen ───────────────────────────────────────────────────────────────────────────────────
export default function BillScreen({ query }) {
  const billId = query.get('id') ?? '';
  const tableId = query.get('tafel') ?? '';
  const bill = useAsync(async () => {
    let b = billId ? await get(`/floorplan/bills/${billId}`) : await get(`/floorplan/tables/${tableId}/bill`);
    // A bill merged into another lives on in that one.
    for (let n = 0; b.status === 'merged' && b.merged_into && n < 5; n++) b = await get(`/floorplan/bills/${b.merged_into}`);
    return b;
  }, [billId, tableId]);
  const b = bill.data;
  useEffect(() => {
    if (b && b.id !== billId) go(`/rekening?id=${b.id}`);
  }, [b?.id]);
  useLive(['floorplan:changed', 'order:created', 'order:updated', 'resync'], () => void bill.reload());
  const [mode, setMode] = useState('all');
  const [picked, setPicked] = useState(/** @type {Record<string, number>} */ ({}));
  const [parts, setParts] = useParts(billId);
  const [dialog, setDialog] = useState('');
  const [last, setLast] = useState(/** @type {{ text: string, change: number|null } | null} */ (null));
  const phone = openOrders(b).find((/** @type {any} */ o) => o.customer?.phone)?.customer.phone ?? liveOrders(b).find((/** @type {any} */ o) => o.customer?.phone)?.customer.phone ?? null;
  const guest = useAsync(() => (phone ? get(`/loyalty/customer/${encodeURIComponent(phone)}`).catch((e) => (e.status === 404 ? null : Promise.reject(e))) : Promise.resolve(null)), [phone]);
  const groups = b ? billLines(b) : [];
  const paidUp = b && b.status !== 'open';
  const changed = () => {
    setDialog('');
    void bill.reload();
    void guest.reload();
  };
  const title = b ? `Tafel ${b.table_name} · rekening` : 'Rekening';
  const actions = html`<button type="button" id="bill-back" onClick=${() => go('/vloer')}>← Plattegrond</button>`;
  return html`<${Screen} title=${title} id="bill" actions=${actions}>
    <${Loading} when=${bill.loading && !b} error=${b ? '' : bill.error}>
      ${b
        ? html`<div class="bill-tools" role="group" aria-label="Rekening">
              <button type="button" id="bill-discount-open" disabled=${paidUp} onClick=${() => setDialog('discount')}>Korting</button>
              <button type="button" id="bill-guest-open" disabled=${paidUp} onClick=${() => setDialog('guest')}>${guest.data ? 'Gast wijzigen' : 'Gast koppelen'}</button>
              <button type="button" id="bill-move-open" disabled=${paidUp} onClick=${() => setDialog('move')}>Verplaatsen</button>
              <button type="button" id="bill-receipt-open" onClick=${() => setDialog('receipt')}>Bon</button>
              <button type="button" id="bill-new-round" disabled=${paidUp} onClick=${() => go(`/bestellen?tafel=${b.table_id}&terug=${encodeURIComponent(`/rekening?id=${b.id}`)}`)}>Nieuwe ronde</button>
            </div>
            ${guest.data
              ? html`<p class="bill-guest" id="bill-guest">Gast: <strong>${guest.data.name ?? guest.data.phone}</strong> <span class="muted">${localPhone(guest.data.phone)}</span> · <strong id="guest-points">${num(guest.data.balance, 0)}</strong> punten</p>`
              : null}
            ${b.conflict ? html`<p class="error">${b.conflict}</p>` : null}
            <div class="bill-layout">
              <${Lines} bill=${b} groups=${groups} mode=${paidUp ? 'all' : mode} picked=${picked} setPicked=${setPicked} />
              ${paidUp
                ? html`<section class="tile bill-pay bill-done" aria-labelledby="done-title" id="bill-done">
                    <h2 id="done-title">${b.close_reason === 'paid' ? 'Betaald' : 'Rekening gesloten'}</h2>
                    ${last?.change !== null && last?.change !== undefined ? html`<p class="change big-change">Wisselgeld <strong id="done-change">${euro(last.change)}</strong></p>` : null}
                    <p>${last?.text ?? ''}</p>
                    <div class="screen-actions">
                      <button type="button" class="primary" id="done-receipt" onClick=${() => setDialog('receipt')}>Bon tonen of printen</button>
                      <button type="button" onClick=${() => go('/vloer')}>Terug naar de plattegrond</button>
                    </div>
                  </section>`
                : html`<div class="pay-column" id="pay-column">
                    ${last ? html`<p class="last-payment" id="last-payment" role="status">${last.text}</p>` : null}
                    <${PayPanel} bill=${b} groups=${groups} mode=${mode} setMode=${setMode} picked=${picked} setPicked=${setPicked} parts=${parts} setParts=${setParts}
                      onPaid=${(/** @type {any} */ r, /** @type {number|null} */ change, /** @type {string} */ text) => {
                        setLast({ text, change });
                        bill.setData(() => r.bill);
                        if (r.bill.status !== 'open') setParts(null);
                      }} />
                  </div>`}
            </div>
            ${paidUp
              ? null
              : html`<button type="button" class="primary bill-jump" id="bill-jump" onClick=${() => document.getElementById('pay-column')?.scrollIntoView({ behavior: 'smooth', block: 'start' })}>Afrekenen · open ${euro(b.open_cents)}</button>`}
            ${dialog === 'discount' ? html`<${DiscountDialog} bill=${b} guest=${guest.data} onClose=${() => setDialog('')} onDone=${changed} onReload=${() => void bill.reload()} />` : null}
            ${dialog === 'guest' ? html`<${GuestDialog} bill=${b} guest=${guest.data} onClose=${() => setDialog('')} onDone=${changed} />` : null}
            ${dialog === 'move' ? html`<${MoveDialog} bill=${b} onClose=${() => setDialog('')} onMoved=${(/** @type {any} */ r) => { setDialog(''); if (r.id === b.id) bill.setData(() => r); else go(`/rekening?id=${r.id}`); }} />` : null}
            ${dialog === 'receipt' ? html`<${ReceiptDialog} bill=${b} onClose=${() => setDialog('')} />` : null}`
        : null}
    </${Loading}>
  </${Screen}>`;
}
