import { EventEmitter } from 'node:events';
import type { Role } from '../server/config.js';
import type { Db } from '../server/db/connection.js';
import type { Clock } from '../server/shared/clock.js';
import { STATE_ID } from './engine.js';

/** Staff get a warning when the oldest change still waiting for the cloud is older than this. */
export const PENDING_WARNING_MS = 5 * 60_000;

export interface SyncStatus {
  role: Role;
  /** Whether this node syncs with a cloud (an appliance with CLOUD_URL and SYNC_KEY). */
  enabled: boolean;
  online: boolean;
  state: 'disabled' | 'starting' | 'online' | 'offline' | 'stopped';
  pending: number;
  oldest_pending_at: string | null;
  oldest_pending_age_seconds: number | null;
  /** true when the oldest pending change waits longer than 5 minutes. */
  warning: boolean;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  stopped_reason: string | null;
  /** Ops the cloud rejected or answered with a conflict (see sync_op_results). */
  rejected: number;
  conflicts: number;
  device_id: string | null;
}

export interface RuntimeSyncState {
  enabled: boolean;
  started: boolean;
  online: boolean;
  lastError: string | null;
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
  stopped: string | null;
}

/**
 * What the appliance knows about its sync, for `GET /sync/status` and the `sync.status` socket
 * event: counts from the database plus the worker's live state. `on('status', (tenantId, status))`
 * fires whenever the worker reports a change (online/offline, success, error, stop).
 */
export class SyncStatusBoard extends EventEmitter<{ status: [tenantId: string, status: SyncStatus] }> {
  private live: RuntimeSyncState = { enabled: false, started: false, online: false, lastError: null, lastErrorAt: null, lastSuccessAt: null, stopped: null };
  private lastEmitted = '';

  constructor(private readonly deps: { db: Db; clock: Clock; role: Role }) {
    super();
  }

  get runtime(): Readonly<RuntimeSyncState> {
    return this.live;
  }

  /** The appliance's own status (the tenant it is bound to), for the desktop tray; `disabled` before any binding. */
  async own(): Promise<SyncStatus> {
    const state = await this.deps.db.selectFrom('sync_state').select('tenant_id').where('id', '=', STATE_ID).executeTakeFirst();
    return this.status(state?.tenant_id ?? '');
  }

  async status(tenantId: string): Promise<SyncStatus> {
    const { db, clock, role } = this.deps;
    const state = await db.selectFrom('sync_state').selectAll().where('id', '=', STATE_ID).executeTakeFirst();
    const base: SyncStatus = {
      role,
      enabled: this.live.enabled,
      online: this.live.online,
      state: !this.live.enabled ? 'disabled' : this.live.stopped ? 'stopped' : !this.live.started ? 'starting' : this.live.online ? 'online' : 'offline',
      pending: 0,
      oldest_pending_at: null,
      oldest_pending_age_seconds: null,
      warning: false,
      last_success_at: this.live.lastSuccessAt ?? state?.last_success_at ?? null,
      last_error: this.live.lastError ?? null,
      last_error_at: this.live.lastErrorAt ?? null,
      stopped_reason: this.live.stopped ?? state?.stopped_reason ?? null,
      rejected: 0,
      conflicts: 0,
      device_id: state?.device_id ?? null,
    };
    if (!state || state.tenant_id !== tenantId) return base;
    const pending = await db
      .selectFrom('change_log')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('tenant_id', '=', tenantId)
      .where('origin', '=', state.device_id)
      .where('seq', '>', Number(state.acked_seq))
      .executeTakeFirstOrThrow();
    const outcomes = await db
      .selectFrom('sync_op_results')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .groupBy('status')
      .execute();
    const oldest = (pending.oldest as string | null) ?? null;
    const age = oldest ? Math.max(0, Math.floor((clock.now().getTime() - new Date(oldest).getTime()) / 1000)) : null;
    return {
      ...base,
      pending: Number(pending.n),
      oldest_pending_at: oldest,
      oldest_pending_age_seconds: age,
      warning: age !== null && age * 1000 > PENDING_WARNING_MS,
      rejected: Number(outcomes.find((o) => o.status === 'rejected')?.n ?? 0),
      conflicts: Number(outcomes.find((o) => o.status === 'conflict')?.n ?? 0),
    };
  }

  /** The worker reports here; listeners get the new status when something visible changed. */
  async report(tenantId: string | null, patch: Partial<RuntimeSyncState>): Promise<void> {
    this.live = { ...this.live, ...patch };
    if (!tenantId || this.listenerCount('status') === 0) return;
    const s = await this.status(tenantId);
    const { oldest_pending_age_seconds: _age, warning: _w, last_success_at: _ls, ...visible } = s;
    const key = JSON.stringify(visible);
    if (key === this.lastEmitted) return;
    this.lastEmitted = key;
    this.emit('status', tenantId, s);
  }
}
