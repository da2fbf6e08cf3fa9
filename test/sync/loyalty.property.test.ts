import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangeLog } from '../../server/db/change-log.js';
import { migrateToLatest, openDb, type DbHandle } from '../../server/db/connection.js';
import { originName } from '../../server/db/meta.js';
import { loadConfig } from '../../server/config.js';
import { createServices, type Services } from '../../server/modules/index.js';
import { syncRegistry } from '../../server/modules/sync-descriptors.js';
import { ManualClock } from '../../server/shared/clock.js';
import { SyncEngine } from '../../sync/engine.js';
import { lane } from '../helpers/db.js';
import { fcRuns, fcRunsRaised } from '../helpers/fc-runs.js';
import { createCloud, FakeTransport, replicatedState } from './harness.js';
import { checkLoyalty, expectedRefusal, initLoyalty, loyaltyCommands, runLoyalty, type LoyaltyCmd } from './models/loyalty.js';
import type { SideHandle, World } from './models/types.js';

/**
 * The loyalty escrow under generated histories (issue 9, ARCHITECTURE §7): earns (an order may be
 * paid on both sides), leases granted, renewed and returned, redemptions offline (the lease) and
 * online (the appliance asking the cloud, through the same faulty transport as sync), the cloud's
 * own redemptions, the same phone registered on both sides (merged), erasures, partial pushes and
 * pulls, requests and answers lost, repeated messages (a resend after a lost answer), restarts.
 * After every step no balance is below zero on either side; after a quiet sync both sides hold the
 * same data, the accounts equal the ledger's replay, no point is earned twice or spent twice.
 *
 * The same model (test/sync/models/loyalty.ts) also joins the shared convergence property
 * (test/sync/sync.property.test.ts), where the appliance has no online link.
 */

/**
 * Runs per lane in CI. More: LOYALTY_PROPERTY_RUNS=<n> (or SYNC_PROPERTY_RUNS), or
 * FC_RUNS_SCALE=<factor> for every property test (test/helpers/fc-runs.ts; FC_RUNS_SCALE=2 gives
 * 60 / 40, what CI ran before the suite was made faster).
 */
const RUNS = { sqlite: 30, postgres: 20 };

type Side = 'appliance' | 'cloud';
type Cmd =
  | { t: 'loyalty'; side: Side; c: LoyaltyCmd }
  | { t: 'push' }
  | { t: 'pull' }
  | { t: 'sync' }
  | { t: 'fault'; fault: 'lose-request' | 'lose-response' }
  | { t: 'offline'; on: boolean }
  | { t: 'link'; on: boolean }
  | { t: 'restart' };

