import { z } from 'zod';
import { insertRows } from '../server/db/bulk.js';
import type { Tx } from '../server/db/connection.js';
import { describeIssues } from '../server/shared/validation.js';
import { knownRefs } from './batch-store.js';
import { RejectOp, type ApplyBatch, type ApplyContext, type BatchState, type SyncChange, type TableName } from './types.js';

/**
 * Insert the row, or overwrite every given column of the row with that id (state down / LWW on
 * the whole snapshot). Idempotent. Columns not given are left as they are, so a snapshot from an
 * older peer does not null newer columns.
 */
export async function upsertById(trx: Tx, table: TableName, row: { id: string } & Record<string, unknown>): Promise<void> {
  const { id, ...rest } = row;
  const t = table as 'users';
  const existing = await trx.selectFrom(t).select('id').where('id', '=', id).executeTakeFirst();
  if (existing) {
    if (Object.keys(rest).length > 0) await trx.updateTable(t).set(rest as never).where('id', '=', id).execute();
  } else {
    await trx.insertInto(t).values(row as never).execute();
  }
}

/**
 * Ledger rows: insert if no row with this id exists; never update (a union keyed by id). One
 * statement (`on conflict (id) do nothing`, PostgreSQL and SQLite alike); a conflict on another
 * unique key still throws, as a plain insert would.
 */
export async function insertIfAbsent(trx: Tx, table: TableName, row: { id: string } & Record<string, unknown>): Promise<boolean> {
  return (await insertManyIfAbsent(trx, table, [row])) === 1;
}

/**
 * `insertIfAbsent` for many rows of one table (same columns): multi-row statements written without
 * Kysely's builder (`insertRows`, server/db/bulk.ts: one json parameter per statement on PostgreSQL,
 * SQL text kept per shape on SQLite); returns how many were inserted.
 */
export async function insertManyIfAbsent(trx: Tx, table: TableName, rows: ReadonlyArray<{ id: string } & Record<string, unknown>>): Promise<number> {
  return insertRows(trx, table, rows, { columns: ['id'], action: 'nothing' });
}

/**
 * `upsertById` for many rows of one table in multi-row statements (`on conflict (id) do update`):
 * rows are grouped by the columns they carry (a peer may send fewer), and each row's given columns
 * overwrite the stored ones. For a batch's flush.
 */
export async function upsertManyById(trx: Tx, table: TableName, rows: Iterable<{ id: string } & Record<string, unknown>>): Promise<void> {
  const groups = new Map<string, Array<{ id: string } & Record<string, unknown>>>();
  for (const row of rows) {
    const cols = Object.keys(row).sort().join(',');
    let group = groups.get(cols);
    if (!group) groups.set(cols, (group = []));
    group.push(row);
  }
  for (const group of groups.values()) {
    const cols = Object.keys(group[0]!).filter((c) => c !== 'id');
    await insertRows(trx, table, group, { columns: ['id'], action: 'update', set: cols });
  }
}

/** Keeps only the keys that are columns of the table, so unknown fields from a newer peer do not break the insert. */
export function pick<T extends object>(source: Record<string, unknown>, keys: readonly (keyof T & string)[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in source) out[k] = source[k];
  return out as Partial<T>;
}

type LedgerRow = { id: string } & Record<string, unknown>;

/**
 * The per-transaction batch behind `ApplyContext.batch` and `deferLedger`: descriptors' states,
 * flushed in the order they were created, then the deferred ledger rows (which may reference rows
 * those states write, e.g. status history → orders).
 */
export class TxBatch implements ApplyBatch {
  private readonly states = new Map<string, BatchState>();
  private readonly ledger = new Map<TableName, Map<string, LedgerRow>>();

  /** `changes`: what the batch will apply (ApplyBatch.changes), for states that prefetch. */
  constructor(readonly changes: ReadonlyArray<SyncChange> = []) {}

  has(key: string): boolean {
    return this.states.has(key);
  }

  state<T extends BatchState>(key: string, create: () => T): T {
    let s = this.states.get(key);
    if (!s) this.states.set(key, (s = create()));
    return s as T;
  }

  readonly deferLedger = (table: TableName, row: LedgerRow): void => {
    let rows = this.ledger.get(table);
    if (!rows) this.ledger.set(table, (rows = new Map()));
    if (!rows.has(row.id)) rows.set(row.id, row);
  };

  /** The context fields for an apply inside this batch. */
  get context(): Pick<ApplyContext, 'batch' | 'deferLedger'> {
    return { batch: this, deferLedger: this.deferLedger };
  }

  async flush(trx: Tx): Promise<void> {
    for (const s of this.states.values()) await s.flush(trx);
    for (const [table, rows] of this.ledger) await insertManyIfAbsent(trx, table, [...rows.values()]);
    this.states.clear();
    this.ledger.clear();
  }
}

