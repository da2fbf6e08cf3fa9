import { existsSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { OpenDbOptions } from '../../db/connection.js';
import type { Role } from '../../shared/role.js';

/** How long close() lets the thread finish its bookkeeping before it is terminated (the cloud exits within 2 s of SIGTERM). */
export const CLOSE_MS = 1000;

/**
 * The sender thread's nice value by default (WEBHOOK_SENDER_NICE; docs/partners.md "Sender thread"):
 * on a busy node the customer-facing work (sync pushes, public orders, the API) on the main thread
 * gets the CPU first and the deliveries the CPU left over; on an idle node nothing waits, since a
 * nice value only matters while another thread wants the same core.
 */
export const SENDER_NICE = 10;

/**
 * Lowers the calling thread's priority to `nice` (Linux: the nice value is per thread; the thread's
 * id from /proc/thread-self). Never raises it (a process started with a higher nice value keeps it,
 * and lowering a nice value needs a privilege) and never throws: elsewhere (Windows, macOS) and where
 * /proc is missing it does nothing. Returns the thread id and the nice value it runs at, or null.
 */
export function lowerThreadPriority(nice: number): { tid: number; nice: number } | null {
  if (process.platform !== 'linux' || !(nice > 0)) return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    const now = os.getPriority(tid);
    if (now < nice) os.setPriority(tid, Math.min(19, nice));
    return { tid, nice: os.getPriority(tid) };
  } catch {
    return null;
  }
}

/** What runs the delivery queue on a sending node: the inline DeliveryWorker or the sender thread. */
export interface Sender {
  start(): void;
  /**
   * Something may be due now: a pass. `wholeQueue` (default): its claim reads the whole queue (a
   * redelivery, a timer); `false`: rows were queued just now, behind the last claimed ones at most by
   * another node's clock (DeliveryWorker `pass`).
   */
  kick(wholeQueue?: boolean): void;
  runDue(): Promise<number>;
  close(): Promise<void>;
}

/** What the thread is started with (plain data: it crosses the thread boundary). */
export interface SenderThreadData {
  connection: OpenDbOptions;
  allowPrivate: boolean;
  timeoutMs: number;
  /** The node's role (the consumer sends nothing on an appliance bound to a cloud). */
  role: Role;
  /** The thread's nice value (WEBHOOK_SENDER_NICE; Linux only, `lowerThreadPriority`); 0: the process's own. */
  nice: number;
}

/**
 * `consume`: a commit (or the sweep) woke the webhooks consumer for the tenant; `late` when none of
 * the changes is one it wants (server/db/consumers.ts), `epoch` the main thread's subscription epoch
 * at that moment (handed back with `subscribed`).
 */
export type ToThread = { type: 'kick'; wholeQueue: boolean } | { type: 'run'; id: number } | { type: 'close' } | { type: 'consume'; tenantId: string; late: boolean; epoch: number };
/**
 * `subscribed`: a consumer batch in the thread read the tenant's subscriptions (their event types),
 * after wake-ups up to `epoch`. `priority`: the thread runs as Linux thread `tid` at nice value
 * `nice` (sent once at its start, when `lowerThreadPriority` applied).
 */
export type FromThread =
  | { type: 'ran'; id: number; attempts: number }
  | { type: 'error'; message: string; stack?: string }
  | { type: 'closed' }
  | { type: 'priority'; tid: number; nice: number }
  | { type: 'subscribed'; tenantId: string; events: string[]; epoch: number };

export interface ThreadSenderOptions extends SenderThreadData {
  /** What runs the queue while the thread does not (before `start`, between a crash and its restart): the inline worker. */
  fallback: Pick<Sender, 'kick' | 'runDue'>;
  onError(err: unknown): void;
  /** After an unexpected exit, start again this much later. */
  restartMs?: number;
}

/**
 * How to start the thread's module: the compiled `.js` directly; under tsx or vitest (this file is
 * `.ts`) through tsx's loader, registered inside the thread before the module is imported. Compiled
 * file by file (tsc) the module is this file's sibling; in the bundles of scripts/build-if-stale.mjs
 * this code runs from dist/server/main.js or dist/app/main.js and the thread's bundle is
 * dist/server/webhooks.sender-thread.js.
 */
function threadEntry(): { code: string } | { file: URL } {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const file = new URL(`./webhooks.sender-thread${ext}`, import.meta.url);
  if (ext === '.js') {
    const bundled = new URL('../server/webhooks.sender-thread.js', import.meta.url);
    return { file: existsSync(file) ? file : bundled };
  }
  const tsxDir = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(path.join(tsxDir, 'dist/esm/api/index.mjs')).href;
  return { code: `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); })` };
}

