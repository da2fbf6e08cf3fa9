import fc from 'fast-check';
import { expect } from 'vitest';
import { newId } from '../../../server/shared/ids.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * Shifts in the sync convergence property (issue 13, docs/insights.md "Shifts across sync"): staff
 * clocking in and out on the appliance (also while it is offline) and online, admins entering past
 * shifts and correcting them on either side, interleaved with partial syncs, lost answers and crashes.
 *
 * Invariants after the quiet sync (besides identical replicated tables):
 * - every shift a side reported as made exists exactly once on each side (a clock-in made offline
 *   counts once, however often it was pushed);
 * - a shift that was clocked out stays closed (closed once, never reopened); end after start and a
 *   break shorter than the shift, on every shift;
 * - every correction is kept (the union) and each shift's `corrections` equals its kept corrections;
 * - paid time counts overlap once: per employee it never exceeds the union of their shifts' time,
 *   and equals Σ (end − start − break) when their shifts do not overlap.
 */
type Cmd =
  /** The tablet's clock button, pressed by one or both employees: out when this side has them clocked in, else in. */
  | { t: 'clock'; users: number[] }
  | { t: 'enter'; user: number; hoursAgo: number }
  | { t: 'correct'; shift: number; change: 'break' | 'end' };

interface State {
  users: string[];
  admin: string;
  /** Every shift id a side answered with (clock-ins and admin entries). */
  made: Set<string>;
  /** Shifts that a clock-out closed on some side. */
  closed: Set<string>;
  shifts: string[];
}

const HOUR = 3_600_000;

export const shiftsModel = model<Cmd, State>({
  name: 'shifts',
  commands: [
    { weight: 3, arbitrary: fc.record({ t: fc.constant('clock' as const), users: fc.constantFrom([0], [1], [0, 1], [1, 0]) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('enter' as const), user: fc.nat(1), hoursAgo: fc.integer({ min: 3, max: 30 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('correct' as const), shift: fc.nat(7), change: fc.constantFrom('break' as const, 'end' as const) }) },
  ],

  async init(world: World): Promise<State> {
    const { cloud } = world;
    const users: string[] = [];
    for (const [name, job] of [['Kees', 'keuken'], ['Bo', 'bediening']] as const) {
      const u = await cloud.changes.write(world.tenantId, (w) =>
        cloud.services.users.insertInTx(w, { tenant_id: world.tenantId, name, role: 'staff', email: null, password_hash: null, pin_hash: null, hourly_wage_cents: 1500, job }),
      );
      users.push(u.id);
    }
    // The appliance already knows them (as after any sync); the pulled user.created changes adopt the same rows.
    for (const row of await cloud.handle.db.selectFrom('users').selectAll().where('id', 'in', users).execute()) {
      await world.appliance.db.insertInto('users').values(row).execute();
    }
    const admin = (await cloud.handle.db.selectFrom('users').select('id').where('tenant_id', '=', world.tenantId).where('role', '=', 'admin').executeTakeFirstOrThrow()).id;
    // Kees is at work already (clocked in before the run, known on both sides): the first press of
    // his button on either side clocks him out, so closing a shift on both sides of an outage happens often.
    const open = await cloud.services.shifts.clockIn({ tenantId: world.tenantId, userId: users[0]! });
    await world.appliance.db.insertInto('shifts').values(await cloud.handle.db.selectFrom('shifts').selectAll().where('id', '=', open.id).executeTakeFirstOrThrow()).execute();
    return { users, admin, made: new Set([open.id]), closed: new Set(), shifts: [open.id] };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const { shifts } = on.services;
    const now = world.clock.now().getTime();
    switch (cmd.t) {
      case 'clock': {
        for (const u of cmd.users) {
          const userId = state.users[u]!;
          const open = await on.db.selectFrom('shifts').select('id').where('tenant_id', '=', world.tenantId).where('user_id', '=', userId).where('end_at', 'is', null).execute();
          if (open.length === 0) {
            const s = await shifts.clockIn({ tenantId: world.tenantId, userId });
            state.made.add(s.id);
            state.shifts.push(s.id);
          } else {
            await shifts.clockOut({ tenantId: world.tenantId, userId });
            for (const o of open) state.closed.add(o.id);
          }
        }
        break;
      }
      case 'enter': {
        const start = new Date(now - cmd.hoursAgo * HOUR).toISOString();
        const end = new Date(now - cmd.hoursAgo * HOUR + 2 * HOUR).toISOString();
        const s = await shifts.create({ tenantId: world.tenantId, userId: state.admin }, { user_id: state.users[cmd.user]!, start, end, break_minutes: 15 });
        state.made.add(s.id);
        state.shifts.push(s.id);
        break;
      }
      case 'correct': {
        if (state.shifts.length === 0) return;
        const id = state.shifts[cmd.shift % state.shifts.length]!;
        const row = await on.db.selectFrom('shifts').selectAll().where('id', '=', id).executeTakeFirst();
        if (!row) return; // not on this side yet
        const start = Date.parse(row.start_at);
        const input =
          cmd.change === 'break'
            ? { break_minutes: row.break_minutes === 0 ? 1 : 0, reason: `pauze ${newId().slice(-4)}` }
            : { end: new Date(Math.min(now, start + 90 * 60_000)).toISOString(), reason: 'eindtijd' };
        await shifts.correct({ tenantId: world.tenantId, userId: state.admin }, id, input);
        break;
      }
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    for (const side of [sides.cloud, sides.appliance]) {
      const rows = await side.db.selectFrom('shifts').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const ids = rows.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of state.made) expect(ids.filter((x) => x === id)).toHaveLength(1);
      for (const r of rows) {
        if (state.closed.has(r.id)) expect(r.end_at).not.toBeNull();
        if (r.end_at !== null) {
          const duration = Date.parse(r.end_at) - Date.parse(r.start_at);
          expect(duration).toBeGreaterThan(0);
          expect(r.break_minutes * 60_000).toBeLessThan(duration);
        }
        const kept = await side.db.selectFrom('shift_corrections').select('id').where('shift_id', '=', r.id).execute();
        expect(r.corrections).toBe(kept.length);
      }
      // Paid time: overlap counted once.
      const first = rows.reduce((m, r) => (r.start_at < m ? r.start_at : m), '9999');
      if (rows.length === 0) continue;
      const from = first.slice(0, 10);
      const to = new Date(world.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
      const pay = await side.services.shifts.payroll(world.tenantId, from < to ? from : to, to);
      for (const userId of state.users) {
        const closed = rows.filter((r) => r.user_id === userId && r.end_at !== null).sort((a, b) => a.start_at.localeCompare(b.start_at));
        let union = 0;
        let until = -Infinity;
        let overlapping = false;
        let plain = 0;
        for (const r of closed) {
          const s = Date.parse(r.start_at);
          const e = Date.parse(r.end_at!);
          if (s < until) overlapping = true;
          union += Math.max(0, e - Math.max(s, until));
          until = Math.max(until, e);
          plain += e - s - r.break_minutes * 60_000;
        }
        const line = pay.lines.find((l) => l.user_id === userId);
        const paidHundredths = line?.hours_hundredths ?? 0;
        expect(paidHundredths).toBeLessThanOrEqual(Math.round(union / 36_000) + 1);
        if (!overlapping) expect(paidHundredths).toBe(Math.round(plain / 36_000));
      }
    }
  },
});
