import { afterEach, describe, expect, it } from 'vitest';
import { ordersSync } from '../../server/modules/orders/orders.sync.js';
import type { ApplyContext, SyncChange } from '../../sync/types.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { quiesce, replicatedState, twoNodes } from './harness.js';

/**
 * Echoes (sync/README.md "Echoes"): the cloud's change log carries every op an appliance pushed,
 * and the appliance pulls them back. An echo that carries exactly what was sent is skipped (the
 * appliance's rows already are that state); one the cloud changed is adopted, and the device's
 * not-yet-echoed ops on the entity are re-applied on top. Either way both sides end identical.
 */
const orderDescriptor = ordersSync.find((d) => d.entity === 'order')!;
const originalApply = orderDescriptor.apply;
afterEach(() => {
  orderDescriptor.apply = originalApply;
});

/** Counts the appliance's adoptions of order changes born on `deviceId` (its own echoes). */
function countOwnAdopts(deviceId: string): { n: number } {
  const count = { n: 0 };
  orderDescriptor.apply = function (this: unknown, trx, change: SyncChange, ctx: ApplyContext) {
    if (ctx.side === 'appliance' && ctx.mode === 'adopt' && change.origin === deviceId) count.n += 1;
    return originalApply.call(this, trx, change, ctx);
  } as typeof originalApply;
  return count;
}

async function joined(opts: Parameters<typeof twoNodes>[0] = {}) {
  const nodes = await twoNodes(opts);
  const menu = await seedMenu(nodes.cloud, nodes.tenant.id);
  await nodes.appliance.engine.syncOnce();
  const actor = (via: 'pos' | 'web' | 'external' = 'pos') => ({ tenantId: nodes.tenant.id, userId: null, via });
  const state = async () => (await nodes.appliance.engine.readState())!;
  return { ...nodes, menu, actor, state, quiesce: () => quiesce(nodes.appliance) };
}

describe('sync: echoes of own ops', () => {
  it('an echo equal to what was sent is not applied again, and echoed_seq follows the device’s ops', async () => {
    const { appliance, cloud, tenant, device, transport, menu, actor, state, quiesce } = await joined();
    expect((await state()).echoed_seq).toBe(0); // a newly bound device
    transport.offline = true;
    for (let i = 0; i < 3; i++) {
      const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
      await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    }
    const lastOwn = (await state()).acked_seq;
    transport.offline = false;
    const adopts = countOwnAdopts(device.id);
    await quiesce();
    expect(adopts.n).toBe(0);
    const after = await state();
    expect(after.echoed_seq).toBeGreaterThan(lastOwn);
    expect(after.echoed_seq).toBe(after.acked_seq);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a cloud change between two pushes of the same order: adopted, the later own op re-applied on top, both sides identical', async () => {
    const { appliance, cloud, tenant, transport, menu, actor, quiesce } = await joined({ pushBatch: 1 });
    const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
    await quiesce();
    transport.offline = true;
    await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    await appliance.services.orders.setStatus(actor(), order.id, 'preparing');
    transport.offline = false;
    await appliance.engine.pushOnce(); // only 'accepted' reaches the cloud
    await cloud.services.orders.setStatus(actor('external'), order.id, 'ready'); // then the cloud moves on
    await quiesce(); // 'preparing' arrives after 'ready': never backwards
    expect((await cloud.services.orders.get(tenant.id, order.id)).status).toBe('ready');
    expect((await appliance.services.orders.get(tenant.id, order.id)).status).toBe('ready');
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a database from before this rule (echoed_seq unknown) adopts echoes until the first one sets it', async () => {
    const { appliance, cloud, tenant, device, transport, menu, actor, state, quiesce } = await joined();
    await appliance.handle.db.updateTable('sync_state').set({ echoed_seq: null }).execute();
    transport.offline = true;
    const { order } = await appliance.services.orders.create(actor(), orderBody(menu));
    await appliance.services.orders.setStatus(actor(), order.id, 'accepted');
    await cloud.services.orders.create(actor('web'), orderBody(menu));
    transport.offline = false;
    const adopts = countOwnAdopts(device.id);
    await quiesce();
    expect(adopts.n).toBe(1); // the first echo, adopted as before; the next one skipped
    expect((await state()).echoed_seq).toBe((await state()).acked_seq);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('the cloud’s changes of a page enter the local change log together, in page order with consecutive seqs, as the cloud has them', async () => {
    const { appliance, cloud, tenant, menu, actor, quiesce } = await joined();
    const before = (await appliance.handle.db.selectFrom('change_log').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirstOrThrow()).m;
    for (let i = 0; i < 5; i++) {
      const { order } = await cloud.services.orders.create(actor('web'), orderBody(menu));
      await cloud.services.orders.setStatus(actor('external'), order.id, 'accepted');
    }
    const page = await appliance.engine.pullOnce();
    expect(page.records.length).toBeGreaterThanOrEqual(10);
    const local = await appliance.handle.db.selectFrom('change_log').selectAll().where('tenant_id', '=', tenant.id).where('seq', '>', Number(before ?? 0)).orderBy('seq').execute();
    const remote = await cloud.handle.db.selectFrom('change_log').selectAll().where('tenant_id', '=', tenant.id).where('op_id', 'in', local.map((r) => r.op_id)).orderBy('seq').execute();
    expect(local.map((r) => r.op_id)).toEqual(remote.map((r) => r.op_id));
    expect(local.map((r) => Number(r.seq))).toEqual(local.map((_, i) => Number(local[0]!.seq) + i));
    expect(page.records.map((r) => r.seq)).toEqual(local.map((r) => Number(r.seq)));
    expect(local.map((r) => [r.origin, r.entity, r.entity_id, r.kind, r.created_at, JSON.parse(r.payload)])).toEqual(remote.map((r) => [r.origin, r.entity, r.entity_id, r.kind, r.created_at, JSON.parse(r.payload)]));
    await quiesce();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});