/**
 * A pushed payload is validated like an API request (issue 17): parse it with the same zod schema
 * the API uses (strings free of NUL bytes, ISO timestamps, UUID ids, the API's size limits); what
 * the API would refuse is a permanent rejection of this op, recorded and acknowledged.
 *
 * `ctx.snapshot` (a row of the cloud's snapshot, sync/types.ts): the payload's shape is checked
 * first (`shapeOf`: JSON types, required fields, integers, enums and literals; unknown fields
 * dropped and defaults filled as zod does), without the field rules (formats, lengths, ranges,
 * refinements) that the cloud enforced when the row came in. A payload that fails it, or a schema
 * the shape check does not cover, goes through zod as before, so what is refused is refused alike.
 */
export function parsePayload<T>(schema: z.ZodType<T>, payload: unknown, what: string, ctx?: { snapshot?: boolean }): T {
  if (ctx?.snapshot) {
    const shape = shapeOf(schema);
    if (shape) {
      const v = shape(payload);
      if (v !== MISFIT) return v as T;
    }
  }
  // A schema marked by `pushedPayload` runs zod's compiled fast path; what it does not accept goes through the schema itself (the same issues).
  const r = ((compiledPayloadOf(schema) as z.ZodType<T> | undefined) ?? schema).safeParse(payload);
  if (r.success) return r.data;
  // The API's own Dutch sentence for the first problem, e.g. "'items.0.quantity' moet maximaal 999 zijn."
  const first = r.error.issues[0];
  const sentence = first
    ? describeIssues([{ path: first.path, message: first.message, code: first.code, keys: 'keys' in first ? (first.keys as string[]) : undefined }])[0]!.error
    : 'is ongeldig.';
  throw new RejectOp(`Ongeldige wijziging voor ${what}: ${sentence.replace(/\.$/, '')}.`);
}

/**
 * The payload schemas marked by `pushedPayload`: their compiled twin (`z.compile`) once made, `false`
 * if zod could not compile the schema, `null` while no parse has asked for it yet.
 */
const compiledPayloads = new WeakMap<object, z.ZodType | false | null>();
/** Every schema marked by `pushedPayload`, by name (for the differential test: test/sync/push-payload-compiled.property.test.ts). */
export const PUSHED_PAYLOADS = new Map<string, z.ZodType>();

/**
 * Marks a payload schema that a push parses for thousands of ops (orders, journal entries, stock
 * movements ...): `parsePayload` then parses with zod's own ahead-of-time compiled copy of it
 * (`z.compile`: generated code for the schema's types, formats, lengths, ranges, defaults and
 * refinements, the same parsed value). An input the compiled code does not accept is parsed by the
 * schema itself, so what is refused is refused with the same issues, hence the same Dutch sentence.
 * The copy is made at the schema's first parse, not at start-up (≈ 15–20 ms for all of them, which a
 * process that never parses a pushed op would pay for nothing). A schema zod cannot compile stays on
 * the runtime parser. Returns `schema` itself.
 */
export function pushedPayload<S extends z.ZodType>(name: string, schema: S): S {
  compiledPayloads.set(schema, null);
  PUSHED_PAYLOADS.set(name, schema);
  return schema;
}

/** The compiled twin `parsePayload` uses for a schema marked by `pushedPayload` (made now if not yet), if zod could compile it. */
export function compiledPayloadOf(schema: z.ZodType): z.ZodType | undefined {
  let compiled = compiledPayloads.get(schema);
  if (compiled === null) {
    const made = z.compile(schema);
    compiled = made === schema ? false : made;
    compiledPayloads.set(schema, compiled);
  }
  return compiled || undefined;
}

/**
 * A reference inside a pushed payload (a product's category, an order's table ...) must name a row
 * of the same tenant; otherwise the op is rejected (never a link into another restaurant). Inside a
 * batch (`batch`: ApplyContext.batch) an id found once is not looked up again (rows of a tenant do
 * not move to another tenant, and sync never deletes the rows referred to).
 */
export async function assertTenantRef(trx: Tx, table: TableName, id: string | null | undefined, tenantId: string, what: string, batch?: ApplyBatch): Promise<void> {
  if (id === null || id === undefined) return;
  await assertTenantRefs(trx, table, [id], tenantId, what, batch);
}

/** `assertTenantRef` for several ids of one table: one statement for those the batch has not seen yet. */
export async function assertTenantRefs(trx: Tx, table: TableName, ids: ReadonlyArray<string | null | undefined>, tenantId: string, what: string, batch?: ApplyBatch): Promise<void> {
  const known = knownRefs(batch, table);
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string' && !known?.has(id)))];
  if (wanted.length === 0) return;
  const rows = await trx
    .selectFrom(table as 'users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', wanted)
    .execute();
  if (rows.length !== wanted.length) throw new RejectOp(`${what} bestaat niet bij dit restaurant.`);
  for (const r of rows) known?.add(r.id);
}

/** `out[k] = v` as an own property, also for a key `__proto__` (JSON.parse makes it an own key; an assignment would set the prototype). */
const put = (out: Record<string, unknown>, k: string, v: unknown): void => {
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
};

/** What a shape check answers for a value that does not fit (zod then decides). */
const MISFIT: unique symbol = Symbol('misfit');
type Shape = (v: unknown) => unknown;
const shapes = new WeakMap<object, Shape | null>();

