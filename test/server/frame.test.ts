import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { moduleJobs } from '../../server/modules/index.js';
import { MODULE_LIVE_EVENTS } from '../../server/modules/live-events.js';
import { composeLiveEvents, toSocketEvent } from '../../server/plugins/realtime.js';
import type { ChangeRecord } from '../../server/db/change-log.js';

const root = path.resolve(import.meta.dirname, '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** The relative import specifiers of a file (static imports, `export … from`, dynamic imports), resolved to repo paths. */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const specs = [...src.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specs.filter((s) => s.startsWith('.')).map((s) => path.relative(root, path.resolve(path.dirname(file), s)));
}

describe('the frame every area plugs into (AREAS.md "Shape")', () => {
  it('arrows point down: server/plugins and sync import no module; no module imports server/config.ts', () => {
    const offending: string[] = [];
    for (const dir of ['server/plugins', 'sync']) {
      for (const file of tsFiles(path.join(root, dir))) {
        for (const target of importsOf(file)) if (target.startsWith('server/modules/')) offending.push(`${path.relative(root, file)} → ${target}`);
      }
    }
    for (const file of tsFiles(path.join(root, 'server/modules'))) {
      // The composition root reads the config and hands plain values to the areas.
      if (path.relative(root, file) === 'server/modules/index.ts') continue;
      for (const target of importsOf(file)) if (target === 'server/config.js') offending.push(`${path.relative(root, file)} → ${target}`);
    }
    expect(offending).toEqual([]);
  });

  it('a module reads another module only through its service or a function it exports, never its repository', () => {
    const offending: string[] = [];
    for (const file of tsFiles(path.join(root, 'server/modules'))) {
      const rel = path.relative(root, file);
      const area = rel.split('/')[2];
      for (const target of importsOf(file)) {
        const m = /^server\/modules\/([^/]+)\/[^/]+\.repository\.js$/.exec(target);
        if (m && m[1] !== area) offending.push(`${rel} → ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the areas declare their cron jobs with the names and schedules the server has always run', async () => {
    const local = await createTestApp();
    const cloud = await createTestApp({ env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } });
    const schedule = (t: typeof local) => Object.fromEntries(moduleJobs(t.app, { config: t.config, handle: t.handle, clock: t.clock, changes: t.changes }, t.services).map((j) => [j.name, j.cron]));
    const common = {
      'auth-purge': '41 * * * *',
      'floor.status': '* * * * *',
      'payments-reconcile': '* * * * *',
      'webhooks-deliver': '*/5 * * * * *',
      'webhooks-prune': '17 3 * * *',
      'haccp-overdue': '*/5 * * * *',
    };
    // The appliance sends its print jobs (issue 24); the cloud never prints.
    // The till's safety net after sync (issue 25) runs where the till is: orders paid in full by the union of both sides' payments.
    expect(schedule(local)).toEqual({ ...common, 'loyalty-lease-returns': '*/5 * * * *', 'printing.deliver': '*/2 * * * * *', 'till.settle': '* * * * *' });
    expect(schedule(cloud)).toEqual({ ...common, 'loyalty-lease-renewal': '*/5 * * * *' });
    // And the scheduler plugin registered exactly those (plus the appliance's backup where it has one).
    expect(cloud.app.scheduler.names().sort()).toEqual(Object.keys(schedule(cloud)).sort());
    expect(local.app.scheduler.names().filter((n) => n !== 'backup').sort()).toEqual(Object.keys(schedule(local)).sort());
  });

  it('the areas map their change kinds to socket events; a kind claimed twice is a wiring error', () => {
    expect(Object.keys(MODULE_LIVE_EVENTS).sort()).toEqual(
      [
        'order.created', 'order.status_changed', 'order.paid', 'order.course_fired', 'order.item_voided',
        'table.status_changed', 'zone.created', 'zone.updated', 'zone.archived', 'table.created', 'table.updated', 'table.archived',
        'reservation.created', 'reservation.updated',
        'shift.clocked_in', 'shift.clocked_out', 'shift.created', 'shift.corrected',
        'haccp.incident',
      ].sort(),
    );
    const record = (kind: string, payload: unknown) => ({ seq: 7, kind, entity_id: 'z1', payload }) as unknown as ChangeRecord;
    expect(toSocketEvent(MODULE_LIVE_EVENTS, record('zone.updated', {}))).toEqual({ name: 'floorplan:changed', payload: { seq: 7, kind: 'zone.updated', id: 'z1' } });
    expect(toSocketEvent(MODULE_LIVE_EVENTS, record('user.created', {}))).toBeNull();
    // Only the map's own kinds: not what an object inherits.
    expect(toSocketEvent(MODULE_LIVE_EVENTS, record('toString', {}))).toBeNull();
    expect(() => composeLiveEvents([MODULE_LIVE_EVENTS, { 'order.paid': () => null }])).toThrow(/'order\.paid' mapped by two areas/);
  });
});
