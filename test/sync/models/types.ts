import type fc from 'fast-check';
import type { ChangeLog } from '../../../server/db/change-log.js';
import type { DbHandle } from '../../../server/db/connection.js';
import type { Services } from '../../../server/modules/index.js';
import type { ManualClock } from '../../../server/shared/clock.js';
import type { TestApp } from '../../helpers/app.js';

export type Side = 'appliance' | 'cloud';

/** One side as the model sees it at the moment a command runs (the appliance is rebuilt after a crash). */
export interface SideHandle {
  side: Side;
  services: Services;
  changes: ChangeLog;
  db: DbHandle['db'];
}

/** What every area model shares within one run (one fresh tenant). */
export interface World {
  tenantId: string;
  clock: ManualClock;
  cloud: TestApp;
  /** The appliance's database (survives its restarts). */
  appliance: DbHandle;
  /** Menu products made before the run (Friet, Burger, Cola), on both sides. */
  products: string[];
  /** Every order id created so far, either side. */
  orders: string[];
}

/**
 * One area's part of the sync convergence property (test/sync/sync.property.test.ts, AREAS.md): its
 * commands join the random stream (interleaved with the other areas', partial syncs and faults), and
 * after the final quiet sync its invariants are checked on both sides. Identical replicated tables
 * are checked for every area by the test itself; `check` adds what matters for the area (a ledger's
 * level equals the replay of the union, points never doubled or negative, ...).
 *
 * Add a model: a file in this folder, and one line in AREA_MODELS (./index.ts).
 */
export interface AreaModel<C = unknown, S = unknown> {
  name: string;
  /** This area's commands, with their weight in the stream (the core commands weigh 1 to 4). */
  commands: Array<{ weight: number; arbitrary: fc.Arbitrary<C> }>;
  /** Per-run state (ids made so far, what was spent ...), made after the bootstrap. */
  init(world: World): Promise<S>;
  /**
   * Run one command on a side. Throw what the API would (AppError CONFLICT/NOT_FOUND/VALIDATION are
   * expected refusals and ignored by the test); anything else fails the run.
   */
  run(cmd: C, on: SideHandle, state: S, world: World): Promise<void>;
  /** After the final quiet sync: `expect` the area's invariants on both sides. */
  check(state: S, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void>;
}

/** Erases the command and state types for the list (each model keeps its own inside). */
export const model = <C, S>(m: AreaModel<C, S>): AreaModel => m as unknown as AreaModel;
