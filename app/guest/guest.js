// Guest pages (issue 15): order online, pay at the table from its QR code, book a table. Mobile
// first, Dutch with an English switch, Preact + htm as ES modules (no build step), and none of the
// staff app's code. Every screen talks to the public API only.
import { h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';
import { euro, lang, longDate, t, tf, toggleLang } from './i18n.js';

const html = htm.bind(h);
const API = '/api/v1';

/** The page from the path: /g/:slug/, /g/:slug/bestelling/:id, /g/:slug/betaling/:id, /g/:slug/tafel/:public_code, /g/:slug/reserveren. */
function route() {
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent); // ['g', slug, page?, arg?]
  return { slug: parts[1] ?? '', page: parts[2] ?? '', arg: parts[3] ?? '' };
}
/** @param {string} path */
export function go(path) {
  history.pushState(null, '', path);
  window.dispatchEvent(new Event('popstate'));
}

class ApiError extends Error {
  constructor(status, message, code, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}
async function api(method, path, body) {
  let res;
  try {
    res = await fetch(API + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  } catch {
    throw new ApiError(0, t('error'));
  }
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, json.error ?? t('error'), json.code, json.details);
  return json;
}

function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Polls `load` every `ms` until `done(data)`; returns the latest data and error. */
function usePoll(load, done, ms = 2000, deps = []) {
  const [state, setState] = useState({ data: null, error: '' });
  useEffect(() => {
    let stop = false;
    let timer = 0;
    const tick = async () => {
      try {
        const data = await load();
        if (stop) return;
        setState({ data, error: '' });
        if (!done(data)) timer = window.setTimeout(tick, ms);
      } catch (err) {
        if (stop) return;
        setState((s) => ({ ...s, error: err.message }));
        if (err.status !== 404) timer = window.setTimeout(tick, ms * 2);
      }
    };
    void tick();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, deps);
  return state;
}

/**
 * The order as it was sent, kept in this tab: after a failed payment "try again" sends it once more
 * with the same idempotency key, which answers the same order with a new checkout.
 */
const remember = (orderId, body) => sessionStorage.setItem(`guest.order.${orderId}`, JSON.stringify(body));
async function payAgain(slug, orderId) {
  const body = sessionStorage.getItem(`guest.order.${orderId}`);
  if (!body) throw new ApiError(0, t('error'));
  const r = await api('POST', `/public/order/${encodeURIComponent(slug)}`, JSON.parse(body));
  if (r.checkout_url) location.assign(r.checkout_url);
  else go(`/g/${encodeURIComponent(slug)}/bestelling/${orderId}`);
}

function RetryButton({ slug, orderId }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (!sessionStorage.getItem(`guest.order.${orderId}`)) return null;
  return html`<button type="button" class="primary" id="retry-payment" disabled=${busy} onClick=${async () => {
    setBusy(true);
    try {
      await payAgain(slug, orderId);
    } catch (err) {
      setError(err.message);
      setBusy(false);
    }
  }}>${t('try_again')}</button><${Err} text=${error} />`;
}

const Err = ({ text }) => (text ? html`<p class="error" role="alert">${text}</p>` : null);

/**
 * An API error as a guest reads it (issue 26): never an API field name. Per field the form's own
 * label (in the chosen language) and, in Dutch, the server's sentence; in English a plain request to
 * check the field. `labels`: API field → label. Returns `{ message, fields }` (fields: the form
 * field each error belongs to, shown beside it).
 * @param {any} err @param {Record<string, string>} labels
 */
function explain(err, labels) {
  if (err?.code === 'RATE_LIMITED') return { message: t('rate_limited'), fields: {} };
  const fields = /** @type {Record<string, string>} */ ({});
  for (const d of err?.details ?? []) {
    const key = labels[d.field] !== undefined ? d.field : labels[String(d.field).split('.').pop()] !== undefined ? String(d.field).split('.').pop() : null;
    if (!key || fields[key]) continue;
    const sentence = String(d.error ?? '').replace(/^'[^']*'\s*/, '');
    fields[key] = lang === 'nl' ? `${labels[key]} ${sentence}` : `${labels[key]}: ${t('check_field')}`;
  }
  const n = Object.keys(fields).length;
  if (n) return { message: n === 1 ? t('check_field') : t('check_fields'), fields };
  if (lang === 'en') return { message: err?.code === 'CONFLICT' ? t('conflict') : err?.status === 404 ? t('not_found') : t('error'), fields };
  const message = String(err?.message ?? t('error')).replace(/'([A-Za-z_][\w.]*)'/g, (m, f) => (labels[f] ?? labels[f.split('.').pop()] ? String(labels[f] ?? labels[f.split('.').pop()]).toLowerCase() : /[_.]/.test(f) ? 'een veld' : m));
  return { message, fields };
}

/** A field's error right below it, tied to its input. */
const FieldErr = ({ id, text }) => (text ? html`<span class="field-error" id=${id}>${text}</span>` : null);

/** Where the restaurant is and when it is open: on the menu and the booking page. */
function RestaurantInfo({ r }) {
  if (!r) return null;
  const keys = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const days = /** @type {string[]} */ (/** @type {unknown} */ (t(/** @type {any} */ ('days'))));
  return html`<section class="info" id="restaurant-info">
    ${r.address ? html`<p id="restaurant-address"><strong>${t('address_title')}</strong><br />${r.address}</p>` : null}
    ${r.phone ? html`<p><a href=${`tel:${r.phone}`} id="restaurant-phone">${t('call')}: ${r.phone}</a></p>` : null}
    <details id="opening-hours"><summary>${t('hours_title')}</summary>
      <table class="hours"><tbody>${keys.map((k, i) => html`<tr><th scope="row">${days[i]}</th><td>${(r.opening_hours?.[k] ?? []).length ? r.opening_hours[k].map(([a, b]) => `${a}–${b}`).join(', ') : t('closed')}</td></tr>`)}</tbody></table>
    </details>
  </section>`;
}

// ─── Menu, basket and checkout ────────────────────────────────────────────────────────────────
function MenuPage({ slug }) {
  const [menu, setMenu] = useState(null);
  const [error, setError] = useState('');
  const [basket, setBasket] = useState(/** @type {Record<string, number>} */ ({}));
  const [type, setType] = useState('pickup');
  const [sending, setSending] = useState(false);
  const [key, setKey] = useState(newKey());
  const [fieldErrors, setFieldErrors] = useState(/** @type {Record<string, string>} */ ({}));
  useEffect(() => {
    api('GET', `/public/menu/${encodeURIComponent(slug)}`).then(setMenu, (e) => setError(e.status === 404 ? t('not_found') : e.message));
  }, [slug]);
  useEffect(() => {
    if (menu) document.title = `${menu.restaurant.name} · ${t('menu')}`;
  }, [menu]);
  const labels = { 'customer.name': t('name'), 'customer.phone': t('phone'), 'customer.email': t('email'), name: t('name'), phone: t('phone'), email: t('email'), delivery_address: t('address'), table: t('table_name'), notes: t('notes'), items: t('items'), type: t('order_type') };
  if (error && !menu) return html`<main class="page"><${Err} text=${error} /></main>`;
  if (!menu) return html`<main class="page"><p class="loading">…</p></main>`;
  const products = new Map(menu.categories.flatMap((c) => c.products.map((p) => [p.id, p])));
  const lines = Object.entries(basket).filter(([, q]) => q > 0);
  const total = lines.reduce((s, [id, q]) => s + (products.get(id)?.price_cents ?? 0) * q, 0);
  const change = (id, d) => {
    setBasket((b) => ({ ...b, [id]: Math.max(0, Math.min(99, (b[id] ?? 0) + d)) }));
    setKey(newKey());
  };
  const submit = async (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget));
    setSending(true);
    setError('');
    setFieldErrors({});
    try {
      const body = {
        items: lines.map(([product_id, quantity]) => ({ product_id, quantity })),
        customer: { name: f.name, phone: f.phone, ...(f.email ? { email: f.email } : {}) },
        type,
        ...(type === 'table' ? { table: f.table } : {}),
        ...(type === 'delivery' ? { delivery_address: f.address } : {}),
        ...(f.notes ? { notes: f.notes } : {}),
        idempotency_key: key,
      };
      const r = await api('POST', `/public/order/${encodeURIComponent(slug)}`, body);
      remember(r.order.id, body);
      if (r.checkout_url) location.assign(r.checkout_url);
      else go(`/g/${encodeURIComponent(slug)}/bestelling/${r.order.id}`);
    } catch (err) {
      const x = explain(err, labels);
      setError(x.message);
      setFieldErrors(x.fields);
      setSending(false);
    }
  };
  const fe = (/** @type {string} */ k) => ({ 'aria-invalid': fieldErrors[k] ? 'true' : null, 'aria-describedby': fieldErrors[k] ? `err-${k}` : null });
  return html`<main class="page" id="menu-page">
    <h1>${menu.restaurant.name}</h1>
    <${RestaurantInfo} r=${menu.restaurant} />
    <p class="links"><a href=${`/g/${encodeURIComponent(slug)}/reserveren`} onClick=${(e) => { e.preventDefault(); go(`/g/${encodeURIComponent(slug)}/reserveren`); }}>${t('book')}</a></p>
    ${!menu.ordering.accepting
      ? html`<section class="notice" id="paused" role="status"><h2>${t('paused_title')}</h2><p>${lang === 'nl' && menu.ordering.message ? menu.ordering.message : t('paused')}</p></section>`
      : null}
    ${menu.categories.map((c) => html`<section class="category"><h2>${c.name}</h2>
      ${c.products.map((p) => html`<div class="dish" data-dish=${p.name}>
        <div><strong>${p.name}</strong>${p.description ? html`<small>${p.description}</small>` : null}<span class="price">${euro(p.price_cents)}</span></div>
        ${menu.ordering.accepting
          ? html`<div class="qty">${basket[p.id] ? html`<button type="button" aria-label="−" onClick=${() => change(p.id, -1)}>−</button><span>${basket[p.id]}</span>` : null}
              <button type="button" class="add" aria-label=${`${t('add')}: ${p.name}`} onClick=${() => change(p.id, 1)}>+</button></div>`
          : null}
      </div>`)}
    </section>`)}
    ${menu.ordering.accepting && lines.length
      ? html`<a class="basket-bar" href="#checkout" id="basket-bar">${t('basket')}: ${lines.reduce((n, [, q]) => n + q, 0)} · ${euro(total)}</a>`
      : null}
    ${menu.ordering.accepting
      ? html`<form class="checkout" id="checkout" onSubmit=${submit}>
          <h2>${t('basket')}</h2>
          ${lines.length === 0 ? html`<p class="muted">${t('empty_basket')}</p>` : html`<ul>${lines.map(([id, q]) => html`<li>${q}× ${products.get(id)?.name} <span>${euro((products.get(id)?.price_cents ?? 0) * q)}</span></li>`)}</ul>
            <p class="total">${t('total')} <strong id="basket-total">${euro(total)}</strong></p>`}
          <fieldset><legend>${t('order_type')}</legend>
            ${['pickup', 'delivery', 'table'].map((k) => html`<label class="radio"><input type="radio" name="type" value=${k} checked=${type === k} onChange=${() => setType(k)} /> ${t(k)}</label>`)}
          </fieldset>
          <label>${t('name')}<input name="name" required maxlength="120" autocomplete="name" ...${fe('customer.name')} /><${FieldErr} id="err-customer.name" text=${fieldErrors['customer.name']} /></label>
          <label>${t('phone')}<input name="phone" type="tel" required autocomplete="tel" ...${fe('customer.phone')} /><${FieldErr} id="err-customer.phone" text=${fieldErrors['customer.phone']} /></label>
          <label>${t('email')}<input name="email" type="email" autocomplete="email" ...${fe('customer.email')} /><${FieldErr} id="err-customer.email" text=${fieldErrors['customer.email']} /></label>
          ${type === 'delivery' ? html`<label>${t('address')}<input name="address" required minlength="5" autocomplete="street-address" ...${fe('delivery_address')} /><${FieldErr} id="err-delivery_address" text=${fieldErrors.delivery_address} /></label>` : null}
          ${type === 'table' ? html`<label>${t('table_name')}<input name="table" required ...${fe('table')} /><${FieldErr} id="err-table" text=${fieldErrors.table} /></label>` : null}
          <label>${t('notes')}<input name="notes" maxlength="400" ...${fe('notes')} /><${FieldErr} id="err-notes" text=${fieldErrors.notes} /></label>
          <${Err} text=${error} />
          <button type="submit" class="primary" id="order-submit" disabled=${sending || lines.length === 0}>${sending ? t('sending') : type === 'table' ? t('place_order') : `${t('checkout')} (${euro(total)})`}</button>
        </form>`
      : null}
  </main>`;
}

