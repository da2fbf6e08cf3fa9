// Small building blocks the screens share: loading data, forms, errors, dialogs.
import { html, useEffect, useState, useCallback } from '../lib/html.js';

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
      setState((s) => ({ ...s, error: /** @type {Error} */ (err).message, loading: false }));
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

export function Loading({ when, error, children }) {
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (when) return html`<p class="muted">Laden…</p>`;
  return children;
}

export const ErrorText = ({ text }) => html`<p class="error" role="alert">${text || ''}</p>`;

/** A modal dialog for forms on a tablet: big, one thing at a time. */
export function Dialog({ title, onClose, children, id = '' }) {
  return html`<div class="dialog-backdrop" onClick=${(e) => e.target === e.currentTarget && onClose()}>
    <div class="dialog" role="dialog" aria-modal="true" aria-label=${title} id=${id || null}>
      <div class="dialog-head"><h2>${title}</h2><button type="button" class="close" aria-label="Sluiten" onClick=${onClose}>✕</button></div>
      ${children}
    </div>
  </div>`;
}

/**
 * Runs an action from a button: disables it while busy, shows the Dutch error the server gave.
 * @returns {[ (fn: () => Promise<unknown>) => Promise<void>, boolean, string, (e: string) => void ]}
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = async (/** @type {() => Promise<unknown>} */ fn) => {
    if (busy) return;
    setBusy(true);
    setError('');
    try {
      await fn();
    } catch (err) {
      setError(/** @type {Error} */ (err).message);
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
