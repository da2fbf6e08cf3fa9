import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../server/plugins/scheduler.js';

const silent = { error: () => {} };

describe('scheduler', () => {
  it('runs a registered job on demand, never two runs of one job at once, and logs (not throws) its failure', async () => {
    const errors: unknown[] = [];
    const s = new Scheduler({ error: (obj) => errors.push(obj) });
    let runs = 0;
    let release!: () => void;
    s.register('slow', '0 3 * * *', async () => {
      runs += 1;
      await new Promise<void>((r) => (release = r));
    });
    const a = s.run('slow');
    const b = s.run('slow');
    expect(b).toBe(a);
    release();
    await a;
    expect(runs).toBe(1);
    s.register('fails', '* * * * *', async () => {
      throw new Error('boom');
    });
    await s.run('fails');
    expect(errors).toHaveLength(1);
    await s.close();
  });

  it('refuses a duplicate name and an invalid expression', () => {
    const s = new Scheduler(silent);
    s.register('a', '*/5 * * * *', async () => {});
    expect(() => s.register('a', '*/5 * * * *', async () => {})).toThrow(/twice/);
    expect(() => s.register('b', 'not cron', async () => {})).toThrow(/invalid/);
  });

  it('ticks only after start, and stops ticking on close', async () => {
    const s = new Scheduler(silent);
    let runs = 0;
    s.register('every-second', '* * * * * *', async () => {
      runs += 1;
    });
    await new Promise((r) => setTimeout(r, 1300));
    expect(runs).toBe(0);
    s.start();
    await new Promise((r) => setTimeout(r, 2300));
    expect(runs).toBeGreaterThanOrEqual(1);
    await s.close();
    const after = runs;
    await new Promise((r) => setTimeout(r, 1300));
    expect(runs).toBe(after);
  });
});
