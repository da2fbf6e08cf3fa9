import type { ChangeLog, ChangeRecord, Writer } from '../../db/change-log.js';
import type { ChangeConsumer } from '../../db/consumers.js';
import type { Db, Executor } from '../../db/connection.js';
import { perTenant } from '../../db/read-cache.js';
import type { TableVersions } from '../../db/table-watch.js';
import { AppError, conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Role } from '../../shared/role.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { wallClock } from '../../shared/zoned-time.js';
import type { Actor, OrdersService } from '../orders/orders.service.js';
import type { Order, OrderStatus } from '../orders/orders.schemas.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import type { UsersService } from '../users/users.service.js';
import type { FloorService } from '../floor/floor.service.js';
import { renderLines as renderReceiptLines, renderTest, renderTicket } from './printing.escpos.js';
import { printingRepository as repo, type PrinterRow, type PrintJobRow } from './printing.repository.js';
import {
  backoffMs,
  dedupeKey,
  destinationOf,
  kitchenAtCreation,
  kitchenHas,
  kitchenOnStatus,
  MOVE_AFTER_ATTEMPTS,
  splitByPrinter,
  ticketLines,
  type TicketContent,
  type TicketLine,
} from './printing.rules.js';
import type { CreatePrinterInput, Printer, PrintJob, UpdatePrinterInput } from './printing.schemas.js';
import { tcpTransport, type PrinterTransport } from './printing.transport.js';

/** What a station's board hears about a ticket (socket events `print:failed`, `print:done`). */
export interface PrintEventPayload {
  job_id: string;
  printer_id: string;
  printer_name: string;
  order_id: string | null;
  stations: string[];
  error: string | null;
}
export type PrintEvent = { name: 'print:failed' | 'print:done'; tenantId: string; payload: PrintEventPayload };

export interface PrintingDeps {
  db: Db;
  changes: ChangeLog;
  clock?: Clock;
  /** The cloud never prints: no jobs, no connections (docs/kitchen.md). */
  role: Role;
  tenants: TenantsService;
  users: UsersService;
  orders: OrdersService;
  floor: FloorService;
  transport?: PrinterTransport;
  retryBaseMs?: number;
  retryCapMs?: number;
  timeoutMs?: number;
  /** Which tables changed (SQLite): the printers an order's ticket needs are cached per restaurant until `printers` is written. */
  tables?: TableVersions;
}

/** A receipt from the till (issue 25): ready ESC/POS bytes, or plain lines this module lays out. */
export type ReceiptInput = { bytes: Uint8Array; order_id?: string | null; requested_by?: string | null } | { lines: string[]; order_id?: string | null; requested_by?: string | null };

const CONSUMER = 'printing';
const ORDER_KINDS = new Set(['order.created', 'order.status_changed', 'order.course_fired', 'order.item_voided']);
/** A synced order older than this is history (a log replayed from the start), never printed. */
const SYNC_PRINT_WINDOW_MS = 24 * 3600_000;

const parseStations = (text: string): string[] => {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
};

const noPrinting = () => conflict('Printen gebeurt in het restaurant zelf: stel printers in op het apparaat (de kassa-pc), niet in de cloud.');

/**
 * Kitchen printers and print jobs (issue 24, CONTRACT §18, docs/kitchen.md). A ticket is a job
 * written in the same transaction as what causes it (an order hook, or the consumer of orders that
 * arrive through sync); a worker sends due jobs over raw TCP and marks them done only when the
 * printer took every byte; a done job is never sent again.
 */
