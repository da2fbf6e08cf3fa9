import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { ManualClock } from '../../../../server/shared/clock.js';
import { seedDemo } from '../../../../server/demo/seed.js';

/**
 * The demo board opens on tonight's orders only (issue 24), also when the demo is made just after the
 * business day began (05:00 in Amsterdam = 04:00Z in November). A clean-clone CI run at 04:0x UTC once
 * found tonight's paid web order, placed "20 minutes ago", under Niet afgerond: 20 minutes before
 * 04:05Z is yesterday's business day. Its age is now capped at the day's start.
 */
describe('demo restaurant: the kitchen board at the start of a business day', () => {
  it('made five minutes after the day began: nothing under Niet afgerond, the paid web order on the board', { timeout: 180_000 }, async () => {
    vi.stubEnv('DEMO_HISTORY_WEEKS', '1');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTestApp({ clock: new ManualClock('2026-11-20T04:05:00.000Z') });
    const demo = await seedDemo(t);
    const { orders } = t.services;
    expect(await orders.unfinished(demo.tenant.id)).toEqual([]);
    const live = await orders.live(demo.tenant.id);
    const web = live.filter((o) => o.source === 'web');
    expect(web.map((o) => o.payment_status).sort()).toEqual(['open', 'paid']);
    for (const o of live) expect(Date.parse(o.created_at)).toBeGreaterThanOrEqual(Date.parse('2026-11-20T04:00:00.000Z'));
    // Tonight's staff orders in every stage (and the floor's seated tables) are there too.
    expect(live.filter((o) => o.source === 'pos').length).toBeGreaterThanOrEqual(demo.counts.orders_live!);
  });
});
