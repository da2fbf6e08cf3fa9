import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BACKUP_KEEP, inspectBackup, listBackups, makeBackup, markRunning, pruneBackups } from '../../server/backup.js';
import { loadConfig } from '../../server/config.js';
import { runCli } from '../../server/cli.js';
import { createRuntime } from '../../server/runtime.js';
import { lane } from '../helpers/db.js';
import { baseEnv, tempDataDir } from '../helpers/process.js';

/** Backups are the appliance's (SQLite in DATA_DIR); the cloud's PostgreSQL uses pg_dump. */
describe.runIf(lane === 'sqlite')('backup and restore (appliance, SQLite)', { timeout: 60_000 }, () => {
  async function appliance(dataDir = tempDataDir()) {
    const config = loadConfig({ ...baseEnv({ DATA_DIR: dataDir }), LOG_LEVEL: 'silent' });
    const rt = await createRuntime(config);
    let closed = false;
    const close = async () => {
      if (!closed) await rt.close();
      closed = true;
    };
    onTestFinished(close);
    return { rt, config, close };
  }

  const cli = async (args: string[], env: NodeJS.ProcessEnv) => {
    const out = { stdout: '', stderr: '' };
    const code = await runCli(args, env, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
    return { code, ...out };
  };

  it('a backup taken while writes go on is consistent: every copied order has its items, and a restore brings exactly that state back', async () => {
    const { rt, config, close } = await appliance();
    const { tenant } = await rt.services.tenants.create({ slug: 'bak', name: 'Back-up Bistro', admin_email: 'a@bak.example', admin_password: 'een-lang-wachtwoord' });
    const product = await rt.services.menu.createProduct(tenant.id, { name: 'Soep', price_cents: 650 });
    const order = () => rt.services.orders.create({ tenantId: tenant.id, userId: null, via: 'pos' }, { items: [{ product_id: product.id, quantity: 2 }, { product_id: product.id, quantity: 1 }] });
    for (let i = 0; i < 50; i++) await order();

    // Writers keep going while the backup copies pages.
    let writing = true;
    let written = 50;
    const writer = (async () => {
      while (writing && written < 5000) {
        await order();
        written += 1;
        // Let the backup's steps run between writes (as requests interleave on a real server).
        await new Promise((r) => setImmediate(r));
      }
    })();
    const dir = path.join(config.dataDir, 'backups');
    const info = await makeBackup(rt.handle, dir, new Date('2026-11-23T03:30:00Z'));
    writing = false;
    await writer;
    expect(path.basename(info.file)).toBe('restaurant-20261123T033000000Z.sqlite');
    expect(info.tenants).toBe(1);

    const copy = new SqliteDatabase(info.file, { readonly: true });
    const copied = (copy.prepare('select count(*) as n from orders').get() as { n: number }).n;
    const itemsOk = (copy.prepare('select count(*) as n from orders o where (select count(*) from order_items i where i.order_id = o.id) <> 2').get() as { n: number }).n;
    const logged = (copy.prepare(`select count(*) as n from change_log where kind = 'order.created'`).get() as { n: number }).n;
    copy.close();
    expect(written).toBeGreaterThan(50); // the writer did run while the backup copied
    expect(copied).toBeGreaterThanOrEqual(50);
    expect(copied).toBeLessThanOrEqual(written);
    expect(itemsOk).toBe(0); // no order without its items: one moment of the database, not a torn copy
    expect(logged).toBe(copied); // the change log agrees with the rows

    // Restore onto the stopped appliance: the database is exactly the backup again.
    await close();
    const env = baseEnv({ DATA_DIR: config.dataDir });
    const res = await cli(['restore', info.file], env);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { restored: { previous: string } };
    expect(fs.existsSync(out.restored.previous)).toBe(true); // the replaced database was kept
    const back = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    onTestFinished(() => back.close());
    const t = await back.services.tenants.bySlug('bak');
    expect((await back.services.orders.list(t!.id, {}, 1, 0)).total).toBe(copied);
  });

  it('refuses to restore under a running server, and refuses files that are not backups of this product; nothing is touched', async () => {
    const { config } = await appliance();
    const env = baseEnv({ DATA_DIR: config.dataDir });
    const before = fs.readFileSync(config.sqliteFile);

    const notDb = path.join(config.dataDir, 'notes.sqlite');
    fs.writeFileSync(notDb, 'dit is geen database');
    const foreign = path.join(config.dataDir, 'foreign.sqlite');
    const f = new SqliteDatabase(foreign);
    f.exec('create table t (x)');
    f.close();

    const unmark = markRunning(config.dataDir);
    const running = await cli(['restore', foreign], env);
    expect(running.code).toBe(1);
    expect(running.stderr).toMatch(/De server draait nog/);
    unmark();

    for (const [file, message] of [[notDb, /geen databasebestand/], [foreign, /geen back-up van deze restaurantserver/], [path.join(config.dataDir, 'nope.sqlite'), /bestaat niet/]] as const) {
      const r = await cli(['restore', file], env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at |\.ts:\d+/);
    }
    expect(fs.readFileSync(config.sqliteFile).equals(before)).toBe(true);
    expect(() => inspectBackup(foreign)).toThrow(/geen back-up/);
    const usage = await cli(['restore'], env);
    expect(usage.code).toBe(2);
  });

  it('`cli backup` writes a verified copy and only the newest 14 are kept; the nightly job is registered', async () => {
    const { rt, config } = await appliance();
    expect(rt.app.scheduler.names()).toContain('backup');
    const dir = path.join(config.dataDir, 'backups');
    fs.mkdirSync(dir, { recursive: true });
    for (let d = 1; d <= 15; d++) fs.writeFileSync(path.join(dir, `restaurant-202610${String(d).padStart(2, '0')}T033000000Z.sqlite`), 'oud');
    await rt.app.scheduler.run('backup');
    const kept = listBackups(dir).map((f) => path.basename(f));
    expect(kept).toHaveLength(BACKUP_KEEP);
    expect(kept[0]).toBe('restaurant-20261003T033000000Z.sqlite'); // 15 old + tonight's: the two oldest went
    expect(pruneBackups(dir, 2)).toHaveLength(BACKUP_KEEP - 2);

    const res = await cli(['backup'], baseEnv({ DATA_DIR: config.dataDir }));
    expect(res.code).toBe(0);
    const { backup } = JSON.parse(res.stdout) as { backup: { file: string; schema_version: number } };
    expect(inspectBackup(backup.file).schema_version).toBe(backup.schema_version);
    expect(listBackups(dir).map((f) => path.basename(f))).toContain(path.basename(backup.file));
  });
});
