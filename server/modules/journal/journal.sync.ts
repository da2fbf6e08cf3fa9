import { z } from 'zod';
import type { DayClosesTable, JournalEntriesTable } from '../../db/database.js';
import { insertIfAbsent, insertManyIfAbsent, parsePayload, pushedPayload } from '../../../sync/apply-helpers.js';
import { chunks, defineBatchStore, type BatchScope } from '../../../sync/batch-store.js';
import type { Tx } from '../../db/connection.js';
import { RejectOp, snapshotNext, type BatchState, type EntityDescriptor } from '../../../sync/types.js';
import { entryDto } from './journal.chain.js';
import { journalRepository as repo, type CloseRow } from './journal.repository.js';
import { JournalRowSchema } from './journal.schemas.js';
import { JOURNAL_ENTITY } from './journal.service.js';

/**
 * How the journal and the day closes sync (docs/till.md "Sync"):
 *
 * - Journal entries are ledger rows: inserted as written (every column, with origin, chain position
 *   and hashes), never updated, a union keyed by id; so each side ends with every origin's whole
 *   chain and verifies it alike. A node adds only to its own chain, and a chain position is never
 *   taken twice.
 * - Day closes are made where the till is (the appliance, or the cloud for a restaurant without one)
 *   and are immutable: a union keyed by id. A close whose number or business day another close of the
 *   restaurant already holds is refused (recorded, visible in the sync status), never merged.
 */

const Hash = z.string().regex(/^[0-9a-f]{64}$/);
export const DayCloseRowSchema = z
  .object({
    id: z.uuid(),
    number: z.number().int().min(1),
    business_date: z.iso.date(),
    origin: z.string().min(1).max(100),
    closed_at: z.iso.datetime({ offset: true }),
    closed_by: z.string().max(200).nullable(),
    forced: z.boolean(),
    cash_counted_cents: z.number().int(),
    report: z.record(z.string(), z.unknown()),
    covered: z.record(z.string(), z.number().int().min(0)),
    previous_hash: Hash,
    hash: Hash,
    created_at: z.iso.datetime({ offset: true }),
  })
  .loose();
export type DayCloseWire = z.infer<typeof DayCloseRowSchema>;

export const closeWire = (r: CloseRow): DayCloseWire => ({
  id: r.id,
  number: Number(r.number),
  business_date: r.business_date,
  origin: r.origin,
  closed_at: r.closed_at,
  closed_by: r.closed_by,
  forced: Number(r.forced) === 1,
  cash_counted_cents: Number(r.cash_counted_cents),
  report: JSON.parse(r.report) as Record<string, unknown>,
  covered: JSON.parse(r.covered) as Record<string, number>,
  previous_hash: r.previous_hash,
  hash: r.hash,
  created_at: r.created_at,
});
export const DAY_CLOSE_ENTITY = 'day_close';

/** Where the journal's `apply` reads and writes: at once (no batch), or through the batch's `JournalBatch`. */
interface JournalStore {
  /** The restaurant of the entry with this id (any restaurant's), if there is one. */
  entryTenant(id: string): Promise<string | undefined>;
  /** `journalRepository.positionTaken`, with the batch's pending entries. */
  positionTaken(origin: string, chainSeq: number, id: string): Promise<boolean>;
  /** A new entry (its id and chain position checked free). */
  insert(row: JournalEntriesTable): Promise<void>;
}

const directJournal = (trx: Tx, tenantId: string): JournalStore => ({
  entryTenant: async (id) => (await repo.entryTenant(trx, id))?.tenant_id,
  positionTaken: (origin, chainSeq, id) => repo.positionTaken(trx, tenantId, origin, chainSeq, id),
  insert: async (row) => void (await insertIfAbsent(trx, 'journal_entries', row as JournalEntriesTable & Record<string, unknown>)),
});

const at = (origin: string, chainSeq: number) => `${origin}\u0000${chainSeq}`;

/**
 * A batch's journal entries (ApplyContext.batch: the cloud's push chunk, an appliance's pull or
 * snapshot page; issue 29): at first use it reads, in a few statements, the entries with the batch's
 * ids (any restaurant's) and the tenant's entries at the batch's chain positions (per origin, the
 * span from its lowest to its highest position, when that span is not much wider than the batch's
 * entries); the entries it accepts are kept (a later entry of the batch sees them) and inserted
 * together, in multi-row statements, before the batch commits. Without it every entry cost three
 * statements (a week's snapshot: ≈ 8,000 entries).
 */
