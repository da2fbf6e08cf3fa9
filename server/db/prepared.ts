import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './connection.js';

/** What a prepared query takes: values, lists of values, rows (objects of values) or lists of rows. */
type Scalar = string | number | null;
/** A row: any object of column values (a table's interface too, which has no index signature). */
type Row = object;
const field = (r: Row, key: string): unknown => (r as Record<string, unknown>)[key];
export type PreparedArg = Scalar | readonly Scalar[] | Row | readonly Row[];

/** Where a compiled query's parameter comes from: a constant of the query, or a path into the call's arguments. */
type Slot = { value: unknown } | { arg: number; index: number; key: string | null };

interface Template {
  compiled: CompiledQuery;
  slots: Slot[];
}

/**
 * An argument's shape as `keyOf` keys it, kept to compare a call's arguments with directly: a value
 * (null), a list of values (its length), a row (its columns), a list of rows (each row's columns).
 */
type ArgShape = null | number | { columns: readonly string[] } | { rows: ReadonlyArray<readonly string[]> };

/** The templates of one database: by shape key, and the last few used with their shapes (checked first, no key built). */
interface Templates {
  byShape: Map<string, Template>;
  recent: Array<{ shapes: ArgShape[]; template: Template }>;
}

const MAX_SHAPES = 64;
const RECENT = 4;

/**
 * A query built and compiled by Kysely once (per database, and per shape of its arguments: a list's
 * length, a row's columns) and then run with each call's own values. Kysely builds an operation tree
 * and compiles it to SQL text for every query it runs; on the hot paths (the kitchen board, an
 * order) that cost as much as SQLite running the statements (bench/README.md "The order path,
 * session 11"). The SQL and the rows are exactly what `build(db, ...args).execute()` gives.
 *
 * `build` is called once per shape with placeholders instead of the arguments (a unique string per
 * value, also inside lists and rows). So it may use an argument only as a bound value (a `where`
 * operand, an `in` list, an inserted or updated row), never inspect it or put it in `sql.lit`:
 * `prepared` checks that every placeholder became exactly one parameter and throws otherwise.
 */
export function prepared<A extends PreparedArg[], O>(build: (db: Executor, ...args: A) => Compilable<O>): (db: Executor, ...args: A) => Promise<O[]> {
  // Per database (its dialect adapter; a transaction shares its database's), per shape.
  const templates = new WeakMap<object, Templates>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let mine = templates.get(adapter);
    if (!mine) templates.set(adapter, (mine = { byShape: new Map(), recent: [] }));
    // The shapes a query is called with are few (an order's rows, a list of one or of 40 ids): the
    // last few are compared with the arguments first, without building and hashing a key per call.
    let t: Template | undefined;
    for (const r of mine.recent) {
      if (sameShapes(args, r.shapes)) {
        t = r.template;
        break;
      }
    }
    if (!t) {
      const shapes = args.map(argShape);
      const key = keyOf(shapes);
      t = mine.byShape.get(key);
      if (!t) {
        t = template(db, build, args);
        if (mine.byShape.size >= MAX_SHAPES) mine.byShape.delete(mine.byShape.keys().next().value!);
        mine.byShape.set(key, t);
      }
      mine.recent.unshift({ shapes, template: t });
      if (mine.recent.length > RECENT) mine.recent.pop();
    }
    const parameters = t.slots.map((s) => {
      if ('value' in s) return s.value;
      const a = args[s.arg] as unknown;
      const v = s.index < 0 ? a : (a as readonly unknown[])[s.index];
      return s.key === null ? v : field(v as Row, s.key);
    });
    const result = await db.executeQuery<O>({ ...(t.compiled as CompiledQuery<O>), parameters });
    return result.rows;
  };
}

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A row's columns as Kysely writes them: an undefined value is no column. */
const columnsOf = (r: Row): string[] => Object.keys(r).filter((k) => field(r, k) !== undefined);

/** An argument's shape (see ArgShape), keyed by `keyOf`. */
function argShape(a: PreparedArg): ArgShape {
  if (Array.isArray(a)) return a.length > 0 && isRow(a[0]) ? { rows: (a as Row[]).map(columnsOf) } : a.length;
  if (isRow(a)) return { columns: columnsOf(a) };
  return null;
}

/** A row's columns (its defined keys, in order) are exactly `columns`: `columnsOf(r)` equals it. */
function hasColumns(r: Row, columns: readonly string[]): boolean {
  const keys = Object.keys(r);
  let n = 0;
  for (const k of keys) {
    if (field(r, k) === undefined) continue;
    if (columns[n] !== k) return false;
    n++;
  }
  return n === columns.length;
}

/** The arguments have these shapes (`argShape` of each would equal them). */
function sameShapes(args: readonly PreparedArg[], shapes: readonly ArgShape[]): boolean {
  if (args.length !== shapes.length) return false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const s = shapes[i];
    if (Array.isArray(a)) {
      if (s === null || (typeof s === 'object' && 'columns' in s)) return false;
      if (typeof s === 'number') {
        if (a.length !== s || (s > 0 && isRow(a[0]))) return false;
        continue;
      }
      const rows = s!.rows;
      if (a.length !== rows.length || !isRow(a[0])) return false;
      for (let j = 0; j < rows.length; j++) if (!hasColumns(a[j] as Row, rows[j]!)) return false;
    } else if (isRow(a)) {
      if (s === null || typeof s !== 'object' || !('columns' in s) || !hasColumns(a, s.columns)) return false;
    } else if (s !== null) return false;
  }
  return true;
}

/** The key of the arguments' shapes: lists by length, rows by their columns (in order). */
function keyOf(shapes: readonly ArgShape[]): string {
  let key = '';
  for (const s of shapes) {
    if (s === null) key += '.';
    else if (typeof s === 'number') key += `[${s}]`;
    else if ('columns' in s) key += `{${s.columns.join(',')}}`;
    else key += `[${s.rows.length}${s.rows.map((c) => `{${c.join(',')}}`).join('')}]`;
    key += '|';
  }
  return key;
}

function template<A extends PreparedArg[], O>(db: Executor, build: (db: Executor, ...args: A) => Compilable<O>, args: A): Template {
  const marks = new Map<string, Slot>();
  const mark = (arg: number, index: number, key: string | null) => {
    const m = `\u0000prepared:${arg}:${index}:${key ?? ''}\u0000`;
    marks.set(m, { arg, index, key });
    return m;
  };
  const rowOf = (r: Row, arg: number, index: number) => Object.fromEntries(columnsOf(r).map((k) => [k, mark(arg, index, k)]));
  const placeholders = args.map((a, i) => {
    if (Array.isArray(a)) return a.map((x: unknown, j) => (isRow(x) ? rowOf(x, i, j) : mark(i, j, null)));
    if (isRow(a)) return rowOf(a, i, -1);
    return mark(i, -1, null);
  }) as unknown as A;
  const compiled = build(db, ...placeholders).compile();
  const used = new Set<string>();
  const slots = compiled.parameters.map((p): Slot => {
    if (typeof p === 'string' && marks.has(p)) {
      if (used.has(p)) throw new Error(`prepared: a placeholder is bound twice in ${compiled.sql}`);
      used.add(p);
      return marks.get(p)!;
    }
    if (typeof p === 'string' && p.includes('\u0000prepared:')) throw new Error(`prepared: a placeholder was changed before it was bound in ${compiled.sql}`);
    return { value: p };
  });
  if (used.size !== marks.size || compiled.sql.includes('\u0000prepared:')) throw new Error(`prepared: not every argument is a bound value of ${compiled.sql}`);
  return { compiled, slots };
}
