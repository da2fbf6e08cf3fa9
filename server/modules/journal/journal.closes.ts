import crypto from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { Writer } from '../../db/change-log.js';
import type { Executor } from '../../db/connection.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { entryDto, GENESIS, type JournalRow } from './journal.chain.js';
import { journalRepository as repo, orderRates, type CloseRow } from './journal.repository.js';
import type { JournalDeps, createJournalCore } from './journal.service.js';
import { closeWire, DAY_CLOSE_ENTITY } from './journal.sync.js';
import { linesAfterDiscounts, type AppliedDiscount, type PricedLine } from '../till/till.rules.js';

/**
 * The day close (dagafsluiting, CONTRACT §19, docs/till.md "Day close"): the X report (preview) and
 * the Z report (close) of a business day, made from the journal: the day's payments by method, its
 * discounts, voids and refunds, VAT per rate, cash expected against counted. A close covers the
 * journal as far as it reached on this node (`covered`); an entry of a closed (or skipped) day that
 * arrives later is reported in the next close as `late`. Closes are numbered gapless, chained by
 * hash, and are journal entries themselves.
 */

const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ?? canonicalizeModule) as (input: unknown) => string | undefined;

export interface CloseDeps extends JournalDeps {
  role: 'local' | 'cloud';
  /** Sync state of this node (appliance): pending changes and the last successful exchange. */
  syncState?: (tenantId: string) => Promise<{ enabled: boolean; pending: number; last_success_at: string | null }>;
  /** Cloud: whether the restaurant has an appliance (the till), which then makes the close. */
  hasAppliance?: (tenantId: string) => Promise<boolean>;
}

/** How old the last successful sync may be before an appliance refuses to close. */
export const SYNC_MAX_AGE_MS = 15 * 60_000;

/** VAT in a gross amount at a rate: gross × rate / (100 + rate), rounded half away from zero (CONTRACT §19). */
export const vatOf = (gross: number, rate: number) => {
  const v = (gross * rate) / (100 + rate);
  return Math.sign(v) * Math.round(Math.abs(v));
};

/** The orders a journal entry is about: its order, else the orders its bill payment paid (`detail.order_ids`). */
export const orderIdsOf = (e: JournalRow): string[] => {
  const d = entryDto(e).detail;
  const list = Array.isArray(d.order_ids) ? d.order_ids.filter((x): x is string => typeof x === 'string') : [];
  return e.order_id ? [e.order_id] : list;
};

/** What a payment counts as in "orders": its orders, else its bill, else itself. */
export const orderKeysOf = (e: JournalRow): string[] => (orderIdsOf(e).length > 0 ? orderIdsOf(e) : [e.bill_id ?? e.ref_id]);

/** Per rate, the gross and its VAT and net, by rate (the VAT taken on each rate's total, not line by line). */
export const vatTable = (byRate: ReadonlyMap<number, number>) =>
  [...byRate.entries()].sort((a, b) => a[0] - b[0]).map(([rate, g]) => ({ rate, gross_cents: g, vat_cents: vatOf(g, rate), net_cents: g - vatOf(g, rate) }));

/**
 * Each payment split over the VAT rates of the orders it paid, by their lines' gross after the
 * orders' discounts (`linesAfterDiscounts`, as on the order and its receipt: a comped line counts
 * nothing, an order discount is spread with its rounding rest), the payment's rounding rest on the
 * largest rate; a payment of orders without lines (or with nothing left) counts at 9 %:
 * payment id → [rate, gross]. The day close and the revenue figures both use it, so they agree to
 * the cent, and a day of orders paid in full has the VAT per rate of their receipts.
 */