const side = fc.constantFrom<Side>('appliance', 'cloud');
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  ...loyaltyCommands.map(({ weight, arbitrary }) => ({ weight: weight * 2, arbitrary: fc.record({ t: fc.constant('loyalty' as const), side, c: arbitrary }) })),
  { weight: 3, arbitrary: fc.constant({ t: 'push' as const }) },
  { weight: 3, arbitrary: fc.constant({ t: 'pull' as const }) },
  { weight: 3, arbitrary: fc.constant({ t: 'sync' as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('fault' as const), fault: fc.constantFrom('lose-request' as const, 'lose-response' as const) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('offline' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('link' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ t: 'restart' as const }) },
);

/** The appliance as a process (services + engine on one SQLite database); a restart makes new objects on the same database. */
class ApplianceProcess {
  changes!: ChangeLog;
  services!: Services;
  engine!: SyncEngine;
  constructor(
    readonly handle: DbHandle,
    readonly clock: ManualClock,
    readonly transport: FakeTransport,
  ) {}

  async boot(link: boolean): Promise<void> {
    await migrateToLatest(this.handle.db);
    this.changes = new ChangeLog(this.handle.db, this.clock, await originName(this.handle.db, 'local'));
    const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/restaurant-test' });
    this.services = createServices({ config, handle: this.handle, clock: this.clock, changes: this.changes });
    if (link) this.services.loyalty.useCloudLink(this.transport);
    this.engine = new SyncEngine({ db: this.handle.db, changes: this.changes, clock: this.clock, transport: this.transport, registry: syncRegistry, pullLimit: 5, pushBatch: 4, snapshotLimit: 3 });
  }
}

const transient = (e: unknown) => e instanceof Error && e.name === 'SyncTransient';

describe(`loyalty escrow property (${lane})`, () => {
  it('earns, leases, offline and online redemptions, merges, erasures and lost or repeated messages: never below zero, equal after a quiet sync, nothing twice', async () => {
    const clock = new ManualClock();
    const cloud = await createCloud(clock);
    let run = 0;
    /** How often each kind of step succeeded or was refused (LOYALTY_PROPERTY_STATS=1 prints it), to see that the histories do what they should. */
    const stats: Record<string, number> = {};
    const count = (k: string) => (stats[k] = (stats[k] ?? 0) + 1);
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 1, maxLength: 40 }), fc.constantFrom(0, 20, 100), async (cmds, allowance) => {
        run += 1;
        const t = await cloud.seedTenant({ slug: `loy-${run}-${Math.random().toString(36).slice(2, 8)}` });
        await cloud.services.tenants.patchSettings(t.id, { loyalty_offline_allowance: allowance });
        const { sync_key } = await cloud.services.sync.cloud.createDevice(t.id, 'Kassa');
        const transport = new FakeTransport(() => cloud, sync_key);
        const products: string[] = [];
        for (const [name, price_cents] of [['Friet', 395], ['Burger', 1450], ['Cola', 300]] as const) products.push((await cloud.services.menu.createProduct(t.id, { name, price_cents })).id);
        const handle = openDb({ sqliteFile: ':memory:' });
        try {
          let link = true;
          let app = new ApplianceProcess(handle, clock, transport);
          await app.boot(link);
          await app.engine.syncOnce();
          const world: World = { tenantId: t.id, clock, cloud, appliance: handle, products, orders: [] };
          const sideHandle = (s: Side): SideHandle =>
            s === 'cloud' ? { side: s, services: cloud.services, changes: cloud.changes, db: cloud.handle.db } : { side: s, services: app.services, changes: app.changes, db: handle.db };
          const state = await initLoyalty(world);
          await app.engine.syncOnce();
          for (const c of cmds) {
            clock.advance(1000);
            try {
              switch (c.t) {
                case 'loyalty':
                  await runLoyalty(c.c, sideHandle(c.side), state, world);
                  count(`${c.c.k}@${c.side}`);
                  break;
                case 'push':
                  await app.engine.pushOnce();
                  break;
                case 'pull':
                  await app.engine.pullOnce();
                  break;
                case 'sync':
                  await app.engine.syncOnce();
                  break;
                case 'fault':
                  transport.faults.push(c.fault);
                  break;
                case 'offline':
                  transport.offline = c.on;
                  break;
                case 'link':
                  link = c.on;
                  app.services.loyalty.useCloudLink(link ? transport : undefined);
                  break;
                case 'restart':
                  app = new ApplianceProcess(handle, clock, transport);
                  await app.boot(link);
                  break;
              }
            } catch (e) {
              if (!expectedRefusal(e) && !transient(e)) throw e;
              count(`${c.t === "loyalty" ? `${c.c.k}@${c.side}` : c.t} refused: ${e instanceof Error ? e.message.replace(/\d+/g, "N").slice(0, 90) : ""}`);
            }
          }
          // Heal and quiesce.
          transport.offline = false;
          transport.faults = [];
          app = new ApplianceProcess(handle, clock, transport);
          await app.boot(true);
          await app.engine.syncOnce();
          await app.engine.syncOnce();
          await app.services.loyalty.settled();
          await cloud.services.loyalty.settled();
          expect(await app.engine.pendingCount()).toBe(0);
          expect(await replicatedState({ handle } as never, t.id)).toEqual(await replicatedState(cloud, t.id));
          // No op of the appliance was refused: an honest appliance never spends or returns more than it holds.
          const deviceId = (await app.engine.readState())!.device_id;
          const refused = await cloud.handle.db.selectFrom('sync_ops').select(['status', 'result']).where('device_id', '=', deviceId).where('status', '=', 'rejected').execute();
          expect(refused).toEqual([]);
          await checkLoyalty(state, world, { cloud: sideHandle('cloud'), appliance: sideHandle('appliance') });
        } finally {
          await handle.close();
        }
      }),
      {
        seed: Number(process.env.LOYALTY_PROPERTY_SEED ?? process.env.SYNC_PROPERTY_SEED ?? 20261123),
        numRuns: fcRuns(RUNS, 'LOYALTY_PROPERTY_RUNS', 'SYNC_PROPERTY_RUNS'),
        endOnFailure: true,
      },
    );
    if (process.env.LOYALTY_PROPERTY_STATS) console.log(JSON.stringify(stats, Object.keys(stats).sort(), 1));
  }, fcRunsRaised(RUNS, 'LOYALTY_PROPERTY_RUNS', 'SYNC_PROPERTY_RUNS') ? 3_600_000 : 600_000);
});
