import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changeFor,
  checkTender,
  discountAmount,
  divRound,
  linesAfterDiscounts,
  orderFigures,
  receiptNumber,
  spread,
  staffDiscountLimit,
  tender,
  TILL_METHODS,
  unitsShare,
  vatOf,
  vatSummary,
} from '../../../../server/modules/till/till.rules.js';

/** The till's pure rules (CONTRACT §19) against examples computed by hand. */
describe('VAT (BTW)', () => {
  it('vat = gross × rate / (100 + rate), rounded half away from zero', () => {
    expect(vatOf(1000, 9)).toBe(83); // 82.57
    expect(vatOf(1210, 21)).toBe(210); // exactly
    expect(vatOf(109, 9)).toBe(9);
    expect(vatOf(1209, 21)).toBe(210); // 209.83
    expect(vatOf(2604, 9)).toBe(215); // 215.01
    expect(vatOf(500, 0)).toBe(0);
    expect(divRound(5, 2)).toBe(3);
    expect(divRound(-5, 2)).toBe(-3);
    expect(divRound(7, 4)).toBe(2); // 1.75
    expect(divRound(5, 4)).toBe(1); // 1.25
  });

  it('per rate, ascending, on the rate’s total (not line by line)', () => {
    // Two lines of 100 at 9 %: 8.26 each would round to 8 + 8 = 16; on the total of 200: 16.51 → 17.
    expect(vatSummary([{ rate: 9, gross_cents: 100 }, { rate: 21, gross_cents: 1210 }, { rate: 9, gross_cents: 100 }])).toEqual([
      { rate: 9, gross_cents: 200, vat_cents: 17, net_cents: 183 },
      { rate: 21, gross_cents: 1210, vat_cents: 210, net_cents: 1000 },
    ]);
  });

  it('an order discount spread over the lines by amount, the rounding rest on the largest', () => {
    // Biefstuk 24,50 (9 %), 2 × wijn 6,50 (21 %), water 3,50 (9 %); 7 % off the order = 2,87.
    const lines = [
      { id: 'biefstuk', total_cents: 2450, vat_rate: 9 },
      { id: 'wijn', total_cents: 1300, vat_rate: 21 },
      { id: 'water', total_cents: 350, vat_rate: 9 },
    ];
    const off = discountAmount('percent', 7, 4100, 5);
    expect(off).toBe(287);
    // 171.5 → 171, 91.0 → 91, 24.5 → 24: 286, the rest (1) on the biefstuk.
    expect(spread([2450, 1300, 350], 287)).toEqual([172, 91, 24]);
    const f = orderFigures(lines, [{ item_id: null, amount_cents: off }]);
    expect(f).toEqual({
      gross_cents: 4100,
      discount_cents: 287,
      total_cents: 3813,
      vat: [
        { rate: 9, gross_cents: 2278 + 326, vat_cents: 215, net_cents: 2389 },
        { rate: 21, gross_cents: 1209, vat_cents: 210, net_cents: 999 },
      ],
    });
  });

  it('a line discount lowers only that line; an order discount then spreads over what is left', () => {
    const lines = [
      { id: 'a', total_cents: 1000, vat_rate: 9 },
      { id: 'b', total_cents: 1000, vat_rate: 21 },
    ];
    const after = linesAfterDiscounts(lines, [
      { item_id: 'a', amount_cents: 1000 }, // comp on a
      { item_id: null, amount_cents: 100 },
    ]);
    expect(after.map((l) => l.gross_cents)).toEqual([0, 900]);
    expect(spread([1000, 500, 333], 100)).toEqual([55, 27, 18]);
    expect(spread([100, 100], 500)).toEqual([100, 100]); // never more than the lines
  });

  it('property: per rate the gross adds up to the total after discounts, the discount never exceeds the gross, vat + net = gross', () => {
    const line = fc.record({ total_cents: fc.integer({ min: 0, max: 200_000 }), vat_rate: fc.constantFrom(0, 9, 21) });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.array(fc.record({ on: fc.integer({ min: -1, max: 12 }), amount_cents: fc.integer({ min: 0, max: 100_000 }) }), { maxLength: 6 }), (raw, ds) => {
        const lines = raw.map((l, i) => ({ id: `l${i}`, ...l }));
        const discounts = ds.map((d) => ({ item_id: d.on < 0 || d.on >= lines.length ? null : `l${d.on}`, amount_cents: d.amount_cents }));
        const f = orderFigures(lines, discounts);
        const gross = lines.reduce((s, l) => s + l.total_cents, 0);
        expect(f.gross_cents).toBe(gross);
        expect(f.total_cents).toBe(gross - f.discount_cents);
        expect(f.discount_cents).toBeGreaterThanOrEqual(0);
        expect(f.discount_cents).toBeLessThanOrEqual(Math.min(gross, discounts.reduce((s, d) => s + d.amount_cents, 0)));
        expect(f.vat.reduce((s, v) => s + v.gross_cents, 0)).toBe(f.total_cents);
        for (const v of f.vat) expect(v.vat_cents + v.net_cents).toBe(v.gross_cents);
        for (const l of linesAfterDiscounts(lines, discounts)) expect(l.gross_cents).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});

describe('orderFigures without discounts (its one-pass path)', () => {
  it('property: the same figures as the lines after (no) discounts and their VAT summary, negative and zero lines too', () => {
    const line = fc.record({ total_cents: fc.integer({ min: -5_000, max: 200_000 }), vat_rate: fc.constantFrom(0, 9, 21, 6) });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (raw) => {
        const lines = raw.map((l, i) => ({ id: `l${i}`, ...l }));
        const after = linesAfterDiscounts(lines, []);
        const gross = lines.reduce((s, l) => s + l.total_cents, 0);
        const total = after.reduce((s, l) => s + l.gross_cents, 0);
        const f = orderFigures(lines, []);
        expect(f).toStrictEqual({ gross_cents: gross, discount_cents: gross - total, total_cents: total, vat: vatSummary(after.map((l) => ({ rate: l.vat_rate, gross_cents: l.gross_cents }))) });
        // The VAT lines by hand: one per rate present, ascending, VAT on the rate's whole gross.
        const rates = [...new Set(lines.map((l) => l.vat_rate))].sort((x, y) => x - y);
        expect(f.vat).toStrictEqual(
          rates.map((rate) => {
            const g = after.filter((l) => l.vat_rate === rate).reduce((s, l) => s + l.gross_cents, 0);
            return { rate, gross_cents: g, vat_cents: vatOf(g, rate), net_cents: g - vatOf(g, rate) };
          }),
        );
      }),
    );
  });
});

describe('discounts', () => {
  it('each kind, never more than the base', () => {
    expect(discountAmount('percent', 10, 4550, 5)).toBe(455);
    expect(discountAmount('percent', 15, 1005, 5)).toBe(151); // 150.75
    expect(discountAmount('amount', 500, 4550, 5)).toBe(500);
    expect(discountAmount('amount', 9000, 4550, 5)).toBe(4550);
    expect(discountAmount('comp', null, 1250, 5)).toBe(1250);
    expect(discountAmount('points', 100, 4550, 5)).toBe(500);
    expect(discountAmount('points', 100, 300, 5)).toBe(300);
    expect(staffDiscountLimit(4550, 10)).toBe(455);
    expect(staffDiscountLimit(4559, 10)).toBe(455);
  });
});

describe('payments', () => {
  it('change for cash; not enough is null', () => {
    expect(changeFor(5000, 4250, 250)).toBe(500);
    expect(changeFor(4500, 4500, 0)).toBe(0);
    expect(changeFor(4000, 4250, 0)).toBeNull();
  });

  it('units of a line share its gross; all units together come to exactly the gross', () => {
    // 3 × 10,00 with 1,00 off: 29,00 for 3 units: 9,67 + 9,66 + 9,67.
    expect([unitsShare(2900, 3, 0, 1), unitsShare(2900, 3, 1, 1), unitsShare(2900, 3, 2, 1)]).toEqual([967, 966, 967]);
    expect(unitsShare(2900, 3, 0, 3)).toBe(2900);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 10 }), (gross, steps) => {
        const units = steps.reduce((s, x) => s + x, 0);
        let paid = 0;
        let sum = 0;
        for (const q of steps) {
          sum += unitsShare(gross, units, paid, q);
          paid += q;
        }
        expect(sum).toBe(gross);
      }),
    );
  });

  it('tender: amount, tip, received and change against what is open; the same Dutch errors for bills and orders', () => {
    const open = { open_cents: 4250 };
    expect(tender({ method: 'pin', amount_cents: 4250, tip_cents: 250 }, open)).toEqual({ amount: 4250, tip: 250, received: null, change: 0 });
    expect(tender({ method: 'contant', amount_cents: 4250, tip_cents: 250, received_cents: 5000 }, open)).toEqual({ amount: 4250, tip: 250, received: 5000, change: 500 });
    expect(tender({ method: 'contant', amount_cents: 1000 }, open)).toEqual({ amount: 1000, tip: 0, received: null, change: 0 }); // cash without received: exact
    // Items: the amount is what they come to; a given amount must equal it.
    expect(tender({ method: 'creditcard', items: [{}] }, { open_cents: 4250, items_cents: 1890 })).toMatchObject({ amount: 1890 });
    expect(tender({ method: 'cadeaubon', items: [{}], amount_cents: 1890 }, { open_cents: 4250, items_cents: 1890 })).toMatchObject({ amount: 1890 });
    const fails = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        const e = err as { code: string; message: string };
        return `${e.code} ${e.message}`;
      }
      return 'no error';
    };
    expect(fails(() => checkTender({ method: 'pin' }))).toBe("VALIDATION Ongeldige invoer: 'amount_cents' is verplicht (of kies de gerechten in 'items').");
    expect(fails(() => checkTender({ method: 'pin', amount_cents: 0 }))).toBe("VALIDATION Ongeldige invoer: 'amount_cents' moet een geheel aantal centen van 1 tot 10.000.000 zijn.");
    expect(fails(() => checkTender({ method: 'pin', amount_cents: 12.5 }))).toMatch(/'amount_cents' moet een geheel aantal/);
    expect(fails(() => checkTender({ method: 'pin', amount_cents: 100, received_cents: 200 }))).toBe("VALIDATION Ongeldige invoer: 'received_cents' kan alleen bij contante betaling (method 'contant').");
    expect(fails(() => checkTender({ method: 'pin', amount_cents: 100, tip_cents: -1 }))).toBe("VALIDATION Ongeldige invoer: 'tip_cents' moet een geheel aantal centen van 0 tot 1.000.000 zijn.");
    expect(fails(() => tender({ method: 'pin', amount_cents: 4251 }, open))).toBe('CONFLICT Het bedrag (€ 42,51) is hoger dan wat nog openstaat (€ 42,50).');
    expect(fails(() => tender({ method: 'contant', amount_cents: 4000, tip_cents: 240, received_cents: 4200 }, open))).toBe("VALIDATION Ongeldige invoer: 'received_cents' is minder dan te betalen (€ 42,40).");
    expect(fails(() => tender({ method: 'pin', items: [{}], amount_cents: 1000 }, { open_cents: 4250, items_cents: 1890 }))).toBe(
      "VALIDATION Ongeldige invoer: 'amount_cents' moet gelijk zijn aan wat de gekozen gerechten kosten (€ 18,90), of laat het weg.",
    );
    expect(fails(() => tender({ method: 'pin', items: [{}] }, { open_cents: 4250, items_cents: 0 }))).toBe("VALIDATION Ongeldige invoer: 'items' de gekozen gerechten kosten samen niets; kies andere of geef een bedrag op.");
    // Items over what is open: the same 409 as an amount.
    expect(fails(() => tender({ method: 'pin', items: [{}] }, { open_cents: 1000, items_cents: 1890 }))).toMatch(/^CONFLICT Het bedrag \(€ 18,90\) is hoger/);
  });

  it('property: tender never takes more than is open, and cash handed over is the amount, the tip and the change', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TILL_METHODS),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.option(fc.integer({ min: 0, max: 500_000 }), { nil: undefined }),
        (method, amount, open, tip, received) => {
          const input = { method, amount_cents: amount, tip_cents: tip, ...(method === 'contant' && received !== undefined ? { received_cents: received } : {}) };
          let t: ReturnType<typeof tender>;
          try {
            t = tender(input, { open_cents: open });
          } catch (err) {
            const code = (err as { code: string }).code;
            // Refused only when too much, or cash short.
            expect(amount > open || (input.received_cents !== undefined && input.received_cents < amount + tip)).toBe(true);
            expect(code).toBe(amount > open ? 'CONFLICT' : 'VALIDATION');
            return;
          }
          expect(t.amount).toBe(amount);
          expect(t.amount).toBeLessThanOrEqual(open);
          expect(t.tip).toBe(tip);
          if (t.received === null) expect(t.change).toBe(0);
          else expect(t.received).toBe(t.amount + t.tip + t.change);
          expect(t.change).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  it('receipt numbers', () => {
    expect(receiptNumber('2026', 123)).toBe('2026-000123');
  });
});