// ─── An order's status, followed live (polling) ───────────────────────────────────────────────
function OrderPage({ slug, id }) {
  const { data: o, error } = usePoll(() => api('GET', `/public/order/${encodeURIComponent(slug)}/${id}`), (o) => o.status === 'completed' || o.status === 'cancelled', 3000, [id]);
  useEffect(() => {
    document.title = `${t('your_order')}${o ? ` ${o.number}` : ''}`;
  }, [o?.number]);
  if (!o) return html`<main class="page"><${Err} text=${error} /><p class="loading">…</p></main>`;
  const failed = o.payment && ['failed', 'expired', 'canceled'].includes(o.payment.status) && o.payment_status !== 'paid';
  return html`<main class="page" id="order-page" data-status=${o.status} data-payment=${o.payment_status}>
    <h1>${t('your_order')} <span id="order-number">${o.number}</span></h1>
    <p class="big-status" id="order-status">${t(`st_${o.status}`)}</p>
    <p id="order-payment" class=${o.payment_status === 'paid' ? 'ok' : failed ? 'error' : 'muted'}>${o.payment_status === 'paid' ? t('paid') : failed ? t('payment_failed') : o.payment ? t('waiting_payment') : t('not_paid')}</p>
    ${failed ? html`<${RetryButton} slug=${slug} orderId=${o.id} />` : null}
    ${!o.seen_by_restaurant ? html`<p class="notice">${t('not_seen')}</p>` : null}
    <ul>${o.items.map((i) => html`<li>${i.quantity}× ${i.name} <span>${euro(i.total_cents)}</span></li>`)}</ul>
    <p class="total">${t('total')} <strong>${euro(o.total_cents)}</strong></p>
  </main>`;
}

