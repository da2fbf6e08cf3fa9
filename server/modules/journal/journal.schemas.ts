import { z } from 'zod';
import '../../shared/validation.js';

/** The journal and the day close (CONTRACT §19, docs/till.md). */

export const JOURNAL_KIND_VALUES = ['payment', 'discount', 'void', 'refund', 'close'] as const;
const Instant = z.iso.datetime({ offset: true });
const CalendarDate = z.iso.date();
const Hash = z.string().regex(/^[0-9a-f]{64}$/);

export const JournalEntry = z
  .object({
    id: z.string(),
    origin: z.string().meta({ description: "The node whose chain the entry is in: 'cloud' or the appliance's device id" }),
    chain_seq: z.number().int().meta({ description: 'Position in its origin’s chain (1, 2, 3 ...)' }),
    prev_hash: z.string().meta({ description: 'Hash of the origin’s previous entry (64 zeros for the first)' }),
    hash: z.string().meta({ description: 'sha256(prev_hash + RFC 8785 canonical JSON of the entry without its hashes), hex' }),
    kind: z.enum(JOURNAL_KIND_VALUES),
    ref_id: z.string().meta({ description: 'The payment, discount, void, refund or day close the entry is about' }),
    order_id: z.string().nullable(),
    bill_id: z.string().nullable(),
    amount_cents: z.number().int().meta({ description: 'Payments and refunds: the money without tip; discounts and voids: what they took off; a close: the day’s gross' }),
    tip_cents: z.number().int(),
    method: z.string().nullable().meta({ description: 'Payments and refunds: contant, pin, creditcard, cadeaubon, overig or online' }),
    business_day: CalendarDate.meta({ description: 'The business day of `at` (setting business_day_starts_at, restaurant’s time zone)' }),
    at: z.string(),
    user_id: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).meta({ description: 'What else was kept: a reason, a quantity, the orders a payment paid' }),
    created_at: z.string(),
  })
  .meta({ id: 'JournalEntry' });
export type JournalEntry = z.infer<typeof JournalEntry>;

/** A journal entry as it travels through sync. */
export const JournalRowSchema = z
  .object({
    id: z.uuid(),
    origin: z.string().min(1).max(100),
    chain_seq: z.number().int().min(1),
    prev_hash: Hash,
    hash: Hash,
    kind: z.enum(JOURNAL_KIND_VALUES),
    ref_id: z.string().min(1).max(200),
    order_id: z.string().max(200).nullable(),
    bill_id: z.string().max(200).nullable(),
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    method: z.string().max(40).nullable(),
    business_day: CalendarDate,
    at: Instant,
    user_id: z.string().max(200).nullable(),
    detail: z.record(z.string(), z.unknown()),
    created_at: Instant,
  })
  .loose();

export const JournalBad = z
  .object({
    origin: z.string(),
    chain_seq: z.number().int(),
    entry_id: z.string().nullable(),
    kind: z.enum(JOURNAL_KIND_VALUES).nullable(),
    problem: z.enum(['content_changed', 'link_broken', 'missing', 'duplicate_position', 'not_in_change_log']),
    reason: z.string().meta({ description: 'Dutch explanation for the manager or the accountant' }),
  })
  .meta({ id: 'JournalBad' });
export type JournalBad = z.infer<typeof JournalBad>;

export const JournalIntegrity = z
  .object({
    verified: z.boolean().meta({ description: 'Every chain verifies (over every entry ever written)' }),
    first_bad: JournalBad.nullable(),
    chains: z.array(
      z.object({
        origin: z.string(),
        entries: z.number().int(),
        head_hash: z.string().nullable().meta({ description: 'Hash of the newest entry: compare with an earlier check to see that nothing was cut off the end' }),
        verified: z.boolean(),
        first_bad: JournalBad.nullable(),
        problems: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'JournalIntegrity' });
export type JournalIntegrity = z.infer<typeof JournalIntegrity>;

export const JournalQuery = z
  .object({
    from: CalendarDate.optional().meta({ description: 'First business day (YYYY-MM-DD); default `to`' }),
    to: CalendarDate.optional().meta({ description: 'Last business day; default today' }),
  })
  .strict();

export const JournalList = z.object({ data: z.array(JournalEntry), from: CalendarDate, to: CalendarDate }).meta({ id: 'JournalList' });

// ---- day close (CONTRACT §19)
const Vat = z.object({ rate: z.number(), gross_cents: z.number().int(), vat_cents: z.number().int(), net_cents: z.number().int() });
const Figures = {
  business_date: CalendarDate,
  orders: z.object({ count: z.number().int(), gross_cents: z.number().int() }),
  vat: z.array(Vat),
  by_method: z.array(z.object({ method: z.string(), count: z.number().int(), amount_cents: z.number().int(), tip_cents: z.number().int() })),
  discounts_cents: z.number().int(),
  voids: z.object({ count: z.number().int(), cents: z.number().int() }),
  refunds_cents: z.number().int(),
  cash_expected_cents: z.number().int().meta({ description: 'Cash (contant) taken with tips, minus cash refunds' }),
  late: z
    .object({ count: z.number().int(), payments_cents: z.number().int(), refunds_cents: z.number().int(), days: z.array(CalendarDate) })
    .meta({ description: 'Entries of earlier (closed or never closed) days that reached this node after their day was closed' }),
  entries: z.number().int().meta({ description: 'Journal entries of the day counted' }),
};
export const DayClose = z
  .object({
    id: z.string(),
    number: z.number().int().meta({ description: 'Gapless per restaurant: 1, 2, 3 ...' }),
    ...Figures,
    closed_at: z.string(),
    closed_by: z.string().nullable(),
    forced: z.boolean().meta({ description: 'Closed with force: true while the sync was behind' }),
    cash_counted_cents: z.number().int(),
    cash_difference_cents: z.number().int().meta({ description: 'Counted minus expected (negative: cash missing)' }),
    previous_hash: z.string(),
    hash: z.string().meta({ description: 'sha256(previous_hash + canonical JSON of the close)' }),
  })
  .meta({ id: 'DayClose' });
export const DayClosePreview = z
  .object({ ...Figures, closed: z.boolean(), close_id: z.string().nullable(), generated_at: z.string() })
  .meta({ id: 'DayClosePreview' });
export const DayCloseBody = z
  .object({
    business_date: CalendarDate.optional().meta({ description: 'Default: the current business day' }),
    cash_counted_cents: z.number().int().min(0).max(100_000_000).meta({ description: 'Cash counted in the drawer' }),
    force: z.boolean().optional().meta({ description: 'Close although the sync with the cloud is behind' }),
  })
  .strict();
export const PreviewQuery = z.object({ date: CalendarDate.optional() }).strict();
export const CloseParams = z.object({ id: z.uuid() });
export const CloseFormat = z.object({ format: z.enum(['json', 'html', 'csv']).optional() }).strict();
