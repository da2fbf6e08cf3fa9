import type { Clock } from '../shared/clock.js';
import { readChanges, type ChangeRecord } from './change-log.js';
import type { Db, Dialect, Tx } from './connection.js';

/**
 * Change-log consumers (ARCHITECTURE §3, docs/adr/0004-cloud-scale-out.md): named readers of the
 * change log ('webhooks', later 'loyalty', ...) that handle every change of every tenant once, also
 * when several cloud nodes share one PostgreSQL.
 *
 * Each (consumer, tenant) has a cursor row in `change_consumers`. A node handles the tenant's next
 * batch inside ONE transaction:
 *   1. claim: lock the cursor row (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has one writer).
 *      A row locked by another node means that node is handling this tenant right now: skip it.
 *   2. read the changes after the cursor (`seq > last_seq`, which never skips: see change-log.ts),
 *   3. call the handler with the batch and the transaction,
 *   4. advance the cursor, commit.
 *
 * Delivery guarantee: EXACTLY ONCE for what the handler writes through `ctx.trx` (its effect and
 * the cursor commit together, or neither does: a node that crashes or throws mid-batch rolls both
 * back and the batch is handled again, by whichever node claims it next). Anything the handler does
 * outside the transaction (an HTTP call, a socket emit) is AT LEAST ONCE and must be idempotent,
 * keyed by `op_id`. So a handler should record work in the database (e.g. the webhook sender
 * inserts one delivery row per event and subscribed webhook, unique on both) and let a job do the
 * outside-world part from there.
 *
 * Driven by wake-ups (the change log's 'committed' event on this node, 'remote' from other nodes)
 * plus a periodic `sweep()` that finds tenants whose cursor is behind, so a lost wake-up (a node
 * that died between commit and publish) only delays a change. A handler that keeps failing blocks
 * its tenant's consumer (retried with backoff, reported through onError): handlers record their
 * permanent failures as data instead of throwing.
 */
export interface ChangeConsumer {
  /** Stable name; the cursor is stored under it. */
  name: string;
  /** Changes per transaction (default 100). */
  batchSize?: number;
  /**
   * Optional: the only kinds whose payload `handle` reads. The batch still holds every change, in
   * seq order; the others come with a null payload, so their payloads are neither sent by the
   * database nor parsed (the webhooks consumer: a catch-up's stock and ledger changes).
   */
  payloadKinds?: readonly string[];
  /** One tenant's changes in seq order, inside the transaction that advances the cursor past them. */
  handle(batch: ChangeRecord[], ctx: { trx: Tx; tenantId: string; node: string }): Promise<void>;
  /**
   * After the batch's transaction committed (e.g. wake the worker that acts on the rows `handle`
   * wrote). Not called when the batch rolled back; a throw is reported through onError only.
   */
  afterCommit?(batch: ChangeRecord[], ctx: { tenantId: string; node: string }): void;
  /**
   * Optional: whether `handle` acts on this change at all. A local commit with no change it wants
   * wakes it late (`lateMs`, default 1 s; or at the next commit it wants, or the sweep), so that one
   * batch moves its cursor over many such commits instead of a transaction (and a commit) after
   * each: e.g. the printing consumer, which acts only on orders that arrive through sync, after
   * every staff write on the appliance. It still gets every change, once, in seq order.
   */
  wants?(c: ChangeRecord): boolean;
  /**
   * Optional: hand a wake-up of this consumer to another runner of it (the webhooks consumer to the
   * sender thread, which has its own pool: docs/partners.md "Sender thread"). Called for each
   * wake-up, `late` when `wants` wants none of the commit's changes; true when the other runner
   * took it, so this node does not run the consumer for it; false (e.g. the thread is not running)
   * runs it here as usual. Either runner claims the same cursor row, so every change is still
   * handled once.
   */
  forward?(tenantId: string, late: boolean): boolean;
}

export interface ConsumerOptions {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  /** This node's name (diagnostics in change_consumers.node). */
  node: string;
  onError?: (err: unknown, consumer: string, tenantId: string) => void;
  /** First retry after finding the row locked by another node (doubles, up to 2 s). */
  lockedRetryMs?: number;
  /** First retry after a handler error (doubles, up to 30 s). */
  errorRetryMs?: number;
  /** How late a consumer is woken by a commit of only changes it does not want (ChangeConsumer.wants). Default 1 s. */
  lateMs?: number;
}

type Outcome = 'more' | 'done' | 'locked';

interface RunState {
  running: Promise<void> | null;
  dirty: boolean;
  attempt: number;
  timer: NodeJS.Timeout | null;
  /** Why the timer is set: a 'locked' re-look or a 'late' wake-up gives way to a fresh wake-up, an error backoff does not. */
  waiting: 'locked' | 'error' | 'late' | null;
}

