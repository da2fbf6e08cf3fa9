import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  DefaultQueryExecutor,
  Kysely,
  SqliteDialect,
  Transaction,
  type ConnectionProvider,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type SqliteDialectConfig,
  type TransactionBuilder,
  type TransactionSettings,
} from 'kysely';

/**
 * The SQLite self-wait guard (issue 28; ARCHITECTURE §3, docs/adr/0001-dual-dialect.md).
 *
 * Kysely's SQLite driver has one connection behind a mutex. A transaction (`changes.write`,
 * `db.transaction()`, `db.connection()`) holds it until its callback ends; a query that the callback
 * awaits but that goes through the root `db` (directly, or through a helper that reads with `db`,
 * such as `tenants.cachedSettings` on a cache miss) asks the mutex for the connection its own
 * transaction holds, and both wait for each other forever: the request hangs and every later write
 * queues behind it (twice so far: PATCH /reservations and till.issueIn). PostgreSQL takes another
 * pool connection, so only the SQLite lane ever showed it, and only as a time-out.
 *
 * This guard turns that hang into an immediate error. Every connection the root `db` hands out is
 * marked in the async context of the code that uses it (AsyncLocalStorage); a request for the
 * connection from inside such a context, while the mark is still held by the same database, throws
 * `SqliteSelfWaitError` instead of waiting. Queries through the transaction object (`w.trx`, `trx`)
 * never ask the mutex (Kysely binds them to the transaction's connection), so they cost nothing and
 * are never refused; a query of another flow still waits its turn as before. On in production too:
 * a 500 beats a hung till.
 *
 * Cost: in Node 20 an AsyncLocalStorage that is on makes every promise of the process pay for
 * promise hooks. So only what runs the caller's code while it holds the connection is marked (a
 * transaction, `db.connection()`), the storage is on only while such a mark holds it, and a single
 * root statement is only checked (nothing but the driver runs while it holds the connection); queries
 * through a transaction do neither (bench/README.md "The `PATCH /reservations/{id}` hang", "The order
 * path, session 13").
 */

export class SqliteSelfWaitError extends Error {
  override readonly name = 'SqliteSelfWaitError';
  constructor() {
    super(
      'SQLite self-wait: a query went through the root db (or a helper that reads with it, e.g. tenants.cachedSettings on a cache miss) ' +
        'while this same async flow holds the one SQLite connection in a transaction (changes.write / db.transaction() / db.connection()). ' +
        'It would wait for its own transaction forever. Run it through the transaction (w.trx, trx, a ...In(exec) variant), or before or after the transaction.',
    );
  }
}

/** A connection handed out by a guarded database, as long as its user holds it. */
interface Hold {
  readonly owner: SelfWaitGuard;
  held: boolean;
  /** The hold, still held then, that this one was taken inside of (a transaction on another database), if any. */
  readonly outer: Hold | undefined;
}

const holds = new AsyncLocalStorage<Hold>();

/**
 * How many marked holds (of any guarded database) still hold their connection. The storage is
 * switched on by the first mark and off again once none is held at the end of that turn of the event
 * loop (`setImmediate`): in Node 20 an AsyncLocalStorage that is on installs promise hooks that run
 * for EVERY promise of the process, at a cost per promise (bench/README.md "The order path, session
 * 13": 7–8 % of the appliance's CPU in the orders bench before), and switching them on and off costs
 * too (V8's setPromiseHooks; per transaction under a stream of orders, "Order path, session 15").
 * While no mark is held no flow can be inside one, so there is nothing to find and no context needs
 * to be carried; a store left on a flow by a released hold is skipped (`held` false).
 */
let heldMarks = 0;
let offScheduled = false;

/** The storage off at the end of this turn of the event loop unless a mark holds a connection again by then. */
function storageOffSoon(): void {
  if (offScheduled) return;
  offScheduled = true;
  setImmediate(() => {
    offScheduled = false;
    if (heldMarks === 0) holds.disable();
  }).unref();
}

/** How many marks hold a connection now, and whether the storage (and with it Node's promise hooks) is on: tests and diagnostics. */
export function selfWaitMarks(): { held: number; storageOn: boolean } {
  return { held: heldMarks, storageOn: (holds as unknown as { enabled: boolean }).enabled === true };
}

/** Kysely's default connection provider (acquire, use, release) plus the mark and the check. */
class SelfWaitGuard implements StatementRunner {
  constructor(private readonly driver: Driver) {}

