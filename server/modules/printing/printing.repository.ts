import type { Executor } from '../../db/connection.js';
import type { PrintersTable, PrintJobsTable } from '../../db/database.js';

export type PrinterRow = PrintersTable;
export type PrintJobRow = PrintJobsTable;

/** The only Kysely of printing. Both tables are local to this node (docs/kitchen.md). */
export const printingRepository = {
  listPrinters: (db: Executor, tenantId: string) =>
    db.selectFrom('printers').selectAll().where('tenant_id', '=', tenantId).where('archived_at', 'is', null).orderBy('name').orderBy('id').execute(),

  findPrinter: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('printers').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).where('archived_at', 'is', null).executeTakeFirst(),

  /** A printer by id, archived ones too (a job made for a printer deleted since). */
  printerById: (db: Executor, id: string) => db.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirst(),

  insertPrinter: (db: Executor, row: PrinterRow) => db.insertInto('printers').values(row).execute(),

  updatePrinter: (db: Executor, tenantId: string, id: string, patch: Partial<PrinterRow>) =>
    db.updateTable('printers').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute(),

  /** Printers that named `id` as their fallback no longer do (it was deleted). */
  clearFallback: (db: Executor, tenantId: string, id: string, now: string) =>
    db.updateTable('printers').set({ fallback_printer_id: null, updated_at: now }).where('tenant_id', '=', tenantId).where('fallback_printer_id', '=', id).execute(),

  /** Jobs waiting per printer (at the fallback once moved). */
  queuedCounts: async (db: Executor, tenantId: string) => {
    const rows = await db
      .selectFrom('print_jobs')
      .select(['printer_id', 'moved_to'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('status', '!=', 'done')
      .groupBy(['printer_id', 'moved_to'])
      .execute();
    const out = new Map<string, number>();
    for (const r of rows) {
      const target = r.moved_to ?? r.printer_id;
      out.set(target, (out.get(target) ?? 0) + Number(r.n));
    }
    return out;
  },

  /** Inserts a job unless one with the same cause exists (unique `dedupe_key`); true when inserted. */
  insertJob: async (db: Executor, row: PrintJobRow): Promise<boolean> => {
    if (row.dedupe_key === null) {
      await db.insertInto('print_jobs').values(row).execute();
      return true;
    }
    const res = await db
      .insertInto('print_jobs')
      .values(row)
      .onConflict((oc) => oc.columns(['tenant_id', 'dedupe_key']).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  findJob: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('print_jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  listJobs: (db: Executor, tenantId: string, f: { status?: string; order_id?: string; printer_id?: string }, limit: number) => {
    let q = db.selectFrom('print_jobs').selectAll().where('tenant_id', '=', tenantId);
    if (f.status) q = q.where('status', '=', f.status as PrintJobRow['status']);
    if (f.order_id) q = q.where('order_id', '=', f.order_id);
    if (f.printer_id) q = q.where((eb) => eb.or([eb('printer_id', '=', f.printer_id!), eb('moved_to', '=', f.printer_id!)]));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  /** Every job not done whose next attempt is due, of every restaurant on this node, oldest first. */
  dueJobs: (db: Executor, now: string, limit: number) =>
    db
      .selectFrom('print_jobs')
      .selectAll()
      .where('status', '!=', 'done')
      .where('next_attempt_at', '<=', now)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute(),

  /** The earliest next attempt of a job not done (the worker's next wake-up). */
  nextDue: async (db: Executor) =>
    (await db.selectFrom('print_jobs').select((eb) => eb.fn.min('next_attempt_at').as('at')).where('status', '!=', 'done').executeTakeFirst())?.at ?? null,

  /** Marks a send in flight; false when the job is done already (never sent again). */
  markSending: async (db: Executor, id: string, now: string): Promise<boolean> => {
    const res = await db.updateTable('print_jobs').set({ sending_at: now, updated_at: now }).where('id', '=', id).where('status', '!=', 'done').executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  },

  markDone: (db: Executor, id: string, now: string) =>
    db.updateTable('print_jobs').set({ status: 'done', done_at: now, sending_at: null, last_error: null, updated_at: now }).where('id', '=', id).where('status', '!=', 'done').execute(),

  updateJob: (db: Executor, id: string, patch: Partial<PrintJobRow>) => db.updateTable('print_jobs').set(patch).where('id', '=', id).where('status', '!=', 'done').execute(),
};
