import os from 'node:os';
import type { ChangeRecord } from '../server/db/change-log.js';
import { newId } from '../server/shared/ids.js';
import { LEASE_MS, LeaseLost, STATE_ID, SyncEngine, SyncStopped, SyncTransient, type EngineOptions } from './engine.js';
import type { SyncStatusBoard } from './status.js';
import { envFailpoint } from './failpoint.js';
import { httpTransport } from './transport.js';
import { VERSION as APP_VERSION } from '../server/version.js';

/** One runner per database in this process (the lease row guards against other processes). */
const activeKeys = new Set<string>();

export interface WorkerOptions extends Omit<EngineOptions, 'holder'> {
  /** Identity of the database (file path or URL): the in-process mutex key. */
  key: string;
  board: SyncStatusBoard;
  /** Long-poll wait while caught up (the cloud answers as soon as something commits). */
  longPollMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Cap while the cloud cannot be reached at all: trying a dead connection costs the cloud nothing, and it bounds how long a healed connection waits. */
  maxOfflineBackoffMs?: number;
}

/**
 * The next pause (before jitter) after `previous` ms: doubling from `min`; up to `max` when the
 * cloud answered "not now" (503, partial push: it is busy, back off); up to `maxOffline` when it
 * could not be reached (no network: nothing to spare, and the kitchen wants the queue drained soon
 * after the line comes back); half a lease when another runner holds the lease.
 */
export function nextBackoff(previous: number, err: unknown, o: { min: number; max: number; maxOffline: number }): number {
  if (err instanceof LeaseLost) return LEASE_MS / 2;
  const cap = err instanceof SyncTransient && err.unreachable ? Math.min(o.max, o.maxOffline) : o.max;
  return Math.min(cap, previous ? previous * 2 : o.min);
}

/**
 * The appliance's sync loop (ARCHITECTURE §4): push what is pending, pull until caught up, then
 * long-poll the cloud so a web order arrives within a second or two; a local commit cuts the
 * long-poll short so the push goes out at once. Errors back off exponentially (with jitter) up to
 * a minute when the cloud is busy, up to 10 s when it cannot be reached (`nextBackoff`); a refused version or revoked key stops the loop and is shown in /sync/status.
 */
export class SyncWorker {
  /** `host:pid:uuid`, so a restarted process can tell that the holder it finds died (SIGKILL, crash) without releasing the lease. */
  readonly holder = `${os.hostname()}:${process.pid}:${newId()}`;
  readonly engine: SyncEngine;
  private running = false;
  private loop: Promise<void> | null = null;
  private poll = new AbortController();
  private wake: (() => void) | null = null;
  private tenantId: string | null = null;

  constructor(private readonly o: WorkerOptions) {
    this.engine = new SyncEngine({ ...o, holder: this.holder });
  }

  /** Starts the loop; false when another worker already runs on this database in this process. */
  start(): boolean {
    if (this.running) return true;
    if (activeKeys.has(this.o.key)) {
      this.o.log?.('sync: another worker already runs on this database');
      return false;
    }
    activeKeys.add(this.o.key);
    this.running = true;
    void this.o.board.report(null, { enabled: true, started: false });
    this.o.changes.on('committed', this.onCommitted);
    this.loop = this.run().finally(() => activeKeys.delete(this.o.key));
    return true;
  }

  async stop(): Promise<void> {
    if (!this.running && !this.loop) return;
    this.running = false;
    this.o.changes.off('committed', this.onCommitted);
    this.poll.abort();
    this.wake?.();
    await this.loop;
    this.loop = null;
    await this.o.db
      .updateTable('sync_state')
      .set({ lease_holder: null, lease_expires_at: null })
      .where('id', '=', STATE_ID)
      .where('lease_holder', '=', this.holder)
      .execute()
      .catch(() => {});
  }