  /**
   * Throws when this flow is inside a mark of this database that still holds the connection; else
   * the innermost other mark it is inside of that still holds its connection (another database's
   * transaction), if any. Released holds are skipped and not linked, so a chain of detached work (a
   * timer started in a transaction that starts the next one) never grows.
   */
  private check(): Hold | undefined {
    if (heldMarks === 0) return undefined;
    let outer: Hold | undefined;
    for (let h = holds.getStore(); h !== undefined; h = h.outer) {
      if (!h.held) continue;
      if (h.owner === this) throw new SqliteSelfWaitError();
      outer ??= h;
    }
    return outer;
  }

  /**
   * A transaction, `db.connection()`: the consumer runs the caller's code while it holds the
   * connection, so the connection is marked in that code's async context.
   */
  async provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    const outer = this.check();
    const connection = await this.driver.acquireConnection();
    const hold: Hold = { owner: this, held: true, outer };
    heldMarks++;
    try {
      return await holds.run(hold, () => consumer(connection));
    } finally {
      // Work the consumer started and left running (a timer, a detached promise) keeps the context
      // but no longer holds the connection: its queries wait their turn as usual.
      hold.held = false;
      if (--heldMarks === 0) storageOffSoon();
      await this.driver.releaseConnection(connection);
    }
  }

  /**
   * One statement through the root db (`db.selectFrom(...).execute()`): checked like any use, but not
   * marked, since no code but the driver's runs while it holds the connection (nothing could wait
   * for it from inside).
   */
  async run<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    this.check();
    const connection = await this.driver.acquireConnection();
    try {
      return await connection.executeQuery<R>(compiledQuery);
    } finally {
      // LazyDriver's release is done when it returns (the next waiter, if any, has the connection).
      void this.driver.releaseConnection(connection);
    }
  }
}

/** A connection provider that also runs one statement by itself (`SelfWaitGuard`, `TransactionConnection`). */
interface StatementRunner extends ConnectionProvider {
  run<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>>;
}

/**
 * An executor whose single statements go to its provider's `run` instead of through Kysely's chain of a
 * new executor, a connection provider and a result transform per statement (≈ 8 promises each, and each
 * promise pays the guard's promise hooks while a transaction holds its mark: bench/README.md "Order
 * path, session 15"); everything else (streams) as Kysely's. The root executor (`SelfWaitGuard.run`: no
 * mark) and a transaction's (`TransactionConnection.run`). No plugins here: a `withPlugin` executor is
 * Kysely's own DefaultQueryExecutor on the same provider.
 */
class DirectExecutor extends DefaultQueryExecutor {
  constructor(
    compiler: QueryCompiler,
    adapter: DialectAdapter,
    private readonly runner: StatementRunner,
  ) {
    super(compiler, adapter, runner, []);
  }

  override executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.runner.run<R>(compiledQuery);
  }
}

/**
 * Kysely's RuntimeDriver, less its logging: the driver initialised once, on first use. It takes the
 * SQLite driver's one connection once and hands it out itself, first come first served: at once (a
 * settled promise) when it is free, else to the waiters one at a time, each woken only when it is its
 * turn (Kysely's mutex wakes every waiter at every release and all but one wait again).
 */
