import type { WasteEntriesTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, parsePayload, pick } from '../../../sync/apply-helpers.js';
import { defineBatchStore, preloadTenantRefs, type BatchScope } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type BatchState, type EntityDescriptor } from '../../../sync/types.js';
import { wasteRepository } from './waste.repository.js';
import { WasteRowSchema } from './waste.schemas.js';

const COLUMNS = [
  'id', 'product_id', 'location_id', 'quantity', 'reason', 'note', 'unit_cost_cents', 'cost_cents', 'photo_file', 'photo_type', 'photo_bytes', 'business_day', 'created_by', 'created_at',
] as const satisfies readonly (keyof WasteEntriesTable)[];

type RefTable = 'products' | 'locations' | 'users';
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Where `apply` reads and writes waste entries: at once (no batch), or through the batch's `WasteBatch`. */
interface WasteStore {
  /** `assertTenantRef` of the batch's tenant. */
  assertRef(table: RefTable, id: string | null, what: string): Promise<void>;
  /** The tenant of the waste entry with this id, if there is one (in the database or queued). */
  entryTenant(id: string): Promise<string | undefined>;
  /** A new entry (ledger row, insert-if-absent by id). */
  add(row: WasteEntriesTable): Promise<void>;
}

/**
 * A batch's waste entries (ApplyContext.batch: the cloud's push chunk, an appliance's pull page): at
 * first use one statement reads which of the batch's entries are here already and which of its
 * products, locations and staff are the tenant's (`preloadTenantRefs`, one UNION ALL). The entries
 * themselves are ledger rows no apply reads back: written together at the end (`deferLedger`).
 */
class WasteBatch implements WasteStore, BatchState {
  /** id → tenant of the entries found (or queued by this batch); `asked`: looked up (absent from `entries`: not there). */
  readonly entries = new Map<string, string>();
  readonly asked = new Set<string>();

  constructor(private readonly s: BatchScope) {}

  async prefetch(): Promise<void> {
    const want = { waste_entries: new Set<string>(), products: new Set<string>(), locations: new Set<string>(), users: new Set<string>() };
    const add = (set: Set<string>, id: string | undefined) => void (id && set.add(id));
    for (const c of this.s.changes) {
      if (c.entity !== 'waste' || c.tenant_id !== this.s.tenantId) continue;
      const e = (c.payload as { entry?: Record<string, unknown> } | null)?.entry;
      if (!e || typeof e !== 'object') continue;
      add(want.waste_entries, str(e.id));
      add(want.products, str(e.product_id));
      add(want.locations, str(e.location_id));
      add(want.users, str(e.created_by));
    }
    const { waste_entries, ...refs } = want;
    for (const id of waste_entries) this.asked.add(id);
    const found = await preloadTenantRefs(this.s.trx, this.s.tenantId, this.s.batch, refs, [{ table: 'waste_entries', ids: waste_entries }]);
    for (const r of found) this.entries.set(r.id, r.tenant_id);
  }

  assertRef(table: RefTable, id: string | null, what: string): Promise<void> {
    return assertTenantRef(this.s.trx, table, id, this.s.tenantId, what, this.s.batch);
  }

  async entryTenant(id: string): Promise<string | undefined> {
    if (!this.entries.has(id) && !this.asked.has(id)) {
      const row = await wasteRepository.entryTenant(this.s.trx, id);
      this.asked.add(id);
      if (row) this.entries.set(id, row.tenant_id);
    }
    return this.entries.get(id);
  }

  async add(row: WasteEntriesTable): Promise<void> {
    this.s.ctx.deferLedger!('waste_entries', row as WasteEntriesTable & Record<string, unknown>);
    this.entries.set(row.id, row.tenant_id);
  }

  async flush(): Promise<void> {}
}

const wasteStore = defineBatchStore<WasteStore, WasteBatch>({
  key: 'waste',
  when: (ctx) => ctx.deferLedger !== undefined,
  direct: (trx, _ctx, tenantId) => ({
    assertRef: (table, id, what) => assertTenantRef(trx, table, id, tenantId, what),
    entryTenant: async (id) => (await wasteRepository.entryTenant(trx, id))?.tenant_id,
    add: async (row) => void (await insertIfAbsent(trx, 'waste_entries', row as WasteEntriesTable & Record<string, unknown>)),
  }),
  create: (scope) => new WasteBatch(scope),
  prefetch: (b) => b.prefetch(),
});

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
      const store = await wasteStore.of(trx, ctx, change.tenant_id);
      await store.assertRef('products', entry.product_id, 'Het product');
      if (entry.location_id) await store.assertRef('locations', entry.location_id, 'De locatie');
      await store.assertRef('users', entry.created_by, 'De medewerker');
      const existing = await store.entryTenant(row.id);
      if (existing !== undefined && existing !== change.tenant_id) throw new RejectOp('Deze afvalregistratie hoort bij een ander restaurant.');
      if (existing === undefined) await store.add(row);
    },
    async snapshot(db, tenantId, after, limit) {
      const rows = await wasteRepository.snapshotPage(db, tenantId, after, limit);
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
