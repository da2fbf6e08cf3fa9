import fc from 'fast-check';
import { expect } from 'vitest';
import { model, type SideHandle, type World } from './types.js';

/**
 * API keys and webhook subscriptions in the sync convergence property (issue 16, docs/partners.md):
 * keys made and revoked on either side, webhooks registered, re-keyed and deleted on either side,
 * during outages, crashes and partial syncs.
 *
 * Invariants after the quiet sync (besides identical replicated tables: the same key hashes, the
 * same secrets everywhere):
 * - a key revoked on either side is refused on both; every other key made works on both, for its
 *   own restaurant;
 * - a webhook deleted on either side is gone on both (deletion is sticky); the live webhooks are the
 *   same list on both sides, each with one secret.
 *
 * Webhooks point at 127.0.0.1:9 (nothing listens: a refused connection, at once), so the deliveries
 * the other areas' events cause cost nothing; the cloud is told it may reach that address.
 */
type Cmd =
  | { t: 'key'; scope: 'read' | 'write' | 'admin' }
  | { t: 'revoke'; key: number }
  | { t: 'hook' }
  | { t: 'rotate'; hook: number }
  | { t: 'unhook'; hook: number };

interface State {
  keys: Array<{ id: string; key: string }>;
  revoked: Set<string>;
  hooks: string[];
  deleted: Set<string>;
}

export const partnersModel = model<Cmd, State>({
  name: 'partners',
  commands: [
    { weight: 3, arbitrary: fc.record({ t: fc.constant('key' as const), scope: fc.constantFrom('read' as const, 'write' as const, 'admin' as const) }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('revoke' as const), key: fc.nat(5) }) },
    { weight: 2, arbitrary: fc.constant({ t: 'hook' as const }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('rotate' as const), hook: fc.nat(3) }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('unhook' as const), hook: fc.nat(3) }) },
  ],

  async init(world: World): Promise<State> {
    const { apiKeys, webhooks } = world.cloud.services;
    webhooks.net.allowPrivate = true;
    const state: State = { keys: [], revoked: new Set(), hooks: [], deleted: new Set() };
    for (const scope of ['read', 'write'] as const) {
      const k = await apiKeys.create(world.tenantId, { name: `Start ${scope}`, scopes: [scope] }, null);
      state.keys.push({ id: k.id, key: k.key });
    }
    for (const n of [1, 2]) state.hooks.push((await webhooks.create(world.tenantId, { url: `http://127.0.0.1:9/start-${n}`, events: ['order.paid'] }, null)).id);
    // The appliance already knows them (as after any sync), so revocations, rotations and deletions
    // race from the first command on; the cloud's creations, pulled later, adopt the same rows.
    for (const table of ['api_keys', 'webhook_subscriptions'] as const) {
      for (const row of await world.cloud.handle.db.selectFrom(table).selectAll().where('tenant_id', '=', world.tenantId).execute()) {
        await world.appliance.db.insertInto(table).values(row as never).execute();
      }
    }
    return state;
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const { apiKeys, webhooks } = on.services;
    switch (cmd.t) {
      case 'key': {
        const k = await apiKeys.create(world.tenantId, { name: `Koppeling ${state.keys.length + 1}`, scopes: [cmd.scope] }, null);
        state.keys.push({ id: k.id, key: k.key });
        break;
      }
      case 'revoke': {
        const k = state.keys[cmd.key % Math.max(1, state.keys.length)];
        if (!k) break;
        await apiKeys.revoke(world.tenantId, k.id); // NOT_FOUND while this side has not heard of it yet
        state.revoked.add(k.id);
        break;
      }
      case 'hook': {
        const h = await webhooks.create(world.tenantId, { url: `http://127.0.0.1:9/hook-${state.hooks.length + 1}`, events: ['order.created', 'order.paid'] }, null);
        state.hooks.push(h.id);
        break;
      }
      case 'rotate': {
        const id = state.hooks[cmd.hook % Math.max(1, state.hooks.length)];
        if (id) await webhooks.rotateSecret(world.tenantId, id);
        break;
      }
      case 'unhook': {
        const id = state.hooks[cmd.hook % Math.max(1, state.hooks.length)];
        if (!id) break;
        await webhooks.remove(world.tenantId, id);
        state.deleted.add(id);
        break;
      }
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    for (const side of [sides.cloud, sides.appliance]) {
      for (const k of state.keys) {
        const ctx = await side.services.apiKeys.authenticate(`Bearer ${k.key}`);
        if (state.revoked.has(k.id)) expect(ctx, `${side.side}: revoked key ${k.id}`).toBeNull();
        else expect(ctx, `${side.side}: key ${k.id}`).toMatchObject({ keyId: k.id, tenantId: world.tenantId });
      }
      const live = (await side.services.webhooks.list(world.tenantId)).map((h) => h.id);
      for (const id of state.deleted) expect(live, `${side.side}: deleted webhook ${id}`).not.toContain(id);
      expect(live.sort()).toEqual(state.hooks.filter((id) => !state.deleted.has(id)).sort());
    }
  },
});
