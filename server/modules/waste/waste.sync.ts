import type { WasteEntriesTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, parsePayload, pick } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { WasteRowSchema } from './waste.schemas.js';

const COLUMNS = [
  'id', 'product_id', 'location_id', 'quantity', 'reason', 'note', 'unit_cost_cents', 'cost_cents', 'photo_file', 'photo_type', 'photo_bytes', 'business_day', 'created_by', 'created_at',
] as const satisfies readonly (keyof WasteEntriesTable)[];

/**
 * Waste entries (docs/insights.md "Waste across sync"): a ledger, a union keyed by id. The entry's
 * stock removal is the stock area's own ledger row, written in the same transaction where the waste
 * was logged, and travels as such; applying a waste entry books nothing again. The photo file stays
 * on the node that took it (its name travels, the bytes do not).
 */
export const wasteSync: EntityDescriptor[] = [
  {
    entity: 'waste',
    merge: 'ledger',
    tables: ['waste_entries'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'waste.recorded' && change.kind !== 'waste.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = (change.payload ?? {}) as { entry?: unknown };
      const entry = parsePayload(WasteRowSchema, p.entry, 'een afvalregistratie');
      if (entry.id !== change.entity_id) throw new RejectOp('Ongeldige afvalregistratie.');
      await assertTenantRef(trx, 'products', entry.product_id, change.tenant_id, 'Het product', ctx.batch);
      if (entry.location_id) await assertTenantRef(trx, 'locations', entry.location_id, change.tenant_id, 'De locatie', ctx.batch);
      await assertTenantRef(trx, 'users', entry.created_by, change.tenant_id, 'De medewerker', ctx.batch);
      const row = { ...pick<WasteEntriesTable>(entry as Record<string, unknown>, COLUMNS), tenant_id: change.tenant_id } as WasteEntriesTable;
      const existing = await trx.selectFrom('waste_entries').select('tenant_id').where('id', '=', row.id).executeTakeFirst();
      if (existing && existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze afvalregistratie hoort bij een ander restaurant.');
      await insertIfAbsent(trx, 'waste_entries', row as WasteEntriesTable & Record<string, unknown>);
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('waste_entries').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({
        entity: 'waste',
        entity_id: r.id,
        kind: 'waste.snapshot',
        payload: { entry: pick<WasteEntriesTable>(r as unknown as Record<string, unknown>, COLUMNS) },
        created_at: r.created_at,
      }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