/** The zod 4 definition of a schema (`_zod.def`), as far as `shapeOf` reads it. */
interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  catchall?: { _zod: { def: Def } };
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  keyType?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
  options?: Array<{ _zod: { def: Def } }>;
  entries?: Record<string, unknown>;
  values?: unknown[];
  defaultValue?: unknown;
  coerce?: boolean;
  checks?: Array<{ _zod: { def: { check?: string } } }>;
}

/**
 * A cheap check of a value against a zod schema's shape (for `parsePayload` on snapshot rows), or
 * null when the schema holds something it does not cover (transforms, pipes, coercion, records ...).
 * Kept: JSON types, required fields, null only where nullable, integers where `int()`, enum and
 * literal values, unions (first option that fits), unknown fields dropped (kept for `loose`
 * objects, refused for `strict`), defaults filled. Not checked: string formats and lengths,
 * numeric ranges, array sizes, refinements. Compiled once per schema.
 */
export function shapeOf(schema: unknown): Shape | null {
  const key = schema as object;
  let s = shapes.get(key);
  if (s === undefined) {
    s = compileShape((schema as { _zod?: { def?: Def } })._zod?.def);
    shapes.set(key, s);
  }
  return s;
}

function compileShape(def: Def | undefined): Shape | null {
  if (!def) return null;
  const inner = (d: { _zod: { def: Def } } | undefined) => compileShape(d?._zod.def);
  switch (def.type) {
    case 'string':
      if (def.coerce) return null;
      return (v) => (typeof v === 'string' ? v : MISFIT);
    case 'number': {
      if (def.coerce) return null;
      const int = def.checks?.some((c) => c._zod.def.check === 'number_format') ?? false;
      return (v) => (typeof v === 'number' && (int ? Number.isSafeInteger(v) : Number.isFinite(v)) ? v : MISFIT);
    }
    case 'boolean':
      if (def.coerce) return null;
      return (v) => (typeof v === 'boolean' ? v : MISFIT);
    case 'null':
      return (v) => (v === null ? v : MISFIT);
    case 'unknown':
    case 'any':
      return (v) => v;
    case 'enum': {
      const allowed = new Set(Object.values(def.entries ?? {}));
      return (v) => (allowed.has(v) ? v : MISFIT);
    }
    case 'literal': {
      const allowed = new Set(def.values ?? []);
      return (v) => (allowed.has(v) ? v : MISFIT);
    }
    case 'nullable': {
      const i = inner(def.innerType);
      return i && ((v) => (v === null ? v : i(v)));
    }
    case 'optional': {
      const i = inner(def.innerType);
      return i && ((v) => (v === undefined ? v : i(v)));
    }
    case 'default': {
      const i = inner(def.innerType);
      const fill = () => {
        const d = def.defaultValue;
        return Array.isArray(d) ? [...(d as unknown[])] : d !== null && typeof d === 'object' ? { ...d } : d;
      };
      return i && ((v) => (v === undefined ? fill() : i(v)));
    }
    case 'array': {
      const e = inner(def.element);
      if (!e) return null;
      return (v) => {
        if (!Array.isArray(v)) return MISFIT;
        const out: unknown[] = new Array(v.length);
        for (let k = 0; k < v.length; k++) if ((out[k] = e(v[k])) === MISFIT) return MISFIT;
        return out;
      };
    }
    case 'record': {
      // Keys as zod's string key type takes them (an object's own enumerable keys); values by their shape.
      if ((def.keyType?._zod.def.type ?? '') !== 'string') return null;
      const value = inner(def.valueType);
      if (!value) return null;
      return (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return MISFIT;
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) {
          const r = value(x);
          if (r === MISFIT) return MISFIT;
          put(out, k, r);
        }
        return out;
      };
    }
    case 'union': {
      const options = (def.options ?? []).map((o) => inner(o));
      if (options.length === 0 || options.some((o) => o === null)) return null;
      return (v) => {
        for (const o of options as Shape[]) {
          const r = o(v);
          if (r !== MISFIT) return r;
        }
        return MISFIT;
      };
    }
    case 'object': {
      const fields: Array<[string, Shape]> = [];
      for (const [k, f] of Object.entries(def.shape ?? {})) {
        const c = inner(f);
        if (!c) return null;
        fields.push([k, c]);
      }
      const extra = def.catchall?._zod.def.type;
      if (extra !== undefined && extra !== 'unknown' && extra !== 'never') return null;
      const known = new Set(fields.map(([k]) => k));
      return (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return MISFIT;
        const src = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        if (extra !== undefined) {
          for (const k in src) {
            if (known.has(k)) continue;
            if (extra === 'never') return MISFIT;
            put(out, k, src[k]);
          }
        }
        for (const [k, c] of fields) {
          const r = c(src[k]);
          if (r === MISFIT) return MISFIT;
          if (r !== undefined) out[k] = r;
        }
        return out;
      };
    }
    default:
      return null;
  }
}
