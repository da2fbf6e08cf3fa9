// Tables: zones, tables placed by dragging them on the plan (touch or mouse). A drop saves every
// moved table at once (all-or-nothing PATCH /floorplan/tables/positions).
import { html, useRef, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { ErrorText, Loading, Screen, useAction, useAsync } from '../components/ui.js';

function ZonePlan({ zone, tables, onSaved, run }) {
  const ref = useRef(/** @type {HTMLDivElement|null} */ (null));
  const [pos, setPos] = useState(/** @type {Record<string, {x: number, y: number}>} */ ({}));
  const drag = useRef(/** @type {{ id: string, dx: number, dy: number }|null} */ (null));
  const W = 1000;
  const H = Math.max(400, ...tables.map((t) => t.y + 120));
  const scale = () => (ref.current ? ref.current.clientWidth / W : 1);
  const at = (t) => pos[t.id] ?? { x: t.x, y: t.y };
  const down = (e, t) => {
    e.currentTarget.setPointerCapture(e.pointerId);
    const r = ref.current.getBoundingClientRect();
    const p = at(t);
    drag.current = { id: t.id, dx: (e.clientX - r.left) / scale() - p.x, dy: (e.clientY - r.top) / scale() - p.y };
  };
  const move = (e) => {
    const d = drag.current;
    if (!d) return;
    const r = ref.current.getBoundingClientRect();
    const x = Math.max(0, Math.min(W - 90, Math.round((e.clientX - r.left) / scale() - d.dx)));
    const y = Math.max(0, Math.min(H - 70, Math.round((e.clientY - r.top) / scale() - d.dy)));
    setPos((p) => ({ ...p, [d.id]: { x, y } }));
  };
  const up = () => {
    drag.current = null;
  };
  const dirty = Object.keys(pos).length > 0;
  return html`<section class="zone" data-zone=${zone.name}>
    <h2>${zone.name} ${dirty ? html`<button type="button" class="primary" id=${`save-${zone.id}`} onClick=${() => run(async () => {
      await patch('/floorplan/tables/positions', { tables: Object.entries(pos).map(([id, p]) => ({ id, ...p })) });
      setPos({});
      onSaved();
    })}>Posities opslaan</button>` : null}</h2>
    <div class="floor-canvas editing" ref=${ref} style=${`aspect-ratio: ${W} / ${H}; touch-action: none`} onPointerMove=${move} onPointerUp=${up} onPointerCancel=${up}>
      ${tables.map((t) => {
        const p = at(t);
        return html`<div class=${`floor-table shape-${t.shape} st-vrij`} data-table=${t.name} style=${`left:${(p.x / W) * 100}%; top:${(p.y / H) * 100}%; cursor: grab`} onPointerDown=${(e) => down(e, t)}>
          <strong>${t.name}</strong><span>${t.seats} pl.</span>
          <button type="button" class="link" aria-label=${`Tafel ${t.name} verwijderen`} onPointerDown=${(e) => e.stopPropagation()} onClick=${() => run(async () => { await del(`/floorplan/tables/${t.id}`); onSaved(); })}>✕</button>
        </div>`;
      })}
    </div>
  </section>`;
}

export default function Tables() {
  const plan = useAsync(() => get('/floorplan'));
  const zones = useAsync(() => get('/floorplan/zones'));
  const [run, busy, error] = useAction();
  const reload = () => {
    void plan.reload();
    void zones.reload();
  };
  const zoneList = zones.data?.data ?? [];
  return html`<${Screen} title="Tafels" id="tables-admin">
    <div class="grid">
      <form class="tile inline" onSubmit=${(e) => {
        e.preventDefault();
        const name = String(new FormData(e.currentTarget).get('name'));
        void run(async () => { await post('/floorplan/zones', { name }); reload(); });
      }}><div><label>Nieuwe zone</label><input name="name" required maxlength="40" placeholder="bv. Terras" /></div><button type="submit" class="primary" disabled=${busy}>Toevoegen</button></form>
      ${zoneList.length
        ? html`<form class="tile inline" id="table-form" onSubmit=${(e) => {
            e.preventDefault();
            const f = Object.fromEntries(new FormData(e.currentTarget));
            void run(async () => { await post('/floorplan/tables', { zone_id: f.zone_id, name: f.name, seats: Number(f.seats), x: 20, y: 20, shape: f.shape }); reload(); });
          }}>
            <div><label>Zone</label><select name="zone_id">${zoneList.map((z) => html`<option value=${z.id}>${z.name}</option>`)}</select></div>
            <div><label>Tafel</label><input name="name" required maxlength="40" placeholder="bv. 12" /></div>
            <div><label>Plaatsen</label><input name="seats" type="number" min="1" max="50" value="4" required /></div>
            <div><label>Vorm</label><select name="shape"><option value="square">vierkant</option><option value="rect">rechthoek</option><option value="round">rond</option></select></div>
            <button type="submit" class="primary" disabled=${busy}>Tafel toevoegen</button>
          </form>`
        : null}
    </div>
    <p class="muted">Sleep de tafels naar hun plek en tik op "Posities opslaan". <a href="/api/v1/floorplan/qr-sheet" target="_blank" id="qr-sheet">QR-codes voor de tafels afdrukken</a> (gasten scannen ze om de rekening te betalen).</p>
    <${ErrorText} text=${error} />
    <${Loading} when=${plan.loading && !plan.data} error=${plan.error}>
      ${(plan.data?.zones ?? []).map((z) => html`<${ZonePlan} key=${z.id} zone=${z} tables=${z.tables} run=${run} onSaved=${reload} />`)}
    </${Loading}>
  </${Screen}>`;
}