// ─── Back from the checkout: the payment's result, said plainly ───────────────────────────────
function PaymentPage({ slug, id }) {
  const final = (p) => p.status !== 'open' && p.status !== 'pending';
  const { data: p, error } = usePoll(() => api('GET', `/public/betaling/${id}/status`), final, 1500, [id]);
  useEffect(() => {
    // An order's payment settled: its status page takes over (it follows the kitchen too).
    if (p && final(p) && p.order && p.status === 'paid') go(`/g/${encodeURIComponent(slug)}/bestelling/${p.order.id}`);
  }, [p?.status]);
  useEffect(() => {
    document.title = t('pay');
  }, []);
  if (!p) return html`<main class="page"><${Err} text=${error} /><p class="loading">${t('waiting_payment')}</p></main>`;
  const ok = p.status === 'paid';
  // Back to the table's bill by the code this tab came with (the table's name opens nothing: CONTRACT §11).
  const tableCode = p.purpose === 'table' ? sessionStorage.getItem(`guest.table.${id}`) : null;
  const back = tableCode ? `/g/${encodeURIComponent(slug)}/tafel/${encodeURIComponent(tableCode)}` : p.order ? `/g/${encodeURIComponent(slug)}/bestelling/${p.order.id}` : `/g/${encodeURIComponent(slug)}/`;
  return html`<main class="page" id="payment-page" data-status=${p.status}>
    <h1>${p.restaurant.name}</h1>
    <p class=${`big-status ${ok ? 'ok' : final(p) ? 'error' : ''}`} id="payment-result">${ok ? t('payment_ok') : final(p) ? t('payment_failed') : t('waiting_payment')}</p>
    <p>${euro(p.amount_cents)}${p.tip_cents ? ` + ${t('tip').toLowerCase()} ${euro(p.tip_cents)}` : ''}</p>
    ${final(p) && !ok && p.purpose === 'order' && p.order ? html`<${RetryButton} slug=${slug} orderId=${p.order.id} />` : null}
    <p><a class="button" id="back" href=${back} onClick=${(e) => { e.preventDefault(); go(back); }}>${p.purpose === 'table' ? t('back_to_bill') : t('your_order')}</a></p>
  </main>`;
}