class LazyDriver implements Driver {
  private ready: Promise<void> | undefined;
  private connection: DatabaseConnection | undefined;
  private busy = false;
  private readonly waiters: Array<(connection: DatabaseConnection) => void> = [];
  constructor(private readonly inner: Driver) {}
  init(): Promise<void> {
    this.ready ??= (async () => {
      await this.inner.init();
      this.connection ??= await this.inner.acquireConnection();
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }
  acquireConnection(): Promise<DatabaseConnection> {
    if (this.connection && !this.busy) {
      this.busy = true;
      return Promise.resolve(this.connection);
    }
    return this.acquireInTurn();
  }
  private async acquireInTurn(): Promise<DatabaseConnection> {
    await this.init();
    if (!this.busy) {
      this.busy = true;
      return this.connection!;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  releaseConnection(_connection: DatabaseConnection): Promise<void> {
    const next = this.waiters.shift();
    if (next) next(this.connection!);
    else this.busy = false;
    return Promise.resolve();
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }
  async destroy(): Promise<void> {
    await this.init();
    await this.inner.releaseConnection(this.connection!);
    await this.inner.destroy();
  }
}

/** A transaction's state, as Kysely's own transactions keep it: a query after the end is an error. */
interface TransactionState {
  isCommitted: boolean;
  isRolledBack: boolean;
}

function assertOpen(state: TransactionState): void {
  // Kysely's own messages (NotCommittedOrRolledBackAssertingExecutor).
  if (state.isCommitted) throw new Error('Transaction is already committed');
  if (state.isRolledBack) throw new Error('Transaction is already rolled back');
}

/**
 * A transaction's one connection: Kysely's SingleConnectionProvider (uses in turn) and its
 * committed-or-rolled-back assertion in one, plus `run`, one statement at once.
 */
class TransactionConnection implements StatementRunner {
  #running: Promise<unknown> | undefined;
  constructor(
    private readonly connection: DatabaseConnection,
    private readonly state: TransactionState,
  ) {}

  async provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    assertOpen(this.state);
    while (this.#running) await this.#running.catch(() => {});
    const running = (async () => {
      assertOpen(this.state);
      return await consumer(this.connection);
    })().finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  /**
   * One statement of the transaction. Kysely's driver runs it synchronously (better-sqlite3) and
   * answers a settled promise, so while no other use holds the connection (a stream, a plugin's
   * executor in the middle of its statement) it runs at once, in call order, as Kysely would have run
   * it a few microtasks later; otherwise it waits its turn like any use.
   */
  run<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    assertOpen(this.state);
    if (this.#running) return this.provideConnection((c) => c.executeQuery<R>(compiledQuery));
    try {
      return this.connection.executeQuery<R>(compiledQuery);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}

// The statements of Kysely's SqliteDriver begin/commit/rollbackTransaction, compiled once.
const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

interface GuardedParts {
  dialect: SqliteDialect;
  driver: Driver;
  compiler: QueryCompiler;
  adapter: DialectAdapter;
  guard: SelfWaitGuard;
}

/**
 * `db.transaction().execute(fn)` as Kysely's TransactionBuilder runs it (the guard's mark around it,
 * begin, fn, commit; rollback on a throw; the transaction object refuses queries after the end), with
 * the transaction's statements on a `DirectExecutor`. Settings (`setAccessMode`,
 * `setIsolationLevel`, which SQLite's driver ignores) go to Kysely's own builder.
 */
class GuardedTransactionBuilder<DB> {
  constructor(
    private readonly parts: GuardedParts,
    private readonly kyselys: () => TransactionBuilder<DB>,
  ) {}

  setAccessMode(...args: Parameters<TransactionBuilder<DB>['setAccessMode']>): TransactionBuilder<DB> {
    return this.kyselys().setAccessMode(...args);
  }

  setIsolationLevel(...args: Parameters<TransactionBuilder<DB>['setIsolationLevel']>): TransactionBuilder<DB> {
    return this.kyselys().setIsolationLevel(...args);
  }

  execute<T>(callback: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    const { dialect, driver, compiler, adapter, guard } = this.parts;
    return guard.provideConnection(async (connection) => {
      const state: TransactionState = { isCommitted: false, isRolledBack: false };
      const executor = new DirectExecutor(compiler, adapter, new TransactionConnection(connection, state));
      const trx = new Transaction<DB>({ config: { dialect }, dialect, driver, executor });
      let begun = false;
      try {
        await connection.executeQuery(BEGIN);
        begun = true;
        const result = await callback(trx);
        await connection.executeQuery(COMMIT);
        state.isCommitted = true;
        return result;
      } catch (err) {
        if (begun) {
          await connection.executeQuery(ROLLBACK);
          state.isRolledBack = true;
        }
        throw err;
      }
    });
  }
}

/** The guarded database: Kysely, with its transactions on GuardedTransactionBuilder. */
class GuardedKysely<DB> extends Kysely<DB> {
  constructor(private readonly parts: GuardedParts & { executor: DirectExecutor }) {
    super({ config: { dialect: parts.dialect }, dialect: parts.dialect, driver: parts.driver, executor: parts.executor });
  }

  override transaction(): TransactionBuilder<DB> {
    return new GuardedTransactionBuilder<DB>(this.parts, () => super.transaction()) as unknown as TransactionBuilder<DB>;
  }
}

/** A Kysely on SQLite whose root queries refuse to wait for their own transaction (see above). */
export function guardedSqliteKysely<DB>(config: SqliteDialectConfig): Kysely<DB> {
  const dialect = new SqliteDialect(config);
  const driver = new LazyDriver(dialect.createDriver());
  const compiler = dialect.createQueryCompiler();
  const adapter = dialect.createAdapter();
  const guard = new SelfWaitGuard(driver);
  const executor = new DirectExecutor(compiler, adapter, guard);
  return new GuardedKysely<DB>({ dialect, driver, compiler, adapter, guard, executor });
}
