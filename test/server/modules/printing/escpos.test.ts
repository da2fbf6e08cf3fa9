import { describe, expect, it } from 'vitest';
import { renderLines, renderTest, renderTicket, type RenderedTicket } from '../../../../server/modules/printing/printing.escpos.js';
import { decodeEscPos } from '../../../helpers/escpos.js';

const ticket = (over: Partial<RenderedTicket> = {}): RenderedTicket => ({
  kind: 'ticket',
  herdruk: false,
  stations: ['keuken'],
  destination: 'Tafel 4',
  guest: null,
  number: 'K-017',
  time: '19:45',
  staff: 'Sanne',
  fired_course: null,
  lines: [
    { item_id: 'a', quantity: 2, name: 'Crème brûlée', options: ['Extra slagroom'], notes: null, seat: 2, course: 1, station: 'keuken' },
    { item_id: 'b', quantity: 1, name: 'Paté met uienconfiture', options: [], notes: 'Allergie: noten', seat: null, course: 1, station: 'keuken' },
    { item_id: 'c', quantity: 1, name: 'Entrecôte', options: ['Pepersaus', '2x Friet'], allergens: ['peanuts', 'milk', 'mustard'], notes: 'medium', seat: 3, course: 2, station: 'keuken' },
  ],
  order_notes: null,
  ...over,
});

describe('ESC/POS tickets (CONTRACT §18)', () => {
  it('prints the ticket in code page 858 with Dutch accents, a course header, allergy notes in inverse and a cut at the end', () => {
    const d = decodeEscPos(renderTicket(ticket(), 80));
    expect(d.initialized).toBe(true);
    expect(d.codepages).toContain(19); // ESC t 19: PC858 (Epson)
    expect(d.lines).toContain('KEUKEN');
    expect(d.lines).toContain('Tafel 4');
    expect(d.lines).toContain('Bestelling K-017');
    expect(d.lines).toContain('19:45  Sanne');
    expect(d.lines).toContain('-- Gang 1 --');
    expect(d.lines).toContain('-- Gang 2 --');
    expect(d.lines).toContain('2x Crème brûlée');
    expect(d.lines).toContain('   + Extra slagroom');
    expect(d.lines).toContain('   Stoel 2');
    expect(d.lines).toContain('1x Paté met uienconfiture');
    expect(d.lines).toContain('1x Entrecôte');
    expect(d.lines).toContain('   + 2x Friet');
    // The dish's allergens in Dutch under its options (issue 23); a line without any (or from a job queued before, without the field) has no such line.
    expect(d.lines).toContain("   Bevat: Pinda's, Melk, Mosterd");
    expect(d.lines.filter((l) => l.includes('Bevat:'))).toHaveLength(1);
    expect(d.lines).toContain('   medium');
    expect(d.inverse).toEqual(['! Allergie: noten']);
    expect(d.cuts).toBe(1);
    expect(d.endsWithCut).toBe(true);
  });

  it('keeps lines within 48 columns on 80 mm and 32 on 58 mm', () => {
    const long = ticket({ lines: [{ item_id: 'a', quantity: 1, name: 'Zeer lange naam van een gerecht met veel woorden erin', options: [], notes: null, seat: null, course: 1, station: 'keuken' }] });
    const wide = decodeEscPos(renderTicket(long, 80));
    const narrow = decodeEscPos(renderTicket(long, 58));
    expect(Math.max(...wide.lines.map((l) => l.length))).toBe(48);
    expect(Math.max(...narrow.lines.map((l) => l.length))).toBeLessThanOrEqual(32);
    expect(narrow.lines).toContain('-'.repeat(32));
    expect(narrow.text.replace(/\s+/g, ' ')).toContain('Zeer lange naam van een gerecht met veel woorden erin');
  });

  it('marks a reprint HERDRUK, a void ANNULERING, a fired course GANG n - NU, a web order with the guest', () => {
    expect(decodeEscPos(renderTicket(ticket({ herdruk: true }), 80)).inverse[0]).toBe('HERDRUK');
    const v = decodeEscPos(renderTicket(ticket({ kind: 'void', reason: 'Gast wil niet meer', lines: [{ item_id: 'a', quantity: 1, name: 'Crème brûlée', options: [], notes: null, seat: null, course: 1, station: 'keuken' }] }), 80));
    expect(v.inverse).toContain('ANNULERING');
    expect(v.lines).toContain('-1x Crème brûlée');
    expect(v.lines).toContain('Reden: Gast wil niet meer');
    const f = decodeEscPos(renderTicket(ticket({ fired_course: 2, lines: [ticket().lines[2]!] }), 80));
    expect(f.lines).toContain('>> GANG 2 - NU <<');
    const web = decodeEscPos(renderTicket(ticket({ destination: 'Afhalen', guest: 'Jan Jansen', order_notes: '[Afhalen] Graag extra servetten' }), 58));
    expect(web.lines).toContain('Afhalen - Jan Jansen');
    expect(web.lines).toContain('[Afhalen] Graag extra servetten');
  });

  it('prints € and accents on a test page and on receipt lines', () => {
    const t = decodeEscPos(renderTest({ name: 'Bar', stations: ['bar'], time: '2026-11-27 19:45' }, 58));
    expect(t.text).toContain('Tekens: € é ë ï ö ü è à ç');
    expect(t.endsWithCut).toBe(true);
    const r = decodeEscPos(renderLines(['Café De Zwaan', 'Totaal € 12,50', 'Bedankt en tot ziens!'], 80));
    expect(r.lines).toEqual(['Café De Zwaan', 'Totaal € 12,50', 'Bedankt en tot ziens!']);
    expect(r.codepages).toContain(19);
    expect(r.endsWithCut).toBe(true);
  });
});
