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

const MAX_SHAPES = 64;

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
  const templates = new WeakMap<object, Map<string, Template>>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let byShape = templates.get(adapter);
    if (!byShape) templates.set(adapter, (byShape = new Map()));
    const key = shapeOf(args);
    let t = byShape.get(key);
    if (!t) {
      t = template(db, build, args);
      if (byShape.size >= MAX_SHAPES) byShape.delete(byShape.keys().next().value!);
      byShape.set(key, t);
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

/** Lists by length, rows by their columns (in order). */
function shapeOf(args: readonly PreparedArg[]): string {
  let key = '';
  for (const a of args) {
    if (Array.isArray(a)) {
      key += `[${a.length}`;
      if (a.length > 0 && isRow(a[0])) for (const r of a as Row[]) key += `{${columnsOf(r).join(',')}}`;
      key += ']';
    } else if (isRow(a)) key += `{${columnsOf(a).join(',')}}`;
    else key += '.';
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
