import { AsyncLocalStorage } from 'node:async_hooks';
import {
  DefaultQueryExecutor,
  Kysely,
  SqliteDialect,
  type ConnectionProvider,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type SqliteDialectConfig,
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
 * Cost: a root-db query does one `getStore()` and one `run()`; queries through a transaction do
 * neither (bench/README.md "The `PATCH /reservations/{id}` hang").
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

/** Kysely's default connection provider (acquire, use, release) plus the mark and the check. */
class SelfWaitGuard implements ConnectionProvider {
  constructor(private readonly driver: Driver) {}

  async provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    // The holds this flow is inside of that still hold their connection; released ones are skipped
    // and not linked, so a chain of detached work (a timer started in a transaction that starts the
    // next one) never grows.
    let outer: Hold | undefined;
    for (let h = holds.getStore(); h !== undefined; h = h.outer) {
      if (!h.held) continue;
      if (h.owner === this) throw new SqliteSelfWaitError();
      outer ??= h;
    }
    const connection = await this.driver.acquireConnection();
    const hold: Hold = { owner: this, held: true, outer };
    try {
      return await holds.run(hold, () => consumer(connection));
    } finally {
      // Work the consumer started and left running (a timer, a detached promise) keeps the context
      // but no longer holds the connection: its queries wait their turn as usual.
      hold.held = false;
      await this.driver.releaseConnection(connection);
    }
  }
}

/** Kysely's RuntimeDriver, less its logging: the driver initialised once, on first use. */
class LazyDriver implements Driver {
  private ready: Promise<void> | undefined;
  constructor(private readonly inner: Driver) {}
  init(): Promise<void> {
    this.ready ??= this.inner.init().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.init();
    return this.inner.acquireConnection();
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
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
    await this.inner.destroy();
  }
}

/** A Kysely on SQLite whose root queries refuse to wait for their own transaction (see above). */
export function guardedSqliteKysely<DB>(config: SqliteDialectConfig): Kysely<DB> {
  const dialect = new SqliteDialect(config);
  const driver = new LazyDriver(dialect.createDriver());
  const executor = new DefaultQueryExecutor(dialect.createQueryCompiler(), dialect.createAdapter(), new SelfWaitGuard(driver), []);
  return new Kysely<DB>({ config: { dialect }, dialect, driver, executor });
}
