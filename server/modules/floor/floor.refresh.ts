import { anySettled, closeSettled, type FloorBills } from './floor.bills.js';
import { tableChange, type FloorContext } from './floor.context.js';
import { floorRepository as repo } from './floor.repository.js';
import { computeStatuses, refresh } from './floor.status.js';

/**
 * What the floor's minute job (floor.jobs.ts) runs, the safety net after sync: closes open bills
 * that payments or cancellations arriving through sync settled, then announces every table whose
 * status changed since it was last announced here. Part of the floor service (floor.service.ts).
 */
export function createFloorRefresh(ctx: FloorContext, bills: Pick<FloorBills, 'repairPaidBills'>) {
  const { db, changes, clock } = ctx;
  /** Whether this process ran repairPaidBills already (refreshStatuses runs it once). */
  let repairDone = false;
  let codesDone = false;

  /**
   * Migration 0019 drew a pay-at-table code for each existing table on this node and left a note per
   * restaurant; here (once) those codes become table changes, so they replicate like a renewal: every
   * node announces its own, and the one the cloud applies last is every node's code. The note is
   * removed in the same transaction, so the codes are announced once (also with several cloud nodes).
   */
  async function announceMigratedCodes(): Promise<void> {
    const notes = await db.selectFrom('meta').select('key').where('key', 'like', 'floor.announce_codes:%').execute();
    for (const { key } of notes) {
      const tenantId = key.slice('floor.announce_codes:'.length);
      await changes.write(tenantId, async (w) => {
        const gone = await w.trx.deleteFrom('meta').where('key', '=', key).executeTakeFirst();
        if (Number(gone.numDeletedRows) !== 1) return;
        for (const t of await repo.listTables(w.trx, tenantId, true)) {
          if (t.public_code) await w.record(tableChange(t, 'table.updated', { public_code: t.public_code }));
        }
      });
    }
  }

  async function refreshTenant(tenantId: string): Promise<void> {
    const tables = await repo.listTables(db, tenantId);
    if (tables.length === 0) return;
    const { statuses, open } = await computeStatuses(ctx, db, tenantId, tables, clock.now());
    const announced = new Map((await repo.announced(db, tenantId)).map((r) => [r.table_id, r.status]));
    const settled = await anySettled(ctx, tenantId, open);
    const changed = tables.some((t) => statuses.get(t.id)!.status !== (announced.get(t.id) ?? 'vrij'));
    if (!settled && !changed) return;
    await changes.write(tenantId, async (w) => {
      await closeSettled(ctx, w, tenantId);
      await refresh(ctx, w, tenantId);
    });
  }

  return {
    /**
     * The floor's minute job (and the safety net after sync): closes open bills that are settled
     * (payments or cancellations that arrived through sync), then announces every table whose
     * status changed since it was last announced here (a booking coming within the hour, a bill
     * closed elsewhere). Writes only for tenants where something changed.
     */
    async refreshStatuses(): Promise<void> {
      // Once per process, on the job's first run after start: the repair of bills this node closed as
      // paid whose orders were left unpaid (repairPaidBills). A failure is thrown (and logged by the
      // scheduler) after the statuses were refreshed, and not tried again until the next start.
      let repairFailed: unknown;
      if (!codesDone) {
        await announceMigratedCodes();
        codesDone = true;
      }
      if (!repairDone) {
        repairDone = true;
        try {
          await bills.repairPaidBills();
        } catch (err) {
          repairFailed = err;
        }
      }
      for (const tenantId of await repo.tenantsWithTables(db)) {
        // A restaurant with an appliance: the appliance announces the floor (the cloud's tablets hear it through sync).
        if (changes.origin === 'cloud' && ctx.hasAppliance && (await ctx.hasAppliance(tenantId))) continue;
        await refreshTenant(tenantId);
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the caught error as it was
      if (repairFailed !== undefined) throw repairFailed;
    },

    refreshTenant,
    announceMigratedCodes,
  };
}
