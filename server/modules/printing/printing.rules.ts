import type { Order } from '../orders/orders.schemas.js';

/**
 * Pure rules of printing (docs/kitchen.md): when the kitchen gets an order, which lines go to which
 * printer, what a ticket says, how long to wait before the next attempt. The service, the synced
 * orders' consumer and the tests all call these.
 */

/** A line as a ticket shows it. */
export interface TicketLine {
  item_id: string;
  quantity: number;
  name: string;
  options: string[];
  /** The dish's allergen codes as sold (CONTRACT §17; absent in jobs queued before they were printed). */
  allergens?: string[];
  notes: string | null;
  seat: number | null;
  course: number;
  station: string;
}

/** What a ticket says, kept as JSON in `print_jobs.content` and rendered to ESC/POS when sent. */
export type TicketContent =
  | {
      type: 'ticket' | 'void';
      order: { id: string; number: string; source: string; table_id: string | null; customer_name: string | null; notes: string | null };
      /** Who caused it (created, accepted, fired, voided): the ticket shows their name. */
      staff_id: string | null;
      /** When the kitchen got it: the ticket shows this time in the restaurant's zone. */
      at: string;
      /** A fired course ("Gang 2"), or null for the order's own ticket. */
      fired_course: number | null;
      /** A void ticket: why. */
      reason?: string | null;
      stations: string[];
      lines: TicketLine[];
    }
  | { type: 'test'; at: string; stations: string[] }
  | { type: 'raw'; bytes_b64: string; stations: string[] };

export interface PrinterTarget {
  id: string;
  stations: string[];
}

/** Failed attempts after which a job moves to its printer's fallback (CONTRACT §18). */
export const MOVE_AFTER_ATTEMPTS = 3;

/** Wait before attempt n+1 after n failures: 2 s, 4 s, 8 s … capped at 60 s (cheap when a printer is off all evening). */
export function backoffMs(attempts: number, baseMs = 2000, capMs = 60_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
}

/**
 * A staff order (pos) goes to the kitchen when it is created, and so does a guest's round at the
 * table (a web or partner order with a table: pay-at-table); a web or partner order for pickup or
 * delivery goes when it is accepted (its first move out of `new`).
 */
export function kitchenAtCreation(order: Pick<Order, 'source' | 'table_id'>): boolean {
  return order.source === 'pos' || order.table_id !== null;
}

/** Whether the kitchen has this order by now (so a fired course or a void prints). */
export function kitchenHas(order: Pick<Order, 'source' | 'table_id' | 'status'>): boolean {
  if (order.status === 'cancelled') return false;
  return kitchenAtCreation(order) || order.status !== 'new';
}

/** Whether a status move hands a web or partner order to the kitchen (accepted, or straight to preparing, ready or delivering; not to a final status). */
export function kitchenOnStatus(order: Pick<Order, 'source' | 'table_id'>, from: string, to: string): boolean {
  return !kitchenAtCreation(order) && from === 'new' && to !== 'cancelled' && to !== 'completed' && to !== 'new';
}

const optionLabel = (m: { name: string; quantity: number }) => (m.quantity > 1 ? `${m.quantity}x ${m.name}` : m.name);

/** The order's lines as a ticket shows them, with their station (the product's, else its category's, else keuken). */
export function ticketLines(items: Order['items'], stationOf: (productId: string) => string): TicketLine[] {
  return items.map((i) => ({
    item_id: i.id,
    quantity: i.quantity - i.voided_quantity,
    name: i.name,
    options: i.modifiers.map(optionLabel),
    allergens: i.allergens,
    notes: i.notes,
    seat: i.seat,
    course: i.course,
    station: stationOf(i.product_id),
  }));
}

/** Each printer with the lines of its stations; printers without any are left out (no lines, no ticket). */
export function splitByPrinter<P extends PrinterTarget>(lines: TicketLine[], printers: P[]): Array<{ printer: P; lines: TicketLine[]; stations: string[] }> {
  const out: Array<{ printer: P; lines: TicketLine[]; stations: string[] }> = [];
  for (const printer of printers) {
    const mine = lines.filter((l) => l.quantity > 0 && printer.stations.includes(l.station));
    if (mine.length === 0) continue;
    out.push({ printer, lines: mine, stations: [...new Set(mine.map((l) => l.station))] });
  }
  return out;
}

/** How the ticket names where the order goes: the table, else Afhalen / Bezorgen (from the web order's notes). */
export function destinationOf(order: { table_id: string | null; notes: string | null; source: string }, tableName: string | null): string {
  if (order.table_id) return `Tafel ${tableName ?? '?'}`;
  if (order.notes?.startsWith('[Bezorgen')) return 'Bezorgen';
  if (order.notes?.startsWith('[Afhalen')) return 'Afhalen';
  return order.source === 'pos' ? 'Balie' : 'Afhalen';
}

/** Notes that warn about an allergy: printed set apart (inverse, bold). */
export const isAllergyNote = (text: string) => /allerg|glutenvrij|lactosevrij|notenvrij|coeliak|intoleran/i.test(text);

/** The unique cause of a job, per printer: an order's own ticket, a fired course, a void. */
export const dedupeKey = (cause: string, printerId: string) => `${cause}:${printerId}`;