class JournalBatch implements JournalStore, BatchState {
  /** id → restaurant, of entries found at the start or pending. */
  private readonly tenants = new Map<string, string>();
  /** Ids asked for at the start: absent from `tenants` means not in the database then. */
  private readonly asked = new Set<string>();
  /** origin\0position → id, of this tenant's entries found or pending. */
  private readonly positions = new Map<string, string>();
  /** Per origin, the span of positions read at the start. */
  private readonly spans = new Map<string, [number, number]>();
  private pending: JournalEntriesTable[] = [];

  constructor(
    private readonly trx: Tx,
    private readonly tenantId: string,
  ) {}

  async prefetch(changes: BatchScope['changes']): Promise<void> {
    const ids = new Set<string>();
    const spans = new Map<string, { from: number; to: number; n: number }>();
    for (const c of changes) {
      if (c.entity !== JOURNAL_ENTITY || c.tenant_id !== this.tenantId) continue;
      const e = (c.payload as { entry?: { id?: unknown; origin?: unknown; chain_seq?: unknown } } | null)?.entry;
      if (!e || typeof e !== 'object') continue;
      if (typeof e.id === 'string') ids.add(e.id);
      if (typeof e.origin === 'string' && typeof e.chain_seq === 'number' && Number.isSafeInteger(e.chain_seq)) {
        const s = spans.get(e.origin);
        if (s) Object.assign(s, { from: Math.min(s.from, e.chain_seq), to: Math.max(s.to, e.chain_seq), n: s.n + 1 });
        else spans.set(e.origin, { from: e.chain_seq, to: e.chain_seq, n: 1 });
      }
    }
    for (const part of chunks(ids)) {
      for (const id of part) this.asked.add(id);
      for (const r of await this.trx.selectFrom('journal_entries').select(['id', 'tenant_id']).where('id', 'in', part).execute()) this.tenants.set(r.id, r.tenant_id);
    }
    for (const [origin, s] of spans) {
      // A span much wider than the batch's entries (positions far apart) is looked up per entry instead.
      if (s.to - s.from + 1 > Math.max(2 * s.n, 100)) continue;
      const rows = await this.trx
        .selectFrom('journal_entries')
        .select(['id', 'chain_seq'])
        .where('tenant_id', '=', this.tenantId)
        .where('origin', '=', origin)
        .where('chain_seq', '>=', s.from)
        .where('chain_seq', '<=', s.to)
        .execute();
      for (const r of rows) this.positions.set(at(origin, Number(r.chain_seq)), r.id);
      this.spans.set(origin, [s.from, s.to]);
    }
  }

  async entryTenant(id: string): Promise<string | undefined> {
    if (this.tenants.has(id)) return this.tenants.get(id);
    if (this.asked.has(id)) return undefined;
    const tenant = (await repo.entryTenant(this.trx, id))?.tenant_id;
    this.asked.add(id);
    if (tenant !== undefined) this.tenants.set(id, tenant);
    return tenant;
  }

  async positionTaken(origin: string, chainSeq: number, id: string): Promise<boolean> {
    const holder = this.positions.get(at(origin, chainSeq));
    if (holder !== undefined) return holder !== id;
    const span = this.spans.get(origin);
    if (span && chainSeq >= span[0] && chainSeq <= span[1]) return false;
    return repo.positionTaken(this.trx, this.tenantId, origin, chainSeq, id);
  }

  async insert(row: JournalEntriesTable): Promise<void> {
    this.pending.push(row);
    this.tenants.set(row.id, this.tenantId);
    this.asked.add(row.id);
    this.positions.set(at(row.origin, Number(row.chain_seq)), row.id);
  }

  async flush(trx: Tx): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    await insertManyIfAbsent(trx, 'journal_entries', rows as Array<JournalEntriesTable & Record<string, unknown>>);
  }
}

const journalStore = defineBatchStore<JournalStore, JournalBatch>({
  key: 'journal',
  direct: (trx, _ctx, tenantId) => directJournal(trx, tenantId),
  create: (scope) => new JournalBatch(scope.trx, scope.tenantId),
  prefetch: (b, scope) => b.prefetch(scope.changes),
});

