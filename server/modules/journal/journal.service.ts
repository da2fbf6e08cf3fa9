import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import type { JournalEntriesTable } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, conflict } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { businessDay, wallClock } from '../../shared/zoned-time.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { entryDto, GENESIS, hashEntry, verifyJournal, type JournalKind, type LoggedEntry } from './journal.chain.js';
import { journalRepository as repo } from './journal.repository.js';
import type { JournalEntry, JournalIntegrity } from './journal.schemas.js';
import { createCloses, salesBetween, type CloseDeps } from './journal.closes.js';

/**
 * The journal (CONTRACT §19, docs/till.md "Journal"): every payment, discount, void, refund and day
 * close, appended to this node's hash chain inside the transaction that made it, so the entry
 * commits or rolls back with it. Other areas call `append` (and, through it, the closed-day check)
 * from their own `changes.write`. The day close is a part of this service (journal.closes.ts).
 */

export interface JournalDeps {
  db: Db;
  changes: ChangeLog;
  clock: Clock;
  tenants: Pick<TenantsService, 'cachedSettings' | 'cachedSettingsIn'>;
}

/** What an area appends (CONTRACT §19). Amounts in cents; `at` defaults to the transaction's time. */
export interface JournalInput {
  tenant_id: string;
  kind: JournalKind;
  /** The payment, discount, void, refund or close the entry is about. */
  ref_id: string;
  amount_cents: number;
  /** When it happened (ISO instant); default the transaction's `now`. Decides the business day. */
  at?: string;
  order_id?: string | null;
  bill_id?: string | null;
  tip_cents?: number;
  /** Payments and refunds: contant, pin, creditcard, cadeaubon, overig, online (left out: overig). */
  method?: string | null;
  user_id?: string | null;
  /** Anything else worth keeping (a reason, a quantity, the orders a bill payment paid). JSON. */
  detail?: Record<string, unknown>;
  /**
   * Money that was already taken elsewhere (a payment provider's callback, pay-at-table): recorded
   * even when its business day is closed, and then reported in the next close as late. Never for
   * what staff do at the till.
   */
  allow_closed_day?: boolean;
}

export const JOURNAL_ENTITY = 'journal_entry';
export const journalChange = (entry: JournalEntry) => ({ entity: JOURNAL_ENTITY, entityId: entry.id, kind: 'journal.appended', payload: { entry } });

const dutchDate = (day: string) => {
  const [y, m, d] = day.split('-');
  return `${Number(d)}-${Number(m)}-${y}`;
};

/** 409 for anything dated in a closed business day (CONTRACT §19). */
export const dayClosed = (day: string) =>
  conflict(`De dag ${dutchDate(day)} is al afgesloten (dagafsluiting); er kan niets meer op die dag worden geboekt.`);

