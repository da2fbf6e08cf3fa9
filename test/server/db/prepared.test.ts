import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { prepared } from '../../../server/db/prepared.js';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

describe(`prepared queries: compiled once, the same rows as Kysely's own (${lane})`, () => {
  it('a select with a value and a list of any length, inside and outside a transaction; constants of the query kept; misuse refused', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    const db = t.handle.db;
    const users = prepared((exec, tenantId: string, names: string[], limit: number) =>
      exec.selectFrom('users').select(['id', 'name']).where('tenant_id', '=', tenantId).where('name', 'in', names).where('archived_at', 'is', null).orderBy('name').limit(limit),
    );
    const direct = (tenantId: string, names: string[], limit: number) =>
      db.selectFrom('users').select(['id', 'name']).where('tenant_id', '=', tenantId).where('name', 'in', names).where('archived_at', 'is', null).orderBy('name').limit(limit).execute();
    const all = await db.selectFrom('users').select('name').where('tenant_id', '=', a.id).execute();
    expect(all.length).toBeGreaterThan(1);
    const names = all.map((u) => u.name);
    for (const [tenantId, ns, limit] of [
      [a.id, names, 10],
      [a.id, names.slice(0, 1), 10],
      [b.id, names, 10],
      [a.id, names, 1],
      [a.id, [...names, 'niemand'], 10],
    ] as const) {
      const got = await users(db, tenantId, [...ns], limit);
      expect(got).toEqual(await direct(tenantId, [...ns], limit));
    }
    expect((await users(db, a.id, names, 10)).length).toBe(names.length);
    // Through a transaction: the same compiled statement.
    const expected = await direct(a.id, names, 10);
    await db.transaction().execute(async (trx) => {
      expect(await users(trx, a.id, names, 10)).toEqual(expected);
    });
    // An argument that is not only a bound value (inspected, or written into the SQL) is refused.
    const literal = prepared((exec, name: string) => exec.selectFrom('users').select('id').where('name', '=', sql.lit(name)));
    await expect(literal(db, 'x')).rejects.toThrow(/prepared/);
  });

  it('an insert of rows (columns by row, undefined left out) writes what Kysely writes', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const db = t.handle.db;
    const insert = prepared((exec, rows: Array<{ key: string; value: string }>) => exec.insertInto('meta').values(rows));
    await insert(db, [
      { key: `p-${a.id}-1`, value: 'een' },
      { key: `p-${a.id}-2`, value: 'twee' },
    ]);
    await insert(db, [{ key: `p-${a.id}-3`, value: 'drie' }]);
    const rows = await db.selectFrom('meta').selectAll().where('key', 'like', `p-${a.id}-%`).orderBy('key').execute();
    expect(rows).toEqual([
      { key: `p-${a.id}-1`, value: 'een' },
      { key: `p-${a.id}-2`, value: 'twee' },
      { key: `p-${a.id}-3`, value: 'drie' },
    ]);
  });
});
