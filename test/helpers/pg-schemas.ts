import { createHash } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { migrateToLatest, type DbHandle } from '../../server/db/connection.js';
import { migrations } from '../../server/db/migrations/index.js';
import { newId } from '../../server/shared/ids.js';

/**
 * Migrated PostgreSQL schemas for tests, reused instead of migrated anew for every test.
 *
 * Migrating a fresh schema costs ≈ 300 ms on PostgreSQL (dozens of DDL statements, each migration
 * its own transaction) and dropping it another ≈ 35 ms: most of a PostgreSQL test's time. So a
 * test's schema, once the test is done with it, is emptied (every row of every table deleted, the
 * migrator's own tables kept) and parked under a pool name; the next test takes a parked one by
 * renaming it to a fresh name of its own (a rename is atomic, so two workers never get the same
 * one). What a test gets is exactly what a fresh migration gives: the same tables, columns,
 * constraints and indexes, no rows.
 *
 * A schema is parked only when nothing about its structure changed during the test (a catalog
 * fingerprint taken when the test got it, compared when it gives it back: a test that created a
 * table or an index gets its schema dropped, as before). Pool names carry a hash of the migrations
 * (loaded code and files), so a changed migration never meets a schema migrated by its older text
 * (parked schemas of other hashes are dropped when seen). Emptying needs the right to set
 * `session_replication_role` (a superuser, as the default postgres@127.0.0.1 is); without it every
 * schema is dropped as before. TEST_PG_SCHEMA_POOL=0 turns the pool off (a fresh migration per
 * test, as before).
 *
 * Connections still open on a schema when it is given back (a test that did not close a handle)
 * lose it the moment it is renamed, as they lost it when it was dropped: their next statement fails
 * instead of writing into the parked schema.
 */

const POOL_ON = process.env.TEST_PG_SCHEMA_POOL !== '0';
/**
 * Tests per schema before it is dropped after all: deleted rows stay behind as dead tuples (the CI
 * server runs without autovacuum), so a schema is not reused for ever.
 */
const MAX_USES = 50;
/** The migrator's own tables: kept (they say every migration ran). */
const KEEP = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * The migrations as this process loaded them (their code) and as they are on disk now: a pool is
 * shared only by processes that agree on both, so a migration added or edited while tests run (a
 * shared working tree) never hands one process a schema made by another's migrations.
 */
function migrationsHash(): string {
  const h = createHash('sha256');
  for (const [name, m] of Object.entries(migrations)) h.update(name).update('\0').update(String(m.up)).update('\0').update(String(m.down ?? '')).update('\0');
  const dir = new URL('../../server/db/migrations/', import.meta.url);
  for (const f of fs.readdirSync(dir).filter((n) => /\.[cm]?[jt]s$/.test(n)).sort()) {
    h.update(f).update('\0').update(fs.readFileSync(new URL(f, dir))).update('\0');
  }
  return h.digest('hex').slice(0, 12);
}

const POOL_PREFIX = `tpool_${migrationsHash()}_`;

/**
 * The structure of one schema, independent of its name: its relations, columns, constraints,
 * indexes, triggers, functions and the migrations it ran.
 */
const FINGERPRINT = `
with owned as (
  select d.classid, d.objid from pg_depend d
   where d.refclassid = 'pg_namespace'::regclass and d.refobjid = $1::regnamespace
), rels as (
  select c.oid, c.relname, c.relkind from owned o join pg_class c on c.oid = o.objid where o.classid = 'pg_class'::regclass
)
select
  (select string_agg(classid::regclass::text || '=' || n, ',' order by classid::regclass::text) from (select classid, count(*) as n from owned group by classid) x) as objects,
  (select string_agg(concat_ws(':', relname, relkind), ',' order by relname) from rels) as relations,
  (select coalesce(sum(hashtext(concat_ws(':', r.relname, a.attnum, a.attname, a.atttypid, a.atttypmod, a.attnotnull, a.atthasdef))), 0)
     from rels r join pg_attribute a on a.attrelid = r.oid and a.attnum > 0 and not a.attisdropped) as columns,
  (select coalesce(sum(hashtext(concat_ws(':', r.relname, ic.relname, i.indkey::text, i.indisunique, i.indpred is not null, i.indexprs is not null))), 0)
     from rels r join pg_index i on i.indrelid = r.oid join pg_class ic on ic.oid = i.indexrelid) as indexes,
  (select coalesce(sum(hashtext(concat_ws(':', r.relname, k.conname, k.contype, k.conkey::text, f.relname, k.confkey::text))), 0)
     from rels r join pg_constraint k on k.conrelid = r.oid left join pg_class f on f.oid = k.confrelid) as constraints,
  (select count(*) from rels r join pg_trigger t on t.tgrelid = r.oid) as triggers`;

