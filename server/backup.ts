/**
 * Backups of the appliance's SQLite database (issue 14): a nightly job and `npm run cli -- backup`
 * make a consistent online copy in `DATA_DIR/backups` (the newest 14 are kept); `npm run cli --
 * restore FILE` puts one back, refusing a file that is not a valid backup of this product and never
 * restoring under a running server. PostgreSQL (the cloud) is backed up with the operator's own
 * tools (pg_dump, PITR): these functions are for the appliance.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Config } from './config.js';
import type { DbHandle } from './db/connection.js';
import { migrations } from './db/migrations/index.js';

export const BACKUP_KEEP = 14;
const NAME = /^restaurant-(\d{8}T\d{6}\d{3}Z)\.sqlite$/;

/** A problem the operator can act on (Dutch, no internals); the CLI prints it and exits 1. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

export const backupDir = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'backups');

const stamp = (d: Date) => d.toISOString().replace(/[-:.]/g, '');

export interface BackupInfo {
  file: string;
  bytes: number;
  schema_version: number;
  tenants: number;
  created_at: string;
}

/**
 * Checks that `file` is a complete, uncorrupted database of this product that this version can run:
 * the SQLite header, `PRAGMA integrity_check`, the product's own tables, and only migrations this
 * version knows (a backup from a newer version is refused rather than silently downgraded).
 */
export function inspectBackup(file: string): Omit<BackupInfo, 'created_at'> {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const header = Buffer.alloc(16);
    fs.readSync(fd, header, 0, 16, 0);
    if (header.toString('latin1') !== 'SQLite format 3\u0000') throw new BackupError(`'${path.basename(file)}' is geen databasebestand van deze restaurantserver.`);
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`Het bestand '${path.basename(file)}' kan niet worden gelezen.`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const conn = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = conn.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`'${path.basename(file)}' is beschadigd (integriteitscontrole mislukt).`);
    const tables = new Set((conn.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]).map((r) => r.name));
    for (const t of ['kysely_migration', 'meta', 'tenants', 'change_log']) {
      if (!tables.has(t)) throw new BackupError(`'${path.basename(file)}' is geen back-up van deze restaurantserver.`);
    }
    const applied = (conn.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name);
    const unknown = applied.filter((n) => !(n in migrations));
    if (unknown.length) throw new BackupError(`'${path.basename(file)}' komt van een nieuwere versie van de server; werk eerst de server bij.`);
    const tenants = (conn.prepare('select count(*) as n from tenants').get() as { n: number }).n;
    return { file, bytes: fs.statSync(file).size, schema_version: applied.length, tenants };
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`'${path.basename(file)}' is geen geldige back-up (${(err as { code?: string }).code ?? 'onleesbaar'}).`);
  } finally {
    conn.close();
  }
}

/** Deletes all but the newest `keep` backups (by the time in their name); returns the deleted names. */
export function pruneBackups(dir: string, keep = BACKUP_KEEP): string[] {
  if (!fs.existsSync(dir)) return [];
  const names = fs.readdirSync(dir).filter((n) => NAME.test(n)).sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const n of old) fs.rmSync(path.join(dir, n), { force: true });
  return old;
}

export function listBackups(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((n) => NAME.test(n)).sort().map((n) => path.join(dir, n));
}

/**
 * A consistent online copy of the running database (SQLite's backup API, writers go on meanwhile),
 * written under a temporary name, verified, then renamed, so a crash never leaves a half backup
 * that looks whole. Then the oldest beyond `keep` are deleted.
 */
export async function makeBackup(handle: DbHandle, dir: string, now: Date, keep = BACKUP_KEEP): Promise<BackupInfo> {
  if (!handle.backup) throw new BackupError('Back-ups maken kan alleen op een apparaat met SQLite; gebruik voor PostgreSQL pg_dump.');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `restaurant-${stamp(now)}.sqlite`);
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    await handle.backup(partial);
    const info = inspectBackup(partial);
    fs.renameSync(partial, file);
    pruneBackups(dir, keep);
    return { ...info, file, created_at: now.toISOString() };
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  }
}

// ── A running server marks its data folder, so a restore never happens under it ───────────────
const pidFile = (dataDir: string) => path.join(dataDir, 'server.pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Called by server/main.ts once it listens; the returned function removes the mark (on close). */
export function markRunning(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = pidFile(dataDir);
  fs.writeFileSync(file, String(process.pid));
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

/** The pid of a live server on this data folder, if any (a stale mark from a crash is ignored). */
export function runningServer(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Puts `file` back as the appliance's database. Refuses while a server runs on this data folder and
 * refuses an invalid backup (nothing is touched then). The current database is first copied to
 * `backups/before-restore-<time>.sqlite`, so a restore can itself be undone.
 */
export function restoreBackup(config: Pick<Config, 'dataDir' | 'sqliteFile' | 'databaseUrl'>, file: string, now: Date): BackupInfo & { previous: string | null } {
  if (config.databaseUrl) throw new BackupError('Terugzetten kan alleen op een apparaat met SQLite (DATABASE_URL is gezet).');
  const pid = runningServer(config.dataDir);
  if (pid !== undefined) throw new BackupError(`De server draait nog (proces ${pid}); stop hem eerst en zet dan de back-up terug.`);
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new BackupError(`Het bestand '${file}' bestaat niet.`);
  const info = inspectBackup(source);
  const dir = backupDir(config);
  fs.mkdirSync(dir, { recursive: true });
  let previous: string | null = null;
  if (fs.existsSync(config.sqliteFile)) {
    // Fold the WAL into the main file first, so the copy of the current database is complete.
    const cur = new SqliteDatabase(config.sqliteFile);
    try {
      cur.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      cur.close();
    }
    previous = path.join(dir, `before-restore-${stamp(now)}.sqlite`);
    fs.copyFileSync(config.sqliteFile, previous);
  }
  const tmp = `${config.sqliteFile}.restoring`;
  fs.copyFileSync(source, tmp);
  for (const suffix of ['-wal', '-shm']) fs.rmSync(`${config.sqliteFile}${suffix}`, { force: true });
  fs.renameSync(tmp, config.sqliteFile);
  return { ...info, file: config.sqliteFile, created_at: now.toISOString(), previous };
}
