import { describe, expect, it } from 'vitest';
import { insertRows, insertRowsReturning, selectByKeys } from '../../../server/db/bulk.js';
import { appendChanges, appendChangesLocked } from '../../../server/db/change-log.js';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

/**
 * insertRows (server/db/bulk.ts): multi-row inserts written without Kysely's builder (one json
 * parameter per statement on PostgreSQL, SQL text kept per shape on SQLite) must store exactly what
 * `insertInto(table).values(rows)` stores, with the same conflict handling and counts.
 */
describe(`insertRows: the rows Kysely's insert would write (${lane})`, () => {
  it('inserts many rows in few statements, skips or overwrites on conflict, returns what it inserted; odd rows go through Kysely', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const db = t.handle.db;
    const now = new Date().toISOString();
    const row = (i: number, name = `Categorie ${i}`) => ({ id: `cat-bulk-${String(i).padStart(4, '0')}`, tenant_id: r.id, name, position: i, created_at: now, updated_at: now });
    const rows = Array.from({ length: 1234 }, (_, i) => row(i, i === 7 ? `Quote " en ' en \\ en ☕ en \u00e9` : `Categorie ${i}`));
    expect(await insertRows(db, 'categories', rows)).toBe(1234);
    const stored = await db.selectFrom('categories').select(['id', 'tenant_id', 'name', 'position', 'created_at', 'updated_at']).where('id', 'like', 'cat-bulk-%').orderBy('id').execute();
    expect(stored).toEqual(rows);
    // Conflict: do nothing (counts only the new rows); do update (overwrites the given columns only).
    const again = [row(5, 'anders'), row(1234), row(1235)];
    expect(await insertRows(db, 'categories', again, { columns: ['id'], action: 'nothing' })).toBe(2);
    expect((await db.selectFrom('categories').select('name').where('id', '=', row(5).id).executeTakeFirstOrThrow()).name).toBe('Categorie 5');
    await db.transaction().execute(async (trx) => {
      const res = await insertRowsReturning(trx, 'categories', [row(5, 'anders'), row(1236)], { columns: ['id'], action: 'update', set: ['name'] }, 'id');
      expect(res.affected).toBe(2);
      expect([...res.returned].sort()).toEqual([row(5).id, row(1236).id]);
    });
    expect((await db.selectFrom('categories').select(['name', 'position']).where('id', '=', row(5).id).executeTakeFirstOrThrow())).toEqual({ name: 'anders', position: 5 });
    const skipped = await insertRowsReturning(db, 'categories', [row(1), row(1237)], { columns: ['id'], action: 'nothing' }, 'id');
    expect(skipped.returned).toEqual([row(1237).id]);
    // Rows of differing columns (one with a course, one without) take Kysely's path, same result.
    expect(await insertRows(db, 'categories', [{ ...row(1239), course: 2 }, row(1238)])).toBe(2);
    const courses = await db.selectFrom('categories').select(['id', 'course']).where('id', 'in', [row(1238).id, row(1239).id]).orderBy('id').execute();
    expect(courses).toEqual([{ id: row(1238).id, course: null }, { id: row(1239).id, course: 2 }]);
    // A failing row fails the statement (a plain insert's unique violation, no conflict clause).
    await expect(insertRows(db, 'categories', [row(1240), row(1)])).rejects.toThrow();
    expect(await db.selectFrom('categories').select('id').where('id', '=', row(1240).id).executeTakeFirst()).toBeUndefined();
  });

  it('strings with a lone surrogate, a pair or a literal backslash-u are stored as Kysely\'s insert stores them (PostgreSQL: a lone surrogate as U+FFFD)', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const db = t.handle.db;
    const now = new Date().toISOString();
    const names = ['half \ud800 een paar', 'paar 🍕 heel', 'letterlijk \\ud800 tekst', 'gewoon', '\udfff'];
    const rows = names.map((name, i) => ({ id: `cat-sur-${i}`, tenant_id: r.id, name, position: i, created_at: now, updated_at: now }));
    expect(await insertRows(db, 'categories', rows)).toBe(names.length);
    await db.insertInto('categories').values(rows.map((row) => ({ ...row, id: row.id.replace('cat-sur-', 'cat-ky-') }))).execute();
    const stored = await db.selectFrom('categories').select(['id', 'name']).where('id', 'like', 'cat-sur-%').orderBy('id').execute();
    const byKysely = await db.selectFrom('categories').select(['id', 'name']).where('id', 'like', 'cat-ky-%').orderBy('id').execute();
    expect(stored.map((s) => s.name)).toEqual(byKysely.map((s) => s.name));
    if (lane === 'postgres') expect(stored.map((s) => s.name)).toEqual(['half \ufffd een paar', 'paar 🍕 heel', 'letterlijk \\ud800 tekst', 'gewoon', '\ufffd']);
  });

  it('the change log: consecutive seqs in the given order, payloads as JSON text, in one statement on PostgreSQL', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const db = t.handle.db;
    const before = await t.changes.lastSeq(r.id);
    const changes = Array.from({ length: 777 }, (_, i) => ({ entity: 'bench', entityId: `e${i}`, kind: 'bench.made', payload: { i, tekst: i % 2 ? 'één' : null } }));
    const append = lane === 'postgres' ? appendChangesLocked : appendChanges;
    const records = await db.transaction().execute((trx) => append(trx, r.id, 'cloud', '2026-11-28T12:00:00.000Z', changes));
    expect(records.map((c) => c.seq)).toEqual(changes.map((_, i) => before + 1 + i));
    const stored = await db.selectFrom('change_log').select(['seq', 'entity_id', 'payload', 'origin', 'created_at']).where('tenant_id', '=', r.id).where('entity', '=', 'bench').orderBy('seq').execute();
    expect(stored.map((s) => [Number(s.seq), s.entity_id, JSON.parse(s.payload)])).toEqual(changes.map((c, i) => [before + 1 + i, c.entityId, c.payload]));
    expect(new Set(stored.map((s) => `${s.origin} ${s.created_at}`))).toEqual(new Set(['cloud 2026-11-28T12:00:00.000Z']));
    expect(await t.changes.lastSeq(r.id)).toBe(before + 777);
  });
  it('selectByKeys: the rows a `where scope and key in (…)` read answers, only the scope\'s, on both engines', async () => {
    const t = await createTestApp();
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    const db = t.handle.db;
    const now = new Date().toISOString();
    const row = (tenant: string, i: number) => ({ id: `cat-keys-${tenant.slice(-6)}-${String(i).padStart(4, '0')}`, tenant_id: tenant, name: `Categorie ${i} ☕ 'x'`, position: i, created_at: now, updated_at: now });
    await insertRows(db, 'categories', [...Array.from({ length: 1200 }, (_, i) => row(a.id, i)), ...Array.from({ length: 5 }, (_, i) => row(b.id, i))]);
    // 1,100 keys (more than one SQLite statement's share), some twice, some unknown, one of the other restaurant.
    const keys = [...Array.from({ length: 1000 }, (_, i) => row(a.id, i * 1.2 > 1199 ? 1 : Math.floor(i * 1.2)).id), row(a.id, 3).id, 'cat-keys-nothing', row(b.id, 2).id, ...Array.from({ length: 97 }, (_, i) => `unknown-${i}`)];
    const got = await selectByKeys<{ id: string; name: string; position: number }>(db, 'categories', ['id', 'name', 'position'], { tenant_id: a.id }, 'id', keys);
    const want = await db.selectFrom('categories').select(['id', 'name', 'position']).where('tenant_id', '=', a.id).where('id', 'in', [...new Set(keys)]).execute();
    const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
    expect(got.length).toBe(new Set(keys.filter((k) => k.includes(a.id.slice(-6)))).size);
    expect([...got].sort(byId)).toEqual([...want].sort(byId));
    expect(got.some((r) => r.id === row(b.id, 2).id)).toBe(false);
    expect(await selectByKeys(db, 'categories', ['id'], { tenant_id: a.id }, 'id', [])).toEqual([]);
  });
});