export class ChangeConsumers {
  private readonly consumers = new Map<string, ChangeConsumer>();
  private readonly state = new Map<string, RunState>();
  private closed = false;
  private readonly lockedRetryMs: number;
  private readonly errorRetryMs: number;
  private readonly lateMs: number;

  constructor(private readonly opts: ConsumerOptions) {
    this.lockedRetryMs = opts.lockedRetryMs ?? 50;
    this.errorRetryMs = opts.errorRetryMs ?? 1000;
    this.lateMs = opts.lateMs ?? 1000;
  }

  get node(): string {
    return this.opts.node;
  }

  /** Adds a consumer and catches it up on every tenant (from seq 0 for a new name). */
  register(consumer: ChangeConsumer): void {
    if (this.consumers.has(consumer.name)) throw new Error(`change consumer '${consumer.name}' is already registered`);
    this.consumers.set(consumer.name, consumer);
    void this.sweep([consumer.name]);
  }

  names(): string[] {
    return [...this.consumers.keys()];
  }

  /**
   * Something committed for this tenant (here or on another node): run every consumer for it. With
   * the committed `records` (a commit on this node), a consumer that wants none of them is woken late.
   */
  kick(tenantId: string, records?: readonly ChangeRecord[]): void {
    for (const c of this.consumers.values()) {
      const late = records !== undefined && c.wants !== undefined && !records.some((r) => c.wants!(r));
      if (c.forward?.(tenantId, late)) continue;
      if (late) this.kickLate(c, tenantId);
      else this.kickOne(c, tenantId);
    }
  }

  /** Runs one consumer for the tenant now, or `late` (a wake-up another thread handed over: ChangeConsumer.forward). */
  wake(name: string, tenantId: string, late = false): void {
    const c = this.consumers.get(name);
    if (!c) return;
    if (late) this.kickLate(c, tenantId);
    else this.kickOne(c, tenantId);
  }

  /** Runs this consumer for the tenant after `lateMs`, unless it runs or is due anyway. */
  private kickLate(c: ChangeConsumer, tenantId: string): void {
    if (this.closed) return;
    const key = `${c.name}\u0000${tenantId}`;
    const existing = this.state.get(key);
    // Running (its next wake-up or the sweep reaches these changes) or already due: nothing to add.
    if (existing && (existing.running || existing.timer)) return;
    const s: RunState = existing ?? { running: null, dirty: false, attempt: 0, timer: null, waiting: null };
    this.state.set(key, s);
    s.waiting = 'late';
    s.timer = setTimeout(() => {
      s.timer = null;
      s.waiting = null;
      // A late wake-up set before another runner took this consumer over (the sender thread started
      // listening in the meantime) goes to that runner, or the two would run it side by side.
      if (!c.forward?.(tenantId, false)) this.kickOne(c, tenantId);
    }, this.lateMs);
    s.timer.unref?.();
  }

  /** Kicks every (consumer, tenant) whose cursor is behind the tenant's last seq. */
  async sweep(names: string[] = this.names()): Promise<void> {
    for (const name of names) {
      const consumer = this.consumers.get(name);
      if (!consumer || this.closed) continue;
      try {
        const behind = await this.opts.db
          .selectFrom('change_seq as cs')
          .leftJoin('change_consumers as cc', (j) => j.onRef('cc.tenant_id', '=', 'cs.tenant_id').on('cc.consumer', '=', name))
          .select('cs.tenant_id')
          .where((eb) => eb('cs.last_seq', '>', eb.fn.coalesce('cc.last_seq', eb.lit(0))))
          .execute();
        for (const row of behind) if (!consumer.forward?.(row.tenant_id, false)) this.kickOne(consumer, row.tenant_id);
      } catch (err) {
        this.opts.onError?.(err, name, '*');
      }
    }
  }

  /** Where a consumer stands for a tenant (0 when it never ran). */
  async position(name: string, tenantId: string): Promise<number> {
    const row = await this.opts.db.selectFrom('change_consumers').select('last_seq').where('consumer', '=', name).where('tenant_id', '=', tenantId).executeTakeFirst();
    return Number(row?.last_seq ?? 0);
  }

