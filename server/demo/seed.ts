/**
 * The demo restaurant (`npm run cli -- demo`, `npm run demo`): what a newcomer sees first.
 *
 * `seedDemo` creates the tenant and then calls one seeder per area, in dependency order. Each
 * seeder uses the services (so every row goes through the one write path and lands in the change
 * log, exactly like real use) and may leave what later areas need on the context (staff ids, ...).
 * Later issues add their area as one function and one line in AREAS below.
 */
import { sql } from 'kysely';
import type { Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import type { TenantInfo } from '../modules/tenants/tenants.service.js';
import type { User } from '../modules/users/users.schemas.js';
import type { ModifierGroup, Product } from '../modules/menu/menu.schemas.js';
import type { DemoIngredient } from './stock.js';
import { seedMenu } from './menu.js';
import { seedOrders } from './orders.js';
import { seedLoyalty } from './loyalty.js';
import { seedStock } from './stock.js';
import { seedHaccp } from './haccp.js';
import { seedFloor } from './floor.js';
import { seedInsights } from './insights.js';
import { seedPartners } from './partners.js';
import { seedPayments, seedWebOrders } from './payments.js';
import { seedPrinting } from './printing.js';
import { seedDayCloses } from './closes.js';

export const DEMO_SLUG = 'demo';
export const DEMO_NAME = 'Bistro De Gouden Lepel';
export const DEMO_ADMIN = { name: 'Marieke van den Berg', email: 'beheer@goudenlepel.example', password: 'gouden-lepel-demo' } as const;

export interface DemoStaffMember {
  name: string;
  job: string;
  pin: string;
  hourly_wage_cents: number;
}

/** Staff with memorable PINs; the first one is printed as "the" staff login. */
export const DEMO_STAFF: readonly DemoStaffMember[] = [
  { name: 'Sanne de Vries', job: 'bediening', pin: '1234', hourly_wage_cents: 1450 },
  { name: 'Daan Jansen', job: 'kok', pin: '2345', hourly_wage_cents: 1875 },
  { name: 'Fatima El Amrani', job: 'kok', pin: '3456', hourly_wage_cents: 1690 },
  { name: 'Emma Visser', job: 'bediening', pin: '4567', hourly_wage_cents: 1420 },
  { name: 'Noah Smit', job: 'bar', pin: '5678', hourly_wage_cents: 1480 },
  { name: 'Lucas Bakker', job: 'afwas', pin: '6789', hourly_wage_cents: 1410 },
];

/** What the seeders share. Later areas read what earlier ones left (e.g. `staff` for shifts and orders). */
export interface DemoContext {
  runtime: Runtime;
  tenant: TenantInfo;
  admin: User;
  staff: Array<User & { pin: string }>;
  /** Left by seedMenu for the areas after it. */
  products?: Product[];
  /** Left by seedMenu: the modifier groups by id (the options later seeders choose). */
  modifierGroups?: Map<string, ModifierGroup>;
  /** The ingredients by name (products with `on_menu: false`), made once by whichever seeder needs them first. */
  ingredients?: Map<string, DemoIngredient>;
  /** Per-area counts for the printed summary, e.g. `{ staff: 6, products: 32 }`. */
  counts: Record<string, number>;
}

export type DemoSeeder = (ctx: DemoContext) => Promise<void>;

/** Opening hours, reservation rules and loyalty as a small Dutch bistro would set them. */
export async function seedSettings(ctx: DemoContext): Promise<void> {
  await ctx.runtime.services.tenants.patchSettings(ctx.tenant.id, {
    timezone: 'Europe/Amsterdam',
    opening_hours: {
      wed: [['17:00', '22:00']],
      thu: [['17:00', '22:00']],
      fri: [['12:00', '14:30'], ['17:00', '23:00']],
      sat: [['12:00', '14:30'], ['17:00', '23:00']],
      sun: [['12:00', '21:00']],
    },
    slot_minutes: 15,
    seating_minutes: 105,
    max_party_size: 10,
    haccp_margin: 2,
    loyalty_points_per_euro: 1,
  });
}

export async function seedStaff(ctx: DemoContext): Promise<void> {
  for (const member of DEMO_STAFF) {
    const user = await ctx.runtime.services.users.create(ctx.tenant.id, {
      name: member.name,
      role: 'staff',
      pin: member.pin,
      hourly_wage_cents: member.hourly_wage_cents,
      job: member.job,
    });
    ctx.staff.push({ ...user, pin: member.pin });
  }
  ctx.counts.staff = ctx.staff.length;
}

/**
 * The areas, in dependency order.
 * ┌─────────────────────────────────────────────────────────────────────────────────────────────┐
 * │ LATER ISSUES: add your area here as `['<area>', seed<Area>]`, with the function in your own │
 * │ file (e.g. server/demo/menu.ts exporting seedMenu). Menu before orders; orders after staff. │
 * └─────────────────────────────────────────────────────────────────────────────────────────────┘
 */
export const AREAS: Array<[area: string, seeder: DemoSeeder]> = [
  ['settings', seedSettings],
  ['staff', seedStaff],
  ['menu', seedMenu],
  ['orders', seedOrders],
  ['loyalty', seedLoyalty],
  ['web orders', seedWebOrders],
  ['stock', seedStock],
  ['haccp', seedHaccp],
  ['floor', seedFloor],
  ['insights', seedInsights],
  ['partners', seedPartners],
  // After every area that books money in the history; before tonight's web orders.
  ['day closes', seedDayCloses],
  ['payments', seedPayments],
  ['printing', seedPrinting],
];

export function demoUrl(config: Pick<Config, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/`;
}

export interface DemoResult {
  created: boolean;
  message: string;
  tenant: TenantInfo;
  admin: { slug: string; email: string; password: string };
  staff_pin: string;
  staff: Array<{ name: string; job: string; pin: string }>;
  counts: Record<string, number>;
  url: string;
  docs: string;
}

function result(created: boolean, tenant: TenantInfo, config: Config, counts: Record<string, number>): DemoResult {
  const url = demoUrl(config);
  return {
    created,
    message: created
      ? `Demorestaurant '${tenant.name}' aangemaakt.`
      : `Het demorestaurant '${DEMO_SLUG}' bestaat al; er is niets toegevoegd.`,
    tenant,
    admin: { slug: tenant.slug, email: DEMO_ADMIN.email, password: DEMO_ADMIN.password },
    staff_pin: DEMO_STAFF[0]!.pin,
    staff: DEMO_STAFF.map(({ name, job, pin }) => ({ name, job, pin })),
    counts,
    url,
    docs: `${url}api/v1/docs`,
  };
}

/** Creates the demo restaurant unless it exists; never duplicates. */
export async function seedDemo(runtime: Runtime): Promise<DemoResult> {
  const existing = await runtime.services.tenants.bySlug(DEMO_SLUG);
  if (existing) {
    return result(false, { id: existing.id, slug: existing.slug, name: existing.name }, runtime.config, {});
  }
  const { tenant, admin } = await runtime.services.tenants.create({
    slug: DEMO_SLUG,
    name: DEMO_NAME,
    admin_name: DEMO_ADMIN.name,
    admin_email: DEMO_ADMIN.email,
    admin_password: DEMO_ADMIN.password,
    timezone: 'Europe/Amsterdam',
  });
  const ctx: DemoContext = { runtime, tenant, admin, staff: [], counts: {} };
  // Thousands of small demo transactions: skip the per-commit fsync while seeding (demo data can be
  // made again), then restore the appliance's real durability setting.
  const sqlite = runtime.handle.dialect === 'sqlite';
  if (sqlite) await sql`pragma synchronous = NORMAL`.execute(runtime.handle.db);
  try {
    for (const [, seeder] of AREAS) await seeder(ctx);
  } finally {
    if (sqlite) await sql`pragma synchronous = FULL`.execute(runtime.handle.db);
  }
  return result(true, tenant, runtime.config, ctx.counts);
}
