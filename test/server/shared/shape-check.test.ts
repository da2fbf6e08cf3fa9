import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Order } from '../../../server/modules/orders/orders.schemas.js';
import { listOf, pageOf } from '../../../server/shared/schemas.js';
import { exactShapeCheck } from '../../../server/shared/shape-check.js';

/** What the check must agree with: zod parses it, and the parse gives the same JSON back. */
const zodExact = (schema: z.ZodType, v: unknown) => {
  const r = schema.safeParse(v);
  return !r.error && JSON.stringify(r.data) === JSON.stringify(v);
};

const order = () => ({
  id: 'o1',
  number: 'K-001',
  status: 'new',
  source: 'pos',
  table_id: null,
  customer: { name: 'Jansen', phone: null },
  notes: null,
  items: [
    {
      id: 'i1', product_id: 'p1', name: 'Friet', quantity: 2, unit_price_cents: 395, total_cents: 790, notes: null,
      modifiers: [{ option_id: 'x', group_id: 'g', group_name: 'Saus', name: 'Mayo', price_delta_cents: 50, quantity: 1 }],
      seat: null, course: 1, allergens: ['eggs'], voided_quantity: 0, held: false, fired_at: '2026-11-28T12:00:00.000Z', vat_rate: 9,
    },
  ],
  discounts: [],
  discount_cents: 0,
  total_cents: 790,
  vat: [{ rate: 9, gross_cents: 790, vat_cents: 65, net_cents: 725 }],
  payment_status: 'open',
  created_at: '2026-11-28T12:00:00.000Z',
  updated_at: '2026-11-28T12:00:00.000Z',
});

describe('the plain check of server-built answers (server/shared/shape-check.ts)', () => {
  it('gives the verdict zod gives for an order, its list and its page, also for each way an answer can be wrong', () => {
    const check = exactShapeCheck(Order)!;
    const list = exactShapeCheck(listOf(Order))!;
    const page = exactShapeCheck(pageOf(Order))!;
    expect([exactShapeCheck(Order), exactShapeCheck(listOf(Order)), exactShapeCheck(pageOf(Order))]).not.toContain(null);
    const variants: Array<[string, (o: ReturnType<typeof order>) => unknown]> = [
      ['as built', (o) => o],
      ['an extra field', (o) => ({ ...o, secret: 1 })],
      ['a field missing', ({ notes: _n, ...o }) => o],
      ['fields in another order', ({ id, number, ...o }) => ({ number, id, ...o })],
      ['a string that is a number', (o) => ({ ...o, number: 17 })],
      ['a fraction where an integer belongs', (o) => ({ ...o, total_cents: 7.5 })],
      ['NaN', (o) => ({ ...o, total_cents: Number.NaN })],
      ['null where none is allowed', (o) => ({ ...o, status: null })],
      ['a status outside the enum', (o) => ({ ...o, status: 'lost' })],
      ['a nested line with an extra field', (o) => ({ ...o, items: [{ ...o.items[0]!, cost_cents: 90 }] })],
      ['a nested option with a wrong type', (o) => ({ ...o, items: [{ ...o.items[0]!, modifiers: [{ ...o.items[0]!.modifiers[0]!, quantity: '1' }] }] })],
      ['an undefined field', (o) => ({ ...o, notes: undefined })],
      ['an array where an object belongs', (o) => ({ ...o, customer: [] })],
      ['a customer of null', (o) => ({ ...o, customer: null })],
      ['a boolean as a number', (o) => ({ ...o, items: [{ ...o.items[0]!, held: 0 }] })],
    ];
    for (const [name, make] of variants) {
      const v = make(order());
      expect(check(v), name).toBe(zodExact(Order, v));
      expect(list({ data: [v, order()] }), name).toBe(zodExact(listOf(Order), { data: [v, order()] }));
      expect(page({ data: [v], total: 1, limit: 50, offset: 0 }), name).toBe(zodExact(pageOf(Order), { data: [v], total: 1, limit: 50, offset: 0 }));
    }
    expect(check(order())).toBe(true);
    expect(check({ ...order(), secret: 1 })).toBe(false);
  });

  it('takes no schema it cannot judge exactly (defaults, optional keys, checks, transforms): zod decides those', () => {
    expect(exactShapeCheck(z.object({ a: z.string().optional() }))).toBeNull();
    expect(exactShapeCheck(z.object({ a: z.number().default(1) }))).toBeNull();
    expect(exactShapeCheck(z.object({ a: z.string().min(1) }))).toBeNull();
    expect(exactShapeCheck(z.object({ a: z.string() }).strict())).toBeNull();
    expect(exactShapeCheck(z.string().transform((s) => s.length))).toBeNull();
    expect(exactShapeCheck(z.array(z.string()).max(3))).toBeNull();
    expect(exactShapeCheck(z.object({ a: z.number().int(), b: z.enum(['x']).nullable() }))).not.toBeNull();
  });
});
