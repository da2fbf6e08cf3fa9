import { z } from 'zod';
import type { DayClosesTable, JournalEntriesTable } from '../../db/database.js';
import { insertIfAbsent, parsePayload } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
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

export const journalSync: EntityDescriptor[] = [
  {
    entity: JOURNAL_ENTITY,
    merge: 'ledger',
    // Append-only: an echo the cloud kept as sent changes nothing here.
    echo: 'skip-equal',
    tables: ['journal_entries'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'journal.appended' && change.kind !== 'journal.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const e = parsePayload(JournalRowSchema, (change.payload as { entry?: unknown } | null)?.entry, 'een journaalregel');
      if (e.id !== change.entity_id) throw new RejectOp('Ongeldige journaalregel.');
      if (ctx.mode === 'merge' && e.origin !== change.origin) throw new RejectOp('Deze journaalregel hoort bij de keten van een ander apparaat.');
      const existing = await repo.entryTenant(trx, e.id);
      if (existing) {
        if (existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze journaalregel hoort bij een ander restaurant.');
        return;
      }
      if (await repo.positionTaken(trx, change.tenant_id, e.origin, e.chain_seq, e.id)) {
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
      await insertIfAbsent(trx, 'journal_entries', row as JournalEntriesTable & Record<string, unknown>);
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