export async function ratesOfPayments(exec: Executor, payments: JournalRow[]): Promise<Map<string, Array<[number, number]>>> {
  const { lines, discounts } = await orderRates(exec, [...new Set(payments.flatMap(orderIdsOf))]);
  const linesOf = new Map<string, PricedLine[]>();
  for (const l of lines) linesOf.set(l.order_id, [...(linesOf.get(l.order_id) ?? []), { id: l.id, vat_rate: Number(l.vat_rate), total_cents: Number(l.total_cents) }]);
  const discountsOf = new Map<string, AppliedDiscount[]>();
  for (const d of discounts) discountsOf.set(d.order_id, [...(discountsOf.get(d.order_id) ?? []), { item_id: d.item_id, amount_cents: Number(d.amount_cents) }]);
  const grossOf = new Map<string, Array<{ rate: number; cents: number }>>();
  for (const [orderId, own] of linesOf) grossOf.set(orderId, linesAfterDiscounts(own, discountsOf.get(orderId) ?? []).map((l) => ({ rate: l.vat_rate, cents: l.gross_cents })));
  const out = new Map<string, Array<[number, number]>>();
  for (const p of payments) {
    const amount = Number(p.amount_cents);
    const mine = [...new Set(orderIdsOf(p))].flatMap((id) => grossOf.get(id) ?? []);
    const shares = new Map<number, number>();
    for (const l of mine) if (l.cents > 0) shares.set(l.rate, (shares.get(l.rate) ?? 0) + l.cents);
    const base = [...shares.values()].reduce((a, b) => a + b, 0);
    if (base <= 0) {
      out.set(p.id, [[9, amount]]);
      continue;
    }
    const sorted = [...shares.entries()].sort((a, b) => b[1] - a[1]);
    const parts: Array<[number, number]> = [];
    let rest = amount;
    for (const [rate, g] of sorted.slice(1)) {
      const part = Math.round((amount * g) / base);
      parts.push([rate, part]);
      rest -= part;
    }
    parts.unshift([sorted[0]![0], rest]);
    out.set(p.id, parts);
  }
  return out;
}

/** One journal entry as the revenue figures read it (server/modules/analytics, docs/till.md "Revenue"). */
export interface SaleFact {
  kind: 'payment' | 'discount' | 'void' | 'refund';
  at: string;
  business_day: string;
  amount_cents: number;
  tip_cents: number;
  method: string | null;
  /** Payments: what counts as its orders (orderKeysOf). */
  orders: string[];
  /** Payments: the amount split over VAT rates ([rate, gross]), as the day close splits it. */
  rates: Array<[number, number]>;
}

/** The journal's payments, discounts, voids and refunds of the business days from..to (closes left out). */
export async function salesBetween(exec: Executor, tenantId: string, from: string, to: string): Promise<SaleFact[]> {
  const rows = (await repo.list(exec, tenantId, from, to)).filter((e) => e.kind !== 'close');
  const rates = await ratesOfPayments(exec, rows.filter((e) => e.kind === 'payment'));
  return rows.map((e) => ({
    kind: e.kind as SaleFact['kind'],
    at: new Date(e.at).toISOString(),
    business_day: e.business_day,
    amount_cents: Number(e.amount_cents),
    tip_cents: Number(e.tip_cents),
    method: e.method,
    orders: e.kind === 'payment' ? orderKeysOf(e) : [],
    rates: rates.get(e.id) ?? [],
  }));
}

