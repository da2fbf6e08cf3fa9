import { describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import { jsonEqual } from '../../sync/engine.js';
import { PROTOCOL_VERSION, PullResponse, SnapshotResponse } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { newId } from '../../server/shared/ids.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { replicatedState, twoNodes, type FakeTransport } from './harness.js';

/**
 * Issue 29 points 3 and 4: pull and snapshot pages are sized by bytes (`max_bytes`), serialized by
 * the cloud itself (the stored payload text is not parsed on the way out) and still exactly the
 * protocol's shapes; an echo is compared once, by its text first.
 */
const V = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;

describe('sync pages sized by bytes', () => {
  it('a pull page stops near max_bytes, is a PullResponse, and the pages together hold every change once, in seq order', async () => {
    const { cloud, tenant, transport } = await twoNodes();
    const start = await cloud.changes.lastSeq(tenant.id);
    const text = 'x'.repeat(10_000);
    const ids: string[] = [];
    await cloud.changes.write(tenant.id, async (w) => {
      for (let i = 0; i < 20; i++) {
        const id = newId();
        ids.push(id);
        await w.record({ entity: 'note', entityId: id, kind: 'note.added', payload: { text, i, nested: { 'quote"d': 'é\n', list: [1, null, true] } } });
      }
    });
    const seen: string[] = [];
    let cursor = start;
    let pages = 0;
    for (let more = true; more; ) {
      const res = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&limit=1000&max_bytes=32768`, headers: { authorization: `Bearer ${transport.key}` } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const page = PullResponse.parse(res.json());
      pages += 1;
      expect(res.body.length).toBeLessThan(32_768 + 11_000); // the budget, plus at most the change that did not fit
      expect(page.changes.length).toBeGreaterThan(0);
      for (const c of page.changes) {
        expect(c.seq).toBeGreaterThan(cursor);
        expect(c.payload).toEqual({ text, i: seen.length, nested: { 'quote"d': 'é\n', list: [1, null, true] } });
        seen.push(c.entity_id);
        cursor = c.seq;
      }
      expect(page.next_cursor).toBe(cursor);
      more = page.has_more;
    }
    expect(seen).toEqual(ids);
    expect(pages).toBeGreaterThanOrEqual(6);
    // Nothing after the cursor: an empty page at the same cursor.
    const empty = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(PullResponse.parse(empty.json())).toEqual({ protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, changes: [], next_cursor: cursor, has_more: false });
  });

  it('max_bytes below the minimum is a Dutch 400 naming the field', async () => {
    const { cloud, transport } = await twoNodes();
    const res = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=0&max_bytes=10`, headers: { authorization: `Bearer ${transport.key}` } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'max_bytes' }] });
  });

  it('a snapshot in pages of a few KiB: every page a SnapshotResponse within its budget (plus one step), and the new appliance holds exactly the cloud’s rows', async () => {
    const nodes = await twoNodes({ snapshotBytes: 16_384 });
    const { cloud, tenant, transport, appliance } = nodes;
    const menu = await seedMenu(cloud, tenant.id);
    const web = { tenantId: tenant.id, userId: null, via: 'web' as const };
    for (let i = 0; i < 30; i++) {
      const { order } = await cloud.services.orders.create(web, orderBody(menu, { idempotency_key: `web-${i}` }));
      if (i % 3 === 0) await cloud.services.orders.setStatus(web, order.id, 'accepted');
    }
    const bodies = recordSnapshots(transport);
    await appliance.engine.syncOnce();
    expect(bodies.length).toBeGreaterThan(1);
    const pages = bodies.map((b) => SnapshotResponse.parse(JSON.parse(b)));
    expect(pages.slice(0, -1).every((p) => p.next_cursor !== null)).toBe(true);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    expect(new Set(pages.map((p) => p.seq)).size).toBe(1); // the seq the first page fixed
    const copied = pages.flatMap((p) => p.changes.map((c) => `${c.entity}:${c.entity_id}`));
    expect(new Set(copied).size).toBe(copied.length); // each entity once
    // Orders come in steps of rows: a page ends within one step of its budget.
    expect(Math.max(...bodies.map((b) => b.length))).toBeLessThan(16_384 + 250 * 4_000);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('the default snapshot (≈ 2 MiB, up to 1,000 entities a page) takes one page for a small restaurant, and converges', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    const menu = await seedMenu(cloud, tenant.id);
    const web = { tenantId: tenant.id, userId: null, via: 'web' as const };
    for (let i = 0; i < 5; i++) await cloud.services.orders.create(web, orderBody(menu, { idempotency_key: `w-${i}` }));
    await appliance.engine.syncOnce();
    expect(transport.calls.filter((c) => c.path === '/api/v1/sync/snapshot')).toHaveLength(1);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});

describe('jsonEqual (the echo comparison of a stored text with a received payload)', () => {
  it('the same value is equal, also in another key order; a different value is not', () => {
    const same = (text: string, value: unknown) => jsonEqual(JSON.parse(text) as unknown, value);
    expect(same('{"a":1,"b":[1,2]}', { a: 1, b: [1, 2] })).toBe(true);
    expect(same('{"b":[1,2],"a":1}', { a: 1, b: [1, 2] })).toBe(true);
    expect(same('{"a":1,"b":[2,1]}', { a: 1, b: [1, 2] })).toBe(false);
    expect(same('{"a":1}', { a: 1, c: null })).toBe(false);
    expect(same('null', null)).toBe(true);
    expect(same('null', undefined)).toBe(false);
  });

  it('jsonEqual answers as util.isDeepStrictEqual for JSON values, key order aside', () => {
    const cases: Array<[string, unknown]> = [
      ['{"a":{"b":[1,{"c":null}]},"d":"x"}', { d: 'x', a: { b: [1, { c: null }] } }],
      ['{"a":{"b":[1,{"c":null}]}}', { a: { b: [1, { c: 0 }] } }],
      ['[1,2,3]', [1, 2]],
      ['[]', {}],
      ['{}', []],
      ['{"a":1}', { a: 1, b: undefined }],
      ['{"a":"1"}', { a: 1 }],
      ['0', -0],
      ['true', true],
      ['"é☃"', 'é☃'],
    ];
    for (const [text, value] of cases) expect([text, jsonEqual(JSON.parse(text), value)]).toEqual([text, isDeepStrictEqual(JSON.parse(text), value)]);
  });
});

/** The snapshot answers' bodies as they came over the wire. */
function recordSnapshots(transport: FakeTransport): string[] {
  const bodies: string[] = [];
  const send = transport.send.bind(transport);
  transport.send = async (req) => {
    const reply = await send(req);
    if (req.path === '/api/v1/sync/snapshot' && reply.status === 200) bodies.push(JSON.stringify(reply.body));
    return reply;
  };
  return bodies;
}
