import type { Db, Dialect } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { deliveryBodies, SlugCache } from './webhooks.bodies.js';
import type { PostResult } from './webhooks.outbound.js';
import { webhooksRepository, type DeliveryRow, type QueueKey, type SubscriptionRow } from './webhooks.repository.js';
import { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './webhooks.schemas.js';

/** A delivery's place in the queue, and the queue's order (due time, then id). */
const queueKey = (d: DeliveryRow): QueueKey => ({ at: d.next_attempt_at ?? '', id: d.id });
const dueOrder = (a: QueueKey, b: QueueKey): number => a.at.localeCompare(b.at) || a.id.localeCompare(b.id);

/** Where the worker sets its wake-ups: real timers in production, a fake in tests (with a ManualClock). */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface DeliveryWorkerOptions {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  timers?: Timers;
  /** Tenant slugs for the bodies of narrow deliveries (webhooks.bodies.ts); the worker's own by default. */
  slugs?: SlugCache;
  /** One attempt: sign and POST (webhooks.service.ts); `signal` aborts it when the worker closes. `delivery.body` is the body to send (made from the change log for a narrow row). */
  send: (delivery: DeliveryRow, webhook: SubscriptionRow, signal: AbortSignal) => Promise<PostResult>;
  /** How long a claim keeps other nodes off a delivery (far longer than one attempt's 10 s). */
  leaseMs?: number;
  /** The longest one attempt can take (its timeout), for keeping every attempt inside its claim. */
  attemptMs?: number;
  /** Deliveries claimed per statement. */
  batchSize?: number;
  /** Once started, look at least this often (deliveries other nodes queued, leases of dead nodes). */
  pollMs?: number;
  /**
   * Claims between two reads of the whole queue (clock ms, default 1 s); the claims in between read
   * it from the last claimed row on. See `pass`.
   */
  fullScanMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * The persisted delivery queue's sender (CONTRACT §12, docs/partners.md "Delivery").
 *
 * A pass claims due rows (`status = 'pending' and next_attempt_at <= now`, not claimed by a live
 * lease) in one statement, sends them concurrently, and records each outcome on its row, then
 * claims again until nothing is due. Outcome of an attempt: 2xx → delivered; otherwise the attempt
 * counts and the next one is due 1 s, 4 s, 16 s later; after the 4th it is failed (an admin can
 * send it again). The row, its attempt count and its due time are the whole state: a restart (or
 * another node) continues exactly where it stood, with the same delivery id and body.
 *
 * Passes run when kicked (new deliveries committed, a redelivery) and, once `start()`ed (the server
 * listens), at the next due time and at least every `pollMs`. Tests do not start it: they move a
 * ManualClock and call `runDue()` (or fire fake timers).
 */
export class DeliveryWorker {
  private readonly timers: Timers;
  private readonly leaseMs: number;
  private readonly attemptMs: number;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly fullScanMs: number;
  private readonly slugs: SlugCache;
  /** The queue key of the last row this worker claimed (the highest), and when (clock ms) a claim last read the whole queue. */
  private cursor: QueueKey | null = null;
  private fullAt = Number.NEGATIVE_INFINITY;
  /** The last pass read only from the cursor on and found nothing: rows behind it wait for the next full read. */
  private skippedBehind = false;
  private started = false;
  private closed = false;
  private running: Promise<number> | null = null;
  private again = false;
  private timer: unknown = null;
  /** Aborted by close(): attempts in flight end at once (a shutdown does not wait for slow receivers). */
  private readonly stopping = new AbortController();
  /** When the pending wake-up fires (clock ms), for tests and diagnostics. */
  wakeAt: number | null = null;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    this.timers = opts.timers ?? realTimers;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.attemptMs = opts.attemptMs ?? ATTEMPT_TIMEOUT_MS;
    this.batchSize = opts.batchSize ?? 200;
    this.pollMs = opts.pollMs ?? 5_000;
    this.fullScanMs = opts.fullScanMs ?? 1_000;
    this.slugs = opts.slugs ?? new SlugCache();
  }

  /** Timers on: a pass now, then at each due time (server listening). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.kick();
  }

  /** Something may be due now: run a pass (or one more after the pass in flight); `wholeQueue`: its claim reads the whole queue (see `pass`). */
  kick(wholeQueue = true): void {
    if (this.closed) return;
    if (wholeQueue) this.fullAt = Number.NEGATIVE_INFINITY;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      // A kick that came while the pass was scheduling its wake-up.
      if (this.again && !this.closed) this.kick(false);
    });
  }

  /** A pass now, awaited (joins the pass in flight and runs one more): the number of attempts made. */
  async runDue(): Promise<number> {
    if (this.closed) return 0;
    let total = 0;
    if (this.running) {
      this.again = true;
      total += await this.running;
      // The pass started for `again` while this one ran (kick() reassigns the field meanwhile).
      const next = this.running as Promise<number> | null;
      if (next !== null) total += await next;
      return total;
    }
    this.kick();
    return (await (this.running as Promise<number> | null)) ?? 0;
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => 0);
  }

  /**
   * Stops the timers, aborts the attempts in flight and waits for their bookkeeping. An aborted
   * attempt does not count: its delivery goes back to the queue as it was and is sent again (same
   * delivery id, so a receiver that did get it de-duplicates) after the restart or by another node.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    if (this.timer) this.timers.clear(this.timer);
    this.timer = null;
    this.wakeAt = null;
    await this.idle();
  }

  private async drain(): Promise<number> {
    let attempts = 0;
    try {
      do {
        this.again = false;
        for (;;) {
          const n = await this.pass();
          attempts += n;
          if (n === 0 || this.closed) break;
        }
      } while (this.again && !this.closed);
    } catch (err) {
      this.opts.onError?.(err);
    }
    if (this.started && !this.closed) await this.schedule();
    return attempts;
  }

  /**
   * One claim and its sends; the number of deliveries claimed.
   *
   * The claim reads the queue index (`webhook_deliveries_due`) in due order. On PostgreSQL that index
   * keeps an entry for every row version until VACUUM, and the sent rows' entries lie at its start
   * (they were due first): a claim from the start walks all of them, so a burst of deliveries (a
   * week's catch-up) made every claim slower than the last. So a claim reads the whole queue at most
   * every `fullScanMs` (clock ms) and otherwise only from the last row this worker claimed on. What
   * a claim from the cursor cannot see (a row queued by another node's slightly earlier clock and
   * committed late, a claim given back or whose lease ran out) is at most `fullScanMs` late.
   */
  private async pass(): Promise<number> {
    const { db, dialect, clock } = this.opts;
    const now = clock.now();
    const token = newId();
    const claimedAt = Date.now();
    const full = this.cursor === null || now.getTime() - this.fullAt >= this.fullScanMs || now.getTime() < this.fullAt;
    if (full) this.fullAt = now.getTime();
    const claimed = await webhooksRepository.claimDue(db, dialect, now.toISOString(), this.leaseMs, token, this.batchSize, full ? null : this.cursor);
    this.skippedBehind = !full && claimed.length === 0;
    // In due order (RETURNING gives none; ids are time-ordered and made in change-log order): the last is the new cursor.
    claimed.sort((a, b) => dueOrder(queueKey(a), queueKey(b)));
    const last = claimed.at(-1);
    if (last && (!this.cursor || dueOrder(queueKey(last), this.cursor) > 0)) this.cursor = queueKey(last);
    if (claimed.length === 0) return 0;
    const hooks = new Map((await webhooksRepository.byIds(db, [...new Set(claimed.map((d) => d.webhook_id))])).map((w) => [w.id, w]));
    // Narrow rows' bodies, made from their change-log rows (webhooks.bodies.ts): the same bytes on every attempt.
    const bodies = await deliveryBodies(db, claimed, this.slugs);
    // Webhooks in parallel; one webhook's deliveries one after another, oldest first, so a receiver
    // normally sees an order's events in the order they happened (not guaranteed: retries reorder).
    const byHook = new Map<string, DeliveryRow[]>();
    for (const d of claimed) byHook.set(d.webhook_id, [...(byHook.get(d.webhook_id) ?? []), d]);
    // Never send under a claim that may have run out: what cannot start in time goes back to the queue.
    // (Elapsed real time: the claim runs on the database's clock, whatever the injected clock says.)
    const startBy = claimedAt + this.leaseMs - 2 * this.attemptMs;
    // Accepted attempts are recorded together (one statement per status code), at the latest every
    // 50 deliveries or half a second, so a busy queue costs one write per batch, not per delivery.
    const accepted = new Map<number, string[]>();
    let count = 0;
    let flushedAt = Date.now();
    const flush = async () => {
      const at = clock.now().toISOString();
      const groups = [...accepted];
      accepted.clear();
      count = 0;
      flushedAt = Date.now();
      for (const [code, ids] of groups) await webhooksRepository.finishDelivered(db, ids, token, at, code);
    };
    await Promise.all(
      [...byHook].map(async ([hookId, rows]) => {
        for (const d of rows) {
          if (Date.now() > startBy || this.closed) {
            await webhooksRepository.finish(db, d.id, token, {});
            continue;
          }
          const ok = await this.attempt(d, bodies.get(d.id) ?? null, hooks.get(hookId), token);
          if (ok === null) continue;
          accepted.set(ok, [...(accepted.get(ok) ?? []), d.id]);
          count += 1;
          if (count >= 50 || Date.now() - flushedAt > 500) await flush();
        }
      }),
    );
    await flush();
    return claimed.length;
  }

  /** One attempt; an accepted one is left to the caller to record (its status code), anything else is recorded here (null). */
  private async attempt(d: DeliveryRow, body: string | null, hook: SubscriptionRow | undefined, token: string): Promise<number | null> {
    const { db, clock } = this.opts;
    if (!hook || hook.deleted_at) {
      const at = clock.now().toISOString();
      await webhooksRepository.finish(db, d.id, token, { status: 'failed', next_attempt_at: null, last_error: 'De webhook is verwijderd.', updated_at: at });
      return null;
    }
    if (body === null) {
      // A narrow row whose change-log row is gone (the log is append-only: not expected). Never send something else.
      const at = clock.now().toISOString();
      await webhooksRepository.finish(db, d.id, token, { status: 'failed', next_attempt_at: null, last_error: 'De gebeurtenis staat niet meer in het wijzigingslogboek.', updated_at: at });
      return null;
    }
    let result: PostResult;
    try {
      result = await this.opts.send({ ...d, body }, hook, this.stopping.signal);
    } catch (err) {
      this.opts.onError?.(err);
      result = { ok: false, status: null, error: 'Versturen mislukt.', final: false, ms: 0 };
    }
    if (!result.ok && this.stopping.signal.aborted) {
      // Cut off by close(): back to the queue uncounted.
      await webhooksRepository.finish(db, d.id, token, {});
      return null;
    }
    if (result.ok) return result.status ?? 200;
    const at = clock.now();
    const attempts = d.attempts + 1;
    const base = { attempts, last_attempt_at: at.toISOString(), last_status_code: result.status, last_error: result.error, updated_at: at.toISOString() };
    const patch: Partial<DeliveryRow> =
      result.final || attempts >= MAX_ATTEMPTS
        ? { ...base, status: 'failed', next_attempt_at: null }
        : { ...base, status: 'pending', next_attempt_at: new Date(at.getTime() + RETRY_DELAYS_MS[attempts - 1]!).toISOString() };
    await webhooksRepository.finish(db, d.id, token, patch);
    return null;
  }

  /** The next wake-up: the earliest due time (or lease end), at most `pollMs` away. */
  private async schedule(): Promise<void> {
    if (this.timer) this.timers.clear(this.timer);
    this.timer = null;
    let delay = this.pollMs;
    try {
      const due = await webhooksRepository.nextDue(this.opts.db);
      const now = this.opts.clock.now().getTime();
      if (due) delay = Math.min(delay, Math.max(0, new Date(due).getTime() - now));
      // Due now but not found from the cursor on: behind it, for the next read of the whole queue.
      if (this.skippedBehind) delay = Math.max(delay, Math.min(this.pollMs, this.fullAt + this.fullScanMs - now));
    } catch (err) {
      this.opts.onError?.(err);
    }
    if (this.closed) return;
    this.wakeAt = this.opts.clock.now().getTime() + delay;
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.wakeAt = null;
      this.kick();
    }, Math.max(delay, 10));
  }
}
