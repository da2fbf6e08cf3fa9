import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangeLog } from '../../server/db/change-log.js';
import { migrateToLatest, openDb } from '../../server/db/connection.js';
import { originName } from '../../server/db/meta.js';
import { loadConfig } from '../../server/config.js';
import { createServices } from '../../server/modules/index.js';
import { syncRegistry } from '../../server/modules/sync-descriptors.js';
import { ManualClock } from '../../server/shared/clock.js';
import { isAppError } from '../../server/shared/errors.js';
import { SyncEngine } from '../../sync/engine.js';
import { lane } from '../helpers/db.js';
import { fcRuns, fcRunsRaised } from '../helpers/fc-runs.js';
import { createCloud, FakeTransport, replicatedState } from './harness.js';
import { depthModel } from './models/depth.js';
import type { Side, SideHandle, World } from './models/types.js';

/**
 * Issue 23's ops densely (the menu depth model of test/sync/models/depth.ts, which also runs in the
 * mixed stream of sync.property.test.ts, where its commands are rare): orders with options and a held
 * course 2, fires and voids on both sides with syncs, lost requests and responses and outages in
 * between, so the same course is often fired and the same line voided on both sides of an outage.
 * After a quiet sync both sides are identical, the model's invariants hold (a voided unit is never
 * charged on either side, a course fires once), and a new appliance joining (a snapshot) holds the
 * same rows, fires and voids included.
 */
const RUNS = { sqlite: 60, postgres: 25 };

type Cmd =
  | { t: 'model'; side: Side; c: unknown }
  | { t: 'push' }
  | { t: 'pull' }
  | { t: 'sync' }
  | { t: 'offline'; on: boolean }
  | { t: 'fault'; fault: 'lose-request' | 'lose-response' };

const side = fc.constantFrom<Side>('appliance', 'cloud');
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  ...depthModel.commands.map(({ weight, arbitrary }) => ({ weight, arbitrary: fc.record({ t: fc.constant('model' as const), side, c: arbitrary }) })),
  { weight: 2, arbitrary: fc.constant({ t: 'push' as const }) },
  { weight: 2, arbitrary: fc.constant({ t: 'pull' as const }) },
  { weight: 3, arbitrary: fc.constant({ t: 'sync' as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('offline' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('fault' as const), fault: fc.constantFrom('lose-request' as const, 'lose-response' as const) }) },
);

const expected = (e: unknown) => isAppError(e) && ['CONFLICT', 'NOT_FOUND', 'VALIDATION'].includes(e.code);

describe(`sync of options, fires and voids, densely (${lane})`, () => {
  it('orders with options, fires and voids on both sides across outages converge; voided units never charged, a course fired once, a newcomer gets the same fires and voids', async () => {
    const clock = new ManualClock();
    const cloud = await createCloud(clock);
    const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/restaurant-test' });
    let run = 0;
    let bothFired = 0;
    let voidRows = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 5, maxLength: 40, size: 'medium' }), async (cmds) => {
        run += 1;
        const t = await cloud.seedTenant({ slug: `diepte-${run}-${Math.random().toString(36).slice(2, 8)}` });
        const { sync_key } = await cloud.services.sync.cloud.createDevice(t.id, 'Kassa');
        const transport = new FakeTransport(() => cloud, sync_key);
        const products = [(await cloud.services.menu.createProduct(t.id, { name: 'Friet', price_cents: 395 })).id];
        const handle = openDb({ sqliteFile: ':memory:' });
        const boot = async (h = handle, tr = transport) => {
          await migrateToLatest(h.db);
          const changes = new ChangeLog(h.db, clock, await originName(h.db, 'local'));
          const services = createServices({ config, handle: h, clock, changes });
          const engine = new SyncEngine({ db: h.db, changes, clock, transport: tr, registry: syncRegistry, pullLimit: 7, pushBatch: 5, snapshotLimit: 2 });
          return { changes, services, engine };
        };
        try {
          const app = await boot();
          await app.engine.syncOnce();
          const world: World = { tenantId: t.id, clock, cloud, appliance: handle, products, orders: [] };
          const sideHandle = (s: Side): SideHandle =>
            s === 'cloud' ? { side: s, services: cloud.services, changes: cloud.changes, db: cloud.handle.db } : { side: s, services: app.services, changes: app.changes, db: handle.db };
          const state = (await depthModel.init(world)) as { fired: Set<string> };
          const firedOn = new Map<string, Set<Side>>();
          for (const c of cmds) {
            clock.advance(1000);
            try {
              if (c.t === 'model') {
                const before = new Set(state.fired);
                const firedCount = (await sideHandle(c.side).db.selectFrom('order_course_fires').select('order_id').where('tenant_id', '=', t.id).execute()).length;
                await depthModel.run(c.c, sideHandle(c.side), state, world);
                const after = (await sideHandle(c.side).db.selectFrom('order_course_fires').select('order_id').where('tenant_id', '=', t.id).execute()).length;
                if ((c.c as { t: string }).t === 'fire' && after > firedCount) {
                  const id = [...state.fired].find((x) => !before.has(x)) ?? null;
                  const order = id ?? [...state.fired].at(-1);
                  if (order) firedOn.set(order, new Set([...(firedOn.get(order) ?? []), c.side]));
                }
              } else if (c.t === 'push') await app.engine.pushOnce();
              else if (c.t === 'pull') await app.engine.pullOnce();
              else if (c.t === 'sync') await app.engine.syncOnce();
              else if (c.t === 'offline') transport.offline = c.on;
              else transport.faults.push(c.fault);
            } catch (e) {
              if (!expected(e) && !(e instanceof Error && e.name === 'SyncTransient')) throw e;
            }
          }
          transport.offline = false;
          transport.faults = [];
          await app.engine.syncOnce();
          await app.engine.syncOnce();
          const b = await replicatedState(cloud, t.id);
          expect(await replicatedState({ handle } as never, t.id)).toEqual(b);
          expect(await app.engine.pendingCount()).toBe(0);
          await depthModel.check(state, world, { cloud: sideHandle('cloud'), appliance: sideHandle('appliance') });
          bothFired += [...firedOn.values()].filter((s) => s.size === 2).length;
          voidRows += (b.order_item_voids ?? []).length;
          // A new appliance joining now (a snapshot) holds exactly the cloud's rows: fires and voids with who, when and why.
          const { sync_key: lateKey } = await cloud.services.sync.cloud.createDevice(t.id, 'Nieuwe kassa');
          const lateHandle = openDb({ sqliteFile: ':memory:' });
          try {
            const late = await boot(lateHandle, new FakeTransport(() => cloud, lateKey));
            await late.engine.syncOnce();
            expect(await replicatedState({ handle: lateHandle } as never, t.id)).toEqual(b);
          } finally {
            await lateHandle.close();
          }
        } finally {
          await handle.close();
        }
      }),
      { seed: Number(process.env.SYNC_PROPERTY_SEED ?? 20261127), numRuns: fcRuns(RUNS, 'SYNC_PROPERTY_RUNS'), endOnFailure: true },
    );
    // The stream did what it is for: courses fired on both sides before they met, and voids travelled.
    expect(bothFired).toBeGreaterThan(0);
    expect(voidRows).toBeGreaterThan(0);
  }, fcRunsRaised(RUNS, 'SYNC_PROPERTY_RUNS') ? 3_600_000 : 600_000);
});
