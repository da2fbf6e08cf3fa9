import path from 'node:path';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../../server/db/connection.js';
import { freshDb, lane, type TestDb } from '../../helpers/db.js';
import { ROOT } from '../../helpers/process.js';

/**
 * The hand-kept table types (server/db/database.ts composing server/db/tables/<area>.ts) against the
 * schema the migrations build, on this lane's engine: the same tables, each with the same columns,
 * and a column may hold null exactly when its type says `| null`.
 */

interface Column {
  nullable: boolean;
}
type Tables = Map<string, Map<string, Column>>;

/** The `Database` interface as the TypeScript compiler reads it: table → column → nullable. */
function tablesFromTypes(): Tables {
  const file = path.join(ROOT, 'server/db/database.ts');
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(errors).toEqual([]);
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const database = checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'Database');
  expect(database, 'server/db/database.ts exports Database').toBeDefined();
  const tables: Tables = new Map();
  for (const table of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(database!))) {
    const columns = new Map<string, Column>();
    for (const column of checker.getPropertiesOfType(checker.getTypeOfSymbol(table))) {
      let type = checker.getTypeOfSymbol(column);
      // Kysely's ColumnType/Generated: what a select returns.
      const selected = type.getProperty('__select__');
      if (selected) type = checker.getTypeOfSymbol(selected);
      const parts = type.isUnion() ? type.types : [type];
      columns.set(column.name, { nullable: parts.some((p) => (p.flags & ts.TypeFlags.Null) !== 0) });
    }
    tables.set(table.name, columns);
  }
  return tables;
}

/** The migrated schema: table → column → nullable (Kysely's own migration tables left out). */
async function tablesFromSchema(db: TestDb): Promise<Tables> {
  const tables: Tables = new Map();
  const add = (table: string, column: string, nullable: boolean) => {
    if (table.startsWith('kysely_')) return;
    if (!tables.has(table)) tables.set(table, new Map());
    tables.get(table)!.set(column, { nullable });
  };
  const handle = db.handle;
  if (handle.dialect === 'postgres') {
    const { rows } = await sql<{ table_name: string; column_name: string; is_nullable: 'YES' | 'NO' }>`
      select c.table_name, c.column_name, c.is_nullable
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = ${handle.pgSchema ?? sql`current_schema()`}`.execute(handle.db);
    for (const r of rows) add(r.table_name, r.column_name, r.is_nullable === 'YES');
  } else {
    // SQLite lets a non-integer PRIMARY KEY column hold null unless it says NOT NULL; nothing here
    // writes one, and the types rightly say it is never null: a key column counts as not null.
    const { rows } = await sql<{ table_name: string; column_name: string; notnull: number; pk: number }>`
      select m.name as table_name, p.name as column_name, p."notnull" as "notnull", p.pk as pk
      from sqlite_master m, pragma_table_info(m.name) p
      where m.type = 'table' and m.name not like 'sqlite_%'`.execute(handle.db);
    for (const r of rows) add(r.table_name, r.column_name, r.notnull === 0 && r.pk === 0);
  }
  return tables;
}

/** Every difference, one line each, e.g. "orders.notes: nullable in the schema, not in the types". */
function differences(types: Tables, schema: Tables): string[] {
  const out: string[] = [];
  for (const table of new Set([...types.keys(), ...schema.keys()])) {
    const t = types.get(table);
    const s = schema.get(table);
    if (!t) out.push(`${table}: a table in the schema, missing from the types`);
    else if (!s) out.push(`${table}: in the types, no such table in the schema`);
    else {
      for (const column of new Set([...t.keys(), ...s.keys()])) {
        const tc = t.get(column);
        const sc = s.get(column);
        if (!tc) out.push(`${table}.${column}: a column in the schema, missing from the types`);
        else if (!sc) out.push(`${table}.${column}: in the types, no such column in the schema`);
        else if (tc.nullable !== sc.nullable) out.push(`${table}.${column}: ${sc.nullable ? 'nullable' : 'not null'} in the schema, ${tc.nullable ? 'nullable' : 'not null'} in the types`);
      }
    }
  }
  return out.sort();
}

describe(`table types match the migrated schema (${lane})`, () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await freshDb();
    await migrateToLatest(db.handle.db, { pgSchema: db.handle.pgSchema });
  });
  afterAll(async () => {
    await db.handle.close();
    await db.drop();
  });

  it('the same tables and columns, and the same nullability, as server/db/database.ts says', async () => {
    const types = tablesFromTypes();
    const schema = await tablesFromSchema(db);
    // Neither side read as empty (a comparison of nothing with nothing would pass).
    expect(types.size).toBeGreaterThanOrEqual(50);
    expect(schema.size).toBeGreaterThanOrEqual(50);
    expect(types.get('orders')?.get('status')).toEqual({ nullable: false });
    expect(types.get('orders')?.get('table_id')).toEqual({ nullable: true });
    expect(schema.get('orders')?.get('table_id')).toEqual({ nullable: true });
    expect(types.get('haccp_temperature_logs')?.has('hash'), 'columns of an extended interface (HaccpChained) count').toBe(true);
    expect(differences(types, schema)).toEqual([]);
  });

  it('the comparison names a column missing on either side and a nullability that differs', () => {
    const types: Tables = new Map([['orders', new Map([['id', { nullable: false }], ['notes', { nullable: false }]])]]);
    const schema: Tables = new Map([
      ['orders', new Map([['id', { nullable: false }], ['notes', { nullable: true }], ['extra', { nullable: true }]])],
      ['bills', new Map([['id', { nullable: false }]])],
    ]);
    expect(differences(types, schema)).toEqual([
      'bills: a table in the schema, missing from the types',
      'orders.extra: a column in the schema, missing from the types',
      'orders.notes: nullable in the schema, not null in the types',
    ]);
    expect(differences(schema, types)).toEqual([
      'bills: in the types, no such table in the schema',
      'orders.extra: in the types, no such column in the schema',
      'orders.notes: not null in the schema, nullable in the types',
    ]);
  });
});
