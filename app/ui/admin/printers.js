// Kitchen printers (issue 24, docs/kitchen.md): each printer with its status (online, offline,
// unknown), last error and jobs waiting; a test page; add, change and delete (asked first); the
// latest print jobs with a reprint (printed HERDRUK, kept with who asked). Live: print:failed and
// print:done reload the lists.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { useLive } from '../lib/live.js';
import { toast } from '../lib/store.js';
import { Dialog, ErrorText, Field, FieldError, FormFoot, Loading, Pill, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

const LABELS = { name: 'Naam', host: 'IP-adres of hostnaam', port: 'Poort', width_mm: 'Papierbreedte', stations: 'Stations', receipts: 'Kassabonnen', fallback_printer_id: 'Reserveprinter' };
const STATUS = { online: ['ok', 'online'], offline: ['kritiek', 'offline'], unknown: ['muted', 'onbekend'] };
const KIND = { ticket: 'Bon', void: 'Annulering', receipt: 'Kassabon', reprint: 'Herdruk', test: 'Testbon' };
const JOB_STATUS = { queued: ['waarschuwing', 'in de wachtrij'], done: ['ok', 'geprint'], failed: ['kritiek', 'mislukt'] };

function PrinterDialog({ printer, printers, onClose, onSaved }) {
  const editing = !!printer;
  const p = printer ?? {};
  const form = useForm({
    name: p.name ?? '',
    host: p.host ?? '',
    port: String(p.port ?? 9100),
    width_mm: String(p.width_mm ?? 80),
    stations: (p.stations ?? ['keuken']).join(', '),
    receipts: p.receipts ?? false,
    fallback_printer_id: p.fallback_printer_id ?? '',
  });
  const others = printers.filter((x) => x.id !== p.id);
  return html`<${Dialog} title=${editing ? `${p.name} wijzigen` : 'Nieuwe printer'} onClose=${onClose} id="printer-dialog">
    <form novalidate id="printer-form" onSubmit=${form.submit(async (v) => {
      const port = form.number('port', { min: 1, max: 65535, integer: true });
      const stations = String(v.stations).split(/[,\s]+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
      if (stations.length === 0 && !v.receipts) throw new FieldError('stations', 'is verplicht: noem minstens één station (bv. keuken), of zet kassabonnen aan.');
      const body = { name: v.name.trim(), host: v.host.trim(), port, width_mm: Number(v.width_mm), stations, receipts: !!v.receipts, fallback_printer_id: v.fallback_printer_id || null };
      if (editing) await patch(`/printers/${p.id}`, body);
      else await post('/printers', body);
      toast(`${body.name} ${editing ? 'opgeslagen' : 'toegevoegd'}.`);
      onSaved();
      onClose();
    })}>
      <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="60" placeholder="bv. Keuken" autocomplete="off" />
      <${Field} form=${form} name="host" label=${LABELS.host} required maxlength="253" placeholder="bv. 192.168.1.50" autocomplete="off" hint="Het adres van de printer in het netwerk van het restaurant." />
      <${Field} form=${form} name="port" label=${LABELS.port} inputmode="numeric" required hint="Meestal 9100." />
      <${Field} form=${form} name="width_mm" label=${LABELS.width_mm} as="select" options=${[['80', '80 mm (48 tekens)'], ['58', '58 mm (32 tekens)']]} />
      <${Field} form=${form} name="stations" label=${LABELS.stations} maxlength="200" hint="Gescheiden door komma's, bv. keuken, dessert. Deze printer krijgt alleen de regels van deze stations." />
      <${Field} form=${form} name="receipts" label="Kassabonnen op deze printer" api="receipts" type="checkbox" />
      <${Field} form=${form} name="fallback_printer_id" label=${LABELS.fallback_printer_id} as="select" options=${[['', 'Geen'], ...others.map((x) => [x.id, x.name])]} hint="Na 3 mislukte pogingen gaat de bon naar deze printer." />
      <${FormFoot} form=${form} label=${editing ? 'Opslaan' : 'Toevoegen'} />
    </form>
  </${Dialog}>`;
}

function StatusPill({ p }) {
  const [kind, label] = STATUS[p.status] ?? STATUS.unknown;
  return html`<${Pill} kind=${kind}>${label}</${Pill}>`;
}

export default function Printers() {
  const list = useAsync(() => get('/printers'));
  const [filter, setFilter] = useState('');
  const jobs = useAsync(() => get(`/print-jobs${filter ? `?status=${filter}` : ''}`), [filter]);
  const [editing, setEditing] = useState(/** @type {any} */ (null));
  const [run, busy, error] = useAction(LABELS);
  const reload = () => {
    void list.reload();
    void jobs.reload();
  };
  useLive(['print:failed', 'print:done', 'order:created', 'order:updated'], reload);
  const printers = list.data?.data ?? [];
  const nameOf = (id) => printers.find((p) => p.id === id)?.name ?? 'verwijderde printer';
  return html`<${Screen} title="Printers" id="printers" actions=${html`<button type="button" class="primary" id="new-printer" onClick=${() => setEditing({})}>+ Printer</button>`}>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      ${printers.length === 0 ? html`<p class="muted" id="no-printers">Nog geen printers. Voeg de bonprinters van de keuken en de bar toe: elke printer krijgt de regels van zijn stations.</p>` : null}
      <div class="table-wrap"><table class="list" id="printer-list"><thead><tr><th>Printer</th><th>Stations</th><th>Status</th><th class="num">Wachtrij</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${printers.map((p) => html`<tr data-printer=${p.name}>
          <td><strong>${p.name}</strong><br /><span class="muted">${p.host}:${p.port}, ${p.width_mm} mm${p.fallback_printer_id ? `, reserve: ${nameOf(p.fallback_printer_id)}` : ''}</span></td>
          <td>${p.stations.join(', ') || '–'}${p.receipts ? html` <${Pill} kind="muted">kassabonnen</${Pill}>` : null}</td>
          <td><${StatusPill} p=${p} />${p.last_error ? html`<br /><span class="muted" data-role="last-error">${p.last_error}</span>` : null}</td>
          <td class="num" data-role="queued">${p.queued}</td>
          <td><div class="row-actions">
            <button type="button" data-action="test" disabled=${busy} onClick=${() => run(async () => { await post(`/printers/${p.id}/test`, {}); toast(`Testbon naar ${p.name} gestuurd.`); reload(); })}>Testbon</button>
            <button type="button" data-action="edit" onClick=${() => setEditing(p)}>Wijzigen</button>
            <button type="button" class="danger" data-action="delete" disabled=${busy} onClick=${async () => {
              if (await confirmDialog({ title: `Printer ${p.name} verwijderen?`, message: 'Bonnen die nog wachten gaan na 3 pogingen naar de reserveprinter, als die er is.' })) {
                await run(async () => { await del(`/printers/${p.id}`); toast(`${p.name} verwijderd.`); reload(); });
              }
            }}>Verwijderen</button></div></td></tr>`)}</tbody></table></div>
    </${Loading}>

    <section class="tile" id="print-jobs">
      <div class="panel-head"><h2>Laatste bonnen</h2>
        <div class="field"><label for="job-filter">Toon</label>
        <select id="job-filter" value=${filter} onChange=${(e) => setFilter(e.currentTarget.value)}>
          <option value="">alle</option><option value="queued">in de wachtrij</option><option value="failed">mislukt</option><option value="done">geprint</option>
        </select></div></div>
      <${Loading} when=${jobs.loading && !jobs.data} error=${jobs.error}>
        <div class="table-wrap"><table class="list" id="job-list"><thead><tr><th>Tijd</th><th>Soort</th><th>Printer</th><th>Stations</th><th>Status</th><th class="num">Pogingen</th><th><span class="sr-only">Acties</span></th></tr></thead>
          <tbody>${(jobs.data?.data ?? []).map((j) => {
            const [kind, label] = JOB_STATUS[j.status] ?? JOB_STATUS.queued;
            return html`<tr data-job=${j.id} data-kind=${j.kind}>
              <td>${dateTime(j.created_at)}</td>
              <td>${KIND[j.kind] ?? j.kind}</td>
              <td>${nameOf(j.moved_to ?? j.printer_id)}${j.moved_to ? html`<br /><span class="muted">in plaats van ${nameOf(j.printer_id)}</span>` : null}</td>
              <td>${j.stations.join(', ') || '–'}</td>
              <td><${Pill} kind=${kind}>${label}</${Pill}>${j.last_error && j.status !== 'done' ? html`<br /><span class="muted">${j.last_error}</span>` : null}</td>
              <td class="num">${j.attempts}</td>
              <td>${j.kind === 'test' ? null : html`<button type="button" data-action="reprint" disabled=${busy} onClick=${() => run(async () => { await post(`/print-jobs/${j.id}/reprint`, {}); toast('Herdruk gestuurd.'); reload(); })}>Herdruk</button>`}</td>
            </tr>`;
          })}</tbody></table></div>
        ${(jobs.data?.data ?? []).length === 0 ? html`<p class="muted">Geen bonnen.</p>` : null}
      </${Loading}>
    </section>
    ${editing ? html`<${PrinterDialog} printer=${editing.id ? editing : null} printers=${printers} onClose=${() => setEditing(null)} onSaved=${reload} />` : null}
  </${Screen}>`;
}
