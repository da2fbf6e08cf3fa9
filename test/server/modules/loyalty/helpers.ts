import { sql } from 'kysely';
import type { Db } from '../../../../server/db/connection.js';
import type { TestApp } from '../../../helpers/app.js';
import type { SeededMenu } from '../../../helpers/factories.js';

/** A paid order (through the real orders service, so the `paid` hook earns) with this customer phone. */
export async function paidOrder(t: Pick<TestApp, 'services'>, tenantId: string, menu: SeededMenu, phone: string | undefined, opts: { quantity?: number; name?: string } = {}) {
  const actor = { tenantId, userId: null, via: 'pos' as const };
  const { order } = await t.services.orders.create(actor, {
    items: [{ product_id: menu.burger.id, quantity: opts.quantity ?? 1 }],
    ...(phone ? { customer: { phone, ...(opts.name ? { name: opts.name } : {}) } } : {}),
  });
  await t.services.orders.markPaid(actor, order.id);
  return order;
}

/**
 * Every text value in every table of the database that contains one of the needles (case-insensitive),
 * as "table.column". The tables are listed from the database itself, so a table added by any area is
 * searched too.
 */
export async function findEverywhere(db: Db, dialect: 'sqlite' | 'postgres', needles: string[]): Promise<string[]> {
  const hits: string[] = [];
  const tables =
    dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows.map((r) => r.name);
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    for (const row of rows) {
      for (const [col, value] of Object.entries(row)) {
        if (typeof value !== 'string') continue;
        const v = value.toLowerCase();
        for (const n of needles) if (v.includes(n.toLowerCase())) hits.push(`${table}.${col}`);
      }
    }
  }
  return [...new Set(hits)].sort();
}
