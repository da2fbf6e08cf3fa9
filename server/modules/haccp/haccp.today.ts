import { toUnitDto, type HaccpDeps } from './haccp.context.js';
import { haccpRepository as repo } from './haccp.repository.js';
import { businessDay } from '../../shared/zoned-time.js';
import { openOn, runCovers, weekStart } from './haccp.rules.js';
import type { Today } from './haccp.schemas.js';

/**
 * Today's food-safety round for a tablet (issue 26, GET /haccp/today): each unit with its norm, the
 * readings recorded and still owed today and the last one; each checklist done for today (daily) or
 * this week (weekly); the margin, so the screen can ask before a reading that would be kritiek.
 * Part of the food-safety service (haccp.service.ts).
 */
export function createHaccpToday(ctx: HaccpDeps) {
  const { db, clock, tenants } = ctx;
  return {
    async today(tenantId: string): Promise<Today> {
      const { timezone, opening_hours, haccp_margin } = await tenants.cachedSettings(tenantId);
      const day = businessDay(clock.now(), timezone);
      const [units, checklists, logs, runs] = await Promise.all([
        repo.listUnits(db, tenantId, false),
        repo.listChecklists(db, tenantId, false),
        repo.logsBetween(db, tenantId, day, day),
        repo.runsBetween(db, tenantId, weekStart(day), day),
      ]);
      const open = openOn(opening_hours, day);
      return {
        date: day,
        open,
        margin: haccp_margin,
        units: units.map((u) => {
          const mine = logs.filter((l) => l.unit_id === u.id).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
          const last = mine[mine.length - 1];
          return {
            ...toUnitDto(u),
            recorded_today: mine.length,
            due_today: open && u.readings_per_day > 0 ? Math.max(0, Number(u.readings_per_day) - mine.length) : 0,
            last: last ? { temperature: Number(last.temperature), status: last.status as 'ok' | 'waarschuwing' | 'kritiek', created_at: last.created_at } : null,
          };
        }),
        checklists: checklists.map((c) => ({
          id: c.id,
          name: c.name,
          frequency: c.frequency as 'daily' | 'weekly',
          deadline: c.deadline,
          done: runs.some((r) => r.checklist_id === c.id && runCovers(c as { frequency: 'daily' | 'weekly' }, r.business_day, day)),
        })),
      };
    },
  };
}
