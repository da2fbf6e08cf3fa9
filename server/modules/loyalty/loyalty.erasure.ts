import type { Executor } from '../../db/connection.js';
import { nationalDigits, toE164 } from '../../shared/phone.js';
import { deliveryBodies, SlugCache } from '../webhooks/webhooks.bodies.js';

/**
 * A loyalty erasure beyond the loyalty tables (issue 28 point 3, docs/loyalty.md "Privacy"): the
 * person's name, phone and e-mail also sat in their reservations (and those rows' change-log
 * copies), in the webhook deliveries this node keeps (admins read and resend them) and in free-text
 * order notes. This file removes them there, on the node that erases and on the node that applies
 * the erasure through sync (loyalty.ledger.ts `eraseGroup` calls it on both). Like the order rows,
 * these are foreign tables written directly: a sync apply may not call another module's service.
 */

/** Who is erased: what identifies the person in text (taken before the customer rows lose it). */
export interface ErasedPerson {
  /** E.164 numbers of the group's records. */
  phones: string[];
  names: string[];
  emails: string[];
}

/** What a redaction puts where a name, number or e-mail was in free text. */
export const REDACTED = '[gewist]';
/** A reservation's name is required: an erased guest's booking keeps this one. */
export const ERASED_NAME = 'Gewist';

export function personOf(members: ReadonlyArray<{ phone: string | null; name: string | null; email: string | null }>): ErasedPerson {
  const uniq = (xs: Array<string | null | undefined>) => [...new Set(xs.filter((x): x is string => typeof x === 'string' && x.trim().length > 0).map((x) => x.trim()))];
  return { phones: uniq(members.map((m) => (m.phone ? (toE164(m.phone) ?? m.phone) : null))), names: uniq(members.map((m) => m.name)), emails: uniq(members.map((m) => m.email?.toLowerCase())) };
}

export const isEmpty = (p: ErasedPerson) => p.phones.length === 0 && p.names.length === 0 && p.emails.length === 0;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The person's numbers (in any notation: every run of digits and separators whose digits contain the
 * number's national digits), e-mail addresses and full names (two words or more: a first name alone
 * is too common to remove from other guests' notes) replaced by `[gewist]`.
 */
export function scrubText(text: string, who: ErasedPerson): string {
  let out = text;
  const nationals = who.phones.map(nationalDigits).filter((d): d is string => d !== undefined && d.length >= 6);
  if (nationals.length > 0) {
    out = out.replace(/[+\d][\d\s.\-()/]*\d/g, (run) => {
      const digits = run.replace(/\D/g, '');
      return nationals.some((n) => digits.includes(n)) ? REDACTED : run;
    });
  }
  for (const e of who.emails) out = out.replace(new RegExp(escapeRe(e), 'gi'), REDACTED);
  for (const n of who.names) {
    const words = n.split(/\s+/).filter(Boolean);
    if (words.length < 2 || n.length < 5) continue;
    out = out.replace(new RegExp(words.map(escapeRe).join('\\s+'), 'gi'), REDACTED);
  }
  return out;
}

/** Whether a text names the person (what scrubText would change). */
export const mentions = (text: string | null | undefined, who: ErasedPerson) => typeof text === 'string' && scrubText(text, who) !== text;

/** What erasure removes from an object that is about the person (an order of theirs, their booking, their customer record). */
const PERSONAL_KEYS = new Set(['customer', 'customer_name', 'customer_phone', 'customer_email', 'phone', 'email', 'name', 'notes', 'delivery_address']);

/** An object that is about the person (their order, booking or customer record) without its personal fields. */
function scrubTheirs(obj: Record<string, unknown>): Record<string, unknown> {
  const out = { ...obj };
  const booking = 'party_size' in obj;
  for (const k of Object.keys(out)) {
    if (!PERSONAL_KEYS.has(k)) continue;
    // A booking needs a name; a customer record's name goes; anything else named (a dish) keeps it.
    if (k === 'name') {
      if (booking) out.name = ERASED_NAME;
      else if ('phone' in obj || 'email' in obj) out.name = null;
      continue;
    }
    out[k] = null;
  }
  if (Array.isArray(out.items)) out.items = out.items.map((i: unknown) => (i && typeof i === 'object' ? { ...(i as object), notes: null } : i));
  return out;
}

