import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../server/db/connection.js';
import { syncRegistry } from '../../server/modules/sync-descriptors.js';
import { PROTOCOL_VERSION, PullResponse, type PullChange } from '../../sync/protocol.js';
import type { SyncReply, SyncRequest, SyncTransport } from '../../sync/transport.js';
import type { ApplyContext, EntityDescriptor, SyncChange } from '../../sync/types.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { createAppliance, createCloud, FakeTransport, quiesce, replicatedState, twoNodes } from './harness.js';

/**
 * Bare echoes (sync/README.md "Echoes", protocol step 3): the cloud marks a pushed op it recorded
 * exactly as sent (`change_log.as_sent`); a pull with `echoes=bare` sends such an op of the asking
 * device back without its payload. The appliance skips it (an entity that allows it) or adopts it with
 * its own stored payload; one it does not have (a restored database) makes it fetch the page in full.
 */
const wrapped: Array<{ d: EntityDescriptor; apply: EntityDescriptor['apply'] }> = [];
afterEach(() => {
  for (const w of wrapped.splice(0)) w.d.apply = w.apply;
});

/** Records the appliance's adoptions of `entity` changes born on `deviceId` (its own echoes). */
function ownAdopts(entity: string, deviceId: string): SyncChange[] {
  const d = syncRegistry.descriptor(entity)!;
  const original = d.apply;
  wrapped.push({ d, apply: original });
  const seen: SyncChange[] = [];
  d.apply = function (this: unknown, trx, change: SyncChange, ctx: ApplyContext) {
    if (ctx.side === 'appliance' && ctx.mode === 'adopt' && change.origin === deviceId) seen.push(change);
    return original.call(this, trx, change, ctx);
  } as typeof original;
  return seen;
}

/** Keeps every pull answer (its query and body) that passes through the transport. */
function recordPulls(transport: SyncTransport): Array<{ query: SyncRequest['query']; body: PullResponse }> {
  const pulls: Array<{ query: SyncRequest['query']; body: PullResponse }> = [];
  const send = transport.send.bind(transport);
  transport.send = async (req: SyncRequest): Promise<SyncReply> => {
    const reply = await send(req);
    if (req.path === '/api/v1/sync/pull' && reply.status === 200) pulls.push({ query: req.query, body: PullResponse.parse(reply.body) });
    return reply;
  };
  return pulls;
}

const ownChanges = (pulls: Array<{ body: PullResponse }>, deviceId: string): PullChange[] => pulls.flatMap((p) => p.body.changes.filter((c) => c.origin === deviceId));

async function joined(opts: Parameters<typeof twoNodes>[0] = {}) {
  const nodes = await twoNodes(opts);
  const menu = await seedMenu(nodes.cloud, nodes.tenant.id);
  await nodes.appliance.engine.syncOnce();
  const actor = (via: 'pos' | 'web' | 'external' = 'pos') => ({ tenantId: nodes.tenant.id, userId: null, via });
  return { ...nodes, menu, actor, quiesce: () => quiesce(nodes.appliance) };
}

const V = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;

