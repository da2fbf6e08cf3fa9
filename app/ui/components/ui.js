// Building blocks every screen shares (issue 26): loading data, forms whose errors stand next to
// their field with the form's own Dutch label, dialogs that take focus and close with Escape, a
// confirmation before anything is deleted, the PIN-change dialog. Screens added later use these.
import { html, render, useEffect, useState, useCallback, useRef } from '../lib/html.js';
import { euro, parseCents, parseDecimal } from '../lib/format.js';

/**
 * Dutch words for the API's field names, for an error that reaches a person outside a form that
 * knows its own labels (a button in a list). A form's own labels always win.
 */
export const FIELD_WORDS = {
  name: 'naam', price_cents: 'prijs', cost_cents: 'kostprijs', amount_cents: 'bedrag', tip_cents: 'fooi', hourly_wage_cents: 'uurloon',
  temperature: 'temperatuur', target_max: 'maximum', target_min: 'minimum', unit_name: 'koelcel of vriezer', unit_type: 'soort', readings_per_day: 'metingen per dag',
  phone: 'telefoonnummer', 'customer.phone': 'telefoonnummer', 'customer.name': 'naam', email: 'e-mailadres', date: 'datum', time: 'tijd', party_size: 'aantal personen',
  quantity: 'aantal', productId: 'product', product_id: 'product', locationId: 'locatie', location_id: 'locatie', toLocationId: 'naar', fromLocationId: 'van',
  table_id: 'tafel', zone_id: 'zone', seats: 'plaatsen', points: 'punten', customer_id: 'klant', pin: 'pincode', password: 'wachtwoord', job: 'functie',
  status: 'status', note: 'notitie', notes: 'opmerking', category_id: 'categorie', vat_rate: 'btw', unit: 'eenheid', min_level: 'minimum',
  start: 'begin', end: 'einde', break_minutes: 'pauze', user_id: 'medewerker', items: 'regels', url: 'webadres', events: 'gebeurtenissen', scopes: 'rechten',
  timezone: 'tijdzone', slot_minutes: 'tijdvak', seating_minutes: 'tafelduur', max_party_size: 'grootste gezelschap', haccp_margin: 'temperatuurmarge',
  opening_hours: 'openingstijden', address: 'adres', completed_items: 'afgevinkte punten', ingredients: 'ingrediënten', description: 'omschrijving', frequency: 'frequentie',
};

/** "'price_cents' moet …" → "moet …": the sentence without the API's field name at its start. @param {string} text */
const predicateOf = (text) => String(text ?? '').replace(/^'[^']*'\s*/, '').replace(/^De invoer\s+/, '');

/** Replaces API field names quoted in a sentence by Dutch words. @param {string} text @param {Record<string, string>} [labels] */
export function plainText(text, labels = {}) {
  return String(text ?? '').replace(/'([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)'/g, (m, f) => {
    const w = labels[f] ?? FIELD_WORDS[f] ?? FIELD_WORDS[f.split('.').pop()];
    if (w) return w.toLowerCase();
    return /[_.]|^[a-z]+[A-Z]/.test(f) ? 'een veld' : m; // a field name no table knows: never shown as such
  });
}

/** The money fields whose numbers the server gives in cents: shown in euros. */
const moneyText = (/** @type {string} */ text) => text.replace(/-?\d+(?:\.\d+)?/g, (n) => euro(Number(n)));

/**
 * An error as a person should read it: the server's Dutch message with API field names replaced by
 * Dutch words (the form's labels first). @param {unknown} err @param {Record<string, string>} [labels]
 */
export function plainError(err, labels = {}) {
  const e = /** @type {{ message?: string, details?: Array<{ field: string, error: string }> }} */ (err ?? {});
  if (e.details?.length) {
    return e.details
      .map((d) => {
        const word = labels[d.field] ?? FIELD_WORDS[d.field] ?? FIELD_WORDS[String(d.field).split('.').pop() ?? ''];
        const pred = plainText(predicateOf(d.error), labels);
        return word ? `${word[0].toUpperCase()}${word.slice(1)} ${pred}` : `Ongeldige invoer: ${pred}`;
      })
      .join(' ');
  }
  return plainText(e.message ?? 'Er ging iets mis. Probeer het opnieuw.', labels);
}

