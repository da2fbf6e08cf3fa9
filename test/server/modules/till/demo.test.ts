import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestApp, cookieFrom } from '../../../helpers/app.js';
import { DEMO_ADMIN, seedDemo } from '../../../../server/demo/seed.js';
import { businessDay } from '../../../../server/shared/zoned-time.js';

/**
 * Issue 25, Done-when: "the demo's eight weeks carry methods, discounts and a closed day per
 * evening". Two weeks of history here (DEMO_HISTORY_WEEKS), the same seeders as the full demo.
 */
describe('demo restaurant: the till of the history', () => {
  it('every past evening is closed, payments carry methods (cash with received and change), discounts have reasons, the journal verifies, and each close adds up to its day’s payments', { timeout: 300_000 }, async () => {
    vi.stubEnv('DEMO_HISTORY_WEEKS', '2');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTestApp();
    t.clock.set('2026-11-20T15:00:00.000Z'); // a Friday afternoon: tonight's service is on
    const demo = await seedDemo(t);
    const tenantId = demo.tenant.id;
    const db = t.handle.db;
    const dayOf = (at: string) => businessDay(new Date(at), 'Europe/Amsterdam', '05:00');
    const today = dayOf(t.clock.now().toISOString());
    expect(today).toBe('2026-11-20');

    // What the orders say each business day was paid (the orders of the history are paid the evening they are made).
    const orders = await db.selectFrom('orders').select(['id', 'created_at', 'total_cents', 'payment_status', 'status']).where('tenant_id', '=', tenantId).execute();
    const paidByDay = new Map<string, number>();
    for (const o of orders) if (o.payment_status === 'paid') paidByDay.set(dayOf(o.created_at), (paidByDay.get(dayOf(o.created_at)) ?? 0) + Number(o.total_cents));
    const pastDays = [...paidByDay.keys()].filter((d) => d < today).sort();
    expect(pastDays.length).toBeGreaterThanOrEqual(9); // two weeks, open Wednesday to Sunday

    // A close for every past evening, in order, gapless; none for today.
    const { data: closes, total } = await t.services.journal.closes.list(tenantId, 100, 0);
    const byDay = new Map(closes.map((c) => [c.business_date, c]));
    expect([...byDay.keys()].sort()).toEqual(pastDays);
    expect(total).toBe(pastDays.length);
    expect(closes.map((c) => c.number).sort((a, b) => a - b)).toEqual(pastDays.map((_, i) => i + 1));
    expect(demo.counts.day_closes).toBe(pastDays.length);
    const preview = await t.services.journal.closes.preview(tenantId, today);
    expect(preview.closed).toBe(false);
    expect(preview.entries).toBeGreaterThan(0); // tonight's paid web order and bill payment

    // Each close adds up: its payments are the day's paid orders, by method and in total; counted within a few euros.
    for (const day of pastDays) {
      const c = byDay.get(day)!;
      expect(c.orders.gross_cents).toBe(paidByDay.get(day));
      expect(c.by_method.reduce((s, m) => s + m.amount_cents, 0)).toBe(c.orders.gross_cents);
      expect(c.vat.reduce((s, v) => s + v.gross_cents, 0)).toBe(c.orders.gross_cents);
      expect(c.late.count).toBe(0);
      expect(c.forced).toBe(false);
      expect(Math.abs(c.cash_difference_cents)).toBeLessThanOrEqual(200);
    }
    expect(closes.filter((c) => c.cash_difference_cents === 0).length).toBeGreaterThan(closes.length / 2);
    const methods = new Set(closes.flatMap((c) => c.by_method.map((m) => m.method)));
    expect([...methods].sort()).toEqual(['cadeaubon', 'contant', 'creditcard', 'online', 'pin']);
    expect(closes.reduce((s, c) => s + c.discounts_cents, 0)).toBeGreaterThan(0);

    // Cash payments at the till: received at least amount + tip, the change the rest.
    const cash = await db.selectFrom('order_payments').selectAll().where('tenant_id', '=', tenantId).where('method', '=', 'contant').execute();
    expect(cash.length).toBeGreaterThan(10);
    for (const p of cash) expect(Number(p.received_cents)).toBe(Number(p.amount_cents) + Number(p.tip_cents) + Number(p.change_cents));
    expect(cash.some((p) => Number(p.change_cents) > 0)).toBe(true);

    // Discounts of several kinds, each with its reason.
    const discounts = await db.selectFrom('order_discounts').select(['kind', 'reason', 'amount_cents']).where('tenant_id', '=', tenantId).execute();
    expect(new Set(discounts.map((d) => d.kind))).toEqual(new Set(['percent', 'comp', 'amount', 'points']));
    for (const d of discounts) {
      expect(d.reason.length).toBeGreaterThan(3);
      expect(Number(d.amount_cents)).toBeGreaterThan(0);
    }

    // The journal verifies (GET /journal/verify, as the manager sees it).
    const cookie = cookieFrom(await t.req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: demo.tenant.slug, email: DEMO_ADMIN.email, password: DEMO_ADMIN.password } }));
    const res = await t.req({ method: 'GET', url: '/api/v1/journal/verify', cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ verified: true, first_bad: null });
  });
});