describe('sync: bare echoes', () => {
  it('echoes the cloud recorded as sent come back without their payload and are skipped: nothing applied again, both sides identical', async () => {
    const { appliance, cloud, tenant, device, transport, menu, actor, quiesce } = await joined();
    transport.offline = true;
    for (let i = 0; i < 3; i++) {
      const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
      await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    }
    transport.offline = false;
    const pulls = recordPulls(transport);
    const adopts = ownAdopts('order', device.id);
    await quiesce();
    expect(pulls.every((p) => p.query?.echoes === 'bare')).toBe(true);
    const own = ownChanges(pulls, device.id).filter((c) => c.entity === 'order');
    expect(own.length).toBe(6);
    // Every order op was recorded as sent (the cloud's validation rebuilds the object: equal as values).
    expect(own.every((c) => c.echo === 'same' && c.payload === null)).toBe(true);
    const marked = await cloud.handle.db.selectFrom('change_log').select(['as_sent']).where('origin', '=', device.id).where('entity', '=', 'order').execute();
    expect(marked.map((r) => Number(r.as_sent))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(adopts.length).toBe(0);
    const state = (await appliance.engine.readState())!;
    expect(state.echoed_seq).toBe(state.acked_seq);
    expect(await appliance.engine.pendingCount()).toBe(0);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an echo the cloud changed (a later status after the cloud moved on) comes with its payload and is adopted', async () => {
    const { appliance, cloud, tenant, device, transport, menu, actor, quiesce } = await joined({ pushBatch: 1 });
    const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
    await quiesce();
    transport.offline = true;
    await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    await appliance.services.orders.setStatus(actor(), order.id, 'preparing');
    transport.offline = false;
    await appliance.engine.pushOnce(); // only 'accepted' reaches the cloud
    await cloud.services.orders.setStatus(actor('external'), order.id, 'ready'); // then the cloud moves on
    const pulls = recordPulls(transport);
    const adopts = ownAdopts('order', device.id);
    await quiesce(); // 'preparing' arrives after 'ready': never backwards, recorded as the cloud's state
    const own = ownChanges(pulls, device.id).filter((c) => c.entity === 'order');
    expect(own.map((c) => [c.kind, c.echo ?? null, c.payload === null])).toEqual([
      ['order.status_changed', 'same', true], // 'accepted', as sent
      ['order.status_changed', null, false], // 'preparing', merged into 'ready'
    ]);
    const rows = await cloud.handle.db.selectFrom('change_log').select(['op_id', 'as_sent']).where('origin', '=', device.id).where('entity', '=', 'order').orderBy('seq').execute();
    expect(rows.slice(-2).map((r) => Number(r.as_sent))).toEqual([1, 0]);
    expect(adopts.map((c) => c.op_id)).toEqual([rows[rows.length - 1]!.op_id]);
    expect((await appliance.services.orders.get(tenant.id, order.id)).status).toBe('ready');
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a pull without echoes=bare (an older appliance) is answered as before: every change with its stored payload, no echo field', async () => {
    const { appliance, cloud, tenant, device, transport, menu, actor, quiesce } = await joined();
    transport.offline = true;
    const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
    await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    transport.offline = false;
    await appliance.engine.pushOnce();
    await cloud.services.orders.create(actor('web'), orderBody(menu));
    const cursor = Number((await appliance.engine.readState())!.pull_cursor);
    const get = (extra: string) => cloud.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&limit=1000${extra}`, headers: { authorization: `Bearer ${transport.key}` } });
    const old = await get('');
    expect(old.statusCode).toBe(200);
    // The answer as the cloud built it before bare echoes: each change's fields in this order, its payload the stored text.
    const rows = await cloud.handle.db.selectFrom('change_log').selectAll().where('tenant_id', '=', tenant.id).where('seq', '>', cursor).orderBy('seq').execute();
    const wire = rows.map((r) => `{"seq":${Number(r.seq)},"op_id":${JSON.stringify(r.op_id)},"origin":${JSON.stringify(r.origin)},"entity":${JSON.stringify(r.entity)},"entity_id":${JSON.stringify(r.entity_id)},"kind":${JSON.stringify(r.kind)},"payload":${r.payload},"created_at":${JSON.stringify(r.created_at)}}`);
    expect(old.body).toBe(`{"protocol_version":${PROTOCOL_VERSION},"schema_version":${SCHEMA_VERSION},"changes":[${wire.join(',')}],"next_cursor":${Number(rows[rows.length - 1]!.seq)},"has_more":false}`);
    expect(rows.some((r) => r.origin === device.id && Number(r.as_sent) === 1)).toBe(true);
    // With the parameter: the same changes, this device's as-sent ops bare, the others untouched.
    const bare = await get('&echoes=bare');
    const a = PullResponse.parse(old.json());
    const b = PullResponse.parse(bare.json());
    expect(b.changes.map((c) => c.op_id)).toEqual(a.changes.map((c) => c.op_id));
    b.changes.forEach((c, i) => {
      const row = rows[i]!;
      if (row.origin === device.id && Number(row.as_sent) === 1) expect(c).toEqual({ ...a.changes[i], payload: null, echo: 'same' });
      else expect(c).toEqual(a.changes[i]);
    });
    expect(bare.body.length).toBeLessThan(old.body.length);
    // Another device of the restaurant asking bare gets this device's ops in full.
    const other = await cloud.services.sync.cloud.createDevice(tenant.id, 'Kassa 2');
    const theirs = await cloud.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&limit=1000&echoes=bare`, headers: { authorization: `Bearer ${other.sync_key}` } });
    expect(theirs.body).toBe(old.body);
    await quiesce();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an appliance that does not ask for bare echoes gets every payload and converges', async () => {
    const { appliance, cloud, tenant, device, transport, menu, actor } = await joined({ bareEchoes: false });
    transport.offline = true;
    for (let i = 0; i < 2; i++) {
      const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
      await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    }
    transport.offline = false;
    const pulls = recordPulls(transport);
    const adopts = ownAdopts('order', device.id);
    await quiesce(appliance);
    expect(pulls.every((p) => p.query?.echoes === undefined)).toBe(true);
    const own = ownChanges(pulls, device.id);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((c) => c.echo === undefined && c.payload !== null)).toBe(true);
    expect(adopts.length).toBe(0); // equal echoes skipped by comparison, as before
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a bare echo of an entity that adopts every echo is adopted with the payload the appliance stored', async () => {
    const { appliance, cloud, tenant, device, transport, quiesce } = await joined();
    transport.offline = true;
    const user = await appliance.services.users.create(tenant.id, { name: 'Joost', role: 'staff', pin: '4321' });
    transport.offline = false;
    const pulls = recordPulls(transport);
    const adopts = ownAdopts('user', device.id);
    await quiesce();
    const own = ownChanges(pulls, device.id).filter((c) => c.entity === 'user');
    expect(own.map((c) => [c.entity_id, c.echo, c.payload])).toEqual([[user.id, 'same', null]]);
    const local = await appliance.handle.db.selectFrom('change_log').select(['op_id', 'payload']).where('origin', '=', device.id).where('entity', '=', 'user').executeTakeFirstOrThrow();
    expect(adopts.map((c) => [c.op_id, c.payload])).toEqual([[local.op_id, JSON.parse(local.payload)]]);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a restored appliance (own ops missing from its log) gets the page again with every payload, records them and converges', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bare-echo-'));
    const file = path.join(dir, 'appliance.db');
    const backup = path.join(dir, 'backup.db');
    const cloud = await createCloud();
    const tenant = await cloud.seedTenant();
    const { sync_key, device } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Kassa');
    const transport = new FakeTransport(() => cloud, sync_key);
    const first = await createAppliance(transport, { handle: openDb({ sqliteFile: file }), autoClose: false });
    const menu = await seedMenu(cloud, tenant.id);
    await first.engine.syncOnce();
    await sql`vacuum into ${backup}`.execute(first.handle.db); // the backup, before the outage
    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    const orders = [];
    for (let i = 0; i < 3; i++) {
      const { order } = await first.services.orders.create(actor, orderBody(menu));
      await first.services.orders.setStatus(actor, order.id, 'accepted');
      orders.push(order.id);
    }
    await first.engine.pushOnce(); // the cloud has them; the appliance is lost before it pulls
    await first.close();
    const logs: string[] = [];
    const restored = await createAppliance(transport, { handle: openDb({ sqliteFile: backup }) });
    const pulls = recordPulls(transport);
    const engine = restored.engine;
    (engine as unknown as { o: { log: (m: string) => void } }).o.log = (m) => logs.push(m);
    await quiesce(restored);
    // The page with the missing ops' bare echoes, then the same cursor again without the parameter.
    const firstBare = pulls.findIndex((p) => p.body.changes.some((c) => c.echo === 'same'));
    expect(firstBare).toBeGreaterThanOrEqual(0);
    expect(pulls[firstBare + 1]!.query?.echoes).toBeUndefined();
    expect(pulls[firstBare + 1]!.query?.cursor).toBe(pulls[firstBare]!.query?.cursor);
    expect(pulls[firstBare + 1]!.body.changes.every((c) => c.echo === undefined && c.payload !== null)).toBe(true);
    expect(logs.some((m) => m.includes('fetched again'))).toBe(true);
    for (const id of orders) expect((await restored.services.orders.get(tenant.id, id)).status).toBe('accepted');
    const local = await restored.handle.db.selectFrom('change_log').select('op_id').where('origin', '=', device.id).where('entity', '=', 'order').execute();
    expect(local.length).toBe(6);
    expect(await restored.engine.pendingCount()).toBe(0);
    expect(await replicatedState(restored, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