// ─── Pay at the table (the table's QR code opens this; `table` is its public code) ─────────────
function TablePage({ slug, table }) {
  const [bill, setBill] = useState(null);
  const [error, setError] = useState('');
  const [part, setPart] = useState(false);
  const [amount, setAmount] = useState('');
  const [tip, setTip] = useState(0);
  const [sending, setSending] = useState(false);
  const load = () => api('GET', `/public/tafel/${encodeURIComponent(slug)}/${encodeURIComponent(table)}`).then(setBill, (e) => setError(e.message));
  useEffect(() => {
    void load();
  }, [slug, table]);
  useEffect(() => {
    document.title = `${t('bill')}${bill ? ` · ${t('table').toLowerCase()} ${bill.table.name}` : ''}`;
  }, [bill?.table?.name]);
  if (!bill) return html`<main class="page"><${Err} text=${error} /><p class="loading">…</p></main>`;
  const cents = part ? Math.round(Number(amount.replace(',', '.')) * 100) : bill.open_cents;
  const tipCents = Math.round((cents * tip) / 100);
  const pay = async (e) => {
    e.preventDefault();
    setSending(true);
    setError('');
    try {
      const r = await api('POST', `/public/tafel/${encodeURIComponent(slug)}/${encodeURIComponent(table)}/pay`, { ...(part ? { amount_cents: cents } : {}), ...(tipCents ? { tip_cents: tipCents } : {}) });
      sessionStorage.setItem(`guest.table.${r.payment_id}`, table);
      if (r.checkout_url) location.assign(r.checkout_url);
      else go(`/g/${encodeURIComponent(slug)}/betaling/${r.payment_id}`);
    } catch (err) {
      setError(explain(err, { amount_cents: t('amount_label'), tip_cents: t('tip') }).message);
      setSending(false);
    }
  };
  return html`<main class="page" id="table-page">
    <h1>${t('bill')} · ${t('table').toLowerCase()} ${bill.table.name}</h1>
    ${bill.orders.map((o) => html`<ul class="bill">${o.items.map((i) => html`<li>${i.quantity}× ${i.name} <span>${euro(i.total_cents)}</span></li>`)}</ul>`)}
    <p class="total">${t('total')} <strong>${euro(bill.total_cents)}</strong></p>
    ${bill.paid_cents ? html`<p>${t('already_paid')} <strong>${euro(bill.paid_cents)}</strong></p>` : null}
    <p class="total">${t('open')} <strong id="table-open">${euro(bill.open_cents)}</strong></p>
    ${bill.open_cents === 0
      ? html`<p class="ok" id="nothing-open">${t('nothing_open')}</p>`
      : html`<form class="checkout" id="table-pay" onSubmit=${pay}>
          <fieldset>
            <label class="radio"><input type="radio" name="how" checked=${!part} onChange=${() => setPart(false)} /> ${t('pay_all')}</label>
            <label class="radio"><input type="radio" name="how" id="pay-part" checked=${part} onChange=${() => setPart(true)} /> ${t('pay_part')}</label>
          </fieldset>
          ${part ? html`<label>${t('amount')}<input id="pay-amount" inputmode="decimal" required value=${amount} onInput=${(e) => setAmount(e.currentTarget.value)} /></label>` : null}
          <fieldset><legend>${t('tip')}</legend>
            ${[0, 5, 10, 15].map((p) => html`<label class="radio"><input type="radio" name="tip" value=${p} checked=${tip === p} onChange=${() => setTip(p)} /> ${p ? `${p}%` : t('no_tip')}</label>`)}
          </fieldset>
          <${Err} text=${error} />
          <button type="submit" class="primary" id="table-pay-submit" disabled=${sending || !(cents > 0)}>${t('pay')} ${cents > 0 ? euro(cents + tipCents) : ''}</button>
        </form>`}
  </main>`;
}

