import { sql } from 'kysely';
import { onTestFinished } from 'vitest';
import type { Tx } from '../../server/db/connection.js';
import { syncRegistry } from '../../server/modules/sync-descriptors.js';
import type { Runtime } from '../../server/runtime.js';
import { PROTOCOL_VERSION, type WireOp } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import type { ApplyContext, SyncChange } from '../../sync/types.js';
import type { TestApp } from '../helpers/app.js';

/**
 * One push chunk against the same ops applied one by one (ApplyContext.batch, sync/types.ts): the
 * cloud applies a chunk as a batch (descriptors read once and write at the end), and must end with
 * exactly what applying its ops one at a time without a batch gives.
 */

/** This device's ops as they would be pushed, from its change log, in order. */
export async function ownOps(rt: Runtime, deviceId: string): Promise<WireOp[]> {
  const rows = await rt.handle.db.selectFrom('change_log').selectAll().where('origin', '=', deviceId).orderBy('seq').execute();
  return rows.map((r) => ({ op_id: r.op_id, device_seq: Number(r.seq), entity: r.entity, entity_id: r.entity_id, kind: r.kind, payload: JSON.parse(r.payload) as unknown, created_at: r.created_at }));
}

export interface Outcome {
  status: 'applied' | 'conflict' | 'rejected';
  reason: string | null;
  /** What the cloud records in its change log for the op (the merged state). */
  payload: unknown;
}

/** The rows of `tables` of one tenant, ordered by id, numbers as numbers. */
export async function tableRows(db: Tx | Runtime['handle']['db'], tenantId: string, tables: string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of tables) {
    const rows = (await db.selectFrom(t as 'users').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute()) as Record<string, unknown>[];
    out[t] = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
  }
  return out;
}

/**
 * The reference: the ops applied one at a time on the cloud without a batch (each under a savepoint,
 * as the cloud's safe re-run does), in a transaction that is rolled back; returns each op's outcome
 * and the rows of `tables` afterwards.
 */
export async function opByOp(cloud: TestApp, tenantId: string, deviceId: string, ops: WireOp[], tables: string[]): Promise<{ outcomes: Outcome[]; rows: Record<string, unknown[]> }> {
  const rollback = new Error('rollback');
  let result: { outcomes: Outcome[]; rows: Record<string, unknown[]> } | undefined;
  await cloud.handle.db
    .transaction()
    .execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const op of ops) {
        const change: SyncChange = { op_id: op.op_id, tenant_id: tenantId, origin: deviceId, entity: op.entity, entity_id: op.entity_id, kind: op.kind, payload: op.payload, created_at: op.created_at };
        const ctx: ApplyContext = { side: 'cloud', mode: 'merge', tenantId, now: cloud.clock.now().toISOString() };
        await sql`savepoint op`.execute(trx);
        try {
          const out = (await syncRegistry.descriptor(op.entity)!.apply(trx, change, ctx)) ?? {};
          await sql`release savepoint op`.execute(trx);
          outcomes.push({ status: out.conflict ? 'conflict' : 'applied', reason: out.conflict ?? null, payload: out.payload === undefined ? op.payload : out.payload });
        } catch (err) {
          await sql`rollback to savepoint op`.execute(trx);
          outcomes.push({ status: 'rejected', reason: (err as Error).message, payload: null });
        }
      }
      result = { outcomes, rows: await tableRows(trx, tenantId, tables) };
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return result!;
}

/** Pushes `ops` in one request (one chunk when at most 100); returns each op's outcome as the cloud answered and logged it. */
export async function pushChunk(cloud: TestApp, key: string, tenantId: string, ops: WireOp[]): Promise<Outcome[]> {
  const res = await cloud.req({
    method: 'POST',
    url: '/api/v1/sync/push',
    headers: { authorization: `Bearer ${key}` },
    payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops },
  });
  if (res.statusCode !== 200) throw new Error(`push: ${res.statusCode} ${res.body}`);
  const results = res.json().results as Array<{ op_id: string; status: Outcome['status']; reason: string | null }>;
  const logged = new Map(
    (await cloud.handle.db.selectFrom('change_log').select(['op_id', 'payload']).where('tenant_id', '=', tenantId).where('op_id', 'in', ops.map((o) => o.op_id)).execute()).map((r) => [r.op_id, JSON.parse(r.payload) as unknown]),
  );
  return results.map((r) => ({ status: r.status, reason: r.reason, payload: r.status === 'rejected' ? null : logged.get(r.op_id) }));
}

/**
 * Counts the applies of these entities with and without a batch until the test ends (a chunk that
 * fell back to the cloud's safe re-run applies without one).
 */
export function watchBatches(entities: string[]): { batched: number; unbatched: number } {
  const counts = { batched: 0, unbatched: 0 };
  for (const entity of entities) {
    const d = syncRegistry.descriptor(entity)!;
    const apply = d.apply;
    d.apply = (trx, change, ctx) => {
      if (ctx.side === 'cloud') counts[ctx.batch ? 'batched' : 'unbatched'] += 1;
      return apply.call(d, trx, change, ctx);
    };
    onTestFinished(() => {
      d.apply = apply;
    });
  }
  return counts;
}