/**
 * A JSON value (a change-log payload, a webhook body) without the person: an object whose `id` is
 * one of `ids` (their orders, bookings, customer records) loses its personal fields (a booking's
 * name becomes `Gewist`; an order's items lose their notes too), and every string left is scrubbed
 * of their numbers, e-mail addresses and full name.
 */
export function scrubJson(value: unknown, ids: ReadonlySet<string>, who: ErasedPerson): unknown {
  if (typeof value === 'string') return scrubText(value, who);
  if (Array.isArray(value)) return value.map((v) => scrubJson(v, ids, who));
  if (!value || typeof value !== 'object') return value;
  const obj = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, scrubJson(v, ids, who)]));
  return typeof obj.id === 'string' && ids.has(obj.id) ? scrubTheirs(obj) : obj;
}

/** A change-log payload or webhook body of one of `ids`: `fields` of an update of theirs lose the personal keys too. */
function scrubRecord(payload: unknown, entityId: string | null, ids: ReadonlySet<string>, who: ErasedPerson): unknown {
  const scrubbed = scrubJson(payload, ids, who) as Record<string, unknown> | unknown;
  if (entityId && ids.has(entityId) && scrubbed && typeof scrubbed === 'object' && !Array.isArray(scrubbed)) {
    const p = scrubbed as Record<string, unknown>;
    if (p.fields && typeof p.fields === 'object') {
      const f = { ...(p.fields as Record<string, unknown>) };
      for (const k of Object.keys(f)) if (PERSONAL_KEYS.has(k)) f[k] = k === 'name' ? ERASED_NAME : null;
      p.fields = f;
    }
  }
  return scrubbed;
}

const CHUNK = 200;
const chunks = <T>(xs: readonly T[], n = CHUNK) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/** Their orders' free text goes entirely (the order and its items): it may hold an address, an allergy, a name. */
export async function forgetOrderNotes(db: Executor, tenantId: string, orderIds: readonly string[]): Promise<void> {
  for (const part of chunks(orderIds)) {
    await db.updateTable('orders').set({ notes: null }).where('tenant_id', '=', tenantId).where('id', 'in', part).where('notes', 'is not', null).execute();
    await db.updateTable('order_items').set({ notes: null }).where('tenant_id', '=', tenantId).where('order_id', 'in', part).where('notes', 'is not', null).execute();
  }
}

/** Nobody to find in text: only the records named by id are redacted. */
export const NOBODY: ErasedPerson = { phones: [], names: [], emails: [] };

/** The person's bookings: by any of their numbers (in any notation) or e-mail addresses. */
export async function reservationsOf(db: Executor, tenantId: string, who: ErasedPerson): Promise<string[]> {
  if (who.phones.length === 0 && who.emails.length === 0) return [];
  const rows = await db
    .selectFrom('reservations')
    .select(['id', 'phone', 'email'])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('phone', 'is not', null), eb('email', 'is not', null)]))
    .execute();
  const phones = new Set(who.phones);
  const emails = new Set(who.emails);
  return rows.filter((r) => (r.phone && phones.has(toE164(r.phone) ?? r.phone)) || (r.email && emails.has(r.email.trim().toLowerCase()))).map((r) => r.id);
}

/**
 * Removes the person from this node's reservations, order notes, change-log copies and webhook
 * deliveries. `orderIds` are their orders (linked by number or points: their notes go entirely,
 * an address for delivery included); other orders' notes lose only the person's number, e-mail and
 * full name. Idempotent. Returns the bookings it redacted (they travel in the erasure's payload).
 */