export function createPrintingService(deps: PrintingDeps) {
  const { db, changes, tenants, users, orders, floor } = deps;
  const clock = deps.clock ?? systemClock;
  const transport = deps.transport ?? tcpTransport;
  const retryBaseMs = deps.retryBaseMs ?? 2000;
  const retryCapMs = deps.retryCapMs ?? 60_000;
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const prints = deps.role !== 'cloud';
  const listeners: Array<(e: PrintEvent) => void> = [];
  const emit = (e: PrintEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        /* a listener (a socket) never stops the worker */
      }
    }
  };

  function toPrinterDto(r: PrinterRow, queued: number): Printer {
    const lastOk = r.last_ok_at ?? '';
    const lastErr = r.last_error_at ?? '';
    return {
      id: r.id,
      name: r.name,
      host: r.host,
      port: r.port,
      width_mm: r.width_mm,
      stations: parseStations(r.stations),
      receipts: r.receipts === 1,
      fallback_printer_id: r.fallback_printer_id,
      status: !lastOk && !lastErr ? 'unknown' : lastErr > lastOk ? 'offline' : 'online',
      last_error: lastErr > lastOk ? r.last_error : null,
      queued,
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  function toJobDto(r: PrintJobRow): PrintJob {
    let stations: string[] = [];
    try {
      stations = (JSON.parse(r.content) as TicketContent).stations ?? [];
    } catch {
      /* unreadable content: no stations */
    }
    return {
      id: r.id,
      printer_id: r.printer_id,
      order_id: r.order_id,
      kind: r.kind,
      status: r.status,
      attempts: r.attempts,
      last_error: r.last_error,
      moved_to: r.moved_to,
      requested_by: r.requested_by,
      reprint_of: r.reprint_of,
      stations,
      created_at: r.created_at,
      done_at: r.done_at,
    };
  }

  async function checkFallback(exec: Executor, tenantId: string, selfId: string | null, fallbackId: string | null | undefined): Promise<void> {
    if (!fallbackId) return;
    if (fallbackId === selfId) throw new AppError('VALIDATION', 'Ongeldige invoer: een printer kan niet zijn eigen reserveprinter zijn.', { details: [{ field: 'fallback_printer_id', error: 'Kies een andere printer als reserve.' }] });
    if (!(await repo.findPrinter(exec, tenantId, fallbackId))) throw notFound('Reserveprinter');
  }

  /** The live printers and their stations, per restaurant, kept until `printers` is written (db/read-cache.ts). */
  const printersOf = perTenant(deps.tables, ['printers'], async (exec, tenantId) =>
    (await repo.listPrinters(exec, tenantId)).map((r) => ({ id: r.id, stations: parseStations(r.stations) })),
  );

  function jobRow(tenantId: string, now: string, p: { printer_id: string; order_id: string | null; kind: PrintJobRow['kind']; content: TicketContent; dedupe_key: string | null; requested_by?: string | null; reprint_of?: string | null }): PrintJobRow {
    return {
      id: newId(),
      tenant_id: tenantId,
      printer_id: p.printer_id,
      moved_to: null,
      order_id: p.order_id,
      kind: p.kind,
      status: 'queued',
      attempts: 0,
      last_error: null,
      next_attempt_at: now,
      sending_at: null,
      content: JSON.stringify(p.content),
      dedupe_key: p.dedupe_key,
      requested_by: p.requested_by ?? null,
      reprint_of: p.reprint_of ?? null,
      created_at: now,
      updated_at: now,
      done_at: null,
    };
  }

  /**
   * One job per printer with the lines of its stations (no lines, no ticket), in the caller's
   * transaction; a cause that made its jobs before makes none again (`dedupe_key`).
   */
  async function enqueueLines(
    exec: Executor,
    now: string,
    tenantId: string,
    p: { order: Order; cause: string; kind: 'ticket' | 'void'; staffId: string | null; firedCourse: number | null; reason?: string | null; items: Order['items']; quantity?: (item: Order['items'][number]) => number },
  ): Promise<number> {
    if (!prints || p.items.length === 0) return 0;
    const printers = await printersOf(exec, tenantId);
    if (printers.length === 0) return 0;
    const stationOf = await orders.stationsOf(exec, tenantId, [...new Set(p.items.map((i) => i.product_id))]);
    let lines: TicketLine[] = ticketLines(p.items, (id) => stationOf.get(id) ?? 'keuken');
    if (p.quantity) lines = lines.map((l, idx) => ({ ...l, quantity: p.quantity!(p.items[idx]!) }));
    let made = 0;
    for (const split of splitByPrinter(lines, printers)) {
      const content: TicketContent = {
        type: p.kind,
        order: { id: p.order.id, number: p.order.number, source: p.order.source, table_id: p.order.table_id, customer_name: p.order.customer?.name ?? null, notes: p.order.notes },
        staff_id: p.staffId,
        at: now,
        fired_course: p.firedCourse,
        ...(p.reason !== undefined ? { reason: p.reason } : {}),
        stations: split.stations,
        lines: split.lines,
      };
      if (await repo.insertJob(exec, jobRow(tenantId, now, { printer_id: split.printer.id, order_id: p.order.id, kind: p.kind, content, dedupe_key: dedupeKey(p.cause, split.printer.id) }))) made += 1;
    }
    return made;
  }

  /** The lines the kitchen gets with the order itself: every line not held for a later course. */
  const sentLines = (order: Order) => order.items.filter((i) => !i.held && i.quantity > i.voided_quantity);

  /** The order's own ticket (staff order created; web or partner order accepted; a table round). */
  const orderTicket = (exec: Executor, now: string, tenantId: string, order: Order, staffId: string | null) =>
    enqueueLines(exec, now, tenantId, { order, cause: `order:${order.id}`, kind: 'ticket', staffId, firedCourse: null, items: sentLines(order) });

  const firedTicket = (exec: Executor, now: string, tenantId: string, order: Order, course: number, staffId: string | null) =>
    kitchenHas(order)
      ? enqueueLines(exec, now, tenantId, { order, cause: `fire:${order.id}:${course}`, kind: 'ticket', staffId, firedCourse: course, items: order.items.filter((i) => i.course === course && i.quantity > i.voided_quantity) })
      : Promise.resolve(0);

  async function voidTicket(exec: Executor, now: string, tenantId: string, order: Order, v: { id: string; item_id: string; quantity: number; reason?: string | null }, staffId: string | null) {
    const item = order.items.find((i) => i.id === v.item_id);
    // Only what the kitchen already has: a line of a held course, or of a web order not accepted yet, prints nothing.
    if (!item || !item.fired_at || !kitchenHas(order)) return 0;
    return enqueueLines(exec, now, tenantId, { order, cause: `void:${v.id}`, kind: 'void', staffId, firedCourse: null, reason: v.reason ?? null, items: [item], quantity: () => v.quantity });
  }

  /** A change that arrived through sync (foreign origin): the same tickets as the local hooks make. */
  async function fromSynced(exec: Executor, now: string, c: ChangeRecord): Promise<void> {
    const p = (c.payload ?? {}) as {
      order?: Order;
      created_by?: string | null;
      from?: OrderStatus;
      to?: OrderStatus;
      history?: { user_id?: string | null };
      fire?: { course?: number; user_id?: string | null };
      void?: { id: string; item_id: string; quantity: number; reason?: string; user_id?: string | null };
    };
    const order = p.order;
    if (!order || typeof order !== 'object' || !Array.isArray(order.items)) return;
    // History (a log replayed from the start, an order of days ago) never prints.
    if (Date.parse(now) - Date.parse(order.created_at) > SYNC_PRINT_WINDOW_MS) return;
    if (order.status === 'completed' || order.status === 'cancelled') return;
    // The order as it is here now (the pull applied it before this consumer runs): one finished or
    // cancelled meanwhile (an outage's backlog) is not cooked any more. Read in this transaction.
    const current = await orders.getIn({ trx: exec } as unknown as Writer, c.tenant_id, order.id).catch(() => null);
    if (!current || current.status === 'completed' || current.status === 'cancelled') return;
    if (c.kind === 'order.created' && kitchenAtCreation(order)) await orderTicket(exec, now, c.tenant_id, order, p.created_by ?? null);
    else if (c.kind === 'order.status_changed' && p.from && p.to && kitchenOnStatus(order, p.from, p.to)) await orderTicket(exec, now, c.tenant_id, order, p.history?.user_id ?? null);
    else if (c.kind === 'order.course_fired' && typeof p.fire?.course === 'number') await firedTicket(exec, now, c.tenant_id, order, p.fire.course, p.fire.user_id ?? null);
    else if (c.kind === 'order.item_voided' && p.void) await voidTicket(exec, now, c.tenant_id, order, p.void, p.void.user_id ?? null);
  }

  // ---------------------------------------------------------------- the worker

  let live = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;

  /** Due jobs now (coalesced with a run in flight); only once the worker was started (the job's first run). */
  function kick(): void {
    if (!live || !prints) return;
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void service.deliverDue().catch(() => {});
    }, 0);
    timer.unref?.();
  }

  async function renderJob(job: PrintJobRow, printer: PrinterRow): Promise<Uint8Array> {
    const content = JSON.parse(job.content) as TicketContent;
    const { timezone } = await tenants.cachedSettings(job.tenant_id);
    if (content.type === 'raw') {
      const bytes = Buffer.from(content.bytes_b64, 'base64');
      return job.kind === 'reprint' ? Buffer.concat([Buffer.from('\x1b@HERDRUK\n', 'latin1'), bytes]) : bytes;
    }
    if (content.type === 'test') return renderTest({ name: printer.name, stations: parseStations(printer.stations), time: `${wallClock(new Date(content.at), timezone).date} ${wallClock(new Date(content.at), timezone).time}` }, printer.width_mm);
    const staffName = content.staff_id ? ((await users.list(job.tenant_id)).find((u) => u.id === content.staff_id)?.name ?? null) : null;
    const tableName = content.order.table_id ? ((await floor.tableNames(job.tenant_id)).get(content.order.table_id) ?? null) : null;
    return renderTicket(
      {
        kind: content.type,
        herdruk: job.kind === 'reprint',
        stations: content.stations,
        destination: destinationOf(content.order, tableName),
        guest: content.order.table_id ? null : content.order.customer_name,
        number: content.order.number,
        time: wallClock(new Date(content.at), timezone).time,
        staff: staffName,
        fired_course: content.fired_course,
        reason: content.reason ?? null,
        lines: content.lines,
        order_notes: content.fired_course === null && content.type === 'ticket' ? content.order.notes : null,
      },
      printer.width_mm,
    );
  }

  /** A failed attempt of `jobs` on `printer`: back-off, the move to the fallback after 3, the alert. */
  async function recordFailure(printer: PrinterRow | undefined, target: string, jobs: PrintJobRow[], message: string): Promise<void> {
    const now = clock.now();
    const nowIso = now.toISOString();
    if (printer) await repo.updatePrinter(db, printer.tenant_id, printer.id, { last_error: message, last_error_at: nowIso });
    for (const job of jobs) {
      const attempts = job.attempts + 1;
      const patch: Partial<PrintJobRow> = { attempts, last_error: message, sending_at: null, updated_at: nowIso, next_attempt_at: new Date(now.getTime() + backoffMs(attempts, retryBaseMs, retryCapMs)).toISOString() };
      let alert = false;
      const fallback = !job.moved_to && attempts >= MOVE_AFTER_ATTEMPTS && printer?.fallback_printer_id ? await repo.findPrinter(db, job.tenant_id, printer.fallback_printer_id) : undefined;
      if (fallback && fallback.id !== target) {
        patch.moved_to = fallback.id;
        patch.next_attempt_at = nowIso;
        patch.last_error = `${message} Verplaatst naar '${fallback.name}'.`;
        alert = true;
      } else if (job.status !== 'failed' && attempts >= (job.moved_to ? 2 * MOVE_AFTER_ATTEMPTS : MOVE_AFTER_ATTEMPTS)) {
        patch.status = 'failed';
        alert = true;
      }
      await repo.updateJob(db, job.id, patch);
      if (alert) {
        emit({
          name: 'print:failed',
          tenantId: job.tenant_id,
          payload: { job_id: job.id, printer_id: target, printer_name: printer?.name ?? '?', order_id: job.order_id, stations: toJobDto(job).stations, error: patch.last_error ?? message },
        });
      }
    }
  }

  /**
   * One printer's due jobs, oldest first, over one connection each; the first failure ends the
   * round for this printer and counts as a failed attempt for every job still waiting for it.
   */
  async function deliverTo(target: string, jobs: PrintJobRow[]): Promise<void> {
    const printer = await repo.printerById(db, target);
    for (let i = 0; i < jobs.length; i += 1) {
      const job = jobs[i]!;
      if (!printer || printer.archived_at) {
        await recordFailure(printer, target, jobs.slice(i), 'Deze printer is verwijderd.');
        return;
      }
      let bytes: Uint8Array;
      try {
        bytes = await renderJob(job, printer);
      } catch {
        await recordFailure(printer, target, [job], 'Deze bon kon niet worden opgemaakt.');
        continue;
      }
      // In flight from here: a crash before markDone leaves sending_at set and the job is sent again
      // after the restart (the only window where a ticket may print twice: docs/kitchen.md).
      if (!(await repo.markSending(db, job.id, clock.now().toISOString()))) continue;
      try {
        await transport({ host: printer.host, port: printer.port }, bytes, timeoutMs);
      } catch (err) {
        await recordFailure(printer, target, jobs.slice(i), err instanceof Error ? err.message : String(err));
        return;
      }
      const now = clock.now().toISOString();
      await repo.markDone(db, job.id, now);
      await repo.updatePrinter(db, printer.tenant_id, printer.id, { last_ok_at: now });
      emit({ name: 'print:done', tenantId: job.tenant_id, payload: { job_id: job.id, printer_id: printer.id, printer_name: printer.name, order_id: job.order_id, stations: toJobDto(job).stations, error: null } });
    }
  }

  const service = {
    /** Socket events (`print:failed`, `print:done`) reach the tablets through this (printing.routes.ts). */
    onEvent(fn: (e: PrintEvent) => void): void {
      listeners.push(fn);
    },

    // ------------------------------------------------------------ printers (admin)

    async listPrinters(tenantId: string): Promise<Printer[]> {
      const [rows, counts] = await Promise.all([repo.listPrinters(db, tenantId), repo.queuedCounts(db, tenantId)]);
      return rows.map((r) => toPrinterDto(r, counts.get(r.id) ?? 0));
    },

    async getPrinter(tenantId: string, id: string): Promise<Printer> {
      const row = await repo.findPrinter(db, tenantId, id);
      if (!row) throw notFound('Printer');
      return toPrinterDto(row, (await repo.queuedCounts(db, tenantId)).get(id) ?? 0);
    },

    async createPrinter(tenantId: string, input: CreatePrinterInput): Promise<Printer> {
      if (!prints) throw noPrinting();
      return changes.write(tenantId, async (w) => {
        await checkFallback(w.trx, tenantId, null, input.fallback_printer_id);
        const row: PrinterRow = {
          id: newId(),
          tenant_id: tenantId,
          name: input.name,
          host: input.host,
          port: input.port,
          width_mm: input.width_mm,
          stations: JSON.stringify([...new Set(input.stations)]),
          receipts: input.receipts ? 1 : 0,
          fallback_printer_id: input.fallback_printer_id ?? null,
          last_ok_at: null,
          last_error: null,
          last_error_at: null,
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await repo.insertPrinter(w.trx, row);
        return toPrinterDto(row, 0);
      });
    },

    async updatePrinter(tenantId: string, id: string, input: UpdatePrinterInput): Promise<Printer> {
      if (!prints) throw noPrinting();
      await changes.write(tenantId, async (w) => {
        const cur = await repo.findPrinter(w.trx, tenantId, id);
        if (!cur) throw notFound('Printer');
        await checkFallback(w.trx, tenantId, id, input.fallback_printer_id);
        const patch: Partial<PrinterRow> = { updated_at: w.now };
        if (input.name !== undefined) patch.name = input.name;
        if (input.host !== undefined) patch.host = input.host;
        if (input.port !== undefined) patch.port = input.port;
        if (input.width_mm !== undefined) patch.width_mm = input.width_mm;
        if (input.stations !== undefined) patch.stations = JSON.stringify([...new Set(input.stations)]);
        if (input.receipts !== undefined) patch.receipts = input.receipts ? 1 : 0;
        if (input.fallback_printer_id !== undefined) patch.fallback_printer_id = input.fallback_printer_id;
        // A new address is a new start: its status is unknown until the next send.
        if ((input.host !== undefined && input.host !== cur.host) || (input.port !== undefined && input.port !== cur.port)) Object.assign(patch, { last_ok_at: null, last_error: null, last_error_at: null });
        await repo.updatePrinter(w.trx, tenantId, id, patch);
      });
      kick();
      return service.getPrinter(tenantId, id);
    },

    /** Archives the printer; printers that had it as their fallback no longer do; its waiting jobs move to its fallback after their failed attempts. */
    async deletePrinter(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        if (!(await repo.findPrinter(w.trx, tenantId, id))) throw notFound('Printer');
        await repo.updatePrinter(w.trx, tenantId, id, { archived_at: w.now, updated_at: w.now });
        await repo.clearFallback(w.trx, tenantId, id, w.now);
      });
    },

    /** A test page (admin): a job of kind `test`, sent like any other. */
    async testPrint(tenantId: string, id: string, userId: string | null): Promise<PrintJob> {
      if (!prints) throw noPrinting();
      const job = await changes.write(tenantId, async (w) => {
        const p = await repo.findPrinter(w.trx, tenantId, id);
        if (!p) throw notFound('Printer');
        const row = jobRow(tenantId, w.now, { printer_id: id, order_id: null, kind: 'test', content: { type: 'test', at: w.now, stations: parseStations(p.stations) }, dedupe_key: null, requested_by: userId });
        await repo.insertJob(w.trx, row);
        return row;
      });
      kick();
      return toJobDto(job);
    },

    // ------------------------------------------------------------ jobs (session)

    async listJobs(tenantId: string, f: { status?: string; order_id?: string; printer_id?: string }): Promise<PrintJob[]> {
      return (await repo.listJobs(db, tenantId, f, 200)).map(toJobDto);
    },

    /**
     * A reprint (session): a new job of kind `reprint` with the same ticket, printed with HERDRUK,
     * kept with who asked, on the printer that printed (or should print) the original.
     */
    async reprint(tenantId: string, jobId: string, userId: string | null): Promise<PrintJob> {
      if (!prints) throw noPrinting();
      const job = await changes.write(tenantId, async (w) => {
        const orig = await repo.findJob(w.trx, tenantId, jobId);
        if (!orig) throw notFound('Printopdracht');
        const target = orig.moved_to ?? orig.printer_id;
        const printer = (await repo.findPrinter(w.trx, tenantId, target)) ?? (await repo.findPrinter(w.trx, tenantId, orig.printer_id));
        if (!printer) throw conflict('De printer van deze bon bestaat niet meer; stel eerst een printer in.');
        const row = jobRow(tenantId, w.now, { printer_id: printer.id, order_id: orig.order_id, kind: 'reprint', content: JSON.parse(orig.content) as TicketContent, dedupe_key: null, requested_by: userId, reprint_of: orig.reprint_of ?? orig.id });
        await repo.insertJob(w.trx, row);
        return row;
      });
      kick();
      return toJobDto(job);
    },

    /**
     * A receipt for the till (issue 25, CONTRACT §19 `POST .../receipt/print`): a job of kind
     * `receipt` on the restaurant's receipt printer (`receipts: true`; the first by name when there
     * are more). Takes ready ESC/POS bytes, or plain lines laid out here (€ and accents in code page
     * 858, a cut at the end). 409 when no printer prints receipts.
     */
    async enqueueReceipt(tenantId: string, input: ReceiptInput): Promise<PrintJob> {
      if (!prints) throw noPrinting();
      const job = await changes.write(tenantId, async (w) => {
        const printer = (await repo.listPrinters(w.trx, tenantId)).find((p) => p.receipts === 1);
        if (!printer) throw conflict('Er is geen bonprinter ingesteld: zet bij een printer "Kassabonnen" aan (Beheer → Printers).');
        const bytes = 'bytes' in input ? input.bytes : renderReceiptLines(input.lines, printer.width_mm);
        const row = jobRow(tenantId, w.now, { printer_id: printer.id, order_id: input.order_id ?? null, kind: 'receipt', content: { type: 'raw', bytes_b64: Buffer.from(bytes).toString('base64'), stations: [] }, dedupe_key: null, requested_by: input.requested_by ?? null });
        await repo.insertJob(w.trx, row);
        return row;
      });
      kick();
      return toJobDto(job);
    },

    /**
     * The order's own ticket now, if it has none yet (the demo's open orders, made before its printers):
     * the same job an order hook makes, once (`dedupe_key`). Answers how many jobs were made.
     */
    async queueOrderTicket(tenantId: string, orderId: string, staffId: string | null): Promise<number> {
      if (!prints) throw noPrinting();
      const order = await orders.get(tenantId, orderId);
      const made = await changes.write(tenantId, (w) => orderTicket(w.trx, w.now, tenantId, order, staffId));
      kick();
      return made;
    },

    // ------------------------------------------------------------ order hooks (server/modules/index.ts)

    /** `created`: a staff order (or a guest's table round) goes to the kitchen now. */
    async orderCreated(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (kitchenAtCreation(order)) await orderTicket(w.trx, w.now, actor.tenantId, order, actor.userId);
    },
    /** `statusChanged`: a web or partner order goes to the kitchen when it is accepted. */
    async orderStatusChanged(w: Writer, actor: Actor, order: Order, from: OrderStatus, to: OrderStatus): Promise<void> {
      if (kitchenOnStatus(order, from, to)) await orderTicket(w.trx, w.now, actor.tenantId, order, actor.userId);
    },
    /** `courseFired`: the fired course's lines. */
    async courseFired(w: Writer, actor: Actor, order: Order, course: number): Promise<void> {
      await firedTicket(w.trx, w.now, actor.tenantId, order, course, actor.userId);
    },
    /** `itemVoided`: a void ticket when the kitchen already has the line. */
    async itemVoided(w: Writer, actor: Actor, order: Order, v: { id: string; item_id: string; quantity: number; reason: string }): Promise<void> {
      await voidTicket(w.trx, w.now, actor.tenantId, order, v, actor.userId);
    },

    /** Orders that reach this node through sync print here once, when they arrive (docs/kitchen.md). */
    consumer: {
      name: CONSUMER,
      async handle(batch, ctx) {
        if (!prints) return;
        const now = clock.now().toISOString();
        for (const c of batch) {
          if (c.origin === changes.origin || c.entity !== 'order' || !ORDER_KINDS.has(c.kind)) continue;
          await fromSynced(ctx.trx, now, c);
        }
      },
      afterCommit: () => kick(),
      // Only orders that arrive through sync print here: this node's own changes wake it late (server/db/consumers.ts).
      wants: (c) => prints && c.origin !== changes.origin && c.entity === 'order' && ORDER_KINDS.has(c.kind),
    } satisfies ChangeConsumer,

    /** A change committed here: an order change may have made jobs. */
    committed(records: ChangeRecord[]): void {
      if (records.some((r) => ORDER_KINDS.has(r.kind))) kick();
    },

    // ------------------------------------------------------------ the worker (printing.jobs.ts)

    /** From now on commits send their tickets at once (the cron job's first run does this: main.ts starts jobs after listen). */
    start(): void {
      live = prints;
    },

    stop(): void {
      live = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },

    /** Sends every due job (each printer's oldest first); never overlaps itself. */
    async deliverDue(): Promise<void> {
      if (!prints) return;
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          const due = await repo.dueJobs(db, clock.now().toISOString(), 500);
          const byTarget = new Map<string, PrintJobRow[]>();
          for (const j of due) {
            const t = j.moved_to ?? j.printer_id;
            const list = byTarget.get(t);
            if (list) list.push(j);
            else byTarget.set(t, [j]);
          }
          await Promise.all([...byTarget].map(([target, jobs]) => deliverTo(target, jobs)));
        } while (again);
      })().finally(() => {
        running = null;
      });
      return running;
    },

    /** Waits for a run in flight (tests, shutdown). */
    async idle(): Promise<void> {
      while (running) await running.catch(() => {});
    },
  };
  changes.on('committed', (_tenantId, records) => service.committed(records));
  return service;
}

export type PrintingService = ReturnType<typeof createPrintingService>;
