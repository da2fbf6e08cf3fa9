import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import cron, { type ScheduledTask } from 'node-cron';

/** A job body: calls a service, holds no logic of its own (ARCHITECTURE §5). */
export type JobFn = () => Promise<void>;

/** What a job may use besides its service: the server's log. */
export interface JobContext {
  log: { info(obj: unknown, msg: string): void; warn(obj: unknown, msg: string): void };
}

/**
 * A named cron job as an area declares it (`server/modules/<area>/<area>.jobs.ts`); the composition
 * root (server/modules/index.ts) collects them and this plugin registers them (option `jobs`).
 */
export interface JobSpec {
  /** Unique over the server; tests run a job by this name (`app.scheduler.run(name)`). */
  name: string;
  /** node-cron expression (a sixth, leading field is seconds). */
  cron: string;
  timezone?: string;
  run: (ctx: JobContext) => Promise<void>;
}

interface Job {
  name: string;
  /** node-cron expression (seconds field optional), evaluated in `timezone`. */
  cron: string;
  timezone?: string;
  fn: JobFn;
  task?: ScheduledTask;
  running?: Promise<void>;
}

/**
 * Named jobs that the areas declare (`<area>.jobs.ts`, composed in server/modules/index.ts): webhook
 * retries, overdue food-safety checks, backups, clean-up. They only start ticking when the server
 * listens (`server/main.ts` calls `start()`), so tests and the CLI never run timers behind their back;
 * a test calls `run(name)` itself with its injected clock. A run never overlaps its previous run; close
 * stops every task and waits for runs in flight.
 */
export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private started = false;

  constructor(private readonly log: { error(obj: unknown, msg: string): void }) {}

  register(name: string, expression: string, fn: JobFn, opts: { timezone?: string } = {}): void {
    if (this.jobs.has(name)) throw new Error(`scheduler: job '${name}' registered twice`);
    if (!cron.validate(expression)) throw new Error(`scheduler: invalid cron expression '${expression}' for '${name}'`);
    const job: Job = { name, cron: expression, fn, ...(opts.timezone ? { timezone: opts.timezone } : {}) };
    this.jobs.set(name, job);
    if (this.started) this.schedule(job);
  }

  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Runs a job now (or joins its run in flight); errors are logged, never thrown at the timer. */
  run(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`scheduler: no job '${name}'`);
    if (!job.running) {
      job.running = job
        .fn()
        .catch((err: unknown) => this.log.error({ err, job: name }, 'job failed'))
        .finally(() => {
          job.running = undefined;
        });
    }
    return job.running;
  }

  private schedule(job: Job): void {
    job.task = cron.schedule(job.cron, () => this.run(job.name), { name: job.name, noOverlap: true, ...(job.timezone ? { timezone: job.timezone } : {}) });
  }

  /** Starts every registered job's timer (and any registered later). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs.values()) this.schedule(job);
  }

  async close(): Promise<void> {
    this.started = false;
    for (const job of this.jobs.values()) {
      await job.task?.destroy();
      job.task = undefined;
    }
    await Promise.all([...this.jobs.values()].map((j) => j.running ?? Promise.resolve()));
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Named jobs (server/plugins/scheduler.ts): the areas' jobs come in as options; main starts them after listen. */
    scheduler: Scheduler;
  }
}

export interface SchedulerPluginOptions {
  /** The jobs to register (every area's, from the composition root). */
  jobs?: readonly JobSpec[];
}

async function schedulerPlugin(app: FastifyInstance, opts: SchedulerPluginOptions): Promise<void> {
  const scheduler = new Scheduler(app.log);
  app.decorate('scheduler', scheduler);
  const ctx: JobContext = { log: app.log };
  for (const job of opts.jobs ?? []) scheduler.register(job.name, job.cron, () => job.run(ctx), job.timezone ? { timezone: job.timezone } : {});
  app.addHook('onClose', () => scheduler.close());
}

export default fp(schedulerPlugin, { name: 'scheduler' });
