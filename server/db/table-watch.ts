/**
 * Which tables may have changed, for caches of small, rarely written tables on hot paths (the menu,
 * recipes and printers an order reads: server/db/read-cache.ts). SQLite only (the appliance): its one
 * connection runs every statement of this process through `openDb`'s statement cache, which shows
 * each statement's SQL text here before it runs, so no write can pass unseen, whichever module,
 * sync apply, migration or raw `sql` makes it. Writes by another process on the same file (the CLI
 * while the server runs) show in SQLite's `data_version`, which is read with every `stamp`.
 *
 * A write statement moves its table's version on at once; inside a transaction the table is also
 * "dirty" until the transaction ends, and its version moves on again at the commit or rollback. A
 * cache never keeps what it read while a table it depends on is dirty (it could be rolled back), and
 * an entry is only good while the stamp it was read under is the current one. A statement this
 * cannot place (DDL, a pragma, a CTE that writes) moves every table on.
 *
 * On PostgreSQL there is no such watch (other connections and other cloud nodes write, and no
 * cheap complete signal exists): `DbHandle.tables` is undefined and the caches read through.
 */
export interface TableVersions {
  /**
   * A number that changes whenever one of `tables` may have changed since (strictly increasing), or
   * null when one of them has an uncommitted write in the open transaction (do not cache now).
   */
  stamp(tables: readonly string[]): number | null;
}

/** What a statement does to the watch (classified once per SQL text). */
export type StatementEffect =
  | { kind: 'read' }
  | { kind: 'begin' }
  | { kind: 'end'; keepsTransaction: boolean }
  | { kind: 'write'; table: string }
  | { kind: 'unknown' };

const READ: StatementEffect = { kind: 'read' };
const BEGIN: StatementEffect = { kind: 'begin' };
const END: StatementEffect = { kind: 'end', keepsTransaction: false };
const TO_SAVEPOINT: StatementEffect = { kind: 'end', keepsTransaction: true };
const UNKNOWN: StatementEffect = { kind: 'unknown' };

const WRITE_HEAD = /^(?:insert|replace)(?:\s+or\s+\w+)?\s+into\s+"?(\w+)"?|^update(?:\s+or\s+\w+)?\s+"?(\w+)"?|^delete\s+from\s+"?(\w+)"?/;

/** What SQL text does, as far as the watch is concerned. Conservative: anything it cannot place is `unknown`. */
export function classify(sqlText: string): StatementEffect {
  const s = sqlText.trimStart().toLowerCase();
  if (s.startsWith('select')) return READ;
  if (s.startsWith('begin')) return BEGIN;
  if (s.startsWith('commit') || s.startsWith('end')) return END;
  if (s.startsWith('rollback')) return /^rollback\s+(transaction\s+)?to\b/.test(s) ? TO_SAVEPOINT : END;
  if (s.startsWith('savepoint') || s.startsWith('release')) return READ;
  // A read-only CTE (Kysely's `with`): no write keyword anywhere.
  if (s.startsWith('with')) return /\b(insert|update|delete|replace)\b/.test(s) ? UNKNOWN : READ;
  const m = WRITE_HEAD.exec(s);
  const table = m?.[1] ?? m?.[2] ?? m?.[3];
  return table ? { kind: 'write', table } : UNKNOWN;
}

export class TableWatch implements TableVersions {
  private readonly versions = new Map<string, number>();
  /** Moved on by statements that are not placed (DDL, pragmas) and by other connections' commits. */
  private everything = 0;
  private inTransaction = false;
  private readonly dirty = new Set<string>();
  private lastDataVersion: number | undefined;
  /**
   * `data_version` as read in the open transaction (undefined: not read in it yet, or no transaction).
   * Once a transaction has read it, its snapshot is fixed and SQLite answers the same number until it
   * ends (another connection's commit shows only in a later transaction), so an order's three reads
   * of the caches (menu, recipes, printers) ask SQLite once.
   */
  private transactionDataVersion: number | undefined;

  /**
   * `dataVersion`: SQLite's `pragma data_version` on the watched connection (another connection
   * committed when it changes). `inTransaction`: whether the connection is inside a transaction now
   * (better-sqlite3's `inTransaction`, SQLite's own answer: a transaction SQLite ended by itself is
   * seen); without it every `stamp` reads `data_version`.
   */
  constructor(
    private readonly dataVersion: () => number,
    private readonly inTransactionNow?: () => boolean,
  ) {}

  /** Called with each statement's effect just before it runs (connection.ts, the statement cache). */
  seen(e: StatementEffect): void {
    switch (e.kind) {
      case 'read':
        return;
      case 'begin':
        this.inTransaction = true;
        this.transactionDataVersion = undefined;
        return;
      case 'end':
        this.transactionDataVersion = undefined;
        // The commit (or rollback) of the transaction's writes: their tables move on once more, so
        // an entry read from uncommitted rows (or before them, on another connection) is not used.
        for (const t of this.dirty) this.bump(t);
        if (!e.keepsTransaction) {
          this.dirty.clear();
          this.inTransaction = false;
        }
        return;
      case 'write':
        this.bump(e.table);
        if (this.inTransaction) this.dirty.add(e.table);
        return;
      case 'unknown':
        this.everything++;
        return;
    }
  }

  /** `data_version` now: read once per transaction (see transactionDataVersion), else on every call. */
  private currentDataVersion(): number {
    const inTransaction = this.inTransaction && this.inTransactionNow !== undefined && this.inTransactionNow();
    if (inTransaction && this.transactionDataVersion !== undefined) return this.transactionDataVersion;
    const dv = this.dataVersion();
    this.transactionDataVersion = inTransaction ? dv : undefined;
    return dv;
  }

  private bump(table: string): void {
    this.versions.set(table, (this.versions.get(table) ?? 0) + 1);
  }

  stamp(tables: readonly string[]): number | null {
    const dv = this.currentDataVersion();
    if (dv !== this.lastDataVersion) {
      if (this.lastDataVersion !== undefined) this.everything++;
      this.lastDataVersion = dv;
    }
    let sum = this.everything;
    for (const t of tables) {
      if (this.dirty.has(t)) return null;
      sum += this.versions.get(t) ?? 0;
    }
    return sum;
  }
}
