import { sql } from 'kysely';
import type { Runtime } from '../../server/runtime.js';

/**
 * The data every storage-backed bench server starts from, seeded through the real services so both
 * the appliance and the raw server see identical rows: one tenant, a staff user (PIN 1234), two
 * products, `history` finished orders (a few busy days) and `active` open orders (a busy service).
 */
export interface Seeded {
  tenantId: string;
  slug: string;
  pin: string;
  userId: string;
  products: Array<{ id: string; name: string; price_cents: number }>;
  /** The POST /orders body the load generator sends. */
  postBody: { items: Array<{ product_id: string; quantity: number }> };
}

export const SEED = { history: 2000, active: 40 } as const;

export async function seed(rt: Runtime, counts: { history: number; active: number } = SEED): Promise<Seeded> {
  const db = rt.handle.db;
  // Seeding only: thousands of fsyncs would add nothing. Restored to FULL (and checked) below.
  await sql`pragma synchronous = OFF`.execute(db);
  const slug = 'bench';
  const pin = '1234';
  const { tenant } = await rt.services.tenants.create({ slug, name: 'Bench Bistro', admin_email: 'admin@bench.test', admin_password: 'geheim-wachtwoord-1' });
  const staff = await rt.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin });
  const friet = await rt.services.menu.createProduct(tenant.id, { name: 'Friet', price_cents: 395 });
  const burger = await rt.services.menu.createProduct(tenant.id, { name: 'Burger', price_cents: 1450 });
  const postBody = {
    items: [
      { product_id: friet.id, quantity: 2 },
      { product_id: burger.id, quantity: 1 },
    ],
  };
  const actor = { tenantId: tenant.id, userId: staff.id, via: 'pos' as const };
  for (let i = 0; i < counts.history + counts.active; i++) await rt.services.orders.create(actor, postBody);
  // All but the newest `active` orders are finished; the open ones are spread over the kitchen's statuses.
  await sql`update orders set status = 'completed'
    where tenant_id = ${tenant.id}
      and id not in (select id from orders where tenant_id = ${tenant.id} order by created_at desc, id desc limit ${counts.active})`.execute(db);
  await sql`update orders set status = case abs(random()) % 4 when 0 then 'new' when 1 then 'accepted' when 2 then 'preparing' else 'ready' end
    where tenant_id = ${tenant.id} and status = 'new'`.execute(db);
  await sql`pragma synchronous = FULL`.execute(db);
  await assertDurability(rt);
  return {
    tenantId: tenant.id,
    slug,
    pin,
    userId: staff.id,
    products: [friet, burger].map((p) => ({ id: p.id, name: p.name, price_cents: p.price_cents })),
    postBody,
  };
}

/** WAL + synchronous=FULL (2), the appliance's real durability setting, or the bench refuses to run. */
export async function assertDurability(rt: Runtime): Promise<void> {
  const { rows: j } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(rt.handle.db);
  const { rows: s } = await sql<{ synchronous: number }>`pragma synchronous`.execute(rt.handle.db);
  if (j[0]?.journal_mode !== 'wal' || Number(s[0]?.synchronous) !== 2) {
    throw new Error(`bench: expected WAL + synchronous=FULL, got ${j[0]?.journal_mode} / ${s[0]?.synchronous}`);
  }
}

/**
 * Seeds a template database once (in the calling process) and closes it; each bench server child
 * starts from its own copy (`benchConfig(tag, template.dir)`) and gets `seeded` through its env.
 */
export async function prepareTemplate(counts: { history: number; active: number } = SEED): Promise<{ dir: string; seeded: Seeded; cleanup(): void; env: Record<string, string> }> {
  const { createRuntime } = await import('../../server/runtime.js');
  const { benchConfig } = await import('./tmp.js');
  const { config, dataDir, cleanup } = benchConfig('template');
  const rt = await createRuntime(config);
  let seeded: Seeded;
  try {
    seeded = await seed(rt, counts);
  } finally {
    await rt.close();
  }
  return { dir: dataDir, seeded, cleanup, env: { BENCH_TEMPLATE_DIR: dataDir, BENCH_SEEDED: JSON.stringify(seeded) } };
}

/** Child side of prepareTemplate. */
export function fromTemplateEnv(): { dir: string; seeded: Seeded } {
  const dir = process.env.BENCH_TEMPLATE_DIR;
  const seeded = process.env.BENCH_SEEDED;
  if (!dir || !seeded) throw new Error('bench: BENCH_TEMPLATE_DIR / BENCH_SEEDED not set (start servers through bench/lib/child.ts)');
  return { dir, seeded: JSON.parse(seeded) as Seeded };
}