// ─── Book a table ──────────────────────────────────────────────────────────────────────────────
function BookPage({ slug }) {
  const todayStr = new Date(Date.now() - new Date().getTimezoneOffset() * 60000).toISOString().slice(0, 10);
  const [date, setDate] = useState(todayStr);
  const [party, setParty] = useState(2);
  const [slots, setSlots] = useState(null);
  const [info, setInfo] = useState(null);
  const [time, setTime] = useState('');
  const [error, setError] = useState('');
  const [fieldErrors, setFieldErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [done, setDone] = useState(null);
  const [sending, setSending] = useState(false);
  const labels = { date: t('date'), time: t('time'), party_size: t('party'), name: t('name'), phone: t('phone'), email: t('email'), notes: t('notes') };
  useEffect(() => {
    // The restaurant's name, address, opening hours and largest online party come with its menu.
    api('GET', `/public/menu/${encodeURIComponent(slug)}`).then((m) => setInfo(m.restaurant), () => {});
  }, [slug]);
  useEffect(() => {
    document.title = `${t('book')}${info ? ` · ${info.name}` : ''}`;
  }, [info, done]);
  useEffect(() => {
    setSlots(null);
    setTime('');
    setError('');
    api('GET', `/public/reservations/${encodeURIComponent(slug)}?date=${date}`).then((a) => setSlots(a.slots), (e) => setError(explain(e, labels).message));
  }, [slug, date]);
  if (done)
    return html`<main class="page" id="booked"><h1>${t('booked')}</h1>
      <p class="big-status ok">${longDate(done.date)}, ${done.time}</p><p>${done.party_size} ${t('persons')} · ${done.name}</p>
      ${info ? html`<${RestaurantInfo} r=${info} />` : null}</main>`;
  const submit = async (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget));
    setSending(true);
    setError('');
    setFieldErrors({});
    try {
      setDone(await api('POST', `/public/reservations/${encodeURIComponent(slug)}`, { date, time, party_size: party, name: f.name, phone: f.phone, ...(f.email ? { email: f.email } : {}), ...(f.notes ? { notes: f.notes } : {}) }));
    } catch (err) {
      const x = explain(err, labels);
      setError(x.message);
      setFieldErrors(x.fields);
      setSending(false);
    }
  };
  const max = info?.max_party_size ?? Infinity;
  const tooMany = party > max;
  const open = (slots ?? []).filter((s) => s.available && s.max_party_size >= party);
  const fe = (/** @type {string} */ k) => ({ 'aria-invalid': fieldErrors[k] ? 'true' : null, 'aria-describedby': fieldErrors[k] ? `err-${k}` : null });
  return html`<main class="page" id="book-page">
    <h1>${t('book')}${info ? html` · ${info.name}` : null}</h1>
    <form class="checkout" id="booking" onSubmit=${submit}>
      <label>${t('date')}<input type="date" id="book-date" min=${todayStr} value=${date} onChange=${(e) => e.currentTarget.value && setDate(e.currentTarget.value)} ...${fe('date')} /><${FieldErr} id="err-date" text=${fieldErrors.date} /></label>
      <label>${t('party')}<input type="number" id="book-party" min="1" max="100" value=${party} onInput=${(e) => setParty(Number(e.currentTarget.value) || 1)} ...${fe('party_size')} /><${FieldErr} id="err-party_size" text=${fieldErrors.party_size} /></label>
      <fieldset><legend>${t('time')}</legend>
        ${tooMany
          ? html`<p class="notice" id="too-many">${tf('too_many', { n: max, phone: info?.phone ? `: ${info.phone}` : '' })}</p>`
          : slots === null ? html`<p class="loading">…</p>` : open.length === 0 ? html`<p class="muted" id="no-times">${t('no_times')}</p>` : html`<div class="times">${open.map((s) => html`<button type="button" class=${time === s.time ? 'time chosen' : 'time'} aria-pressed=${String(time === s.time)} data-time=${s.time} onClick=${() => setTime(s.time)}>${s.time}</button>`)}</div>`}
        <${FieldErr} id="err-time" text=${fieldErrors.time} />
      </fieldset>
      <label>${t('name')}<input name="name" required maxlength="120" autocomplete="name" ...${fe('name')} /><${FieldErr} id="err-name" text=${fieldErrors.name} /></label>
      <label>${t('phone')}<input name="phone" type="tel" required autocomplete="tel" ...${fe('phone')} /><${FieldErr} id="err-phone" text=${fieldErrors.phone} /></label>
      <label>${t('email')}<input name="email" type="email" autocomplete="email" ...${fe('email')} /><${FieldErr} id="err-email" text=${fieldErrors.email} /></label>
      <label>${t('notes')}<input name="notes" maxlength="400" ...${fe('notes')} /><${FieldErr} id="err-notes" text=${fieldErrors.notes} /></label>
      <${Err} text=${error} />
      <button type="submit" class="primary" id="book-submit" disabled=${sending || !time || tooMany}>${t('confirm_booking')}</button>
    </form>
    ${info ? html`<${RestaurantInfo} r=${info} />` : null}
  </main>`;
}

