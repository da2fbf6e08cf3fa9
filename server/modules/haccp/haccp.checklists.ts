import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { businessDay } from '../../shared/zoned-time.js';
import { runDto, type RunRow } from './haccp.chain.js';
import { append, checklistChange, toChecklistDto, type HaccpActor, type HaccpDeps } from './haccp.context.js';
import { haccpRepository as repo, type ChecklistRow } from './haccp.repository.js';
import type { Checklist, ChecklistRun, CreateChecklistInput, RunChecklistInput, UpdateChecklistInput } from './haccp.schemas.js';

/**
 * Checklists (CONTRACT §9, docs/haccp.md): daily or weekly lists with a deadline, and their runs
 * (who did what, what is missing). Part of the food-safety service (haccp.service.ts).
 */

const checklistNotFound = () => notFound('Controlelijst');

export function createHaccpChecklists(ctx: HaccpDeps) {
  const { db, changes, tenants } = ctx;
  return {
    // ---- checklists ----------------------------------------------------------------------------
    async listChecklists(tenantId: string, includeArchived = false): Promise<Checklist[]> {
      return (await repo.listChecklists(db, tenantId, includeArchived)).map(toChecklistDto);
    },

    async getChecklist(tenantId: string, id: string): Promise<Checklist> {
      const row = await repo.findChecklist(db, tenantId, id);
      if (!row || row.archived_at) throw checklistNotFound();
      return toChecklistDto(row);
    },

    async createChecklist(tenantId: string, input: CreateChecklistInput): Promise<Checklist> {
      return changes.write(tenantId, async (w) => {
        const row: ChecklistRow = {
          id: newId(),
          tenant_id: tenantId,
          name: input.name,
          frequency: input.frequency,
          deadline: input.deadline ?? '23:59',
          weekday: input.frequency === 'weekly' ? (input.weekday ?? 'mon') : null,
          items: JSON.stringify(input.items.map((i) => ({ id: newId(), label: i.label }))),
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await repo.insertChecklist(w.trx, row);
        await w.record(checklistChange(row, 'haccp.checklist_created'));
        return toChecklistDto(row);
      });
    },

    async updateChecklist(tenantId: string, id: string, input: UpdateChecklistInput): Promise<Checklist> {
      return changes.write(tenantId, async (w) => {
        const cur = await repo.findChecklist(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw checklistNotFound();
        const fields: Partial<ChecklistRow> = {};
        if (input.name !== undefined) fields.name = input.name;
        if (input.deadline !== undefined) fields.deadline = input.deadline;
        if (input.frequency !== undefined) fields.frequency = input.frequency;
        const frequency = input.frequency ?? cur.frequency;
        if (frequency === 'daily' && input.weekday) throw invalidField('weekday', 'hoort alleen bij een wekelijkse controlelijst.');
        if (input.weekday !== undefined || input.frequency !== undefined) fields.weekday = frequency === 'weekly' ? (input.weekday ?? cur.weekday ?? 'mon') : null;
        if (input.items) {
          const known = new Set((JSON.parse(cur.items) as Array<{ id: string }>).map((i) => i.id));
          const details = input.items.flatMap((item, idx) =>
            item.id !== undefined && !known.has(item.id) ? [{ field: `items.${idx}.id`, error: `'items.${idx}.id' is geen onderdeel van deze controlelijst.` }] : [],
          );
          const ids = input.items.map((i) => i.id).filter(Boolean);
          if (new Set(ids).size !== ids.length) details.push({ field: 'items', error: "'items' bevat een onderdeel twee keer." });
          if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
          fields.items = JSON.stringify(input.items.map((i) => ({ id: i.id ?? newId(), label: i.label })));
        }
        const row: ChecklistRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateChecklist(w.trx, row);
        await w.record(checklistChange(row, 'haccp.checklist_updated', fields));
        return toChecklistDto(row);
      });
    },

    /** Archive: runs refer to checklists, and deletes must sync. */
    async archiveChecklist(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await repo.findChecklist(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw checklistNotFound();
        const row: ChecklistRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateChecklist(w.trx, row);
        await w.record(checklistChange(row, 'haccp.checklist_archived', { archived_at: w.now }));
      });
    },

    /**
     * POST /haccp/checklists/:id/run (CONTRACT §9): `completed_items` are ids of the checklist's items
     * (an unknown id is VALIDATION; a repeated id counts once); the run records who, what was done and
     * what is missing, and whether it was complete.
     */
    async runChecklist(actor: HaccpActor, id: string, input: RunChecklistInput): Promise<ChecklistRun> {
      const { tenantId } = actor;
      const { timezone } = await tenants.cachedSettings(tenantId);
      return changes.write(tenantId, async (w) => {
        const c = await repo.findChecklist(w.trx, tenantId, id);
        if (!c || c.archived_at) throw checklistNotFound();
        const items = JSON.parse(c.items) as Array<{ id: string; label: string }>;
        const onList = new Set(items.map((i) => i.id));
        const details = input.completed_items.flatMap((itemId, idx) =>
          onList.has(itemId) ? [] : [{ field: `completed_items.${idx}`, error: `'completed_items.${idx}' is geen onderdeel van controlelijst '${c.name}'.` }],
        );
        if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
        const done = new Set(input.completed_items);
        const completed = items.filter((i) => done.has(i.id)).map((i) => i.id);
        const missing = items.filter((i) => !done.has(i.id)).map((i) => i.id);
        const row = await append<RunRow>(ctx, w, tenantId, 'checklist_run', (link) => ({
          id: newId(),
          tenant_id: tenantId,
          ...link,
          checklist_id: c.id,
          checklist_name: c.name,
          business_day: businessDay(w.nowDate, timezone),
          user_id: actor.userId,
          items: JSON.stringify(items.map((i) => ({ id: i.id, label: i.label, done: done.has(i.id) }))),
          completed_items: JSON.stringify(completed),
          missing_items: JSON.stringify(missing),
          complete: missing.length === 0 ? 1 : 0,
          notes: input.notes ?? null,
          created_at: w.now,
        }));
        const run = runDto(row);
        await w.record({ entity: 'haccp_checklist_run', entityId: row.id, kind: 'haccp.checklist_run', payload: { run } });
        return run;
      });
    },
  };
}
