// The floor plan: every zone with its tables where they stand, coloured by their live status
// (vrij, bezet, gereserveerd). Tap a table for its bill: a new round, paying it (the bill screen,
// screens/bill.js), close it, or a manual status. Status changes arrive over the socket the moment
// they commit.
import { html, useState } from '../lib/html.js';
import { get, patch, post } from '../lib/api.js';
import { euro, time } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { go } from '../lib/router.js';
import { Dialog, ErrorText, Loading, Pill, Screen, confirmDialog, useAction, useAsync } from '../components/ui.js';
import { VoidDialog, VoidedLine } from './void-lines.js';

const LABEL = { vrij: 'Vrij', bezet: 'Bezet', gereserveerd: 'Gereserveerd' };
const SCALE = 1; // one floor-plan unit is one pixel

function TableDialog({ table, onClose, onChanged }) {
  const bill = useAsync(() => get(`/floorplan/tables/${table.id}/bill`).catch((e) => (e.status === 404 ? null : Promise.reject(e))), [table.id]);
  const [run, busy, error] = useAction({ status: 'status' });
  const [voiding, setVoiding] = useState(false);
  const b = bill.data;
  const status = (/** @type {string|null} */ s) =>
    run(async () => {
      await patch(`/floorplan/tables/${table.id}/status`, { status: s });
      onChanged();
      onClose();
    });
  return html`<${Dialog} title=${`Tafel ${table.name}`} onClose=${onClose} id="table-dialog">
    <p><${Pill} kind=${table.status}>${LABEL[table.status]}</${Pill}> ${table.manual ? html`<span class="muted">(handmatig)</span>` : null} · ${table.seats} plaatsen
      ${table.reservation ? html`<br /><span class="muted">Reservering ${time(table.reservation.time)}: ${table.reservation.name}, ${table.reservation.party_size} pers.</span>` : null}</p>
    <${Loading} when=${bill.loading && !b} error=${bill.error}>
      ${b
        ? html`<div id="table-bill" class="tile">
            <h3>Rekening</h3>
            <ul class="plain">${b.orders.map((o) => html`<li><strong>${o.number}</strong> ${o.items.map((i, n) => html`${n ? ', ' : ''}<${VoidedLine} item=${i} />`)} <span class="muted">${euro(o.total_cents)}</span></li>`)}</ul>
            <p>Totaal <strong>${euro(b.total_cents)}</strong> · betaald ${euro(b.paid_cents)} · open <strong id="bill-open">${euro(b.open_cents)}</strong></p>
            ${b.conflict ? html`<p class="error">${b.conflict}</p>` : null}
            <div class="screen-actions">
              <button type="button" class="primary" id="table-pay" onClick=${() => go(`/rekening?id=${b.id}`)}>${b.open_cents > 0 ? 'Afrekenen' : 'Rekening bekijken'}</button>
              <button type="button" disabled=${busy} onClick=${async () => {
                if (b.open_cents > 0 && !(await confirmDialog({ title: 'Rekening sluiten?', message: `Er staat nog ${euro(b.open_cents)} open. Sluit de rekening alleen als dat klopt.`, confirmLabel: 'Toch sluiten' }))) return;
                await run(async () => { await post(`/floorplan/bills/${b.id}/close`); onChanged(); onClose(); });
              }}>Rekening sluiten</button>
              <button type="button" id="table-void" disabled=${busy} onClick=${() => setVoiding(true)}>Regels annuleren</button>
            </div>
          </div>`
        : html`<p class="muted">Geen open rekening.</p>`}
    </${Loading}>
    <${ErrorText} text=${error} />
    <div class="screen-actions" style="margin-top:.8rem">
      <button type="button" class=${b ? '' : 'primary'} id="table-new-round" onClick=${() => go(`/bestellen?tafel=${table.id}&terug=/vloer`)}>${b ? 'Nieuwe ronde' : 'Bestelling opnemen'}</button>
      ${['vrij', 'bezet', 'gereserveerd'].map((s) => html`<button type="button" data-status=${s} disabled=${busy} onClick=${() => status(s)}>Zet op ${LABEL[s].toLowerCase()}</button>`)}
      ${table.manual ? html`<button type="button" data-status="clear" disabled=${busy} onClick=${() => status(null)}>Handmatige status wissen</button>` : null}
    </div>
    ${voiding && b ? html`<${VoidDialog} orders=${b.orders} onClose=${() => setVoiding(false)} onChanged=${() => { void bill.reload(); onChanged(); }} />` : null}
  </${Dialog}>`;
}

export default function Floor() {
  const plan = useAsync(() => get('/floorplan'));
  const [open, setOpen] = useState(/** @type {any} */ (null));
  useLive(['table:status'], (e) =>
    plan.setData((p) => p && { zones: p.zones.map((z) => ({ ...z, tables: z.tables.map((t) => (t.id === e.table_id ? { ...t, status: e.status, manual: e.manual } : t)) })) }),
  );
  useLive(['floorplan:changed', 'order:created', 'order:updated', 'reservation:changed', 'resync'], () => void plan.reload());
  const zones = plan.data?.zones ?? [];
  return html`<${Screen} title="Plattegrond" id="floor">
    <${Loading} when=${plan.loading && !plan.data} error=${plan.error}>
      ${zones.length === 0 ? html`<p class="muted">Nog geen tafels. Een beheerder legt ze aan onder Tafels.</p>` : null}
      ${zones.map((z) => {
        const w = Math.max(320, ...z.tables.map((t) => t.x + 110)) * SCALE;
        const h = Math.max(160, ...z.tables.map((t) => t.y + 90)) * SCALE;
        return html`<section class="zone" data-zone=${z.name}>
          <h2>${z.name}</h2>
          <div class="floor-canvas" style=${`aspect-ratio: ${w} / ${h}`}>
            ${z.tables.map((t) => html`<button type="button" class=${`floor-table shape-${t.shape} st-${t.status}`} data-table=${t.name} data-status=${t.status}
                style=${`left:${(t.x / w) * 100}%; top:${(t.y / h) * 100}%`} onClick=${() => setOpen(t)}>
              <strong><span class="sr-only">Tafel </span>${t.name}</strong><span>${LABEL[t.status]}</span>${t.bill ? html`<span class="amount">${euro(t.bill.open_cents)}</span>` : null}
            </button>`)}
          </div>
        </section>`;
      })}
    </${Loading}>
    ${open ? html`<${TableDialog} table=${zones.flatMap((z) => z.tables).find((t) => t.id === open.id) ?? open} onClose=${() => setOpen(null)} onChanged=${() => void plan.reload()} />` : null}
  </${Screen}>`;
}