interface Fingerprint {
  key: string;
  tables: string[];
}

async function fingerprint(c: pg.Client, schema: string): Promise<Fingerprint> {
  const row = (await c.query(FINGERPRINT, [schema])).rows[0] as Record<string, string | null>;
  const tables = (row.relations ?? '').split(',').filter((r) => r.endsWith(':r')).map((r) => r.slice(0, -2));
  const migrations = tables.includes('kysely_migration')
    ? ((await c.query(`select string_agg(name, ',' order by name) as names from ${schema}.kysely_migration`)).rows[0] as { names: string | null }).names
    : null;
  return { key: JSON.stringify({ ...row, migrations }), tables };
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

let staleSwept = false;

/** Takes a parked schema (renamed to `name`): how many tests used it before; null when there is none. */
async function takeParked(c: pg.Client, name: string): Promise<number | null> {
  const { rows } = await c.query<{ nspname: string }>(`select nspname from pg_namespace where nspname like 'tpool\\_%'`);
  if (!staleSwept) {
    staleSwept = true;
    for (const r of rows.filter((r) => !r.nspname.startsWith(POOL_PREFIX))) {
      await c.query(`drop schema if exists ${r.nspname} cascade`).catch(() => {});
    }
  }
  const mine = rows.map((r) => r.nspname).filter((n) => n.startsWith(POOL_PREFIX));
  // Random order: workers taking at the same moment mostly try different ones.
  for (let i = mine.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [mine[i], mine[j]] = [mine[j]!, mine[i]!];
  }
  for (const parked of mine) {
    try {
      await c.query(`alter schema ${parked} rename to ${name}`);
      return Number.parseInt(parked.slice(POOL_PREFIX.length).split('_')[0]!, 36) || 1;
    } catch {
      // Another worker took it first (or dropped it as stale).
    }
  }
  return null;
}

export interface PooledSchema {
  schema: string;
  /** Gives the schema back: emptied and parked when its structure is unchanged, dropped otherwise. Idempotent. */
  release(): Promise<void>;
}

/**
 * A migrated schema of its own for one test, named `t_...`: a parked one when there is one, else a
 * new one migrated through `open()` (the test's own handle on it, which is returned with it).
 */
export async function acquireSchema(url: string, open: (schema: string) => DbHandle): Promise<PooledSchema & { handle: DbHandle }> {
  const schema = `t_${newId().replace(/-/g, '').slice(-20)}`;
  const { uses, before } = await withClient(url, async (c) => {
    const uses = POOL_ON ? await takeParked(c, schema) : null;
    if (uses === null) await c.query(`create schema ${schema}`);
    return { uses: uses ?? 0, before: uses !== null ? await fingerprint(c, schema) : null };
  });
  const handle = open(schema);
  let reference = before;
  if (!before && POOL_ON) {
    // Migrated here rather than by the runtime, so the fingerprint below is a fresh migration's.
    await migrateToLatest(handle.db, { pgSchema: schema });
    reference = await withClient(url, (c) => fingerprint(c, schema));
  }
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await withClient(url, async (c) => {
      if (reference && uses + 1 < MAX_USES) {
        const now = await fingerprint(c, schema);
        if (now.key === reference.key) {
          const deletes = now.tables.filter((t) => !KEEP.has(t)).map((t) => `delete from ${schema}.${t};`);
          try {
            // Foreign keys are triggers; replica mode skips them, so the order of the deletes does not matter.
            await c.query(`begin; set local session_replication_role = replica; ${deletes.join(' ')} alter schema ${schema} rename to ${POOL_PREFIX}${(uses + 1).toString(36)}_${newId().replace(/-/g, '').slice(-16)}; commit;`);
            return;
          } catch {
            await c.query('rollback').catch(() => {});
          }
        }
      }
      await c.query(`drop schema if exists ${schema} cascade`);
    });
  };
  return { schema, handle, release };
}
