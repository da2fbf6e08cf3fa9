import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { seedDemo } from '../../../../server/demo/seed.js';

/** Issue 24's demo: two printers (Keuken, Bar) on ports where nothing listens: offline, their queue visible. */
describe('demo restaurant: printers (server/demo/printing.ts)', () => {
  it('has a kitchen and a bar printer that show offline with tonight’s tickets waiting', { timeout: 180_000 }, async () => {
    vi.stubEnv('DEMO_HISTORY_WEEKS', '1');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTestApp({ config: { printTimeoutMs: 1000 } });
    const demo = await seedDemo(t);
    const { printing } = t.services;
    let printers = await printing.listPrinters(demo.tenant.id);
    expect(printers.map((p) => [p.name, p.stations, p.status])).toEqual([
      ['Bar', ['bar'], 'unknown'],
      ['Keuken', ['keuken'], 'unknown'],
    ]);
    expect(demo.counts.print_jobs).toBeGreaterThan(0);
    await printing.deliverDue();
    printers = await printing.listPrinters(demo.tenant.id);
    for (const p of printers) {
      expect(p.status, p.name).toBe('offline');
      expect(p.last_error, p.name).toMatch(/weigert de verbinding|niet bereikbaar/);
    }
    expect(printers.reduce((n, p) => n + p.queued, 0)).toBe(demo.counts.print_jobs);
    expect(printers.find((p) => p.name === 'Keuken')!.queued).toBeGreaterThan(0);
    // Not due again before the back-off: a second round sends nothing (cheap while the printers are off).
    const before = (await printing.listJobs(demo.tenant.id, {})).map((j) => j.attempts);
    await printing.deliverDue();
    expect((await printing.listJobs(demo.tenant.id, {})).map((j) => j.attempts)).toEqual(before);
  });
});