function App() {
  const [r, setR] = useState(route());
  const [, setLangTick] = useState(0);
  useEffect(() => {
    const on = () => setR(route());
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  const page =
    r.page === 'bestelling' ? html`<${OrderPage} slug=${r.slug} id=${r.arg} />`
    : r.page === 'betaling' ? html`<${PaymentPage} slug=${r.slug} id=${r.arg} />`
    : r.page === 'tafel' ? html`<${TablePage} slug=${r.slug} table=${r.arg} />`
    : r.page === 'reserveren' ? html`<${BookPage} slug=${r.slug} />`
    : html`<${MenuPage} slug=${r.slug} />`;
  return html`<div class="guest">
    <header class="bar"><a href=${`/g/${encodeURIComponent(r.slug)}/`} onClick=${(e) => { e.preventDefault(); go(`/g/${encodeURIComponent(r.slug)}/`); }}>${t('menu')}</a>
      <button type="button" id="lang" lang=${lang === 'nl' ? 'en' : 'nl'} onClick=${() => { toggleLang(); setLangTick((n) => n + 1); }}>${t('language')}</button></header>
    ${page}
  </div>`;
}

// The shell's "Laden…" is for a slow first load only: replaced, never left under the page (issue 26).
const root = /** @type {HTMLElement} */ (document.getElementById('root'));
root.replaceChildren();
render(html`<${App} />`, root);
