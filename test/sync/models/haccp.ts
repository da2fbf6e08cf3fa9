import fc from 'fast-check';
import { expect } from 'vitest';
import { isAppError } from '../../../server/shared/errors.js';
import { derivedId, nameKey } from '../../../server/modules/haccp/haccp.rules.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * Food safety in the sync convergence property (issue 10): temperature logs (some kritiek, opening
 * an incident), corrective actions, checklist runs and unit edits on both sides, through the real
 * services. After the final sync: every record made anywhere is on both sides exactly once, one
 * incident per kritiek log, one unit per name, and both sides verify every chain with the same heads.
 */

const UNITS = [
  { name: 'Koelcel A', unit_type: 'koelcel' as const, target_max: 4, temps: [2, 4, 5.5, 6, 6.5, 11] },
  { name: 'Vriezer B', unit_type: 'vriezer' as const, target_max: -18, temps: [-20, -18, -17, -16, -12] },
];

type Cmd =
  | { t: 'log'; unit: number; temp: number }
  | { t: 'action'; pick: number }
  | { t: 'run'; done: boolean[] }
  | { t: 'editUnit'; unit: number; target: number };

interface State {
  logs: Set<string>;
  actions: Set<string>;
  runs: Set<string>;
  checklistId: string;
  itemIds: string[];
}

const expected = (e: unknown) => isAppError(e) && ['CONFLICT', 'NOT_FOUND', 'VALIDATION'].includes(e.code);

async function chainsOf(h: SideHandle, tenantId: string) {
  return (await h.services.haccp.verify(tenantId)).chains;
}

export const haccpModel = model<Cmd, State>({
  name: 'haccp',
  commands: [
    { weight: 3, arbitrary: fc.record({ t: fc.constant('log' as const), unit: fc.nat(UNITS.length - 1), temp: fc.nat(5) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('action' as const), pick: fc.nat(5) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('run' as const), done: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('editUnit' as const), unit: fc.nat(UNITS.length - 1), target: fc.integer({ min: -20, max: 8 }) }) },
  ],

  async init(world: World): Promise<State> {
    const list = await world.cloud.services.haccp.createChecklist(world.tenantId, {
      name: 'Opening',
      frequency: 'daily',
      deadline: '11:00',
      items: [{ label: 'Koelingen' }, { label: 'Handen' }, { label: 'Werkbanken' }],
    });
    return { logs: new Set(), actions: new Set(), runs: new Set(), checklistId: list.id, itemIds: list.items.map((i) => i.id) };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const h = on.services.haccp;
    const actor = { tenantId: world.tenantId, userId: null };
    switch (cmd.t) {
      case 'log': {
        const u = UNITS[cmd.unit]!;
        const temperature = u.temps[cmd.temp % u.temps.length]!;
        let log;
        try {
          log = await h.logTemperature(actor, { unit_name: u.name, temperature });
        } catch (e) {
          if (!(isAppError(e) && e.code === 'VALIDATION')) throw e;
          // Not registered on this side yet: the first log registers it.
          log = await h.logTemperature(actor, { unit_name: u.name, unit_type: u.unit_type, target_max: u.target_max, temperature });
        }
        state.logs.add(log.id);
        break;
      }
      case 'action': {
        const open = (await h.listIncidents(world.tenantId, { status: 'open', limit: 10, offset: 0 })).data;
        if (open.length === 0) return;
        const { action } = await h.addAction(actor, open[cmd.pick % open.length]!.id, 'Gecontroleerd en opgelost.');
        state.actions.add(action.id);
        break;
      }
      case 'run': {
        const run = await h.runChecklist(actor, state.checklistId, { completed_items: state.itemIds.filter((_, i) => cmd.done[i]) });
        state.runs.add(run.id);
        break;
      }
      case 'editUnit': {
        const id = derivedId(world.tenantId, 'haccp-unit', nameKey(UNITS[cmd.unit]!.name));
        try {
          await h.updateUnit(world.tenantId, id, { target_max: cmd.target });
        } catch (e) {
          if (!expected(e)) throw e;
        }
        break;
      }
    }
  },

  async check(state: State, world: World, sides): Promise<void> {
    for (const side of [sides.cloud, sides.appliance]) {
      const db = side.db;
      const logs = await db.selectFrom('haccp_temperature_logs').select(['id', 'status']).where('tenant_id', '=', world.tenantId).execute();
      for (const id of state.logs) expect(logs.filter((l) => l.id === id), `log ${id} on the ${side.side}`).toHaveLength(1);
      expect(logs).toHaveLength(state.logs.size);
      const incidents = await db.selectFrom('haccp_incidents').select(['id', 'log_id']).where('tenant_id', '=', world.tenantId).execute();
      // One incident per kritiek log, never two.
      const kritiek = logs.filter((l) => l.status === 'kritiek').map((l) => l.id).sort();
      expect(incidents.map((i) => i.log_id).sort()).toEqual(kritiek);
      const actions = await db.selectFrom('haccp_actions').select('id').where('tenant_id', '=', world.tenantId).execute();
      expect(actions.map((a) => a.id).sort()).toEqual([...state.actions].sort());
      const runs = await db.selectFrom('haccp_checklist_runs').select('id').where('tenant_id', '=', world.tenantId).execute();
      expect(runs.map((r) => r.id).sort()).toEqual([...state.runs].sort());
      // One unit per name, whichever side registered it first.
      const units = await db.selectFrom('haccp_units').select(['name_key']).where('tenant_id', '=', world.tenantId).where('archived_at', 'is', null).execute();
      expect(new Set(units.map((u) => u.name_key)).size).toBe(units.length);
      const integrity = await side.services.haccp.verify(world.tenantId);
      expect(integrity.first_bad, `chains on the ${side.side}`).toBeNull();
      expect(integrity.verified).toBe(true);
    }
    expect(await chainsOf(sides.appliance, world.tenantId)).toEqual(await chainsOf(sides.cloud, world.tenantId));
  },
});
