import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { runCli } from '../../../../server/cli.js';
import { createRuntime } from '../../../../server/runtime.js';
import { lane, PG_URL } from '../../../helpers/db.js';
import { baseEnv, tempDataDir } from '../../../helpers/process.js';

/** An operator's database on this lane: a SQLite DATA_DIR, or a fresh PostgreSQL database through DATABASE_URL. */
async function operatorEnv(): Promise<NodeJS.ProcessEnv> {
  if (lane === 'sqlite') return baseEnv({ DATA_DIR: tempDataDir() });
  const name = `stock_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  onTestFinished(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }, 120_000);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return baseEnv({ DATABASE_URL: url.toString(), DATA_DIR: tempDataDir() });
}

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const out = { stdout: '', stderr: '' };
  const code = await runCli(args, env, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
  return { code, ...out };
}

describe('npm run cli -- stock verify: the ledger is the truth', () => {
  it('finds a level changed directly in the database, reports it, and rebuilds it from the ledger', { timeout: 60_000 }, async () => {
    const env = await operatorEnv();
    const rt = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    let closed = false;
    const close = async () => {
      if (!closed) await rt.close();
      closed = true;
    };
    onTestFinished(close);
    const { tenant } = await rt.services.tenants.create({ slug: 'de-hoek', name: 'De Hoek', admin_email: 'a@dehoek.example', admin_password: 'een-lang-wachtwoord' });
    const beef = await rt.services.menu.createProduct(tenant.id, { name: 'Rundergehakt', price_cents: 0, unit: 'kg', on_menu: false });
    const koelcel = await rt.services.stock.createLocation(tenant.id, { name: 'Koelcel' });
    const bar = await rt.services.stock.createLocation(tenant.id, { name: 'Bar' });
    const staff = { tenantId: tenant.id, userId: null };
    const base = { to_location_id: null, from_location_id: null, note: null, reason: null };
    await rt.services.stock.recordMovement(staff, { ...base, product_id: beef.id, location_id: koelcel.id, type: 'INTAKE', quantity: 10 });
    await rt.services.stock.recordMovement(staff, { ...base, product_id: beef.id, location_id: koelcel.id, type: 'TRANSFER_OUT', quantity: 2.5, to_location_id: bar.id });
    await rt.services.stock.recordMovement(staff, { ...base, product_id: beef.id, location_id: koelcel.id, type: 'ADJUSTMENT', quantity: 7 });

    const clean = await cli(['stock', 'verify'], env);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({ tenants: 1, pairs: 2, differences: [], repaired: 0 });

    // Someone "fixes" the number by hand, and a level row disappears.
    await sql`update stock_levels set quantity_milli = 12000 where location_id = ${koelcel.id}`.execute(rt.handle.db);
    await sql`delete from stock_levels where location_id = ${bar.id}`.execute(rt.handle.db);
    const dry = await cli(['stock', 'verify', '--tenant', 'de-hoek', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      tenants: 1,
      pairs: 2,
      differences: expect.arrayContaining([
        { tenant_id: tenant.id, product_id: beef.id, location_id: koelcel.id, stored: 12, ledger: 7 },
        { tenant_id: tenant.id, product_id: beef.id, location_id: bar.id, stored: null, ledger: 2.5 },
      ]),
      repaired: 0,
    });
    expect((await rt.services.stock.list(tenant.id)).data[0]!.total).toBe(12); // a dry run changes nothing

    const fixed = JSON.parse((await cli(['stock', 'verify'], env)).stdout);
    expect(fixed.repaired).toBe(2);
    const item = (await rt.services.stock.list(tenant.id)).data[0]!;
    expect(item.total).toBe(9.5);
    expect(item.locations.map((l) => [l.name, l.quantity])).toEqual([['Bar', 2.5], ['Koelcel', 7]]);
    expect(JSON.parse((await cli(['stock', 'verify'], env)).stdout).differences).toEqual([]);

    const unknown = await cli(['stock', 'verify', '--tenant', 'nergens'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^Restaurant 'nergens' niet gevonden\./);
    await close();
  });
});
