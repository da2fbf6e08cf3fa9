import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export type ServerKind = 'hello' | 'raw' | 'appliance' | 'appliance-synced' | 'appliance-catchup' | 'cloud' | 'cloud-node' | 'receiver';

/** What a bench server child reports once it listens on 127.0.0.1. */
export interface Ready {
  type: 'ready';
  port: number;
  /** Session cookie (`ck_token=...`) for the appliance; absent elsewhere. */
  cookie?: string;
  postBody?: unknown;
  /** Extra facts worth printing (durability pragmas, seeded rows). */
  info?: Record<string, unknown>;
}

export interface BenchServer {
  kind: ServerKind;
  url: string;
  ready: Ready;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Node/V8 flags for a child from an environment variable (BENCH_APPLIANCE_NODE_OPTIONS, BENCH_CLOUD_NODE_OPTIONS: e.g. `npm start`'s memory flags), space-separated. */
export const nodeFlagsFrom = (name: string): string[] => (process.env[name] ?? '').split(' ').filter(Boolean);

/**
 * Starts bench/servers/<kind>.ts in its own Node process (tsx loader), so the server never shares an
 * event loop with the load generator; with `compiled`, its bundle dist/bench/<kind>.js
 * with plain node instead (built first by bench/lib/compiled.ts buildCompiledChildren). The child exits
 * on 'stop', when this process goes away (IPC disconnect) or after its own safety timeout.
 */
export function startServer(kind: ServerKind, opts: { execArgv?: string[]; env?: Record<string, string>; compiled?: boolean } = {}): Promise<BenchServer> {
  const file = opts.compiled ? path.join(here, '..', '..', 'dist', 'bench', `${kind}.js`) : path.join(here, '..', 'servers', `${kind}.ts`);
  const child = fork(file, [], {
    execArgv: [...(opts.compiled ? ['--enable-source-maps'] : ['--import', 'tsx']), ...(opts.execArgv ?? [])],
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench: ${kind} server did not start within 120 s`));
    }, 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench: ${kind} server exited with ${code} before it was ready`));
    });
    child.once('message', (m: Ready) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      let stopping = false;
      const exited = new Promise<void>((r) =>
        child.once('exit', (code, signal) => {
          // Never silent: a child that goes away in the middle of a run (its time box, a crash, the OOM killer) says so.
          if (!stopping) console.error(`bench: the ${kind} server child exited unasked (code ${code}, signal ${signal})`);
          r();
        }),
      );
      resolve({
        kind,
        url: `http://127.0.0.1:${m.port}`,
        ready: m,
        child,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          stopping = true;
          child.send({ type: 'stop' });
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

/**
 * Child side: report readiness, then shut down on 'stop', on losing the parent, or after `maxMs`
 * (BENCH_CHILD_MAX_MINUTES, default 45: a 7-day catch-up with every area's rows, generated on a
 * loaded 2-core machine, took longer than the former 15 minutes, and the cloud child then left
 * silently in the middle of the run). It says so on stderr when its time box ends it.
 */
export function serveUntilStopped(ready: Omit<Ready, 'type'>, close: () => Promise<void>, maxMs = Number(process.env.BENCH_CHILD_MAX_MINUTES ?? 45) * 60_000): void {
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    try {
      await close();
    } finally {
      process.exit(code);
    }
  };
  process.on('message', (m: { type?: string }) => {
    if (m?.type === 'stop') void shutdown(0);
  });
  process.on('disconnect', () => void shutdown(0));
  setTimeout(() => {
    console.error(`bench child: time box of ${Math.round(maxMs / 60_000)} minutes reached, stopping`);
    void shutdown(2);
  }, maxMs).unref();
  process.send!({ type: 'ready', ...ready } satisfies Ready);
}