/** A problem with one field found before anything is sent (the form shows it next to the field). */
export class FieldError extends Error {
  /** @param {string} field @param {string} message */
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

/**
 * Loads data for a screen: `{ data, error, loading, reload, setData }`. `deps` re-run the loader.
 * @template T @param {() => Promise<T>} loader @param {unknown[]} [deps]
 */
export function useAsync(loader, deps = []) {
  const [state, setState] = useState(/** @type {{ data: T|undefined, error: string, loading: boolean }} */ ({ data: undefined, error: '', loading: true }));
  const reload = useCallback(async () => {
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await loader();
      setState({ data, error: '', loading: false });
    } catch (err) {
      setState((s) => ({ ...s, error: plainError(err), loading: false }));
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  const setData = (/** @type {(d: T|undefined) => T} */ fn) => setState((s) => ({ ...s, data: fn(s.data) }));
  return { ...state, reload, setData };
}

/** A screen's frame: title, optional actions on the right, content. */
export function Screen({ title, actions = null, children, id = '' }) {
  return html`<section class="screen-body" id=${id || null}>
    <header class="screen-head"><h1>${title}</h1><div class="screen-actions">${actions}</div></header>
    ${children}
  </section>`;
}

/** While a screen's data loads: a quiet "Bezig met laden…" with aria-busy; an error in its place. */
export function Loading({ when, error, children }) {
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (when) return html`<p class="muted loading" aria-busy="true">Bezig met laden…</p>`;
  return children;
}

/** A form-level error (role=alert only while there is one, so screen readers hear it once). */
export const ErrorText = ({ text, id = null }) => html`<p class="error" id=${id} role=${text ? 'alert' : null}>${text || ''}</p>`;

let dialogSeq = 0;
const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: it takes the focus when it opens (the first field, else its first button), keeps
 * Tab inside, closes with Escape or the ✕, and gives the focus back to what had it before.
 */
export function Dialog({ title, onClose, children, id = '', wide = false }) {
  const ref = useRef(/** @type {HTMLDivElement|null} */ (null));
  const [titleId] = useState(() => `dialog-title-${++dialogSeq}`);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const before = /** @type {HTMLElement|null} */ (document.activeElement);
    const el = ref.current;
    const first = /** @type {HTMLElement|null} */ (el?.querySelector('[autofocus]') ?? el?.querySelector('.dialog-body input:not([type=hidden]), .dialog-body select, .dialog-body textarea') ?? el?.querySelector('.dialog-body button') ?? el?.querySelector(FOCUSABLE) ?? null);
    (first ?? el)?.focus();
    const onKey = (/** @type {KeyboardEvent} */ e) => {
      if (!el) return;
      // Only the topmost dialog answers (a confirmation above an edit dialog).
      const all = document.querySelectorAll('.dialog');
      if (all[all.length - 1] !== el) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        close.current();
      } else if (e.key === 'Tab') {
        const items = /** @type {HTMLElement[]} */ ([...el.querySelectorAll(FOCUSABLE)]).filter((x) => x.offsetParent !== null);
        if (items.length === 0) return;
        const [a, z] = [items[0], items[items.length - 1]];
        if (e.shiftKey && document.activeElement === a) {
          e.preventDefault();
          z.focus();
        } else if (!e.shiftKey && document.activeElement === z) {
          e.preventDefault();
          a.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      if (before && before.isConnected) before.focus();
    };
  }, []);
  return html`<div class="dialog-backdrop" onClick=${(e) => e.target === e.currentTarget && onClose()}>
    <div class=${`dialog${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby=${titleId} id=${id || null} ref=${ref} tabindex="-1">
      <div class="dialog-head"><h2 id=${titleId}>${title}</h2><button type="button" class="close" aria-label="Sluiten" onClick=${onClose}>✕</button></div>
      <div class="dialog-body">${children}</div>
    </div>
  </div>`;
}

/**
 * Asks before something is deleted or undone: resolves true for "yes", false for cancel, Escape or a
 * tap beside it. The dialog has its own root (no screen needs to render it) and the focus goes back
 * to the button that asked.
 * @param {{ title: string, message?: string, confirmLabel?: string, danger?: boolean }} opts
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, message = '', confirmLabel = 'Verwijderen', danger = true }) {
  return new Promise((resolve) => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const done = (/** @type {boolean} */ answer) => {
      render(null, host);
      host.remove();
      resolve(answer);
    };
    render(
      html`<${Dialog} title=${title} onClose=${() => done(false)} id="confirm-dialog">
        ${message ? html`<p>${message}</p>` : null}
        <div class="dialog-actions">
          <button type="button" id="confirm-no" autofocus onClick=${() => done(false)}>Annuleren</button>
          <button type="button" id="confirm-yes" class=${danger ? 'danger-solid' : 'primary'} onClick=${() => done(true)}>${confirmLabel}</button>
        </div>
      </${Dialog}>`,
      host,
    );
  });
}

/**
 * Runs an action from a button: disables it while busy, shows the error in plain Dutch (API field
 * names replaced), and clears the last error when a later action succeeds.
 * @param {Record<string, string>} [labels] the screen's own words for API fields
 * @returns {[ (fn: () => Promise<unknown>) => Promise<boolean>, boolean, string, (e: string) => void ]}
 */
export function useAction(labels = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = async (/** @type {() => Promise<unknown>} */ fn) => {
    if (busy) return false;
    setBusy(true);
    setError('');
    try {
      await fn();
      return true;
    } catch (err) {
      setError(plainError(err, labels));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return [run, busy, error, setError];
}

/** Form values from a submit event, as an object of strings. @param {Event} e */
export const formValues = (e) => Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)));

/** A status pill (vrij/bezet, ok/kritiek ...). */
export const Pill = ({ kind, children }) => html`<span class=${`pill pill-${kind}`}>${children}</span>`;

let formSeq = 0;

/**
 * A form's state: values, errors per field, the form's error and its success line. Fields register
 * their Dutch label and the API field they feed (`api`, default their name), so an API error's
 * `details[].field` lands next to the right field with the form's own label: "Prijs (€) moet …".
 *
 *   const form = useForm({ name: p.name, price: euroInput(p.price_cents) });
 *   <form novalidate onSubmit=${form.submit(async (v) => patch(…, { price_cents: form.cents('price') }), 'Opgeslagen.')}>
 *     <${Field} form=${form} name="price" label="Prijs (€)" api="price_cents" money />
 *
 * @param {Record<string, any>} [initial]
 */
export function useForm(initial = {}) {
  const [values, setValues] = useState(/** @type {Record<string, any>} */ ({ ...initial }));
  const [errors, setErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [error, setError] = useState('');
  const [ok, setOk] = useState('');
  const [busy, setBusy] = useState(false);
  const [id] = useState(() => `f${++formSeq}`);
  /** name → { label, api, money, required, gen } as rendered; `gen`: the render that showed it last. */
  const fields = useRef(/** @type {Map<string, { label: string, api: string, money: boolean, required: boolean, gen: number }>} */ (new Map())).current;
  const gen = useRef(0);
  gen.current += 1;

  const set = (/** @type {string} */ name, /** @type {any} */ value) => {
    setValues((v) => ({ ...v, [name]: value }));
    setOk('');
  };
  const labelOf = (/** @type {string} */ name) => fields.get(name)?.label ?? name;
  /** The form field an API field belongs to (exact, then the last part: 'customer.phone' → phone). */
  const fieldFor = (/** @type {string} */ apiField) => {
    for (const [name, f] of fields) if (f.api === apiField || name === apiField) return name;
    const last = apiField.split('.').pop();
    for (const [name, f] of fields) if (f.api === last || name === last) return name;
    for (const [name, f] of fields) if (apiField.startsWith(`${f.api}.`)) return name;
    return null;
  };
  const labels = () => Object.fromEntries([...fields].flatMap(([name, f]) => [[f.api, f.label], [name, f.label]]));

  /** @param {unknown} err */
  const fail = (err) => {
    const e = /** @type {any} */ (err);
    if (e instanceof FieldError) {
      setErrors({ [e.field]: `${labelOf(e.field)} ${e.message}` });
      setError('Controleer het gemarkeerde veld.');
      return;
    }
    const next = /** @type {Record<string, string>} */ ({});
    const rest = [];
    for (const d of e?.details ?? []) {
      const name = fieldFor(String(d.field));
      if (name && !next[name]) {
        const f = fields.get(name);
        let pred = plainText(predicateOf(d.error), labels());
        if (f?.money) pred = moneyText(pred);
        next[name] = `${f?.label ?? name} ${pred}`;
      } else rest.push(d);
    }
    setErrors(next);
    const n = Object.keys(next).length;
    const restText = rest.length ? plainError({ details: rest }, labels()) : '';
    if (n) setError([n === 1 ? 'Controleer het gemarkeerde veld.' : 'Controleer de gemarkeerde velden.', restText].filter(Boolean).join(' '));
    else setError(plainError(e, labels()));
  };

  /**
   * A submit handler: clears the last errors and success, runs `fn(values)`, shows `success` next to
   * the button (and keeps the values unless `fn` changes them).
   * @param {(v: Record<string, any>) => Promise<unknown>} fn @param {string} [success]
   */
  const submit = (fn, success = 'Opgeslagen.') => async (/** @type {Event} */ e) => {
    e?.preventDefault?.();
    if (busy) return;
    setBusy(true);
    setErrors({});
    setError('');
    setOk('');
    try {
      // Required fields on screen (forms are novalidate: every message is ours, in Dutch, beside its field).
      const empty = [...fields].filter(([name, f]) => f.required && f.gen === gen.current && String(values[name] ?? '').trim() === '');
      if (empty.length) {
        setErrors(Object.fromEntries(empty.map(([name, f]) => [name, `${f.label} is verplicht.`])));
        setError(empty.length === 1 ? 'Controleer het gemarkeerde veld.' : 'Controleer de gemarkeerde velden.');
        return;
      }
      await fn(values);
      setOk(success);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };
  /** The field's text as a number (Dutch or English decimals); a FieldError when it is not one. */
  const number = (/** @type {string} */ name, /** @type {{ min?: number, max?: number, integer?: boolean, optional?: boolean }} */ o = {}) => {
    const raw = String(values[name] ?? '').trim();
    if (raw === '') {
      if (o.optional) return null;
      throw new FieldError(name, 'is verplicht.');
    }
    const n = parseDecimal(raw);
    if (Number.isNaN(n)) throw new FieldError(name, 'moet een getal zijn, bijvoorbeeld 12,5.');
    if (o.integer && !Number.isInteger(n)) throw new FieldError(name, 'moet een heel getal zijn.');
    if (o.min !== undefined && n < o.min) throw new FieldError(name, `moet minstens ${String(o.min).replace('.', ',')} zijn.`);
    if (o.max !== undefined && n > o.max) throw new FieldError(name, `mag hoogstens ${String(o.max).replace('.', ',')} zijn.`);
    return n;
  };
  /** The field's euros as whole cents; a FieldError when it is not an amount. */
  const cents = (/** @type {string} */ name, /** @type {{ optional?: boolean, max?: number }} */ o = {}) => {
    const raw = String(values[name] ?? '').trim();
    if (raw === '') {
      if (o.optional) return null;
      throw new FieldError(name, 'is verplicht.');
    }
    const c = parseCents(raw);
    if (Number.isNaN(c)) throw new FieldError(name, 'moet een bedrag zijn, bijvoorbeeld 12,50.');
    if (c < 0) throw new FieldError(name, 'mag niet negatief zijn.');
    if (o.max !== undefined && c > o.max) throw new FieldError(name, `mag hoogstens ${euro(o.max)} zijn.`);
    return c;
  };
  const reset = (/** @type {Record<string, any>} */ next = initial) => {
    setValues({ ...next });
    setErrors({});
    setError('');
  };
  return { id, values, set, errors, error, ok, busy, submit, fail, number, cents, reset, fields, gen: gen.current, setOk, setError, setValues };
}

/**
 * One labelled field of a `useForm` form: the label tied to its input, the error right below it
 * (aria-describedby, aria-invalid). `as`: 'input' (default), 'select' (with `options`: [value,
 * label][]), 'textarea'. `api`: the API field it feeds; `money`: an amount in euros (the server's
 * cents in its errors are shown in euros).
 */
export function Field({ form, name, label, as = 'input', options = [], api = '', money = false, hint = '', class: cls = '', ...rest }) {
  form.fields.set(name, { label, api: api || name, money, required: !!rest.required, gen: form.gen });
  const id = `${form.id}-${name}`;
  const err = form.errors[name];
  const described = [err ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || null;
  const common = {
    id,
    name,
    'aria-invalid': err ? 'true' : null,
    'aria-describedby': described,
    ...rest,
  };
  const value = form.values[name] ?? '';
  let control;
  if (as === 'select') {
    control = html`<select ...${common} value=${String(value)} onChange=${(e) => form.set(name, e.currentTarget.value)}>
      ${options.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
    </select>`;
  } else if (as === 'textarea') {
    control = html`<textarea ...${common} value=${value} onInput=${(e) => form.set(name, e.currentTarget.value)}></textarea>`;
  } else if (rest.type === 'checkbox') {
    return html`<div class=${`field field-check ${cls}`}>
      <label class="check" for=${id}><input ...${common} checked=${!!value} onChange=${(e) => form.set(name, e.currentTarget.checked)} /> ${label}</label>
      ${err ? html`<p class="field-error" id=${`${id}-error`}>${err}</p>` : null}
    </div>`;
  } else {
    control = html`<input ...${common} inputmode=${money ? 'decimal' : rest.inputmode} value=${value} onInput=${(e) => form.set(name, e.currentTarget.value)} />`;
  }
  return html`<div class=${`field ${cls}`}>
    <label for=${id}>${label}</label>
    ${control}
    ${hint ? html`<p class="hint" id=${`${id}-hint`}>${hint}</p>` : null}
    ${err ? html`<p class="field-error" id=${`${id}-error`}>${err}</p>` : null}
  </div>`;
}

/** The bottom of a form: its error, its success line and the submit button. */
export function FormFoot({ form, label = 'Opslaan', children = null, big = false }) {
  return html`<div class="form-foot">
    <${ErrorText} text=${form.error} id=${`${form.id}-error`} />
    ${form.ok && !form.error ? html`<p class="ok" role="status" id=${`${form.id}-ok`}>${form.ok}</p>` : null}
    <div class="form-buttons">${children}<button type="submit" class=${`primary${big ? ' big' : ''}`} disabled=${form.busy}>${form.busy ? 'Bezig…' : label}</button></div>
  </div>`;
}

/**
 * Changing a staff member's PIN: typed twice, never shown, never in a browser prompt. A PIN another
 * employee has is refused by the server (its message next to the field).
 */
export function PinDialog({ user, onClose, save }) {
  const form = useForm({ pin: '', again: '' });
  return html`<${Dialog} title=${`Nieuwe pincode voor ${user.name}`} onClose=${onClose} id="pin-dialog">
    <form novalidate onSubmit=${form.submit(async (v) => {
      if (!/^\d{4,8}$/.test(v.pin)) throw new FieldError('pin', 'moet uit 4 tot 8 cijfers bestaan.');
      if (v.pin !== v.again) throw new FieldError('again', 'is niet gelijk aan de eerste.');
      await save(v.pin);
      onClose();
    }, 'Pincode gewijzigd.')}>
      <${Field} form=${form} name="pin" label="Nieuwe pincode (4 tot 8 cijfers)" type="password" inputmode="numeric" autocomplete="new-password" maxlength="8" required />
      <${Field} form=${form} name="again" label="Herhaal de pincode" type="password" inputmode="numeric" autocomplete="new-password" maxlength="8" required />
      <${FormFoot} form=${form} label="Pincode opslaan" />
    </form>
  </${Dialog}>`;
}
