import { sql } from 'kysely';
import type { Tx } from '../../db/connection.js';
import type { WasteEntriesTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, parsePayload, pick } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyContext, type BatchState, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { WasteRowSchema } from './waste.schemas.js';

const COLUMNS = [
  'id', 'product_id', 'location_id', 'quantity', 'reason', 'note', 'unit_cost_cents', 'cost_cents', 'photo_file', 'photo_type', 'photo_bytes', 'business_day', 'created_by', 'created_at',
] as const satisfies readonly (keyof WasteEntriesTable)[];

type Looked = 'waste_entries' | 'products' | 'locations' | 'users';
const key = (table: Looked, id: string) => `${table}\u0000${id}`;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A batch's waste entries (ApplyContext.batch: the cloud's push chunk, an appliance's pull page): at
 * first use one statement reads which of the batch's entries are here already and whose its
 * products, locations and staff are (one query per table in a UNION ALL; a push chunk during a long
 * outage often carries a single entry, so one statement, not one per table). The entries
 * themselves are ledger rows no apply reads back: written together at the end (`deferLedger`).
 */
class WasteBatch implements BatchState {
  ready: Promise<void> = Promise.resolve();
  /** table\0id → tenant of the rows found (or queued by this batch). */
  readonly rows = new Map<string, string>();
  /** table\0id asked for at the start: absent from `rows` means not in the database then. */
  readonly asked = new Set<string>();

  constructor(readonly tenantId: string) {}

  async prefetch(trx: Tx, changes: ReadonlyArray<SyncChange>): Promise<void> {
    const want = new Map<Looked, Set<string>>();
    const add = (table: Looked, id: string | undefined) => {
      if (!id) return;
      let set = want.get(table);
      if (!set) want.set(table, (set = new Set()));
      set.add(id);
      this.asked.add(key(table, id));
    };
    for (const c of changes) {
      if (c.entity !== 'waste' || c.tenant_id !== this.tenantId) continue;
      const e = (c.payload as { entry?: Record<string, unknown> } | null)?.entry;
      if (!e || typeof e !== 'object') continue;
      add('waste_entries', str(e.id));
      add('products', str(e.product_id));
      add('locations', str(e.location_id));
      add('users', str(e.created_by));
    }
    const parts = [...want].flatMap(([table, set]) => {
      const ids = [...set];
      const out = [];
      for (let i = 0; i < ids.length; i += 500) out.push(sql`select ${sql.lit(table)} as t, id, tenant_id from ${sql.table(table)} where id in (${sql.join(ids.slice(i, i + 500))})`);
      return out;
    });
    for (let i = 0; i < parts.length; i += 4) {
      const found = await sql<{ t: Looked; id: string; tenant_id: string }>`${sql.join(parts.slice(i, i + 4), sql` union all `)}`.execute(trx);
      for (const r of found.rows) this.rows.set(key(r.t, r.id), r.tenant_id);
    }
  }

  /** `assertTenantRef`, from what the batch read where it can. */
  async assertRef(trx: Tx, table: Looked, id: string | null, what: string): Promise<void> {
    if (id === null || this.rows.get(key(table, id)) === this.tenantId) return;
    await assertTenantRef(trx, table, id, this.tenantId, what);
    this.rows.set(key(table, id), this.tenantId);
  }

  /** The tenant of the waste entry with this id, if there is one (in the database or queued). */
  async entryTenant(trx: Tx, id: string): Promise<string | undefined> {
    const k = key('waste_entries', id);
    if (!this.rows.has(k) && !this.asked.has(k)) {
      const row = await trx.selectFrom('waste_entries').select('tenant_id').where('id', '=', id).executeTakeFirst();
      this.asked.add(k);
      if (row) this.rows.set(k, row.tenant_id);
    }
    return this.rows.get(k);
  }

  async flush(): Promise<void> {}
}

async function wasteBatch(trx: Tx, ctx: ApplyContext, change: SyncChange): Promise<WasteBatch | undefined> {
  const batch = ctx.batch;
  if (!batch || !ctx.deferLedger || change.tenant_id !== ctx.tenantId) return undefined;
  let fresh = false;
  const b = batch.state('waste', () => ((fresh = true), new WasteBatch(ctx.tenantId)));
  if (fresh) b.ready = b.prefetch(trx, batch.changes);
  await b.ready;
  return b;
}

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
    // A ledger (entries only added): an echo the cloud kept as sent changes nothing here.
    echo: 'skip-equal',
    tables: ['waste_entries'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'waste.recorded' && change.kind !== 'waste.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = (change.payload ?? {}) as { entry?: unknown };
      const entry = parsePayload(WasteRowSchema, p.entry, 'een afvalregistratie');
      if (entry.id !== change.entity_id) throw new RejectOp('Ongeldige afvalregistratie.');
      const row = { ...pick<WasteEntriesTable>(entry as Record<string, unknown>, COLUMNS), tenant_id: change.tenant_id } as WasteEntriesTable;
      const b = await wasteBatch(trx, ctx, change);
      if (b) {
        await b.assertRef(trx, 'products', entry.product_id, 'Het product');
        if (entry.location_id) await b.assertRef(trx, 'locations', entry.location_id, 'De locatie');
        await b.assertRef(trx, 'users', entry.created_by, 'De medewerker');
        const existing = await b.entryTenant(trx, row.id);
        if (existing !== undefined && existing !== change.tenant_id) throw new RejectOp('Deze afvalregistratie hoort bij een ander restaurant.');
        if (existing === undefined) {
          ctx.deferLedger!('waste_entries', row as WasteEntriesTable & Record<string, unknown>);
          b.rows.set(key('waste_entries', row.id), change.tenant_id);
        }
        return;
      }
      await assertTenantRef(trx, 'products', entry.product_id, change.tenant_id, 'Het product');
      if (entry.location_id) await assertTenantRef(trx, 'locations', entry.location_id, change.tenant_id, 'De locatie');
      await assertTenantRef(trx, 'users', entry.created_by, change.tenant_id, 'De medewerker');
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
