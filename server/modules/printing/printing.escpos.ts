import { createRequire } from 'node:module';
import type ReceiptPrinterEncoder from '@point-of-sale/receipt-printer-encoder';
import { ALLERGEN_NL } from '../menu/menu.schemas.js';
import { isAllergyNote, type TicketLine } from './printing.rules.js';

/**
 * ESC/POS bytes (CONTRACT §18) from `@point-of-sale/receipt-printer-encoder`: ESC @, code page 858
 * selected with `ESC t 19` (Epson's number for it; 858 is 850 with the € sign), so é, ë, ï, ü and €
 * print as themselves; 48 columns on 80 mm paper, 32 on 58 mm; a full cut (`GS V 0`) at the end.
 */
export const COLUMNS: Record<number, number> = { 58: 32, 80: 48 };

/** A ticket with every name resolved: what render() prints. */
export interface RenderedTicket {
  kind: 'ticket' | 'void' | 'reprint';
  herdruk: boolean;
  stations: string[];
  destination: string;
  guest: string | null;
  number: string;
  time: string;
  staff: string | null;
  fired_course: number | null;
  reason?: string | null;
  lines: TicketLine[];
  order_notes: string | null;
}

let Encoder: typeof ReceiptPrinterEncoder | undefined;

function encoder(widthMm: number) {
  // The encoder (≈ 220 kB with its code pages) is loaded at the first ticket, not when the server starts (issue 29 point 5).
  Encoder ??= createRequire(import.meta.url)('@point-of-sale/receipt-printer-encoder') as typeof ReceiptPrinterEncoder;
  return new Encoder({ language: 'esc-pos', columns: COLUMNS[widthMm] ?? 48, codepageMapping: 'epson', feedBeforeCut: 4, newline: '\n' })
    .initialize()
    .codepage('cp858');
}

/** A kitchen ticket (or a void ticket, or a reprint of either). */
export function renderTicket(t: RenderedTicket, widthMm: number): Uint8Array {
  const e = encoder(widthMm);
  const cols = COLUMNS[widthMm] ?? 48;
  if (t.herdruk) e.align('center').invert(true).bold(true).size(2, 2).line(' HERDRUK ').size(1, 1).bold(false).invert(false).align('left');
  e.bold(true).size(2, 2).line(t.stations.map((s) => s.toUpperCase()).join(' + ') || 'KEUKEN').size(1, 1).bold(false);
  if (t.kind === 'void') e.invert(true).bold(true).line(' ANNULERING ').bold(false).invert(false);
  e.bold(true).size(1, 2).line(t.guest ? `${t.destination} - ${t.guest}` : t.destination).size(1, 1).bold(false);
  e.line(`Bestelling ${t.number}`);
  e.line(`${t.time}${t.staff ? `  ${t.staff}` : ''}`);
  e.line('-'.repeat(cols));
  const courses = [...new Set(t.lines.map((l) => l.course))].sort((a, b) => a - b);
  for (const course of courses) {
    if (t.fired_course !== null) e.bold(true).line(`>> GANG ${course} - NU <<`).bold(false);
    else if (courses.length > 1 || course > 1) e.bold(true).line(`-- Gang ${course} --`).bold(false);
    for (const l of t.lines.filter((x) => x.course === course)) {
      e.bold(true).size(1, 2).line(`${t.kind === 'void' ? '-' : ''}${l.quantity}x ${l.name}`).size(1, 1).bold(false);
      for (const o of l.options) e.line(`   + ${o}`);
      // The dish's allergens (its own, its recipe's and its options' ingredients', as sold): the cook reads them beside an allergy note.
      if (l.allergens?.length) e.line(`   Bevat: ${l.allergens.map((a) => ALLERGEN_NL[a as keyof typeof ALLERGEN_NL] ?? a).join(', ')}`);
      if (l.seat !== null) e.line(`   Stoel ${l.seat}`);
      if (l.notes) {
        if (isAllergyNote(l.notes)) e.invert(true).bold(true).line(` ! ${l.notes} `).bold(false).invert(false);
        else e.line(`   ${l.notes}`);
      }
    }
  }
  if (t.kind === 'void' && t.reason) e.line(`Reden: ${t.reason}`);
  if (t.order_notes) {
    e.line('-'.repeat(cols));
    if (isAllergyNote(t.order_notes)) e.invert(true).bold(true).line(` ! ${t.order_notes} `).bold(false).invert(false);
    else e.line(t.order_notes);
  }
  return e.cut('full').encode();
}

/** A test page: the printer's name, its stations, the characters that must print right. */
export function renderTest(p: { name: string; stations: string[]; time: string }, widthMm: number): Uint8Array {
  return encoder(widthMm)
    .bold(true)
    .size(2, 2)
    .line('TESTBON')
    .size(1, 1)
    .bold(false)
    .line(p.name)
    .line(`Stations: ${p.stations.join(', ') || '(geen)'}`)
    .line(`Breedte: ${widthMm} mm, ${COLUMNS[widthMm] ?? 48} tekens`)
    .line(p.time)
    .line('Tekens: € é ë ï ö ü è à ç')
    .invert(true)
    .line(' Allergie: zo ziet een allergie eruit ')
    .invert(false)
    .cut('full')
    .encode();
}

/** Plain lines (a receipt the till laid out itself): code page 858, a full cut at the end. */
export function renderLines(lines: string[], widthMm: number): Uint8Array {
  const e = encoder(widthMm);
  for (const l of lines) e.line(l);
  return e.cut('full').encode();
}