/** A journal entry's schema, parsed for every pushed journal op (compiled: `pushedPayload`). */
const PushedEntry = pushedPayload('journal.appended', JournalRowSchema);

export const journalSync: EntityDescriptor[] = [
  {
    entity: JOURNAL_ENTITY,
    merge: 'ledger',
    // Append-only: an echo the cloud kept as sent changes nothing here.
    echo: 'skip-equal',
    tables: ['journal_entries'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'journal.appended' && change.kind !== 'journal.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const e = parsePayload(PushedEntry, (change.payload as { entry?: unknown } | null)?.entry, 'een journaalregel', ctx);
      if (e.id !== change.entity_id) throw new RejectOp('Ongeldige journaalregel.');
      if (ctx.mode === 'merge' && e.origin !== change.origin) throw new RejectOp('Deze journaalregel hoort bij de keten van een ander apparaat.');
      const store = await journalStore.of(trx, ctx, change.tenant_id);
      const existing = await store.entryTenant(e.id);
      if (existing !== undefined) {
        if (existing !== change.tenant_id) throw new RejectOp('Deze journaalregel hoort bij een ander restaurant.');
        return;
      }
      if (await store.positionTaken(e.origin, e.chain_seq, e.id)) {
        throw new RejectOp(`Op deze plaats in het journaal (nr. ${e.chain_seq}) staat al een andere regel.`);
      }
      const row: JournalEntriesTable = {
        id: e.id,
        tenant_id: change.tenant_id,
        origin: e.origin,
        chain_seq: e.chain_seq,
        prev_hash: e.prev_hash,
        hash: e.hash,
        kind: e.kind,
        ref_id: e.ref_id,
        order_id: e.order_id,
        bill_id: e.bill_id,
        amount_cents: e.amount_cents,
        tip_cents: e.tip_cents,
        method: e.method,
        business_day: e.business_day,
        at: e.at,
        user_id: e.user_id,
        detail: JSON.stringify(e.detail),
        created_at: e.created_at,
      };
      await store.insert(row);
    },
    async snapshot(db, tenantId, after, limit) {
      const rows = await repo.snapshotPage(db, tenantId, after, limit);
      const changes = rows.map((r) => ({ entity: JOURNAL_ENTITY, entity_id: r.id, kind: 'journal.snapshot', payload: { entry: entryDto(r) }, created_at: r.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
  {
    entity: DAY_CLOSE_ENTITY,
    merge: 'ledger',
    echo: 'skip-equal',
    tables: ['day_closes'],
    async apply(trx, change) {
      if (change.kind !== 'day_close.made' && change.kind !== 'day_close.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const c = parsePayload(DayCloseRowSchema, (change.payload as { close?: unknown } | null)?.close, 'een dagafsluiting');
      if (c.id !== change.entity_id) throw new RejectOp('Ongeldige dagafsluiting.');
      const clash = await repo.closeClash(trx, change.tenant_id, c.id, c.number, c.business_date);
      const same = clash.find((r) => r.id === c.id);
      if (same) {
        if (same.tenant_id !== change.tenant_id) throw new RejectOp('Deze dagafsluiting hoort bij een ander restaurant.');
        return;
      }
      if (clash.length > 0) throw new RejectOp(`De dag ${c.business_date} of afsluiting nr. ${c.number} is al elders afgesloten; deze dagafsluiting is niet overgenomen.`);
      const row: DayClosesTable = {
        id: c.id,
        tenant_id: change.tenant_id,
        number: c.number,
        business_date: c.business_date,
        origin: c.origin,
        closed_at: c.closed_at,
        closed_by: c.closed_by,
        forced: c.forced ? 1 : 0,
        cash_counted_cents: c.cash_counted_cents,
        report: JSON.stringify(c.report),
        covered: JSON.stringify(c.covered),
        previous_hash: c.previous_hash,
        hash: c.hash,
        created_at: c.created_at,
      };
      await insertIfAbsent(trx, 'day_closes', row as DayClosesTable & Record<string, unknown>);
    },
    async snapshot(db, tenantId, after, limit) {
      const rows = await repo.closesSnapshotPage(db, tenantId, after, limit);
      const changes = rows.map((r) => ({ entity: DAY_CLOSE_ENTITY, entity_id: r.id, kind: 'day_close.snapshot', payload: { close: closeWire(r) }, created_at: r.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
