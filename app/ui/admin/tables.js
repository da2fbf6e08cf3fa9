// Tables: zones, tables placed by dragging them on the plan (touch or mouse). A drop saves every
// moved table at once (all-or-nothing PATCH /floorplan/tables/positions).
import { html, useRef, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { toast } from '../lib/store.js';
import { Dialog, ErrorText, Field, FormFoot, Loading, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

const SHAPES = [['square', 'vierkant'], ['rect', 'rechthoek'], ['round', 'rond']];
const LABELS = { name: 'Naam', seats: 'Plaatsen', zone_id: 'Zone', shape: 'Vorm', reservable: 'Reserveerbaar' };

/** A new table or a change to one: name, seats, zone, shape, and whether guests may book it. */
function TableDialog({ table, zones, onClose, onSaved }) {
  const editing = !!table?.id;
  const t = table ?? {};
  // The pay-at-table code (CONTRACT §11): a new one when a card went missing; the old one then opens nothing.
  const [code, setCode] = useState(t.public_code ?? null);
  const [renew, , renewError] = useAction();
  const form = useForm({ name: t.name ?? '', seats: String(t.seats ?? 4), zone_id: t.zone_id ?? zones[0]?.id ?? '', shape: t.shape ?? 'square', reservable: t.reservable ?? true });
  return html`<${Dialog} title=${editing ? `Tafel ${t.name} wijzigen` : 'Nieuwe tafel'} onClose=${onClose} id="table-edit-dialog">
    <form novalidate id="table-edit" onSubmit=${form.submit(async (v) => {
      const body = { name: v.name.trim(), seats: form.number('seats', { min: 1, max: 50, integer: true }), zone_id: v.zone_id, shape: v.shape, ...(!!v.reservable !== (t.reservable ?? true) || !editing ? { reservable: !!v.reservable } : {}) };
      if (editing) await patch(`/floorplan/tables/${t.id}`, body);
      else await post('/floorplan/tables', { ...body, x: 20, y: 20 });
      toast(editing ? `Tafel ${body.name} opgeslagen.` : `Tafel ${body.name} toegevoegd: sleep hem naar zijn plek.`);
      onSaved();
      onClose();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label="Naam of nummer" api="name" required maxlength="40" autocomplete="off" />
        <${Field} form=${form} name="seats" label=${LABELS.seats} inputmode="numeric" required />
        <${Field} form=${form} name="zone_id" label=${LABELS.zone_id} as="select" options=${zones.map((z) => [z.id, z.name])} />
        <${Field} form=${form} name="shape" label=${LABELS.shape} as="select" options=${SHAPES} />
      </div>
      <${Field} form=${form} name="reservable" label="Gasten mogen deze tafel reserveren" type="checkbox" />
      ${editing && code ? html`<p class="muted" id="table-code">Betaalcode in de QR-code: <code>${code}</code> <button type="button" id="renew-code" onClick=${async () => {
        const ok = await confirmDialog({ title: `Nieuwe betaalcode voor tafel ${t.name}?`, message: 'De oude QR-code van deze tafel opent daarna de rekening niet meer: druk de QR-code van deze tafel opnieuw af.', confirmLabel: 'Nieuwe code', danger: false });
        if (!ok) return;
        await renew(async () => {
          const next = await post(`/floorplan/tables/${t.id}/new-code`, {});
          setCode(next.public_code);
          toast(`Tafel ${t.name} heeft een nieuwe betaalcode: druk de QR-code opnieuw af.`);
          onSaved();
        });
      }}>Nieuwe code</button></p><${ErrorText} text=${renewError} />` : null}
      <${FormFoot} form=${form} label=${editing ? 'Opslaan' : 'Tafel toevoegen'} />
    </form>
  </${Dialog}>`;
}

function ZoneHead({ zone, count, onChanged, run }) {
  const [editing, setEditing] = useState(false);
  const form = useForm({ name: zone.name });
  if (editing) {
    return html`<form novalidate class="inline tile" onSubmit=${form.submit(async (v) => { await patch(`/floorplan/zones/${zone.id}`, { name: v.name.trim() }); setEditing(false); onChanged(); })}>
      <${Field} form=${form} name="name" label=${`Nieuwe naam voor zone ${zone.name}`} required maxlength="40" />
      <${FormFoot} form=${form} label="Opslaan"><button type="button" onClick=${() => setEditing(false)}>Annuleren</button></${FormFoot}>
    </form>`;
  }
  return html`<span class="row-actions" style="display:inline-flex">
    <button type="button" onClick=${() => setEditing(true)}>Naam wijzigen</button>
    <button type="button" class="danger" onClick=${async () => {
      if (await confirmDialog({ title: `Zone ${zone.name} verwijderen?`, message: count ? `Eerst moeten de ${count} tafels eruit (verplaats of verwijder ze).` : 'De zone is leeg.' })) {
        await run(async () => { await del(`/floorplan/zones/${zone.id}`); onChanged(); });
      }
    }}>Zone verwijderen</button>
  </span>`;
}

function ZonePlan({ zone, tables, onSaved, run, onEdit }) {
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
    <h2>${zone.name} <${ZoneHead} zone=${zone} count=${tables.length} onChanged=${onSaved} run=${run} /> ${dirty ? html`<button type="button" class="primary" id=${`save-${zone.id}`} onClick=${() => run(async () => {
      await patch('/floorplan/tables/positions', { tables: Object.entries(pos).map(([id, p]) => ({ id, ...p })) });
      setPos({});
      onSaved();
    })}>Posities opslaan</button>` : null}</h2>
    <div class="floor-canvas editing" ref=${ref} style=${`aspect-ratio: ${W} / ${H}; touch-action: none`} onPointerMove=${move} onPointerUp=${up} onPointerCancel=${up}>
      ${tables.map((t) => {
        const p = at(t);
        return html`<div class=${`floor-table shape-${t.shape} st-vrij`} data-table=${t.name} style=${`left:${(p.x / W) * 100}%; top:${(p.y / H) * 100}%; cursor: grab`} onPointerDown=${(e) => down(e, t)}>
          <strong>${t.name}</strong><span>${t.seats} pl.</span>
          <span class="table-tools">
            <button type="button" class="link" data-action="edit" aria-label=${`Tafel ${t.name} wijzigen`} onPointerDown=${(e) => e.stopPropagation()} onClick=${() => onEdit({ ...t, zone_id: zone.id })}>✎</button>
            <button type="button" class="link" data-action="delete" aria-label=${`Tafel ${t.name} verwijderen`} onPointerDown=${(e) => e.stopPropagation()} onClick=${async () => {
              if (await confirmDialog({ title: `Tafel ${t.name} verwijderen?`, message: 'Reserveringen en rekeningen van deze tafel blijven bewaard.' })) await run(async () => { await del(`/floorplan/tables/${t.id}`); onSaved(); });
            }}>✕</button>
          </span>
        </div>`;
      })}
    </div>
  </section>`;
}

export default function Tables() {
  const plan = useAsync(() => get('/floorplan'));
  const zones = useAsync(() => get('/floorplan/zones'));
  const [run, , error] = useAction(LABELS);
  const [editing, setEditing] = useState(/** @type {any} */ (null));
  const zoneForm = useForm({ name: '' });
  const reload = () => {
    void plan.reload();
    void zones.reload();
  };
  const zoneList = zones.data?.data ?? [];
  return html`<${Screen} title="Tafels" id="tables-admin">
    <div class="grid">
      <form novalidate class="tile inline" id="zone-form" onSubmit=${zoneForm.submit(async (v) => { await post('/floorplan/zones', { name: v.name.trim() }); zoneForm.reset({ name: '' }); reload(); }, 'Zone toegevoegd.')}>
        <${Field} form=${zoneForm} name="name" label="Nieuwe zone" required maxlength="40" placeholder="bv. Terras" autocomplete="off" />
        <${FormFoot} form=${zoneForm} label="Toevoegen" />
      </form>
      ${zoneList.length ? html`<div class="tile"><button type="button" class="primary" id="new-table" onClick=${() => setEditing({})}>+ Tafel</button></div>` : null}
    </div>
    <p class="muted">Sleep de tafels naar hun plek en tik op "Posities opslaan". <a href="/api/v1/floorplan/qr-sheet" target="_blank" id="qr-sheet">QR-codes voor de tafels afdrukken</a> (gasten scannen ze om de rekening te betalen).</p>
    <${ErrorText} text=${error} />
    <${Loading} when=${plan.loading && !plan.data} error=${plan.error}>
      ${(plan.data?.zones ?? []).map((z) => html`<${ZonePlan} key=${z.id} zone=${z} tables=${z.tables} run=${run} onSaved=${reload} onEdit=${setEditing} />`)}
    </${Loading}>
    ${editing ? html`<${TableDialog} table=${editing} zones=${zoneList} onClose=${() => setEditing(null)} onSaved=${reload} />` : null}
  </${Screen}>`;
}