  /** Resolves when nothing is running or scheduled on this node (tests, graceful shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.state.values()].map((s) => s.running).filter((p): p is Promise<void> => p !== null);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  /** Stops new work and waits for the batches in flight (their transactions commit or roll back). */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.state.values()) {
      if (s.timer) clearTimeout(s.timer);
      s.timer = null;
      s.waiting = null;
    }
    await this.idle();
  }

  private kickOne(c: ChangeConsumer, tenantId: string): void {
    if (this.closed) return;
    const key = `${c.name}\u0000${tenantId}`;
    let s = this.state.get(key);
    if (!s) {
      s = { running: null, dirty: false, attempt: 0, timer: null, waiting: null };
      this.state.set(key, s);
    }
    s.dirty = true;
    if (s.timer && (s.waiting === 'locked' || s.waiting === 'late')) {
      // New work: look now rather than at the end of the re-look backoff.
      clearTimeout(s.timer);
      s.timer = null;
      s.attempt = 0;
    }
    if (s.running || s.timer) return; // the running loop (or the error backoff) will see `dirty`
    const st = s;
    st.running = this.drive(c, tenantId, st).finally(() => {
      st.running = null;
      if (!st.timer && !st.dirty) this.state.delete(key);
      else if (st.dirty && !st.timer) this.kickOne(c, tenantId);
    });
  }

  private async drive(c: ChangeConsumer, tenantId: string, s: RunState): Promise<void> {
    while (s.dirty && !this.closed) {
      s.dirty = false;
      let outcome: Outcome | 'error';
      try {
        outcome = await this.runBatch(c, tenantId);
      } catch (err) {
        this.opts.onError?.(err, c.name, tenantId);
        outcome = 'error';
      }
      if (outcome === 'more') {
        s.attempt = 0;
        s.dirty = true;
        continue;
      }
      if (outcome === 'done') {
        s.attempt = 0;
        continue;
      }
      // 'locked': another node holds the tenant. It may have read its batch just before our commit
      // landed and finish without it, so look again shortly. 'error': back off, then retry.
      s.attempt += 1;
      const [base, cap] = outcome === 'locked' ? [this.lockedRetryMs, 2000] : [this.errorRetryMs, 30_000];
      const delay = Math.min(cap, base * 2 ** Math.min(s.attempt - 1, 10));
      s.dirty = false;
      s.waiting = outcome;
      s.timer = setTimeout(() => {
        s.timer = null;
        s.waiting = null;
        this.kickOne(c, tenantId);
      }, delay);
      s.timer.unref?.();
      return;
    }
  }

  /** One claimed batch in one transaction (see the top of this file). */
  private async runBatch(c: ChangeConsumer, tenantId: string): Promise<Outcome> {
    const size = c.batchSize ?? 100;
    let handled: ChangeRecord[] | null = null;
    const outcome = await this.opts.db.transaction().execute(async (trx): Promise<Outcome> => {
      const cursor = await this.claim(trx, c.name, tenantId);
      if (cursor === null) return 'locked';
      const batch = await readChanges(trx, tenantId, cursor, size, c.payloadKinds);
      if (batch.length === 0) return 'done';
      await c.handle(batch, { trx, tenantId, node: this.opts.node });
      handled = batch;
      await trx
        .updateTable('change_consumers')
        .set({ last_seq: batch[batch.length - 1]!.seq, node: this.opts.node, updated_at: this.opts.clock.now().toISOString() })
        .where('consumer', '=', c.name)
        .where('tenant_id', '=', tenantId)
        .execute();
      // A full batch: there is more to read now. A short one read everything committed before its
      // read; a commit after that read kicks this (consumer, tenant) after its commit (the change
      // log's 'committed' here, 'remote' from another node), which sets `dirty`, so `drive` looks
      // again then: no second transaction just to find nothing (bench/README.md "Cloud capacity").
      return batch.length >= size ? 'more' : 'done';
    });
    if (handled && c.afterCommit) {
      try {
        c.afterCommit(handled, { tenantId, node: this.opts.node });
      } catch (err) {
        this.opts.onError?.(err, c.name, tenantId);
      }
    }
    return outcome;
  }

  /** Locks the cursor row and returns its position; null when another node holds it. */
  private async claim(trx: Tx, name: string, tenantId: string): Promise<number | null> {
    const base = trx.selectFrom('change_consumers').select('last_seq').where('consumer', '=', name).where('tenant_id', '=', tenantId);
    const row = await (this.opts.dialect === 'postgres' ? base.forUpdate().skipLocked() : base).executeTakeFirst();
    if (row) return Number(row.last_seq);
    // No row (first run for this tenant), or a row another transaction holds: create it. Our new
    // row is locked by this transaction until it ends; a conflict means someone else has it.
    const inserted = await trx
      .insertInto('change_consumers')
      .values({ consumer: name, tenant_id: tenantId, last_seq: 0, node: this.opts.node, updated_at: this.opts.clock.now().toISOString() })
      .onConflict((oc) => oc.columns(['consumer', 'tenant_id']).doNothing())
      .returning('last_seq')
      .executeTakeFirst();
    return inserted ? Number(inserted.last_seq) : null;
  }
}