  private readonly onCommitted = (_tenantId: string, records: ChangeRecord[]) => {
    if (records.some((r) => r.origin === this.o.changes.origin)) {
      // A local change has committed and is waiting in the outbox; nothing is pushed yet.
      const hit = this.o.failpoint?.('outbox.after_commit_before_push');
      if (hit instanceof Promise) hit.catch(() => {});
      this.poll.abort();
      this.wake?.();
    }
  };

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    }).finally(() => (this.wake = null));
  }

  private async acquireLease(): Promise<boolean> {
    const now = this.o.clock.now();
    const res = await this.o.db
      .updateTable('sync_state')
      .set({ lease_holder: this.holder, lease_expires_at: new Date(now.getTime() + LEASE_MS).toISOString() })
      .where('id', '=', STATE_ID)
      .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_holder', '=', this.holder), eb('lease_expires_at', '<', now.toISOString())]))
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 1) return true;
    // Held and not expired. A process killed on this machine never released it: without this the
    // restarted appliance would sit out the rest of the 30 s lease (and then a 15 s back-off).
    const row = await this.o.db.selectFrom('sync_state').select('lease_holder').where('id', '=', STATE_ID).executeTakeFirst();
    if (!row?.lease_holder || !holderIsDead(row.lease_holder)) return false;
    const took = await this.o.db
      .updateTable('sync_state')
      .set({ lease_holder: this.holder, lease_expires_at: new Date(now.getTime() + LEASE_MS).toISOString() })
      .where('id', '=', STATE_ID)
      .where('lease_holder', '=', row.lease_holder)
      .executeTakeFirst();
    if (Number(took.numUpdatedRows) !== 1) return false;
    this.o.log?.('sync: took over the lease of a process that no longer exists', { previous: row.lease_holder });
    return true;
  }

  private async run(): Promise<void> {
    const { board, clock } = this.o;
    const min = this.o.minBackoffMs ?? 1_000;
    const max = this.o.maxBackoffMs ?? 60_000;
    const maxOffline = this.o.maxOfflineBackoffMs ?? 10_000;
    let backoff = 0;
    // Known from an earlier run even before the cloud answers, so an offline start is reported too.
    this.tenantId = (await this.engine.readState().catch(() => undefined))?.tenant_id ?? null;
    while (this.running) {
      try {
        const { tenantId } = await this.engine.ensureReady();
        this.tenantId = tenantId;
        if (!(await this.acquireLease())) throw new LeaseLost();
        for (;;) {
          const r = await this.engine.pushOnce();
          if (!r.more) break;
        }
        let page = await this.engine.pullOnce();
        while (page.more) page = await this.engine.pullOnce();
        backoff = 0;
        await board.report(tenantId, { started: true, online: true, lastError: null, lastErrorAt: null, lastSuccessAt: clock.now().toISOString() });
        if (!this.running) break;
        // Caught up: wait for the cloud (long-poll) unless a local change is already waiting.
        if ((await this.engine.pendingCount()) === 0) {
          this.poll = new AbortController();
          let longPoll = await this.engine.pullOnce({ wait: this.o.longPollMs ?? 20_000, signal: this.poll.signal });
          while (longPoll.more) longPoll = await this.engine.pullOnce();
        }
      } catch (err) {
        if (!this.running) break;
        if (this.poll.signal.aborted) {
          this.poll = new AbortController(); // a local change cut the long-poll short: go push it
          continue;
        }
        const message = err instanceof Error ? err.message : String(err);
        const at = clock.now().toISOString();
        if (err instanceof SyncStopped) {
          this.o.log?.('sync: stopped', { reason: message });
          await this.o.db.updateTable('sync_state').set({ stopped_reason: message, last_error: message, last_error_at: at }).where('id', '=', STATE_ID).execute().catch(() => {});
          await board.report(this.tenantId, { started: true, online: false, stopped: message, lastError: message, lastErrorAt: at });
          this.running = false;
          break;
        }
        this.o.log?.('sync: error, retrying', { reason: message, backoff_ms: backoff });
        await this.o.db.updateTable('sync_state').set({ last_error: message, last_error_at: at }).where('id', '=', STATE_ID).execute().catch(() => {});
        await board.report(this.tenantId, { started: true, online: err instanceof LeaseLost, lastError: message, lastErrorAt: at }).catch(() => {});
        backoff = nextBackoff(backoff, err, { min, max, maxOffline });
        await this.sleep(backoff * (0.75 + Math.random() * 0.5));
      }
    }
  }
}

export { SyncStopped };

/**
 * True only when the lease holder (`host:pid:uuid`, see `SyncWorker.holder`) was a process on this
 * machine that no longer exists. Any other holder (another host, an older format, a live process,
 * this process) is left to the lease's expiry.
 */
export function holderIsDead(holder: string, host = os.hostname()): boolean {
  const m = /^(.*):(\d+):[^:]+$/.exec(holder);
  if (!m || m[1] !== host) return false;
  const pid = Number(m[2]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The worker for an appliance configured with CLOUD_URL and SYNC_KEY; null for the cloud or a stand-alone appliance. */
export function createSyncWorker(deps: {
  config: import('../server/config.js').Config;
  handle: import('../server/db/connection.js').DbHandle;
  clock: import('../server/shared/clock.js').Clock;
  changes: import('../server/db/change-log.js').ChangeLog;
  board: SyncStatusBoard;
  registry: import('./registry.js').SyncRegistry;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}): SyncWorker | null {
  const { config } = deps;
  if (config.role !== 'local' || !config.cloudUrl || !config.syncKey) return null;
  return new SyncWorker({
    db: deps.handle.db,
    changes: deps.changes,
    clock: deps.clock,
    board: deps.board,
    registry: deps.registry,
    transport: httpTransport(config.cloudUrl, config.syncKey),
    key: config.databaseUrl ?? config.sqliteFile,
    appVersion: APP_VERSION,
    log: deps.log,
    // SYNC_FAILPOINT (end-to-end crash tests only; unset in production): SIGKILL at a named point.
    failpoint: envFailpoint(),
  });
}