export function createCloses(ctx: CloseDeps, core: ReturnType<typeof createJournalCore>) {
  const { db, changes, clock } = ctx;

  /** The figures of `day` as this node's journal has them now (through `exec`). */
  async function figures(exec: Executor, tenantId: string, day: string) {
    const prev = await repo.lastClose(exec, tenantId);
    const covered = prev ? (JSON.parse(prev.covered) as Record<string, number>) : {};
    const counted = (e: JournalRow) => prev !== undefined && e.business_day <= prev.business_date && Number(e.chain_seq) <= (covered[e.origin] ?? 0);
    const all = (await repo.upTo(exec, tenantId, day)).filter((e) => !counted(e));
    const today = all.filter((e) => e.business_day === day);
    const late = all.filter((e) => e.business_day < day);
    const payments = today.filter((e) => e.kind === 'payment');
    const methods = new Map<string, { method: string; count: number; amount_cents: number; tip_cents: number }>();
    for (const p of payments) {
      const m = methods.get(p.method ?? 'overig') ?? { method: p.method ?? 'overig', count: 0, amount_cents: 0, tip_cents: 0 };
      m.count += 1;
      m.amount_cents += Number(p.amount_cents);
      m.tip_cents += Number(p.tip_cents);
      methods.set(m.method, m);
    }
    const gross = payments.reduce((s, p) => s + Number(p.amount_cents), 0);
    const orders = new Set(payments.flatMap(orderKeysOf));
    const byRate = new Map<number, number>();
    for (const parts of (await ratesOfPayments(exec, payments)).values()) for (const [rate, g] of parts) byRate.set(rate, (byRate.get(rate) ?? 0) + g);
    const vat = vatTable(byRate);
    const sum = (list: JournalRow[], kind: string) => list.filter((e) => e.kind === kind).reduce((s, e) => s + Number(e.amount_cents), 0);
    const cashIn = payments.filter((p) => p.method === 'contant').reduce((s, p) => s + Number(p.amount_cents) + Number(p.tip_cents), 0);
    const cashOut = today.filter((e) => e.kind === 'refund' && e.method === 'contant').reduce((s, e) => s + Number(e.amount_cents), 0);
    const latePayments = late.filter((e) => e.kind === 'payment');
    return {
      business_date: day,
      orders: { count: orders.size, gross_cents: gross },
      vat,
      by_method: [...methods.values()].sort((a, b) => a.method.localeCompare(b.method)),
      discounts_cents: sum(today, 'discount'),
      voids: { count: today.filter((e) => e.kind === 'void').length, cents: sum(today, 'void') },
      refunds_cents: sum(today, 'refund'),
      cash_expected_cents: cashIn - cashOut,
      late: { count: late.length, payments_cents: latePayments.reduce((s, e) => s + Number(e.amount_cents), 0), refunds_cents: sum(late, 'refund'), days: [...new Set(late.map((e) => e.business_day))].sort() },
      entries: today.length,
    };
  }

  async function heads(exec: Executor, tenantId: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const e of await repo.all(exec, tenantId)) out[e.origin] = Math.max(out[e.origin] ?? 0, Number(e.chain_seq));
    return out;
  }

  const toDto = (r: CloseRow) => {
    const w = closeWire(r);
    const report = w.report as Awaited<ReturnType<typeof figures>>;
    return {
      id: w.id,
      number: w.number,
      ...report,
      business_date: w.business_date,
      closed_at: w.closed_at,
      closed_by: w.closed_by,
      forced: w.forced,
      cash_counted_cents: w.cash_counted_cents,
      cash_difference_cents: w.cash_counted_cents - report.cash_expected_cents,
      previous_hash: w.previous_hash,
      hash: w.hash,
    };
  };
  const hashClose = (previous: string, content: unknown) => crypto.createHash('sha256').update(previous + canonicalize(content)).digest('hex');

  return {
    /** The X report of `date` (default: the current business day). */
    async preview(tenantId: string, date?: string) {
      const day = date ?? (await core.dayOf(tenantId, clock.now()));
      const closed = await repo.closeOfDay(db, tenantId, day);
      return { ...(await figures(db, tenantId, day)), closed: closed !== undefined, close_id: closed?.id ?? null, generated_at: clock.now().toISOString() };
    },

    /** The Z report: closes a business day for good (CONTRACT §19). */
    async close(actor: { tenantId: string; userId: string | null }, input: { business_date?: string; cash_counted_cents: number; force?: boolean }) {
      const tenantId = actor.tenantId;
      const day = input.business_date ?? (await core.dayOf(tenantId, clock.now()));
      if (ctx.role === 'cloud' && ctx.hasAppliance && (await ctx.hasAppliance(tenantId))) {
        throw conflict('Dit restaurant heeft een kassa in het restaurant; sluit de dag daar af.');
      }
      if (day > (await core.dayOf(tenantId, clock.now()))) throw conflict('Een dag in de toekomst kan nog niet worden afgesloten.');
      if (ctx.role === 'local' && ctx.syncState && !input.force) {
        const s = await ctx.syncState(tenantId);
        if (s.enabled) {
          const age = s.last_success_at ? clock.now().getTime() - Date.parse(s.last_success_at) : Infinity;
          if (s.pending > 0 || age > SYNC_MAX_AGE_MS) {
            const why =
              s.pending > 0
                ? `er ${s.pending === 1 ? 'wacht nog 1 wijziging' : `wachten nog ${s.pending} wijzigingen`} op verzending naar de cloud`
                : s.last_success_at
                  ? `de laatste geslaagde synchronisatie met de cloud is van ${Math.round(age / 60_000)} minuten geleden`
                  : 'de kassa heeft nog nooit met de cloud gesynchroniseerd';
            throw conflict(`De dag kan nog niet worden afgesloten: ${why}, dus online betalingen kunnen ontbreken. Controleer de internetverbinding en probeer het opnieuw, of sluit toch af met 'force'.`);
          }
        }
      }
      const row = await changes.write(tenantId, async (w: Writer) => {
        if (await repo.closeOfDay(w.trx, tenantId, day)) throw conflict(`De dag ${day.split('-').reverse().join('-')} is al afgesloten.`);
        const last = await repo.lastClose(w.trx, tenantId);
        if (last && last.business_date > day) throw conflict('Er is al een latere dag afgesloten; een eerdere dag kan niet meer worden afgesloten.');
        const report = await figures(w.trx, tenantId, day);
        const covered = await heads(w.trx, tenantId);
        const previous = last?.hash ?? GENESIS;
        const r: CloseRow = {
          id: newId(), tenant_id: tenantId, number: (last ? Number(last.number) : 0) + 1, business_date: day, origin: changes.origin, closed_at: w.now,
          closed_by: actor.userId, forced: input.force ? 1 : 0, cash_counted_cents: input.cash_counted_cents, report: JSON.stringify(report), covered: JSON.stringify(covered),
          previous_hash: previous, hash: '', created_at: w.now,
        };
        const { hash: _h, ...content } = closeWire({ ...r, hash: GENESIS });
        r.hash = hashClose(previous, { tenant_id: tenantId, ...content });
        await repo.insertClose(w.trx, r);
        await w.record({ entity: DAY_CLOSE_ENTITY, entityId: r.id, kind: 'day_close.made', payload: { close: closeWire(r) } });
        await core.append(w, {
          tenant_id: tenantId, kind: 'close', ref_id: r.id, amount_cents: report.orders.gross_cents, user_id: actor.userId,
          detail: { number: r.number, business_date: day, cash_counted_cents: input.cash_counted_cents, cash_expected_cents: report.cash_expected_cents, hash: r.hash },
        });
        return r;
      });
      return toDto(row);
    },

    async list(tenantId: string, limit: number, offset: number) {
      const [rows, total] = await Promise.all([repo.listCloses(db, tenantId, limit, offset), repo.countCloses(db, tenantId)]);
      return { data: rows.map(toDto), total, limit, offset };
    },

    /** The restaurant as its receipts show it (name, address, BTW, KvK) and its zone: the head of the printable close and its CSV. */
    async restaurant(tenantId: string) {
      const s = await ctx.tenants.cachedSettings(tenantId);
      return { name: s.name, address: s.address, vat_number: s.vat_number, kvk_number: s.kvk_number, timezone: s.timezone };
    },

    async get(tenantId: string, id: string) {
      const r = await repo.findClose(db, tenantId, id);
      if (!r) throw notFound('Dagafsluiting');
      return toDto(r);
    },
  };
}
export type DayCloseDto = ReturnType<ReturnType<typeof createCloses>['get']> extends Promise<infer T> ? T : never;
