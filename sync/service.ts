import type { Config } from '../server/config.js';
import type { ChangeLog } from '../server/db/change-log.js';
import type { DbHandle } from '../server/db/connection.js';
import type { Clock } from '../server/shared/clock.js';
import { createSyncCloud } from './cloud.js';
import type { SyncRegistry } from './registry.js';
import { SyncStatusBoard } from './status.js';

/** What the sync routes (and the CLI's `device create`) use: the cloud endpoints and the status board. */
export function createSyncService(deps: { config: Config; handle: DbHandle; clock: Clock; changes: ChangeLog; registry: SyncRegistry }) {
  const { handle, clock, changes, config, registry } = deps;
  const cloud = createSyncCloud({ db: handle.db, changes, clock, registry });
  const board = new SyncStatusBoard({ db: handle.db, clock, role: config.role });
  return {
    cloud,
    board,
    /** CLI / admin: registers an appliance for a tenant; the key is returned once and stored hashed. */
    createDevice: cloud.createDevice,
    status: (tenantId: string) => board.status(tenantId),
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
