// Login: the restaurant and a PIN on a big keypad; admins with e-mail and password.
import { html, useEffect, useState } from '../lib/html.js';
import { post } from '../lib/api.js';
import { store } from '../lib/store.js';

const SLUG_KEY = 'restaurant.slug';
const initialSlug = () => new URLSearchParams(location.search).get('slug') || localStorage.getItem(SLUG_KEY) || '';

/** @param {{ onLogin: (session: any) => void }} props */
export default function Login({ onLogin }) {
  const [mode, setMode] = useState(/** @type {'pin'|'admin'} */ ('pin'));
  const [slug, setSlug] = useState(initialSlug());
  const [pin, setPin] = useState('');
  const [error, setError] = useState(store.loginMessage);
  const [busy, setBusy] = useState(false);

  const submit = async (/** @type {string} */ path, /** @type {Record<string, unknown>} */ body) => {
    setError('');
    setBusy(true);
    try {
      const session = await post(path, body);
      localStorage.setItem(SLUG_KEY, String(body.slug));
      onLogin(session);
    } catch (err) {
      setError(/** @type {Error} */ (err).message);
    } finally {
      setPin('');
      setBusy(false);
    }
  };
  const submitPin = (/** @type {Event} */ e) => {
    e.preventDefault();
    if (!slug.trim()) return setError('Vul de naam van het restaurant in.');
    if (pin.length < 4) return setError('Een pincode heeft minstens 4 cijfers.');
    void submit('/auth/login', { slug: slug.trim(), pin });
  };
  const key = (/** @type {string} */ k) => {
    setError('');
    if (k === 'clear') setPin('');
    else if (k === 'back') setPin((p) => p.slice(0, -1));
    else setPin((p) => (p.length < 8 ? p + k : p));
  };
  useEffect(() => {
    const onKey = (/** @type {KeyboardEvent} */ e) => {
      if (mode !== 'pin' || (document.activeElement && document.activeElement.id === 'slug')) return;
      if (/^\d$/.test(e.key)) key(e.key);
      else if (e.key === 'Backspace') key('back');
      else if (e.key === 'Enter') /** @type {HTMLFormElement|null} */ (document.getElementById('pin-form'))?.requestSubmit();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mode]);

  if (mode === 'admin') {
    return html`<main id="login" class="login">
      <form id="admin-form" class="login-card" onSubmit=${(e) => {
        e.preventDefault();
        const f = Object.fromEntries(new FormData(e.currentTarget));
        void submit('/auth/admin-login', f);
      }}>
        <h1>Beheerder</h1>
        <label for="admin-slug">Restaurant</label>
        <input id="admin-slug" name="slug" required autocapitalize="off" spellcheck="false" value=${slug} onInput=${(e) => setSlug(e.currentTarget.value)} />
        <label for="admin-email">E-mailadres</label>
        <input id="admin-email" name="email" type="email" required autocomplete="username" />
        <label for="admin-password">Wachtwoord</label>
        <input id="admin-password" name="password" type="password" required autocomplete="current-password" />
        <button type="submit" class="primary big" disabled=${busy}>Inloggen</button>
        <p id="admin-error" class="error" role="alert">${error}</p>
        <button type="button" id="show-pin" class="link" onClick=${() => setMode('pin')}>Terug naar pincode</button>
      </form>
    </main>`;
  }
  return html`<main id="login" class="login">
    <form id="pin-form" class="login-card" autocomplete="off" onSubmit=${submitPin}>
      <h1>Inloggen</h1>
      <label for="slug">Restaurant</label>
      <input id="slug" name="slug" required autocapitalize="off" spellcheck="false" placeholder="korte naam, bv. gouden-lepel" value=${slug} onInput=${(e) => setSlug(e.currentTarget.value)} />
      <div class="pin-label">Pincode</div>
      <output id="pin-display" class="pin-display" aria-live="polite" aria-label="Ingevoerde pincode">${'•'.repeat(pin.length)}</output>
      <div class="keypad" role="group" aria-label="Numeriek toetsenbord">
        ${['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((d) => html`<button type="button" data-key=${d} onClick=${() => key(d)}>${d}</button>`)}
        <button type="button" data-key="clear" class="key-muted" onClick=${() => key('clear')}>Wissen</button>
        <button type="button" data-key="0" onClick=${() => key('0')}>0</button>
        <button type="button" data-key="back" class="key-muted" aria-label="Laatste cijfer wissen" onClick=${() => key('back')}>⌫</button>
      </div>
      <button type="submit" id="pin-submit" class="primary big" disabled=${busy}>Inloggen</button>
      <p id="login-error" class="error" role="alert">${error}</p>
      <button type="button" id="show-admin" class="link" onClick=${() => { setError(''); setMode('admin'); }}>Inloggen als beheerder</button>
    </form>
  </main>`;
}
