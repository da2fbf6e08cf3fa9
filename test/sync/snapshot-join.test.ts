import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parsePayload, shapeOf } from '../../sync/apply-helpers.js';
import { MAX_SNAPSHOT_LIMIT, PROTOCOL_VERSION, SNAPSHOT_LIMIT_V1 } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { JournalRowSchema } from '../../server/modules/journal/journal.schemas.js';
import { PaymentRowSchema } from '../../server/modules/payments/payments.schemas.js';
import { MovementsPayload } from '../../server/modules/stock/stock.schemas.js';
import type { SyncRequest } from '../../sync/transport.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { replicatedState, twoNodes } from './harness.js';

/**
 * Issue 29 point 3, session 15: a joining appliance asks for pages of up to MAX_SNAPSHOT_LIMIT rows
 * (sized by bytes first), falling back to SNAPSHOT_LIMIT_V1 against a cloud that refuses more; and
 * a snapshot row's payload is checked for its shape, not the API's field rules (`ctx.snapshot`).
 */

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = '2026-11-29T08:00:00.000Z';
const snap = { snapshot: true };

describe('parsePayload on a snapshot row (ctx.snapshot)', () => {
  const movement = (n: number) => ({
    id: uuid(n), product_id: uuid(1), location_id: uuid(2), type: 'REMOVAL', quantity_milli: -1500, counted_milli: null, level_after_milli: 3000,
    transfer_id: null, source: 'sale', ref_id: uuid(3), reason: null, note: null, user_id: null, booked_at: at, created_at: at, extra: 'kept (loose)',
  });
  const Mixed = z.object({
    id: z.uuid(),
    n: z.number().int().min(1),
    text: z.string().trim().max(5).nullable(),
    kind: z.enum(['a', 'b']).default('a'),
    tags: z.array(z.string()).optional(),
    flag: z.union([z.literal(0), z.literal(1)]),
    on: z.boolean(),
  });

  it('answers what zod answers for valid rows (unknown fields dropped or kept, defaults filled)', () => {
    const rows: Array<[z.ZodType, unknown]> = [
      [MovementsPayload, { movements: [movement(10), movement(11)] }],
      [Mixed, { id: uuid(1), n: 3, text: null, flag: 1, on: false, stray: 'dropped' }],
      [Mixed, { id: uuid(1), n: 3, text: 'abc', kind: 'b', tags: ['x'], flag: 0, on: true }],
    ];
    for (const [schema, value] of rows) expect(parsePayload(schema, value, 'iets', snap)).toEqual(parsePayload(schema, value, 'iets'));
  });

  it('refuses what does not fit the shape exactly as zod does (wrong type, missing field, unknown enum value, not an integer)', () => {
    const bad: unknown[] = [
      { movements: [{ ...movement(10), quantity_milli: '1500' }] },
      { movements: [{ ...movement(10), id: undefined }] },
      { movements: [{ ...movement(10), type: 'GESTOLEN' }] },
      { movements: [{ ...movement(10), quantity_milli: 1.5 }] },
      { movements: 'geen lijst' },
      null,
    ];
    for (const value of bad) {
      const zod = (() => {
        try {
          parsePayload(MovementsPayload, value, 'een voorraadmutatie');
        } catch (err) {
          return (err as Error).message;
        }
        return 'accepted';
      })();
      expect(zod).not.toBe('accepted');
      expect(() => parsePayload(MovementsPayload, value, 'een voorraadmutatie', snap)).toThrow(zod);
    }
  });

  it('does not apply the API’s field rules to the cloud’s own rows (formats, lengths), which a pushed op still gets', () => {
    const value = { movements: [{ ...movement(10), id: 'geen-uuid', note: 'x'.repeat(600) }] };
    expect(() => parsePayload(MovementsPayload, value, 'een voorraadmutatie')).toThrow(/voorraadmutatie/);
    expect(parsePayload(MovementsPayload, value, 'een voorraadmutatie', snap).movements[0]).toMatchObject({ id: 'geen-uuid' });
  });

  it('keeps a key `__proto__` of a loose object as data, never as the copy’s prototype', () => {
    const value = JSON.parse(`{"movements":[${JSON.stringify(movement(10)).slice(0, -1)},"__proto__":{"polluted":1}}]}`) as unknown;
    const m = parsePayload(MovementsPayload, value, 'een voorraadmutatie', snap).movements[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect('polluted' in m).toBe(false);
    expect(Object.hasOwn(m, '__proto__')).toBe(true);
  });

  it('covers the schemas of the snapshot’s biggest tables (a schema it cannot read would go through zod: same answer, no gain)', () => {
    for (const schema of [MovementsPayload, JournalRowSchema, PaymentRowSchema, Mixed]) expect(shapeOf(schema)).not.toBeNull();
    expect(shapeOf(z.string().transform((x) => x.length))).toBeNull();
  });
});

describe('snapshot pages of up to MAX_SNAPSHOT_LIMIT rows', () => {
  async function joining(opts: { olderCloud: boolean }) {
    const nodes = await twoNodes({ snapshotLimit: MAX_SNAPSHOT_LIMIT });
    const { cloud, tenant, transport } = nodes;
    const menu = await seedMenu(cloud, tenant.id);
    const web = { tenantId: tenant.id, userId: null, via: 'web' as const };
    for (let i = 0; i < 4; i++) await cloud.services.orders.create(web, orderBody(menu));
    const limits: number[] = [];
    const send = transport.send.bind(transport);
    transport.send = async (req: SyncRequest) => {
      if (req.path !== '/api/v1/sync/snapshot') return send(req);
      limits.push(Number(req.query?.limit));
      // A cloud from before MAX_SNAPSHOT_LIMIT grew: its query schema refuses the bigger limit.
      if (opts.olderCloud && Number(req.query?.limit) > SNAPSHOT_LIMIT_V1) {
        return { status: 400, body: { error: `Ongeldige invoer: 'limit' moet maximaal ${SNAPSHOT_LIMIT_V1} zijn.`, code: 'VALIDATION', details: [{ field: 'limit', error: `'limit' moet maximaal ${SNAPSHOT_LIMIT_V1} zijn.` }] } };
      }
      return send(req);
    };
    return { ...nodes, limits };
  }

  it('this cloud takes the bigger limit (and refuses one above it, naming the field)', async () => {
    const { cloud, tenant, appliance, transport, limits } = await joining({ olderCloud: false });
    await appliance.engine.syncOnce();
    expect(limits.every((l) => l === MAX_SNAPSHOT_LIMIT)).toBe(true);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    const res = await cloud.req({ method: 'GET', url: `/api/v1/sync/snapshot?protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}&limit=${MAX_SNAPSHOT_LIMIT + 1}`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'limit' }] });
  });

  it('against an older cloud that refuses it, the appliance asks with SNAPSHOT_LIMIT_V1 from then on and the join completes', async () => {
    const { cloud, tenant, appliance, limits } = await joining({ olderCloud: true });
    await appliance.engine.syncOnce();
    expect(limits[0]).toBe(MAX_SNAPSHOT_LIMIT);
    expect(limits[1]).toBe(SNAPSHOT_LIMIT_V1);
    // Once refused, never asked again (also not for the page asked ahead).
    expect(limits.slice(1).every((l) => l === SNAPSHOT_LIMIT_V1)).toBe(true);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});
