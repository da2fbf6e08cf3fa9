// What the waiter sees of the offline pieces (issue 27): the orders waiting to be sent (top bar,
// "3 bestellingen wachten", with the list), an order the server refused on replay (a banner with
// the reason until someone sends it again or removes it), the last known state of a reading screen
// while the server is away, and a new version of the app.
import { get } from './api.js';
import { html, useEffect, useRef, useState } from './html.js';
import { resync, useLive } from './live.js';
import { Dialog } from '../components/ui.js';
import { euro } from './format.js';
import { offline, setOffline, useOffline } from './offline.js';
import { discard, flush, retry } from './outbox.js';
import { applyUpdate, checkForUpdate } from './pwa.js';
import { useStore } from './store.js';

const clock = (/** @type {number|string} */ t) => new Date(t).toLocaleTimeString('nl-NL', { hour: '2-digit', minute: '2-digit' });
const plural = (/** @type {number} */ n) => `${n} ${n === 1 ? 'bestelling wacht' : 'bestellingen wachten'}`;

/** "Tafel 4: 2× Tomatensoep, 1× Cola" */
export const describe = (/** @type {any} */ q) => `${q.summary?.table ? `${q.summary.table}: ` : ''}${(q.summary?.lines ?? []).map((l) => `${l.quantity}× ${l.name}`).join(', ')}`;

/** The server's reason, with an item's field ('items.0.product_id') named by its dish. */
function reason(/** @type {any} */ q) {
  const named = (/** @type {string} */ text) => text.replace(/'?items\.(\d+)\.[a-z_.]+'?/g, (m, i) => (q.summary?.lines?.[Number(i)] ? `'${q.summary.lines[Number(i)].name}'` : m));
  const details = (q.details ?? []).map((/** @type {any} */ d) => named(d.error));
  const main = named(q.error ?? 'De server weigerde de bestelling.');
  return [main, ...details.filter((d) => d.replace(/\.$/, '') !== main.replace(/^Ongeldige invoer: /, '').replace(/\.$/, ''))].join(' ');
}

/** Remove asks first: a second tap within 3 s. */
function RemoveButton({ onRemove }) {
  const [sure, setSure] = useState(false);
  return html`<button type="button" class=${`danger${sure ? ' confirm' : ''}`} data-action="discard" onClick=${() => {
    if (!sure) {
      setSure(true);
      setTimeout(() => setSure(false), 3000);
    } else onRemove();
  }}>${sure ? 'Zeker? Tik nogmaals' : 'Verwijderen'}</button>`;
}

function OutboxList({ onClose }) {
  const o = useOffline();
  const all = [...o.refused, ...o.waiting];
  return html`<${Dialog} title="Bewaarde bestellingen" onClose=${onClose} id="outbox-dialog">
    ${all.length === 0 ? html`<p class="muted">Alle bestellingen zijn verstuurd.</p>` : null}
    <ul class="plain outbox-list">
      ${all.map(
        (q) => html`<li data-key=${q.key} data-state=${q.state}>
          <strong>${clock(q.created_at)}</strong> ${describe(q)}${q.summary?.total_cents !== undefined ? html` <span class="muted">${euro(q.summary.total_cents)}</span>` : null}
          <div class=${q.state === 'refused' ? 'error' : 'muted'}>${q.state === 'refused' ? `Geweigerd: ${reason(q)}` : 'Wacht op verbinding met de server.'}</div>
          ${q.state === 'refused' ? html`<div class="screen-actions"><button type="button" data-action="retry" onClick=${() => retry(q.key)}>Opnieuw versturen</button><${RemoveButton} onRemove=${() => discard(q.key)} /></div>` : null}
        </li>`,
      )}
    </ul>
  </${Dialog}>`;
}

/** In the top bar: how many orders wait (and how many were refused); tap for the list. */
export function OutboxBadge() {
  const o = useOffline();
  const [open, setOpen] = useState(false);
  if (!o.waiting.length && !o.refused.length && !open) return null;
  const text = [o.waiting.length ? plural(o.waiting.length) : '', o.refused.length ? `${o.refused.length} geweigerd` : ''].filter(Boolean).join(' · ');
  return html`<button type="button" id="outbox" class="outbox" data-state=${o.refused.length ? 'refused' : 'waiting'} onClick=${() => setOpen(true)}>${text || 'Bewaarde bestellingen'}</button>
    ${open ? html`<${OutboxList} onClose=${() => setOpen(false)} />` : null}`;
}

/** Banners above the screen: a refused order (until dealt with), the last known state, a new version. */
export function OfflineBanners() {
  const o = useOffline();
  const s = useStore();
  const since = o.stale.size ? Math.min(...o.stale.values()) : s.conn === 'offline' && o.offlineSince ? o.offlineSince : null;
  return html`
    ${o.refused.map(
      (q) => html`<div class="banner refused" role="alert" data-key=${q.key} id=${`refused-${q.key}`}>
        Bestelling van ${clock(q.created_at)} niet geplaatst (${describe(q)}): ${reason(q)}
        <span class="banner-actions"><button type="button" data-action="retry" onClick=${() => retry(q.key)}>Opnieuw versturen</button><${RemoveButton} onRemove=${() => discard(q.key)} /></span>
      </div>`,
    )}
    ${since !== null
      ? html`<div id="stale-banner" class="banner stale" role="status">Geen verbinding met de server: je ziet de laatst bekende stand van ${clock(since)}. Nieuwe bestellingen worden bewaard en verstuurd zodra de server terug is.</div>`
      : null}
    ${o.update
      ? html`<div id="update-banner" class="banner update" role="status">Er is een nieuwe versie van de app. <button type="button" id="apply-update" class="primary" onClick=${applyUpdate}>Bijwerken</button></div>`
      : null}
  `;
}

/** Whether the screen shows a last known state (the content gets a mark too); re-renders the caller when that changes. */
export function useStaleMark() {
  const o = useOffline();
  return o.stale.size > 0 || o.offlineSince !== null;
}

/** What the tablet keeps up to date while live, for when the server goes: the menu (to take orders), the floor plan and the board. */
const WARM = ['/menu', '/floorplan', '/orders/live'];
/** After a change, the floor plan and the board are fetched again (at most once per this many ms). */
const WARM_AFTER_MS = 1000;

/**
 * Follows the live connection (App calls it): when it goes, remember since when; when it is back,
 * send the waiting orders, ask for a newer version of the app (the appliance may have been updated)
 * and keep the reads fresh. While live, the floor plan and the board are kept current after changes,
 * so what the tablet shows offline is the last state it heard of, also on a screen not open then.
 */
export function useConnection() {
  const s = useStore();
  const timer = useRef(/** @type {any} */ (0));
  const warm = (/** @type {string[]} */ paths) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => paths.forEach((p) => void get(p).catch(() => {})), WARM_AFTER_MS);
  };
  useEffect(() => {
    if (s.conn === 'live') {
      if (offline.offlineSince !== null) setOffline({ offlineSince: null });
      // A screen opened offline shows the tablet's copy and has missed what the socket replays: fetch again.
      if (offline.stale.size) resync();
      void flush();
      checkForUpdate();
      WARM.forEach((p) => void get(p).catch(() => {}));
    } else if (s.conn === 'offline' && offline.offlineSince === null) setOffline({ offlineSince: Date.now() });
  }, [s.conn]);
  useLive(['order:created', 'order:updated', 'table:status', 'floorplan:changed', 'resync'], () => warm(WARM.slice(1)));
}