export async function redactPerson(db: Executor, tenantId: string, who: ErasedPerson, input: { customerIds: string[]; orderIds: string[]; reservationIds: string[] }): Promise<{ reservationIds: string[]; orderIds: string[] }> {
  const reservationIds = [...new Set([...input.reservationIds, ...(await reservationsOf(db, tenantId, who))])].sort();
  // Bookings: the name a booking needs becomes "Gewist"; number, e-mail and notes go.
  for (const part of chunks(reservationIds)) {
    await db
      .updateTable('reservations')
      .set({ name: ERASED_NAME, phone: null, email: null, notes: null })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', part)
      .where((eb) => eb.or([eb('name', '!=', ERASED_NAME), eb('phone', 'is not', null), eb('email', 'is not', null), eb('notes', 'is not', null)]))
      .execute();
  }
  await forgetOrderNotes(db, tenantId, input.orderIds);
  // Other orders' notes that name the person (a number typed into a note).
  const mentioned = new Set<string>();
  if (!isEmpty(who)) {
    for (const o of await db.selectFrom('orders').select(['id', 'notes']).where('tenant_id', '=', tenantId).where('notes', 'is not', null).execute()) {
      if (!mentions(o.notes, who)) continue;
      await db.updateTable('orders').set({ notes: scrubText(o.notes!, who) }).where('id', '=', o.id).execute();
      mentioned.add(o.id);
    }
    for (const i of await db.selectFrom('order_items').select(['id', 'order_id', 'notes']).where('tenant_id', '=', tenantId).where('notes', 'is not', null).execute()) {
      if (!mentions(i.notes, who)) continue;
      await db.updateTable('order_items').set({ notes: scrubText(i.notes!, who) }).where('id', '=', i.id).execute();
      mentioned.add(i.order_id);
    }
  }
  const theirs = new Set([...input.customerIds, ...input.orderIds, ...reservationIds]);
  // The change-log copies of those bookings and orders (also an appliance's unpushed ops).
  for (const [entity, ids] of [['reservation', reservationIds], ['order', [...new Set([...input.orderIds, ...mentioned])]]] as const) {
    for (const part of chunks(ids)) {
      const rows = await db.selectFrom('change_log').select(['op_id', 'entity_id', 'payload']).where('tenant_id', '=', tenantId).where('entity', '=', entity).where('entity_id', 'in', part).execute();
      for (const c of rows) {
        const next = JSON.stringify(scrubRecord(JSON.parse(c.payload) as unknown, c.entity_id, theirs, who));
        if (next !== c.payload) await db.updateTable('change_log').set({ payload: next, as_sent: 0 }).where('op_id', '=', c.op_id).execute(); // no longer as a device sent it (bare echoes, migration 0027)
      }
    }
  }
  // Webhook deliveries this node keeps (sent, pending or failed; an admin may read and resend them).
  const refs = [...theirs, ...mentioned];
  // Narrow ones have no body of their own: it is made from their change-log row when sent or read
  // (webhooks.bodies.ts). Those whose row mentions the person get their body made here (from the row
  // as it now stands) and stored redacted, in one write, so it stays so; the loop after this one
  // redacts the bodies stored before (it does not see these again: what it would change is gone).
  const scrubbed = (body: string) => JSON.stringify(scrubJson(JSON.parse(body) as unknown, theirs, who));
  const slugs = new SlugCache();
  for (const part of chunks(refs, 50)) {
    const narrow = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('change_log as c', (j) => j.onRef('c.tenant_id', '=', 'd.tenant_id').onRef('c.op_id', '=', 'd.event_id'))
      .select(['d.id', 'd.tenant_id', 'd.event_id', 'd.body'])
      .where('d.tenant_id', '=', tenantId)
      .where('d.body', '=', '')
      .where((eb) => eb.or(part.map((id) => eb('c.payload', 'like', `%${id}%`))))
      .execute();
    const bodies = await deliveryBodies(db, narrow, slugs);
    for (const d of narrow) {
      const body = bodies.get(d.id);
      if (!body) continue;
      // As the loop below would: only a body that names one of the person's records is redacted.
      await db.updateTable('webhook_deliveries').set({ body: refs.some((id) => body.includes(id)) ? scrubbed(body) : body }).where('id', '=', d.id).execute();
    }
  }
  for (const part of chunks(refs, 50)) {
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'body'])
      .where('tenant_id', '=', tenantId)
      .where((eb) => eb.or(part.map((id) => eb('body', 'like', `%${id}%`))))
      .execute();
    for (const d of rows) {
      const next = scrubbed(d.body);
      if (next !== d.body) await db.updateTable('webhook_deliveries').set({ body: next }).where('id', '=', d.id).execute();
    }
  }
  return { reservationIds, orderIds: [...mentioned].sort() };
}
