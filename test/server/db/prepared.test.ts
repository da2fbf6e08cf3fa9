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

  it('calls alternating between more shapes than it keeps at hand (lists, rows with other or undefined columns) each run their own statement', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const db = t.handle.db;
    const insert = prepared((exec, rows: Array<{ key: string; value?: string }>) => exec.insertInto('meta').values(rows as Array<{ key: string; value: string }>));
    const byKeys = prepared((exec, keys: string[], one: { key: string; value?: string }) =>
      exec.selectFrom('meta').select(['key', 'value']).where((eb) => eb.or([eb('key', 'in', keys), eb.and([eb('key', '=', one.key), eb('value', '=', one.value ?? '')])])).orderBy('key'),
    );
    const key = (i: number) => `q-${a.id}-${String(i).padStart(3, '0')}`;
    const shapes = [
      (i: number) => [{ key: key(i), value: `v${i}` }],
      (i: number) => [{ value: `v${i}`, key: key(i) }],
      (i: number) => [{ key: key(i), value: `v${i}` }, { key: key(i + 500), value: `w${i}` }],
      (i: number) => [{ key: key(i), value: undefined, extra: undefined } as { key: string; value?: string }],
      (i: number) => [{ key: key(i), value: `v${i}` }, { value: `w${i}`, key: key(i + 500) }],
      (i: number) => [{ key: key(i), value: `v${i}` }, { key: key(i + 500), value: `w${i}` }, { key: key(i + 700), value: `x${i}` }],
    ];
    const written: Array<{ key: string; value?: string }> = [];
    for (let i = 0; i < 36; i++) {
      const rows = shapes[(i * 7) % shapes.length]!(i);
      if (rows.some((r) => r.value === undefined)) {
        // meta.value is NOT NULL: the statement must leave the column out (and fail), as Kysely's does.
        await expect(insert(db, rows)).rejects.toThrow();
        await expect(db.insertInto('meta').values(rows as Array<{ key: string; value: string }>).execute()).rejects.toThrow();
        continue;
      }
      await insert(db, rows);
      written.push(...rows);
    }
    const stored = await db.selectFrom('meta').select(['key', 'value']).where('key', 'like', `q-${a.id}-%`).orderBy('key').execute();
    expect(stored).toEqual(written.map((r) => ({ key: r.key, value: r.value })).sort((x, y) => (x.key < y.key ? -1 : 1)));
    for (let n = 1; n <= 8; n++) {
      const keys = stored.slice(0, n).map((r) => r.key);
      for (const one of [{ key: stored[n]!.key, value: stored[n]!.value }, { value: stored[n]!.value, key: stored[n]!.key }]) {
        const got = await byKeys(db, keys, one);
        const direct = await db.selectFrom('meta').select(['key', 'value']).where((eb) => eb.or([eb('key', 'in', keys), eb.and([eb('key', '=', one.key), eb('value', '=', one.value)])])).orderBy('key').execute();
        expect(got).toEqual(direct);
        expect(got.length).toBe(n + 1);
      }
    }
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
