// Guest pages (issue 15): order online, pay at the table from its QR code, book a table. Mobile
// first, Dutch with an English switch, Preact + htm as ES modules (no build step), and none of the
// staff app's code. Every screen talks to the public API only.
import { h, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { ALLERGENS, allergenMark, allergenName, allergenOther, euro, lang, longDate, t, tf, toggleLang } from './i18n.js';

const html = htm.bind(h);
const API = '/api/v1';

/**
 * The page from the path: /g/:slug/ (the menu; `?tafel=:public_code` orders at that table),
 * /g/:slug/bestelling/:id, /g/:slug/betaling/:id, /g/:slug/tafel/:public_code, /g/:slug/reserveren.
 */
function route() {
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent); // ['g', slug, page?, arg?]
  return { slug: parts[1] ?? '', page: parts[2] ?? '', arg: parts[3] ?? '', tafel: new URLSearchParams(location.search).get('tafel') ?? '' };
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

/** The allergen marks of a dish or option: a round icon and both names ("Melk · Milk"). */
function Allergens({ codes, id = null }) {
  if (!codes?.length) return null;
  return html`<ul class="allergens" id=${id} aria-label=${t('contains')}>
    ${codes.map((c) => html`<li class=${`allergen al-${c}`} data-allergen=${c}><span class="al-icon" aria-hidden="true">${allergenMark(c)}</span>${allergenName(c)}<span class="al-other" lang=${lang === 'en' ? 'nl' : 'en'}> · ${allergenOther(c)}</span></li>`)}
  </ul>`;
}

/** Vegetarian / vegan marks. */
const Diet = ({ dietary }) =>
  dietary?.includes('vegan') ? html`<span class="diet diet-vegan" data-diet="vegan"><span aria-hidden="true">V+</span> ${t('vegan')}</span>`
  : dietary?.includes('vegetarian') ? html`<span class="diet" data-diet="vegetarian"><span aria-hidden="true">V</span> ${t('vegetarian')}</span>` : null;

/** "kies 1", "kies 1 tot 3", "kies maximaal 5". @param {{ min_select: number, max_select: number }} g */
const choiceText = (g) => (g.min_select === g.max_select ? tf('choose_n', { n: g.min_select }) : g.min_select === 0 ? tf('choose_upto', { max: g.max_select }) : tf('choose_range', { min: g.min_select, max: g.max_select }));
/** Forced groups first (a guest must answer them), each in the restaurant's order. */
const askOrder = (groups) => [...groups.filter((g) => g.min_select > 0), ...groups.filter((g) => g.min_select === 0)];

/**
 * The sheet before "add" (issue 23): a dish's choices, forced ones first; radio buttons where one is
 * chosen, boxes up to the group's maximum; "add" shows the price with the choices and waits until every
 * forced group has its minimum.
 */
function OptionsSheet({ dish, onAdd, onClose }) {
  const groups = askOrder(dish.modifier_groups);
  const [chosen, setChosen] = useState(/** @type {Record<string, string[]>} */ ({}));
  const ref = useRef(/** @type {HTMLDivElement|null} */ (null));
  useEffect(() => {
    const before = /** @type {HTMLElement|null} */ (document.activeElement);
    ref.current?.querySelector('input')?.focus();
    const onKey = (/** @type {KeyboardEvent} */ e) => {
      if (e.key === 'Escape') onClose();
      else if (e.key === 'Tab' && ref.current) {
        const items = /** @type {HTMLElement[]} */ ([...ref.current.querySelectorAll('input:not([disabled]), button:not([disabled])')]);
        const [a, z] = [items[0], items[items.length - 1]];
        if (e.shiftKey && document.activeElement === a) { e.preventDefault(); z.focus(); }
        else if (!e.shiftKey && document.activeElement === z) { e.preventDefault(); a.focus(); }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (before?.isConnected) before.focus();
    };
  }, []);
  const options = new Map(groups.flatMap((g) => g.options.map((o) => [o.id, o])));
  const ids = groups.flatMap((g) => chosen[g.id] ?? []);
  const price = dish.price_cents + ids.reduce((s, id) => s + (options.get(id)?.price_delta_cents ?? 0), 0);
  const missing = groups.filter((g) => (chosen[g.id] ?? []).length < g.min_select);
  const pick = (g, id, on) => setChosen((c) => {
    const now = c[g.id] ?? [];
    if (g.max_select === 1) return { ...c, [g.id]: on ? [id] : [] };
    return { ...c, [g.id]: on ? [...now, id].slice(0, g.max_select) : now.filter((x) => x !== id) };
  });
  const delta = (cents) => (cents > 0 ? `+ ${euro(cents)}` : cents < 0 ? `− ${euro(-cents)}` : '');
  return html`<div class="sheet-backdrop" onClick=${(e) => e.target === e.currentTarget && onClose()}>
    <div class="sheet" role="dialog" aria-modal="true" aria-labelledby="sheet-title" id="options-sheet" ref=${ref}>
      <h2 id="sheet-title">${dish.name}</h2>
      ${dish.description ? html`<p class="muted">${dish.description}</p>` : null}
      ${groups.map((g) => html`<fieldset class="group" data-group=${g.name} aria-describedby=${`gh-${g.id}`}>
        <legend>${g.name} ${g.min_select > 0 ? html`<span class="req">${t('required')}</span>` : null}</legend>
        <p class="muted small" id=${`gh-${g.id}`}>${choiceText(g)}</p>
        ${g.options.map((o) => {
          const on = (chosen[g.id] ?? []).includes(o.id);
          const full = g.max_select > 1 && !on && (chosen[g.id] ?? []).length >= g.max_select;
          return html`<label class="option" data-option=${o.name}>
            <input type=${g.max_select === 1 ? 'radio' : 'checkbox'} name=${`g-${g.id}`} value=${o.id} checked=${on} disabled=${full} onChange=${(e) => pick(g, o.id, e.currentTarget.checked)} />
            <span class="opt-name">${o.name}${o.allergens?.length ? html`<small>${t('contains')}: ${o.allergens.map(allergenName).join(', ')}</small>` : null}</span>
            <span class="opt-price">${delta(o.price_delta_cents)}</span>
          </label>`;
        })}
      </fieldset>`)}
      <p class="muted" id="sheet-missing" aria-live="polite">${missing.length ? tf('still_choose', { groups: missing.map((g) => g.name).join(', ') }) : ''}</p>
      <div class="sheet-buttons">
        <button type="button" id="sheet-cancel" onClick=${onClose}>${t('cancel')}</button>
        <button type="button" class="primary" id="sheet-add" disabled=${missing.length > 0} onClick=${() => onAdd(ids)}>${tf('add_price', { price: euro(price) })}</button>
      </div>
    </div>
  </div>`;
}

/** The allergen filter: "zonder gluten / melk / noten …", the common ones first, the rest behind "more". */
const COMMON = ['gluten', 'milk', 'nuts', 'peanuts', 'eggs'];
function AllergenFilter({ exclude, setExclude }) {
  const [more, setMore] = useState(exclude.some((c) => !COMMON.includes(c)));
  const toggle = (code) => setExclude(exclude.includes(code) ? exclude.filter((c) => c !== code) : ALLERGENS.map((a) => a[0]).filter((c) => c === code || exclude.includes(c)));
  const codes = more ? ALLERGENS.map((a) => a[0]) : COMMON;
  return html`<section class="filter" id="allergen-filter" aria-labelledby="filter-title">
    <h2 id="filter-title">${t('filter_title')}</h2>
    <p class="muted small">${t('filter_hint')}</p>
    <div class="chips">${codes.map((c) => html`<button type="button" class="chip" data-exclude=${c} aria-pressed=${String(exclude.includes(c))} onClick=${() => toggle(c)}>
      <span class="al-icon" aria-hidden="true">${allergenMark(c)}</span><span class="sr-only">${t('without')} </span>${allergenName(c).toLowerCase()}</button>`)}
      ${more ? null : html`<button type="button" class="chip more" id="more-allergens" onClick=${() => setMore(true)}>${t('more_allergens')}…</button>`}
    </div>
    ${exclude.length ? html`<p class="small" id="filter-note" role="status">${tf('hidden_filter', { list: exclude.map((c) => allergenName(c).toLowerCase()).join(', ') })} ${t('ask_staff')}</p>` : null}
  </section>`;
}

// ─── Menu, basket and checkout ────────────────────────────────────────────────────────────────
/**
 * `tafel`: the table's public code when the guest came from its QR code (the table's bill links here
 * with it): the order goes to that table, named on the page, without typing anything (CONTRACT §11).
 */
function MenuPage({ slug, tafel = '' }) {
  const [menu, setMenu] = useState(null);
  const [error, setError] = useState('');
  /** Basket lines: a dish with its chosen options (the same dish with other options is another line). */
  const [basket, setBasket] = useState(/** @type {Array<{ key: string, product_id: string, options: string[], quantity: number }>} */ ([]));
  const [exclude, setExclude] = useState(/** @type {string[]} */ ([]));
  const [sheetFor, setSheetFor] = useState(/** @type {any} */ (null));
  /** Every dish seen (also those a filter hides now), so the basket keeps its names and prices. */
  const known = useRef(/** @type {Map<string, any>} */ (new Map())).current;
  const [type, setType] = useState(tafel ? 'table' : 'pickup');
  /** The table the code names (null: none, or the code opens nothing: then the guest types a code). */
  const [atTable, setAtTable] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    if (!tafel) return;
    api('GET', `/public/tafel/${encodeURIComponent(slug)}/${encodeURIComponent(tafel)}`).then((b) => setAtTable(b.table.name), () => setAtTable(null));
  }, [slug, tafel]);
  const [sending, setSending] = useState(false);
  const [key, setKey] = useState(newKey());
  const [fieldErrors, setFieldErrors] = useState(/** @type {Record<string, string>} */ ({}));
  useEffect(() => {
    const q = exclude.length ? `?exclude=${exclude.join(',')}` : '';
    api('GET', `/public/menu/${encodeURIComponent(slug)}${q}`).then((m) => {
      for (const c of m.categories) for (const p of c.products) known.set(p.id, p);
      setMenu(m);
    }, (e) => setError(e.status === 404 ? t('not_found') : e.message));
  }, [slug, exclude.join(',')]);
  useEffect(() => {
    if (menu) document.title = `${menu.restaurant.name} · ${t('menu')}`;
  }, [menu]);
  const labels = { 'customer.name': t('name'), 'customer.phone': t('phone'), 'customer.email': t('email'), name: t('name'), phone: t('phone'), email: t('email'), delivery_address: t('address'), table: t('table_name'), notes: t('notes'), items: t('items'), type: t('order_type') };
  if (error && !menu) return html`<main class="page"><${Err} text=${error} /></main>`;
  if (!menu) return html`<main class="page"><p class="loading">…</p></main>`;
  const optionOf = (p, id) => p?.modifier_groups?.flatMap((g) => g.options).find((o) => o.id === id);
  const unitPrice = (l) => {
    const p = known.get(l.product_id);
    return (p?.price_cents ?? 0) + l.options.reduce((s, id) => s + (optionOf(p, id)?.price_delta_cents ?? 0), 0);
  };
  const lines = basket.filter((l) => l.quantity > 0);
  const total = lines.reduce((s, l) => s + unitPrice(l) * l.quantity, 0);
  const count = (/** @type {string} */ id) => lines.filter((l) => l.product_id === id).reduce((n, l) => n + l.quantity, 0);
  const addLine = (/** @type {string} */ product_id, /** @type {string[]} */ options) => {
    const k = `${product_id}|${[...options].sort().join(',')}`;
    setBasket((b) => (b.some((l) => l.key === k) ? b.map((l) => (l.key === k ? { ...l, quantity: Math.min(99, l.quantity + 1) } : l)) : [...b, { key: k, product_id, options, quantity: 1 }]));
    setKey(newKey());
  };
  const changeLine = (/** @type {string} */ k, /** @type {number} */ d) => {
    setBasket((b) => b.map((l) => (l.key === k ? { ...l, quantity: Math.max(0, Math.min(99, l.quantity + d)) } : l)).filter((l) => l.quantity > 0));
    setKey(newKey());
  };
  const plus = (p) => (p.modifier_groups?.some((g) => g.options.length) ? setSheetFor(p) : addLine(p.id, []));
  const minus = (p) => {
    const last = [...lines].reverse().find((l) => l.product_id === p.id);
    if (last) changeLine(last.key, -1);
  };
  const submit = async (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget));
    setSending(true);
    setError('');
    setFieldErrors({});
    try {
      const body = {
        // CONTRACT §17: a line's options as `modifiers: [{ option_id }]` (left out for a dish without).
        items: lines.map((l) => ({ product_id: l.product_id, quantity: l.quantity, ...(l.options.length ? { modifiers: l.options.map((option_id) => ({ option_id })) } : {}) })),
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
  const optionNames = (l) => l.options.map((id) => optionOf(known.get(l.product_id), id)?.name).filter(Boolean).join(', ');
  return html`<main class="page" id="menu-page">
    <h1>${menu.restaurant.name}</h1>
    <${RestaurantInfo} r=${menu.restaurant} />
    <p class="links"><a href=${`/g/${encodeURIComponent(slug)}/reserveren`} onClick=${(e) => { e.preventDefault(); go(`/g/${encodeURIComponent(slug)}/reserveren`); }}>${t('book')}</a></p>
    ${!menu.ordering.accepting
      ? html`<section class="notice" id="paused" role="status"><h2>${t('paused_title')}</h2><p>${lang === 'nl' && menu.ordering.message ? menu.ordering.message : t('paused')}</p></section>`
      : null}
    <${AllergenFilter} exclude=${exclude} setExclude=${setExclude} />
    ${menu.categories.every((c) => c.products.length === 0) ? html`<p class="notice" id="no-dishes">${t('no_dishes')}</p>` : null}
    ${menu.categories.filter((c) => c.products.length).map((c) => html`<section class="category"><h2>${c.name}</h2>
      ${c.products.map((p) => html`<div class="dish" data-dish=${p.name}>
        <div class="dish-text"><strong>${p.name}</strong> <${Diet} dietary=${p.dietary} />${p.description ? html`<small>${p.description}</small>` : null}
          <span class="price">${euro(p.price_cents)}${p.modifier_groups?.length ? html` <small class="inline">${t('with_options')}</small>` : null}</span>
          <${Allergens} codes=${p.allergens} /></div>
        ${menu.ordering.accepting
          ? html`<div class="qty">${count(p.id) ? html`<button type="button" aria-label=${`${t('one_less')}: ${p.name}`} onClick=${() => minus(p)}>−</button><span>${count(p.id)}</span>` : null}
              <button type="button" class="add" aria-label=${`${t('add')}: ${p.name}`} onClick=${() => plus(p)}>+</button></div>`
          : null}
      </div>`)}
    </section>`)}
    ${menu.ordering.accepting && lines.length
      ? html`<a class="basket-bar" href="#checkout" id="basket-bar">${t('basket')}: ${lines.reduce((n, l) => n + l.quantity, 0)} · ${euro(total)}</a>`
      : null}
    ${menu.ordering.accepting
      ? html`<form class="checkout" id="checkout" onSubmit=${submit}>
          <h2>${t('basket')}</h2>
          ${lines.length === 0 ? html`<p class="muted">${t('empty_basket')}</p>` : html`<ul id="basket-lines">${lines.map((l) => html`<li class="line" data-line=${known.get(l.product_id)?.name}>
              <span>${l.quantity}× ${known.get(l.product_id)?.name}${l.options.length ? html`<small class="line-options">${optionNames(l)}</small>` : null}</span>
              <span class="line-end"><span>${euro(unitPrice(l) * l.quantity)}</span>
                <button type="button" class="small-btn" aria-label=${`${t('one_less')}: ${known.get(l.product_id)?.name}`} onClick=${() => changeLine(l.key, -1)}>−</button>
                <button type="button" class="small-btn" aria-label=${`${t('one_more')}: ${known.get(l.product_id)?.name}`} onClick=${() => changeLine(l.key, 1)}>+</button></span>
            </li>`)}</ul>
            <p class="total">${t('total')} <strong id="basket-total">${euro(total)}</strong></p>`}
          <fieldset><legend>${t('order_type')}</legend>
            ${['pickup', 'delivery', 'table'].map((k) => html`<label class="radio"><input type="radio" name="type" value=${k} checked=${type === k} onChange=${() => setType(k)} /> ${t(k)}</label>`)}
          </fieldset>
          <label>${t('name')}<input name="name" required maxlength="120" autocomplete="name" ...${fe('customer.name')} /><${FieldErr} id="err-customer.name" text=${fieldErrors['customer.name']} /></label>
          <label>${t('phone')}<input name="phone" type="tel" required autocomplete="tel" ...${fe('customer.phone')} /><${FieldErr} id="err-customer.phone" text=${fieldErrors['customer.phone']} /></label>
          <label>${t('email')}<input name="email" type="email" autocomplete="email" ...${fe('customer.email')} /><${FieldErr} id="err-customer.email" text=${fieldErrors['customer.email']} /></label>
          ${type === 'delivery' ? html`<label>${t('address')}<input name="address" required minlength="5" autocomplete="street-address" ...${fe('delivery_address')} /><${FieldErr} id="err-delivery_address" text=${fieldErrors.delivery_address} /></label>` : null}
          ${type === 'table' && atTable !== null
            ? html`<p id="order-table"><strong>${tf('at_table', { name: atTable })}</strong><input type="hidden" name="table" value=${tafel} /></p><${FieldErr} id="err-table" text=${fieldErrors.table} />`
            : type === 'table'
              ? html`<label>${t('table_name')}<input name="table" required autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="60" ...${fe('table')} /><small class="muted">${t('table_code_hint')}</small><${FieldErr} id="err-table" text=${fieldErrors.table} /></label>`
              : null}
          <label>${t('notes')}<input name="notes" maxlength="400" ...${fe('notes')} /><${FieldErr} id="err-notes" text=${fieldErrors.notes} /></label>
          <${Err} text=${error} />
          <button type="submit" class="primary" id="order-submit" disabled=${sending || lines.length === 0}>${sending ? t('sending') : type === 'table' ? t('place_order') : `${t('checkout')} (${euro(total)})`}</button>
        </form>`
      : null}
    ${sheetFor ? html`<${OptionsSheet} dish=${sheetFor} onClose=${() => setSheetFor(null)} onAdd=${(ids) => { addLine(sheetFor.id, ids); setSheetFor(null); }} />` : null}
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
    <ul>${o.items.map((i) => html`<li><span>${i.quantity}× ${i.name}${i.options?.length ? html`<small class="line-options">${i.options.join(', ')}</small>` : null}</span> <span>${euro(i.total_cents)}</span></li>`)}</ul>
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
  // Ordering at this table: the menu with this table's code (never its name).
  const orderHere = `/g/${encodeURIComponent(slug)}/?tafel=${encodeURIComponent(table)}`;
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
    ${bill.orders.map((o) => html`<ul class="bill">${o.items.map((i) => html`<li><span>${i.quantity}× ${i.name}${i.options?.length ? html`<small class="line-options">${i.options.join(', ')}</small>` : null}</span> <span>${euro(i.total_cents)}</span></li>`)}</ul>`)}
    <p class="total">${t('total')} <strong>${euro(bill.total_cents)}</strong></p>
    ${bill.paid_cents ? html`<p>${t('already_paid')} <strong>${euro(bill.paid_cents)}</strong></p>` : null}
    <p class="total">${t('open')} <strong id="table-open">${euro(bill.open_cents)}</strong></p>
    <p class="links"><a id="order-here" href=${orderHere} onClick=${(e) => { e.preventDefault(); go(orderHere); }}>${t('order_here')}</a></p>
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
    : html`<${MenuPage} slug=${r.slug} tafel=${r.tafel} />`;
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
