import { dateTimeFormat } from '../../shared/zoned-time.js';
import type { Export } from './haccp.schemas.js';

/**
 * The export as a printable Dutch page for the food-safety inspector (GET /haccp/export?format=html,
 * and the source of the PDF). Self-contained: inline styles, no scripts, no outside resources.
 * The gaps and the integrity verdict come first: that is what an inspector asks about first.
 */

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Calendar dates (`YYYY-MM-DD`) are shown as the UTC day they name; instants in the restaurant's zone.
const dateFmt = dateTimeFormat('nl-NL', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
const longDate = dateTimeFormat('nl-NL', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
const day = (d: string) => dateFmt.format(new Date(`${d}T00:00:00Z`));

const STATUS_NL = { ok: 'in orde', waarschuwing: 'waarschuwing', kritiek: 'kritiek' } as const;
const FREQ_NL = { daily: 'dagelijks', weekly: 'wekelijks' } as const;
const WEEKDAY_NL: Record<string, string> = { mon: 'maandag', tue: 'dinsdag', wed: 'woensdag', thu: 'donderdag', fri: 'vrijdag', sat: 'zaterdag', sun: 'zondag' };
const KIND_NL = { temperature: 'Temperatuur', checklist_overdue: 'Controlelijst te laat', readings_missing: 'Metingen ontbreken' } as const;
const deg = (x: number) => `${String(x).replace('.', ',')} °C`;

function table(headers: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `<p class="none">${esc(empty)}</p>`;
  return `<table><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function renderExportHtml(e: Export): string {
  const timeFmt = dateTimeFormat('nl-NL', { timeZone: e.period.timezone, day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  const at = (iso: string) => esc(timeFmt.format(new Date(iso)));
  const source = (origin: string) => (origin === 'cloud' ? 'Cloud (online)' : `Apparaat in het restaurant (${esc(origin.slice(0, 8))}…)`);
  const person = (name: string | null) => esc(name ?? '—');

  const integrity = e.integrity.verified
    ? `<div class="verdict ok"><strong>Alle registraties zijn onveranderd.</strong> Elke keten klopt: geen record is achteraf gewijzigd, verwijderd of tussengevoegd.</div>`
    : `<div class="verdict bad"><strong>Let op: de registraties zijn niet onveranderd.</strong> ${
        e.integrity.first_bad
          ? `De keten van ${source(e.integrity.first_bad.origin)} is verbroken bij record nr. ${e.integrity.first_bad.chain_seq}${
              e.integrity.first_bad.record_id ? ` (${esc(e.integrity.first_bad.record_id)})` : ''
            }: ${esc(e.integrity.first_bad.reason)}`
          : ''
      }</div>`;
  const chains = table(
    ['Bron', 'Records', 'Laatste hash', 'Keten'],
    e.integrity.chains.map((c) => [
      source(c.origin),
      String(c.records),
      `<code>${esc(c.head_hash?.slice(0, 16) ?? '—')}</code>`,
      c.verified ? '<span class="ok">klopt</span>' : `<span class="bad">verbroken (${c.problems} ${c.problems === 1 ? 'probleem' : 'problemen'}), eerst bij nr. ${c.first_bad?.chain_seq ?? '?'}</span>`,
    ]),
    'Nog geen registraties.',
  );

  const missing = table(
    ['Datum', 'Meetpunt', 'Gemeten', 'Vereist'],
    e.missing_readings.map((m) => [esc(day(m.date)), esc(m.unit_name), String(m.recorded), String(m.required)]),
    'Geen ontbrekende metingen: elk meetpunt is elke dag zo vaak gemeten als vereist.',
  );
  const missed = table(
    ['Datum', 'Controlelijst', 'Frequentie', 'Uiterlijk'],
    e.missed_checklists.map((m) => [esc(day(m.date)), esc(m.name), esc(FREQ_NL[m.frequency]), esc(m.deadline)]),
    'Geen overgeslagen controlelijsten.',
  );
  const open = table(
    ['Datum', 'Soort', 'Omschrijving'],
    e.open_incidents.map((i) => [esc(day(i.business_day)), esc(KIND_NL[i.kind]), esc(i.description)]),
    'Geen openstaande incidenten: bij elk incident is een correctieve maatregel vastgelegd.',
  );
  const logs = table(
    ['Tijdstip', 'Meetpunt', 'Temperatuur', 'Norm', 'Status', 'Door', 'Opmerking'],
    e.temperature_logs.map((l) => [
      at(l.created_at),
      esc(l.unit_name),
      `<strong>${esc(deg(l.temperature))}</strong>`,
      esc(`${l.target_min === null ? '' : `≥ ${deg(l.target_min)}, `}≤ ${deg(l.target_max)} (marge ${deg(l.margin)})`),
      `<span class="st ${l.status}">${esc(STATUS_NL[l.status])}</span>`,
      person(l.user_name),
      esc(l.note ?? ''),
    ]),
    'Geen temperatuurregistraties in deze periode.',
  );
  const runs = table(
    ['Tijdstip', 'Controlelijst', 'Afgevinkt', 'Niet gedaan', 'Door', 'Opmerkingen'],
    e.checklist_runs.map((r) => [
      at(r.created_at),
      esc(r.checklist_name),
      `${r.completed_items.length} van ${r.items.length}${r.complete ? ' <span class="ok">volledig</span>' : ''}`,
      esc(r.items.filter((i) => !i.done).map((i) => i.label).join('; ') || '—'),
      person(r.user_name),
      esc(r.notes ?? ''),
    ]),
    'Geen uitgevoerde controlelijsten in deze periode.',
  );
  const incidents = table(
    ['Datum', 'Soort', 'Omschrijving', 'Correctieve maatregelen'],
    e.incidents.map((i) => [
      esc(day(i.business_day)),
      esc(KIND_NL[i.kind]),
      esc(i.description),
      i.actions.length === 0 ? '<span class="bad">nog geen maatregel</span>' : i.actions.map((a) => `${at(a.created_at)}, ${person(a.user_name)}: ${esc(a.note)}`).join('<br>'),
    ]),
    'Geen incidenten in deze periode.',
  );
  const units = table(
    ['Meetpunt', 'Soort', 'Norm', 'Metingen per dag', 'Status'],
    e.units.map((u) => [
      esc(u.name),
      esc(u.unit_type),
      esc(`${u.target_min === null ? '' : `≥ ${deg(u.target_min)}, `}≤ ${deg(u.target_max)}`),
      String(u.readings_per_day),
      u.archived_at ? 'niet meer in gebruik' : 'in gebruik',
    ]),
    'Geen meetpunten geregistreerd.',
  );
  const lists = table(
    ['Controlelijst', 'Frequentie', 'Uiterlijk', 'Onderdelen'],
    e.checklists.map((c) => [
      esc(c.name) + (c.archived_at ? ' (niet meer in gebruik)' : ''),
      esc(FREQ_NL[c.frequency] + (c.frequency === 'weekly' && c.weekday ? `, op ${WEEKDAY_NL[c.weekday]}` : '')),
      esc(c.deadline),
      esc(c.items.map((i) => i.label).join('; ')),
    ]),
    'Geen controlelijsten.',
  );

  const period = `${longDate.format(new Date(`${e.period.from}T00:00:00Z`))} t/m ${longDate.format(new Date(`${e.period.to}T00:00:00Z`))}`;
  return `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>HACCP-registraties ${esc(e.tenant.name)} — ${esc(period)}</title>
<style>
 @page { size: A4; margin: 14mm 12mm; }
 body { font: 10.5pt/1.4 system-ui, "Segoe UI", Arial, sans-serif; color: #1f2328; margin: 1.5rem auto; max-width: 60rem; padding: 0 1rem; }
 h1 { font-size: 1.5rem; margin: 0 0 .2rem; } h2 { font-size: 1.1rem; margin: 1.6rem 0 .4rem; border-bottom: 2px solid #d0d7de; padding-bottom: .15rem; }
 .meta { color: #57606a; margin: 0 0 1rem; }
 table { width: 100%; border-collapse: collapse; margin: .3rem 0; }
 th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid #d8dee4; vertical-align: top; }
 th { background: #f6f8fa; font-weight: 600; }
 thead { display: table-header-group; } tr { break-inside: avoid; page-break-inside: avoid; }
 .verdict { padding: .6rem .8rem; border-radius: 6px; margin: .4rem 0; }
 .verdict.ok { background: #dafbe1; border: 1px solid #4ac26b; } .verdict.bad { background: #ffebe9; border: 1px solid #ff8182; }
 .ok { color: #1a7f37; } .bad { color: #cf222e; font-weight: 600; } .none { color: #57606a; font-style: italic; }
 .st { padding: 0 .35rem; border-radius: 4px; white-space: nowrap; }
 .st.ok { background: #dafbe1; } .st.waarschuwing { background: #fff8c5; color: #7d4e00; } .st.kritiek { background: #ffebe9; color: #cf222e; font-weight: 600; }
 code { font-size: 9pt; } .foot { color: #57606a; font-size: 9pt; margin-top: 2rem; }
 @media print { body { margin: 0; max-width: none; padding: 0; } h2 { break-after: avoid; page-break-after: avoid; } }
</style></head><body>
<h1>HACCP-registraties ${esc(e.tenant.name)}</h1>
<p class="meta">Periode: ${esc(period)} (${e.period.days} ${e.period.days === 1 ? 'dag' : 'dagen'}, tijdzone ${esc(e.period.timezone)}) · opgesteld ${at(e.generated_at)}</p>
<h2>Betrouwbaarheid van de registraties</h2>
${integrity}
${chains}
<h2>Ontbrekende temperatuurmetingen (${e.missing_readings.length})</h2>
${missing}
<h2>Niet uitgevoerde controlelijsten (${e.missed_checklists.length})</h2>
${missed}
<h2>Openstaande incidenten (${e.open_incidents.length})</h2>
${open}
<h2>Temperatuurregistraties (${e.temperature_logs.length})</h2>
${logs}
<h2>Uitgevoerde controlelijsten (${e.checklist_runs.length})</h2>
${runs}
<h2>Incidenten en correctieve maatregelen (${e.incidents.length})</h2>
${incidents}
<h2>Meetpunten</h2>
${units}
<h2>Controlelijsten</h2>
${lists}
<p class="foot">Elke registratie (meting, controlelijst, incident, maatregel) wordt alleen toegevoegd, nooit gewijzigd. Elke registratie bevat
de vingerafdruk (SHA-256) van de vorige registratie van hetzelfde apparaat; wie achteraf iets wijzigt, verwijdert of tussenvoegt,
verbreekt die keten en dat is hierboven te zien. De laatste hash per bron kan met een eerdere export worden vergeleken.</p>
</body></html>`;
}