/**
 * The delivery queue run from a worker thread (WEBHOOK_SENDER=thread, docs/partners.md "Sender
 * thread"): the thread opens its own small pool on the same database and runs the same
 * DeliveryWorker (claims, attempts, retries, leases), so its HTTP, signing and bookkeeping never
 * occupy the event loop that serves requests and sync pushes. This side only wakes it (`kick` after
 * the change-log consumer queued deliveries, or after a redelivery), asks for a pass (`runDue`) and
 * stops it; until it is started (a server that does not listen: tests, the CLI) the inline worker
 * does the work. The queue is the whole state, so a thread that dies loses nothing: it is started again
 * and goes on where the rows stand (leases of the dead thread's claims run out as for a dead node).
 */
export class ThreadSender implements Sender {
  private thread: Worker | null = null;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, (attempts: number) => void>();
  private restartTimer: NodeJS.Timeout | null = null;
  private exited: Promise<void> | null = null;
  /** The event types a consumer batch in the thread read for a tenant (the service's `wants` cache). */
  onSubscribed: ((tenantId: string, events: ReadonlySet<string>, seen: number) => void) | null = null;

  constructor(private readonly opts: ThreadSenderOptions) {}

  /** The running thread's Linux thread id and nice value, once it reported them (diagnostics, tests). */
  priority: { tid: number; nice: number } | null = null;

  /** Whether the thread is running (diagnostics, tests). */
  get running(): boolean {
    return this.thread !== null;
  }

  start(): void {
    if (this.thread || this.closed) return;
    const data: SenderThreadData = { connection: this.opts.connection, allowPrivate: this.opts.allowPrivate, timeoutMs: this.opts.timeoutMs, role: this.opts.role, nice: this.opts.nice };
    let thread: Worker;
    try {
      const entry = threadEntry();
      thread = 'code' in entry ? new Worker(entry.code, { eval: true, workerData: data }) : new Worker(entry.file, { workerData: data });
    } catch (err) {
      // The server starts anyway: the inline worker keeps sending.
      this.opts.onError(err);
      return;
    }
    // The server's own handles keep the process alive; a forgotten close must not.
    thread.unref();
    this.thread = thread;
    this.exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    thread.on('message', (m: FromThread) => {
      if (m.type === 'ran') {
        this.waiting.get(m.id)?.(m.attempts);
        this.waiting.delete(m.id);
      } else if (m.type === 'error') {
        this.opts.onError(Object.assign(new Error(m.message), { stack: m.stack }));
      } else if (m.type === 'subscribed') {
        this.onSubscribed?.(m.tenantId, new Set(m.events), m.epoch);
      } else if (m.type === 'priority') {
        this.priority = { tid: m.tid, nice: m.nice };
      }
    });
    thread.on('error', (err) => this.opts.onError(err));
    thread.on('exit', (code) => {
      if (this.thread === thread) {
        this.thread = null;
        this.priority = null;
      }
      for (const done of this.waiting.values()) done(0);
      this.waiting.clear();
      if (this.closed) return;
      this.opts.onError(new Error(`webhooks: de verzendthread stopte onverwacht (code ${code}); hij start opnieuw`));
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        this.start();
      }, this.opts.restartMs ?? 1000);
      this.restartTimer.unref();
    });
  }

  /** Something may be due now: a pass in the thread (without a thread: in the fallback). */
  kick(wholeQueue = true): void {
    if (this.thread) this.post({ type: 'kick', wholeQueue });
    else this.opts.fallback.kick(wholeQueue);
  }

  /**
   * The webhooks consumer's wake-up for a tenant (ChangeConsumer.forward): run in the thread, which
   * reads the changes, builds the event bodies and inserts the deliveries on its own pool, and kicks
   * its own sender after the commit. False without a thread: the caller runs the consumer itself.
   */
  consume(tenantId: string, late: boolean, epoch: number): boolean {
    if (!this.thread) return false;
    this.post({ type: 'consume', tenantId, late, epoch });
    return true;
  }

  /** A pass, awaited: the number of attempts made (in the thread; without a thread: in the fallback). */
  runDue(): Promise<number> {
    if (!this.thread) return this.opts.fallback.runDue();
    const id = this.nextId++;
    return new Promise<number>((resolve) => {
      this.waiting.set(id, resolve);
      this.post({ type: 'run', id });
    });
  }

  /**
   * Stops the thread: it aborts its attempts in flight (they go back to the queue uncounted), closes
   * its pool and exits. One that has not exited within CLOSE_MS is terminated: the queue's rows are
   * the whole state (a claim it held runs out like a dead node's), so a shutdown never waits long.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const thread = this.thread;
    if (!thread) return;
    this.post({ type: 'close' });
    const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CLOSE_MS).unref());
    if ((await Promise.race([this.exited, deadline])) === 'late') await thread.terminate();
  }

  private post(m: ToThread): void {
    this.thread?.postMessage(m);
  }
}
