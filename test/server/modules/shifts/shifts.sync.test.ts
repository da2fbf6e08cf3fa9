import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../server/shared/clock.js';
import { shiftsSync } from '../../../../server/modules/shifts/shifts.sync.js';
import { quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from '../../../sync/chunk.js';

/** Shifts across sync (docs/insights.md "Shifts across sync"): a cloud and an appliance sharing one clock. */
async function joined() {
  const clock = new ManualClock('2026-11-20T10:00:00.000Z');
  const nodes = await twoNodes({ clock });
  await nodes.appliance.engine.syncOnce(); // bootstrap: tenant, users
  return { ...nodes, clock };
}

const hoursOf = async (side: { services: Awaited<ReturnType<typeof joined>>['cloud']['services'] }, tenantId: string, userId: string) =>
  (await side.services.shifts.payroll(tenantId, '2026-11-20', '2026-11-20')).lines.find((l) => l.user_id === userId)?.hours_hundredths;

describe('shifts across sync', () => {
  it('a clock-in and clock-out made on the appliance during an outage count once after sync, also when a push answer was lost', async () => {
    const { cloud, tenant, appliance, transport, clock } = await joined();
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    transport.offline = true;
    const shift = await appliance.services.shifts.clockIn(staff);
    clock.advanceMinutes(4 * 60);
    await appliance.services.shifts.clockOut(staff, { break_minutes: 30 });
    expect(await appliance.engine.syncOnce().catch(() => 'offline')).toBe('offline');
    transport.offline = false;
    // The cloud applies the push but the answer is lost: the appliance sends it all again.
    transport.faults.push('lose-response');
    await appliance.engine.pushOnce().catch(() => undefined);
    await quiesce(appliance);

    for (const side of [cloud, appliance]) {
      const rows = await side.handle.db.selectFrom('shifts').selectAll().where('tenant_id', '=', tenant.id).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: shift.id, start_at: '2026-11-20T10:00:00.000Z', end_at: '2026-11-20T14:00:00.000Z', break_minutes: 30 });
      expect(await hoursOf(side, tenant.id, tenant.staffId)).toBe(350); // 3,50 h
    }
    const ops = await cloud.handle.db.selectFrom('sync_ops').select(['status']).where('tenant_id', '=', tenant.id).execute();
    expect(ops.map((o) => o.status)).toEqual(['applied', 'applied']);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('clocked in on the tablet and online during one outage: both shifts kept and flagged, a visible conflict, paid once', async () => {
    const { cloud, tenant, appliance, transport, clock } = await joined();
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    transport.offline = true;
    const onTablet = await appliance.services.shifts.clockIn(staff);
    clock.advanceMinutes(30);
    const online = await cloud.services.shifts.clockIn(staff);
    clock.advanceMinutes(90);
    transport.offline = false;
    await quiesce(appliance);
    // Clocking out closes both open shifts at once.
    clock.advanceMinutes(60);
    const out = await appliance.services.shifts.clockOut(staff);
    expect(out.overlaps).toBe(true);
    await quiesce(appliance);

    for (const side of [cloud, appliance]) {
      const list = await side.services.shifts.list(tenant.id, { from: '2026-11-20', to: '2026-11-20' });
      expect(list.map((s) => [s.id, s.status, s.overlaps]).sort()).toEqual([[onTablet.id, 'closed', true], [online.id, 'closed', true]].sort());
      // 10:00 – 13:00 once (the overlap 10:30 – 13:00 counts once): 3,00 h, not 5,50.
      expect(await hoursOf(side, tenant.id, tenant.staffId)).toBe(300);
    }
    const conflicts = await cloud.handle.db.selectFrom('sync_ops').selectAll().where('tenant_id', '=', tenant.id).where('status', '=', 'conflict').execute();
    expect(conflicts).toHaveLength(1);
    expect(JSON.parse(conflicts[0]!.result).reason).toMatch(/overlapt met een andere dienst/);
    const local = await appliance.handle.db.selectFrom('sync_op_results').selectAll().where('status', '=', 'conflict').execute();
    expect(local).toHaveLength(1);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('clocked out on both sides of an outage: the first clock-out the cloud accepted wins, the other is a conflict', async () => {
    const { cloud, tenant, appliance, transport, clock } = await joined();
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    const shift = await appliance.services.shifts.clockIn(staff);
    await quiesce(appliance);
    transport.offline = true;
    clock.advanceMinutes(120);
    await cloud.services.shifts.clockOut(staff); // 12:00, online
    clock.advanceMinutes(60);
    await appliance.services.shifts.clockOut(staff); // 13:00, on the tablet
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const s = await side.services.shifts.get(tenant.id, shift.id);
      expect([s.end, s.status]).toEqual(['2026-11-20T12:00:00.000Z', 'closed']);
    }
    const conflicts = await cloud.handle.db.selectFrom('sync_ops').selectAll().where('tenant_id', '=', tenant.id).where('status', '=', 'conflict').execute();
    expect(conflicts.map((c) => JSON.parse(c.result).reason)).toEqual(['Deze dienst was al uitgeklokt; de eerste uitklok telt.']);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('corrections made on both sides are all kept; changed fields merge, last writer in cloud order', async () => {
    const { cloud, tenant, appliance, transport, clock } = await joined();
    const admin = { tenantId: tenant.id, userId: tenant.adminId };
    const shift = await cloud.services.shifts.create(admin, { user_id: tenant.staffId, start: '2026-11-20T06:00:00Z', end: '2026-11-20T09:00:00Z' });
    await quiesce(appliance);
    transport.offline = true;
    clock.advanceMinutes(1);
    await appliance.services.shifts.correct(admin, shift.id, { break_minutes: 15, reason: 'Pauze vergeten' });
    clock.advanceMinutes(1);
    await cloud.services.shifts.correct(admin, shift.id, { end: '2026-11-20T09:30:00Z', reason: 'Later klaar' });
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const s = await side.services.shifts.get(tenant.id, shift.id);
      expect(s).toMatchObject({ end: '2026-11-20T09:30:00.000Z', break_minutes: 15, worked_minutes: 195, corrected: true });
      expect(s.corrections.map((c) => c.reason).sort()).toEqual(['Later klaar', 'Pauze vergeten']);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('one push chunk with clock-ins and -outs of one shift, two corrections of one shift, an overlap and a late clock-out ends as applying its ops one by one', async () => {
    const { cloud, tenant, appliance, transport, clock, device } = await joined();
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    const admin = { tenantId: tenant.id, userId: tenant.adminId };
    const bram = (await cloud.services.users.create(tenant.id, { name: 'Bram', role: 'staff', pin: '2345' })).id;
    const entered = await cloud.services.shifts.create(admin, { user_id: tenant.staffId, start: '2026-11-20T06:00:00Z', end: '2026-11-20T09:00:00Z' });
    const tablet = await appliance.services.shifts.clockIn(staff); // 10:00
    await quiesce(appliance);
    transport.offline = true;
    clock.advanceMinutes(30);
    await appliance.services.shifts.clockIn({ tenantId: tenant.id, userId: bram }); // 10:30 on the tablet
    clock.advanceMinutes(15);
    await cloud.services.shifts.clockIn({ tenantId: tenant.id, userId: bram }); // 10:45 online: overlaps
    clock.advanceMinutes(75);
    await cloud.services.shifts.clockOut(staff); // 12:00 online
    await cloud.services.shifts.correct(admin, entered.id, { end: '2026-11-20T09:30:00Z', reason: 'Later klaar' });
    clock.advanceMinutes(60);
    await appliance.services.shifts.clockOut(staff, { break_minutes: 15 }); // 13:00 on the tablet: the second clock-out
    await appliance.services.shifts.correct(admin, entered.id, { break_minutes: 15, reason: 'Pauze vergeten' });
    clock.advanceMinutes(1);
    await appliance.services.shifts.correct(admin, entered.id, { break_minutes: 20, reason: 'Pauze was langer' });
    await appliance.services.shifts.clockOut({ tenantId: tenant.id, userId: bram }); // 13:01
    await appliance.services.shifts.create(admin, { user_id: tenant.staffId, start: '2026-11-19T08:00:00Z', end: '2026-11-19T12:00:00Z', break_minutes: 30 });
    const pending = (await ownOps(appliance, device.id)).filter((o) => o.entity_id !== tablet.id || o.kind !== 'shift.clocked_in'); // that one was pushed before
    expect(pending.map((o) => o.kind)).toEqual(['shift.clocked_in', 'shift.clocked_out', 'shift.corrected', 'shift.corrected', 'shift.clocked_out', 'shift.created']);

    const reference = await opByOp(cloud, tenant.id, device.id, pending, ['shifts', 'shift_corrections']);
    expect(reference.outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['conflict', expect.stringMatching(/overlapt met een andere dienst/)],
      ['conflict', 'Deze dienst was al uitgeklokt; de eerste uitklok telt.'],
      ['applied', null],
      ['applied', null],
      ['applied', null],
      ['applied', null],
    ]);
    const applies = watchBatches(['shift']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, pending);
    expect(applies).toEqual({ batched: pending.length, unbatched: 0 });
    expect(pushed).toEqual(JSON.parse(JSON.stringify(reference.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, ['shifts', 'shift_corrections'])).toEqual(reference.rows);
    const corrected = await cloud.services.shifts.get(tenant.id, entered.id);
    expect([corrected.end, corrected.break_minutes, corrected.corrections.length]).toEqual(['2026-11-20T09:30:00.000Z', 20, 3]);

    transport.offline = false;
    await quiesce(appliance);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a pushed shift of another restaurant’s employee or with impossible times is rejected', async () => {
    const { cloud, tenant } = await joined();
    const other = await cloud.seedTenant();
    const row = (user_id: string, end_at: string | null) => ({
      id: '01a20000-0000-7000-8000-000000000001',
      user_id,
      start_at: '2026-11-20T08:00:00.000Z',
      end_at,
      break_minutes: 0,
      source: 'clock',
      note: null,
      created_by: user_id,
      closed_by: null,
      corrections: 0,
      created_at: '2026-11-20T08:00:00.000Z',
      updated_at: '2026-11-20T08:00:00.000Z',
    });
    // Through the descriptor directly: the same apply the cloud runs for a pushed op.
    const apply = (shift: unknown, extra: Record<string, unknown> = {}) =>
      cloud.changes.write(tenant.id, (w) =>
        shiftsSync[0]!.apply(w.trx, { op_id: 'x', tenant_id: tenant.id, origin: 'dev', entity: 'shift', entity_id: '01a20000-0000-7000-8000-000000000001', kind: 'shift.clocked_in', payload: { shift, ...extra }, created_at: '2026-11-20T08:00:00.000Z' }, { side: 'cloud', mode: 'merge', tenantId: tenant.id, now: '2026-11-20T10:00:00.000Z' }),
      );
    await expect(apply(row(other.staffId, null))).rejects.toThrow(/De medewerker bestaat niet bij dit restaurant/);
    await expect(apply(row(tenant.staffId, '2026-11-20T07:00:00.000Z'))).rejects.toThrow(/Ongeldige tijden/);
    // A correction naming another restaurant's user as its author (its name would show in this restaurant).
    const correction = { id: '01a20000-0000-7000-8000-0000000000c1', shift_id: '01a20000-0000-7000-8000-000000000001', changed_by: other.adminId, reason: null, before: '{}', after: '{}', created_at: '2026-11-20T08:00:00.000Z' };
    await expect(apply(row(tenant.staffId, null), { correction })).rejects.toThrow(/Wie de dienst corrigeerde bestaat niet bij dit restaurant/);
    await expect(apply({ ...row(tenant.staffId, null), created_by: other.staffId })).rejects.toThrow(/bestaat niet bij dit restaurant/);
    await expect(apply({ ...row(tenant.staffId, null), break_minutes: -1 })).rejects.toThrow(/Ongeldige wijziging voor een dienst.*break_minutes/);
    expect(await cloud.handle.db.selectFrom('shifts').selectAll().execute()).toEqual([]);
    expect(await cloud.handle.db.selectFrom('shift_corrections').selectAll().execute()).toEqual([]);
  });
});