export function createJournalCore(ctx: JournalDeps) {
  const { db, changes, tenants } = ctx;

  async function dayOf(tenantId: string, at: string | Date, exec?: Executor): Promise<string> {
    const s = exec ? await tenants.cachedSettingsIn(exec, tenantId) : await tenants.cachedSettings(tenantId);
    return businessDay(typeof at === 'string' ? new Date(at) : at, s.timezone, s.business_day_starts_at);
  }

  /**
   * CONFLICT when the business day of `at` (the restaurant's zone and `business_day_starts_at`) is
   * closed: payments, discounts, voids and refunds call it (through `append`, or themselves before
   * they write anything). Reads through `exec`, the caller's transaction.
   */
  async function assertDayOpen(exec: Executor, tenantId: string, at: string | Date): Promise<void> {
    const day = await dayOf(tenantId, at, exec);
    if (await repo.closeOfDay(exec, tenantId, day)) throw dayClosed(day);
  }

  /**
   * Appends an entry to this node's chain of the restaurant inside the caller's transaction `w`:
   * position and prev_hash from the chain's head (the restaurant's write lock, held by `w`, keeps two
   * writers from taking one position), then its hash; the change-log entry carries it (sync, and the
   * verification's record of what was written). A payment, discount, void or refund dated in a closed
   * business day is refused (CONFLICT) unless `allow_closed_day`.
   */
  async function append(w: Writer, input: JournalInput): Promise<JournalEntry> {
    const tenantId = input.tenant_id;
    if (!Number.isInteger(input.amount_cents)) throw new AppError('INTERNAL', 'Er ging iets mis aan onze kant. Probeer het opnieuw.');
    const at = input.at ?? w.now;
    const day = await dayOf(tenantId, at, w.trx);
    if (input.kind !== 'close' && !input.allow_closed_day && (await repo.closeOfDay(w.trx, tenantId, day))) throw dayClosed(day);
    const origin = changes.origin;
    const head = await repo.head(w.trx, tenantId, origin);
    const row: JournalEntriesTable = {
      id: newId(),
      tenant_id: tenantId,
      origin,
      chain_seq: (head?.chain_seq ?? 0) + 1,
      prev_hash: head?.hash ?? GENESIS,
      hash: '',
      kind: input.kind,
      ref_id: input.ref_id,
      order_id: input.order_id ?? null,
      bill_id: input.bill_id ?? null,
      amount_cents: input.amount_cents,
      tip_cents: input.tip_cents ?? 0,
      method: input.kind === 'payment' || input.kind === 'refund' ? (input.method ?? 'overig') : (input.method ?? null),
      business_day: day,
      at: new Date(at).toISOString(),
      user_id: input.user_id ?? null,
      detail: JSON.stringify(input.detail ?? {}),
      created_at: w.now,
    };
    row.hash = hashEntry(tenantId, entryDto(row));
    await repo.insert(w.trx, row);
    const entry = entryDto(row);
    await w.record(journalChange(entry));
    return entry;
  }

  /** GET /journal/verify: every origin's chain, checked against the change log it was written with. */
  async function verify(tenantId: string): Promise<JournalIntegrity> {
    const rows = await repo.all(db, tenantId);
    const logged: LoggedEntry[] = [];
    for (const c of await repo.logged(db, tenantId)) {
      const payload = (typeof c.payload === 'string' ? JSON.parse(c.payload) : c.payload) as { entry?: { id?: unknown; origin?: unknown; chain_seq?: unknown; hash?: unknown } } | null;
      const e = payload?.entry;
      if (e && e.id === c.entity_id && typeof e.origin === 'string' && typeof e.chain_seq === 'number' && typeof e.hash === 'string') {
        logged.push({ id: e.id, origin: e.origin, chain_seq: e.chain_seq, hash: e.hash });
      }
    }
    // On the cloud every entry arrived through its change log; an appliance's log has its own
    // entries, and those of other origins only since it joined (older ones came as a snapshot).
    const own = changes.origin;
    return verifyJournal(tenantId, rows, logged, (origin) => own === 'cloud' || origin === own);
  }

  /** GET /journal: the entries of the business days from..to (default: today). */
  async function list(tenantId: string, from?: string, to?: string): Promise<{ data: JournalEntry[]; from: string; to: string }> {
    const today = await dayOf(tenantId, ctx.clock.now());
    const last = to ?? (from && from > today ? from : today);
    const first = from ?? last;
    if (first > last) throw new AppError('VALIDATION', "Ongeldige invoer: 'from' mag niet na 'to' liggen.", { details: [{ field: 'from', error: "Mag niet na 'to' liggen." }] });
    return { data: (await repo.list(db, tenantId, first, last)).map(entryDto), from: first, to: last };
  }

  /** The restaurant's local date and time of an instant (for messages). */
  async function localTime(tenantId: string, at: Date): Promise<{ date: string; time: string }> {
    return wallClock(at, (await tenants.cachedSettings(tenantId)).timezone);
  }

  return { append, assertDayOpen, verify, list, dayOf, localTime };
}

export function createJournalService(deps: CloseDeps) {
  const core = createJournalCore(deps);
  return {
    ...core,
    closes: createCloses(deps, core),
    /** The money of the business days from..to for the revenue figures (analytics), split over VAT rates as the day close does. */
    sales: (tenantId: string, from: string, to: string) => salesBetween(deps.db, tenantId, from, to),
  };
}

export type JournalService = ReturnType<typeof createJournalService>;
/** What the till's other areas (orders, floor, payments) get: the append and the closed-day check. */
export type JournalAppender = Pick<JournalService, 'append' | 'assertDayOpen'>;
