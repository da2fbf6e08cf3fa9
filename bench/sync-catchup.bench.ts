/**
 * Sync catch-up after an outage (issue 4): a real cloud (ROLE=cloud on PostgreSQL, fresh schema,
 * child process, HTTP on 127.0.0.1) and a real appliance (SQLite file in a temp dir, WAL +
 * synchronous=FULL during the measurement) in this process, joined by the production HTTP transport.
 *
 * Per scenario: bootstrap the appliance from the cloud; take it offline; generate the outage on the
 * appliance through the real services (orders with 3-7 items, each moved through 2-4 statuses and
 * paid, interleaved as in a busy service, on a clock that walks through the outage) while the cloud
 * takes web orders; then reconnect and time until the push is acknowledged and the pull reports
 * has_more=false (what the sync worker does: push everything, then pull until caught up). A web
 * shop keeps ordering in the cloud over HTTP (one order every 100 ms) for 2 s before the catch-up
 * (baseline) and during it: the catch-up holds the tenant's write lock per push chunk, so this shows
 * what customers feel. At the end both databases must hold the same orders with the same statuses,
 * items and history. Then a new appliance (empty database, new device) joins the cloud that now
 * holds the whole history, once by snapshot and once by replaying the log, timed and checked alike.
 * Stock (issue 8): the dishes have recipes, so every completed order also books its consumption,
 * and staff book deliveries, transfers, removals and counts (BENCH_SYNC_STOCK_PER_HOUR, default
 * 12); ledger, levels, locations and recipes must be equal on both sides and on the new appliances.
 * Webhooks (issue 16): a cloud webhook for the order events, made before the outage, and a receiver
 * on 127.0.0.1: the cloud sends every order event of the outage while it takes the catch-up; after
 * it, the queue must empty, each delivery id reach the receiver once, one order.created per order
 * (BENCH_SYNC_WEBHOOKS=0: no webhook). The queue is watched from the push's end until it is empty (the
 * deliveries may trail the push: the sender thread runs at a lower priority); the receiver's CPU over
 * the push is printed apart (BENCH_RECEIVER_NICE=<n>: the receiver at that nice value, a stand-in for a
 * partner's server that is not on this machine). BENCH_CLOUD_CPUS=<list>: the cloud's threads on those cores only (taskset).
 *
 *   npx tsx bench/sync-catchup.bench.ts
 *   BENCH_SYNC_SCENARIOS=8h,7d BENCH_SYNC_REPEAT=1 BENCH_SYNC_ORDERS_PER_DAY=1000 BENCH_SYNC_WEB_PER_DAY=100
 *
 * Generation runs with synchronous=OFF (tens of thousands of fsyncs would only slow the set-up);
 * the appliance is switched back to synchronous=FULL, checkpointed and checked before the clock starts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { sql } from 'kysely';
import { createRuntime, type Runtime } from '../server/runtime.js';
import { ManualClock } from '../server/shared/clock.js';
import type { OrderStatus } from '../server/modules/orders/orders.schemas.js';
import { SyncEngine } from '../sync/engine.js';
import { printPullProfile, pullAll, pushAll, timedInto } from './lib/catchup-loops.js';
import { startCpuProfile } from './lib/cpuprofile.js';
import { MODULE_DESCRIPTORS, syncRegistry } from '../server/modules/sync-descriptors.js';
import { TxBatch } from '../sync/apply-helpers.js';
import { httpTransport } from '../sync/transport.js';
import { machine, percentile, table } from './lib/format.js';
import { assertDurability } from './lib/seed.js';
import { cloudAdminCookie, compareOrders, mib, rssSampler, sqliteCounter, startCloud, subscribeWebhook, TimedTransport, webOrders, webShop, type CloudInfo } from './lib/sync.js';
import { phaseFigures, phaseSampler, type PhaseMemory } from './lib/sync-counters.js';
import { benchConfig } from './lib/tmp.js';
import { cpuMsOf, machineCpuMs, pgCpuBetween, readPgCpu, runWaitMsOf, tableBytes, threadCpuMsOf, threadNiceOf } from './lib/pg-cpu.js';
import { nodeFlagsFrom, startServer, type BenchServer } from './lib/child.js';
import { buildCompiledChildren } from './lib/compiled.js';
import pg from 'pg';
import { AppError } from '../server/shared/errors.js';
import { slotsOf, type OpeningRules } from '../server/modules/reservations/reservations.rules.js';
import { addDays, wallClock } from '../server/shared/zoned-time.js';

export interface Scenario {
  name: string;
  hours: number;
  orders: number;
  webOrders: number;
  /** Target for the catch-up wall time. */
  targetMs: number;
}

export interface CatchupResult {
  scenario: Scenario;
  generated: { orders: number; items: number; ops: number; generateMs: number; webMs: number };
  bootstrapMs: number;
  wallMs: number;
  pushMs: number;
  pullMs: number;
  pushBatches: number;
  pushedOps: number;
  pullPages: number;
  pulledChanges: number;
  httpPushMs: number;
  httpPullMs: number;
  pushBytes: number;
  peakRssAppliance: number;
  peakRssCloud: number;
  /** The bench process's (the appliance's) RSS when the catch-up began (it generated the outage before) and its peak V8 heap during it. */
  startRssAppliance: number;
  peakHeapAppliance: number;
  /** The appliance's SQLite statements and transactions during the timed push and pull (bench/lib/sync.ts sqliteCounter). */
  applianceSql: { push: { statements: number; transactions: number }; pull: { statements: number; transactions: number } };
  /** Pull answers: pages, bytes as JSON (BENCH_SYNC_BYTES=1, else 0), the largest page. */
  pullBytes: { total: number; max: number };
  /** Web orders posted to the cloud every 100 ms: answer latency (ms) before the catch-up (idle) and during it. */
  web: { idle: number[]; during: number[] };
  /** A new appliance joining afterwards (an empty database): bootstrap by snapshot vs by replaying the whole log. */
  join: {
    snapshotMs: number;
    snapshotRows: number;
    replayMs: number;
    replayChanges: number;
    problems: string[];
    /** The snapshot join on the new appliance: SQLite statements and transactions, snapshot and pull requests, peak RSS/heap of this process during it. */
    snapshot: { statements: number; transactions: number; snapshotPages: number; pullPages: number; bytes: number; maxPage: number; peakRss: number; peakHeap: number; startRss: number };
  };
  verify: Awaited<ReturnType<typeof compareOrders>>;
  /** Food-safety records made during the outage (docs/haccp.md): readings, incidents, actions, checklist runs. */
  haccp: { logs: number; incidents: number; actions: number; runs: number; ops: number; chains: string };
  /** Floor and reservations during the outage (docs/floor.md): table visits with their bills, payments at the table, staff bookings. */
  floor: { visits: number; orders: number; bookings: number; full: number; ops: number };
  /** Loyalty during the outage (docs/loyalty.md): regulars' paid orders earning points, redemptions from the appliance's lease. */
  loyalty: { visits: number; redemptions: number; refused: number; ops: number };
  /** Stock during the outage (docs/stock.md): staff movements, and every completed order's recipe consumption (one entry per order). */
  stock: { movements: number; consumed: number; refused: number; ops: number };
  /** Insights during the outage (docs/insights.md): shifts clocked in and out on the appliance (some still open), corrections, waste with its stock removals. */
  insights: { shifts: number; open: number; corrections: number; waste: number; refused: number; ops: number };
  /** Public ordering during the outage (docs/payments.md): guests order in the cloud and pay at its checkout (the simulator); some fail, some are refunded in part. Pulled down at the catch-up. */
  payments: { orders: number; paid: number; failed: number; refunds: number };
  /** Outgoing webhooks (docs/partners.md): the cloud sends every order event, also those made offline, to a receiver on 127.0.0.1 while it takes the catch-up. */
  webhooks: { deliveries: number; orderCreated: number; drainMs: number; duplicates: number; retried: number };
  /**
   * Where the figures come from (BENCH_SYNC_MODE): 'compiled' (default) runs the appliance and the cloud
   * each in its own process from dist/ (plain node, no tsx), sampled from /proc per phase; 'inprocess'
   * is the former set-up (the appliance in this tsx process, which also generated the outage; the cloud
   * a tsx child).
   */
  mode: Mode;
  /** Compiled mode: VmRSS per phase (idle, push, pull) and VmHWM of the appliance and cloud processes; the joining appliances' (idle, join). */
  memory: { appliance: ProcMemory; cloud: ProcMemory; joinSnapshot: ProcMemory; joinReplay: ProcMemory } | null;
}

type Mode = 'compiled' | 'inprocess';
/** A process's memory over a run: VmRSS per phase, its peak among the samples, its VmHWM (peak since it started). */
type ProcMemory = { phases: PhaseMemory[]; peak: number; hwm: number };
const MODE: Mode = process.env.BENCH_SYNC_MODE === 'inprocess' ? 'inprocess' : 'compiled';
/** RSS samples every 200 ms (compiled mode). */
const SAMPLE_MS = Number(process.env.BENCH_RSS_SAMPLE_MS ?? 200);

/** The appliance child's memory peaks per phase (bench/servers/appliance-catchup.ts). */
type PeaksByPhase = Record<string, { rss: number; heapTotal: number; heapUsed: number; newSpace: number; external: number; arrayBuffers: number }>;
const peaksLine = (p: PeaksByPhase) =>
  Object.entries(p)
    .map(([phase, m]) => `${phase}: rss ${mib(m.rss)}, heap ${mib(m.heapTotal)}/${mib(m.heapUsed)} (new space ${mib(m.newSpace)}), external ${mib(m.external)} (${mib(m.arrayBuffers)})`)
    .join('; ');

/** Sends `msg` to a child and waits for its answer of type `reply` (an `error` in it rejects). */
function ask<T>(server: BenchServer, msg: Record<string, unknown>, reply: string, onOther?: (m: Record<string, unknown>) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Record<string, unknown> & { type?: string; error?: string }) => {
      if (m?.type !== reply) return onOther?.(m);
      server.child.off('message', onMessage);
      if (m.error) reject(new Error(`bench: the appliance child failed: ${m.error}`));
      else resolve(m as T);
    };
    server.child.on('message', onMessage);
    server.child.send(msg);
  });
}

/** The appliance in its own compiled process on `dataDir` (bench/servers/appliance-catchup.ts); BENCH_HEAP_PROF / `cpuProf` add node's profilers. */
function startAppliance(dataDir: string, server: BenchServer, syncKey: string, env: Record<string, string> = {}, cpuProf?: string): Promise<BenchServer> {
  const heap = process.env.BENCH_HEAP_PROF;
  const execArgv = [...(heap ? ['--heap-prof', `--heap-prof-dir=${heap}`] : []), ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), ...nodeFlagsFrom('BENCH_APPLIANCE_NODE_OPTIONS')];
  return startServer('appliance-catchup', { compiled: true, execArgv, env: { BENCH_APPLIANCE_DATA_DIR: dataDir, BENCH_CLOUD_URL: server.url, BENCH_SYNC_KEY: syncKey, ...env } });
}

// BENCH_SQL_PROFILE=1: the appliance's (this process's) apply time per entity during the timed pull.
const pullProfile = new Map<string, { n: number; ms: number }>();
if (process.env.BENCH_SQL_PROFILE) {
  const timed = timedInto(pullProfile);
  for (const d of MODULE_DESCRIPTORS) d.apply = timed(d.entity, d.apply);
  TxBatch.prototype.flush = timed('batch flush', TxBatch.prototype.flush);
}

const perDay = Number(process.env.BENCH_SYNC_ORDERS_PER_DAY ?? 1000);
/** HACCP readings per hour of outage (10: ten probes read hourly, far more than a kitchen's twice a day). */
const haccpPerHour = Number(process.env.BENCH_SYNC_HACCP_PER_HOUR ?? 10);
const webPerDay = Number(process.env.BENCH_SYNC_WEB_PER_DAY ?? 100);
/** Table visits per hour of outage (6: two rounds on a table, paid at the table; every third visit also takes a booking). */
const floorPerHour = Number(process.env.BENCH_SYNC_FLOOR_PER_HOUR ?? 6);
/** Regulars' visits per hour of outage (15: a paid order with their phone, earning points; every third also redeems 20 from the lease). */
const loyaltyPerHour = Number(process.env.BENCH_SYNC_LOYALTY_PER_HOUR ?? 15);
/** Staff stock movements per hour of outage (12: deliveries, transfers to the kitchen, removals, counts); completed orders consume their recipes on top. */
const stockPerHour = Number(process.env.BENCH_SYNC_STOCK_PER_HOUR ?? 12);
/** Shifts clocked in per day of outage (12: a crew of four, three shifts a day each), and waste entries per hour (2). */
const shiftsPerDay = Number(process.env.BENCH_SYNC_SHIFTS_PER_DAY ?? 12);
const wastePerHour = Number(process.env.BENCH_SYNC_WASTE_PER_HOUR ?? 2);
/** Public orders per hour of outage placed in the cloud and paid at its checkout (4; every fifth fails, every tenth paid one is refunded in part). */
const publicPerHour = Number(process.env.BENCH_SYNC_PUBLIC_PER_HOUR ?? 4);
const REGULARS = 50;
const regularPhone = (i: number) => `06 2${String(1_000_000 + (i % REGULARS) * 7919).padStart(7, '0')}`;

export const SCENARIOS: Record<string, Scenario> = {
  '8h': { name: '8-hour outage (1 busy day)', hours: 8, orders: perDay, webOrders: webPerDay, targetMs: 10_000 },
  '7d': { name: '7-day outage (7 busy days)', hours: 7 * 24, orders: 7 * perDay, webOrders: 7 * webPerDay, targetMs: 60_000 },
};

/** The status moves of order i: 2, 3 or 4, ending completed. */
function movesOf(i: number): OrderStatus[] {
  switch (i % 3) {
    case 0:
      return ['accepted', 'completed'];
    case 1:
      return ['accepted', 'ready', 'completed'];
    default:
      return ['accepted', 'preparing', 'ready', 'completed'];
  }
}

/** The outage on the appliance, through its services: returns orders, items and ops written. */
async function generateOutage(rt: Runtime, clock: ManualClock, cloud: CloudInfo, s: Scenario, start: Date): Promise<{ orders: number; items: number; ops: number }> {
  const actor = { tenantId: cloud.tenantId, userId: cloud.staffId, via: 'pos' as const };
  const { orders } = rt.services;
  const step = (s.hours * 3_600_000) / s.orders;
  const pipeline: Array<{ id: string; ops: Array<() => Promise<unknown>> }> = [];
  let items = 0;
  let ops = 0;
  const P = cloud.products;
  for (let i = 0; i < s.orders; i++) {
    clock.set(new Date(start.getTime() + i * step));
    const n = 3 + (i % 5); // 3..7 items, 5 on average
    const lines = Array.from({ length: n }, (_, k) => ({ product_id: P[(i * 3 + k * 7) % P.length]!.id, quantity: 1 + ((i + k) % 3) }));
    const { order } = await orders.create(actor, { items: lines });
    items += n;
    ops += 1;
    const todo = [...movesOf(i).map((to) => () => orders.setStatus(actor, order.id, to)), () => orders.markPaid(actor, order.id, { provider: 'pin' })];
    // Reorder so payment comes before completion on some orders (paid at the counter, then served).
    if (i % 2 === 0) todo.splice(todo.length - 2, 0, todo.pop()!);
    pipeline.push({ id: order.id, ops: todo });
    // A busy kitchen: the ~6 newest orders each move one step per new order.
    for (const o of pipeline.slice(-7, -1)) {
      const next = o.ops.shift();
      if (next) {
        await next();
        ops += 1;
      }
    }
    while (pipeline.length > 0 && pipeline[0]!.ops.length === 0) pipeline.shift();
  }
  for (const o of pipeline) {
    for (const next of o.ops) {
      await next();
      ops += 1;
    }
  }
  return { orders: s.orders, items, ops };
}

/**
 * Food safety during the outage, through the appliance's service (issue 10): `haccpPerHour` readings
 * an hour over ten units (every 40th kritiek: an incident, and a corrective action for every other
 * one), a checklist run every four hours. Every record is a link of the appliance's hash chain.
 */
async function generateHaccp(rt: Runtime, clock: ManualClock, cloud: CloudInfo, s: Scenario, start: Date): Promise<CatchupResult['haccp']> {
  const h = rt.services.haccp;
  const actor = { tenantId: cloud.tenantId, userId: cloud.staffId };
  clock.set(start);
  const list = await h.createChecklist(cloud.tenantId, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen' }, { label: 'Werkbanken' }, { label: 'Handen' }] });
  const out = { logs: 0, incidents: 0, actions: 0, runs: 0, ops: 1, chains: '' };
  const n = Math.round(s.hours * haccpPerHour);
  for (let i = 0; i < n; i++) {
    clock.set(new Date(start.getTime() + (i * 3_600_000) / haccpPerHour));
    const log = await h.logTemperature(actor, { unit_name: `Koelcel ${i % 10}`, unit_type: 'koelcel', target_max: 7, temperature: i % 40 === 39 ? 11.5 : 3 + (i % 7) * 0.3 });
    out.logs += 1;
    out.ops += i < 10 ? 2 : 1; // the first reading of each unit registers it
    if (log.incident_id) {
      out.incidents += 1;
      out.ops += 1;
      if (out.incidents % 2 === 1) {
        await h.addAction(actor, log.incident_id, 'Deur dicht, producten gecontroleerd.');
        out.actions += 1;
        out.ops += 1;
      }
    }
    if (i % (4 * haccpPerHour) === 0) {
      await h.runChecklist(actor, list.id, { completed_items: list.items.map((x) => x.id) });
      out.runs += 1;
      out.ops += 1;
    }
  }
  return out;
}

/** After the catch-up: the same HACCP rows on both sides, and both sides verify both chains alike. */
async function compareHaccp(rt: Runtime, serverUrl: string, cookie: string, info: CloudInfo, made: CatchupResult['haccp']): Promise<string[]> {
  const problems: string[] = [];
  const local = await rt.services.haccp.verify(info.tenantId);
  const res = await fetch(`${serverUrl}/api/v1/haccp/export?days=8`, { headers: { cookie } });
  const remote = ((await res.json()) as { integrity: typeof local }).integrity;
  if (!local.verified) problems.push(`haccp: the appliance's chains do not verify (${JSON.stringify(local.first_bad)})`);
  if (!remote?.verified) problems.push(`haccp: the cloud's chains do not verify (${JSON.stringify(remote?.first_bad)})`);
  if (JSON.stringify(local.chains) !== JSON.stringify(remote?.chains)) problems.push('haccp: the two sides report different chains');
  const records = made.logs + made.incidents + made.actions + made.runs;
  if (local.chains.find((c) => c.origin === info.deviceId)?.records !== records) problems.push(`haccp: ${records} records made, the chain holds another number`);
  made.chains = local.chains.map((c) => `${c.origin === 'cloud' ? 'cloud' : 'appliance'} ${c.records}`).join(', ');
  return problems;
}

/**
 * Floor and reservations during the outage, through the appliance's services (issue 11): a zone of
 * 20 tables made offline; `floorPerHour` table visits an hour, each two rounds on a table (its bill
 * opens with the first, the second joins it), the kitchen completing them, and the bill paid at the
 * table, which closes it and marks its orders paid; every third visit also books a table for a day
 * ahead (a full slot is refused and counted). Each visit is ~14 ops: orders, bill, rounds, payment,
 * status announcements.
 */
async function generateFloor(rt: Runtime, clock: ManualClock, cloud: CloudInfo, s: Scenario, start: Date): Promise<CatchupResult['floor']> {
  const { floor, orders, reservations, tenants } = rt.services;
  const actor = { tenantId: cloud.tenantId, userId: cloud.staffId, via: 'pos' as const };
  clock.set(start);
  const zone = await floor.createZone(cloud.tenantId, { name: 'zaal' });
  const tables: string[] = [];
  for (let i = 1; i <= 20; i++) tables.push((await floor.createTable(cloud.tenantId, { zone_id: zone.id, name: `Z${i}`, seats: 2 + (i % 4) * 2, x: (i % 5) * 100, y: Math.floor(i / 5) * 100 })).id);
  const settings = await tenants.getSettings(cloud.tenantId);
  const rules = { timezone: settings.timezone, opening_hours: settings.opening_hours as OpeningRules['opening_hours'], opening_exceptions: settings.opening_exceptions, slot_minutes: settings.slot_minutes, seating_minutes: settings.seating_minutes };
  const out = { visits: 0, orders: 0, bookings: 0, full: 0, ops: 21 };
  const before = await rt.changes.lastSeq(cloud.tenantId);
  const P = cloud.products;
  const n = Math.round(s.hours * floorPerHour);
  for (let i = 0; i < n; i++) {
    clock.set(new Date(start.getTime() + (i * 3_600_000) / floorPerHour));
    const table = tables[i % tables.length]!;
    const first = (await orders.create(actor, { items: [{ product_id: P[i % P.length]!.id, quantity: 2 }, { product_id: P[(i + 1) % P.length]!.id, quantity: 1 }], table_id: table })).order;
    const second = (await orders.create(actor, { items: [{ product_id: P[(i + 2) % P.length]!.id, quantity: 2 }], table_id: table })).order;
    for (const o of [first, second]) await orders.setStatus(actor, o.id, 'completed');
    const bill = await floor.tableBill(cloud.tenantId, table);
    await floor.payBill(actor, bill.id, { amount_cents: bill.open_cents, tip_cents: 150 });
    out.visits += 1;
    out.orders += 2;
    if (i % 3 === 0) {
      const day = addDays(wallClock(clock.now(), settings.timezone).date, 1 + (i % 5));
      const slots = slotsOf(day, rules);
      if (slots.length > 0) {
        try {
          await reservations.bookStaff({ tenantId: cloud.tenantId, userId: cloud.staffId }, { date: day, time: slots[i % slots.length]!.time, party_size: 2 + (i % 3), name: `Gast ${i}`, phone: '0612345678' });
          out.bookings += 1;
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
          out.full += 1;
        }
      }
    }
  }
  out.ops = (await rt.changes.lastSeq(cloud.tenantId)) - before + 21;
  return out;
}

/**
 * Loyalty before the outage: fifty regulars have earned on the appliance and synced, so the cloud has
 * granted the appliance a lease on each (the escrow, docs/loyalty.md) that it can spend offline.
 */
async function prepareLoyalty(rt: Runtime, clock: ManualClock, cloud: CloudInfo, engine: SyncEngine, at: Date): Promise<void> {
  const actor = { tenantId: cloud.tenantId, userId: cloud.staffId, via: 'pos' as const };
  for (let i = 0; i < REGULARS; i++) {
    clock.set(new Date(at.getTime() - (REGULARS - i) * 60_000));
    const { order } = await rt.services.orders.create(actor, { items: [{ product_id: cloud.products[i % cloud.products.length]!.id, quantity: 4 }], customer: { phone: regularPhone(i), name: `Vaste gast ${i}` } });
    await rt.services.orders.markPaid(actor, order.id, { provider: 'pin' });
  }
  await engine.syncOnce();
}

/** Loyalty during the outage, through the appliance's services: `loyaltyPerHour` paid orders of regulars (earning), every third visit redeeming 20 points from the lease. */
async function generateLoyalty(rt: Runtime, clock: ManualClock, cloud: CloudInfo, s: Scenario, start: Date): Promise<CatchupResult['loyalty']> {
  const actor = { tenantId: cloud.tenantId, userId: cloud.staffId, via: 'pos' as const };
  const before = await rt.changes.lastSeq(cloud.tenantId);
  const out = { visits: 0, redemptions: 0, refused: 0, ops: 0 };
  const n = Math.round(s.hours * loyaltyPerHour);
  for (let i = 0; i < n; i++) {
    clock.set(new Date(start.getTime() + ((i + 0.5) * 3_600_000) / loyaltyPerHour));
    const phone = regularPhone(i * 13);
    const { order } = await rt.services.orders.create(actor, { items: [{ product_id: cloud.products[(i * 5) % cloud.products.length]!.id, quantity: 1 + (i % 3) }], customer: { phone } });
    await rt.services.orders.markPaid(actor, order.id, { provider: 'pin' });
    out.visits += 1;
    if (i % 3 === 0) {
      const c = await rt.services.loyalty.balanceByPhone(cloud.tenantId, phone);
      try {
        await rt.services.loyalty.redeem({ tenantId: cloud.tenantId, userId: cloud.staffId }, { customer_id: c.customer_id, points: 20 });
        out.redemptions += 1;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
        out.refused += 1;
      }
    }
  }
  out.ops = (await rt.changes.lastSeq(cloud.tenantId)) - before;
  return out;
}

/** After the catch-up: the same customers, ledger and leases on both sides, and the same derived accounts. */
async function compareLoyalty(rt: Runtime, info: CloudInfo): Promise<string[]> {
  const db = rt.handle.db;
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: info.pgUrl });
  await client.connect();
  try {
    for (const [table, cols, key] of [
      ['loyalty_customers', 'id, phone, merged_into, erased_at', 'id'],
      ['loyalty_transactions', 'id, customer_id, type, points, pool, device_id, order_id', 'id'],
      ['loyalty_leases', 'id, customer_id, device_id, points', 'id'],
      ['loyalty_accounts', 'customer_id, holder, points', 'customer_id, holder'],
    ] as const) {
      const local = (await sql.raw<Record<string, unknown>>(`select ${cols} from ${table} where tenant_id = '${info.tenantId}' and ${table === 'loyalty_accounts' ? 'points <> 0' : '1 = 1'} order by ${key}`).execute(db)).rows;
      const remote = (await client.query(`select ${cols} from ${table} where tenant_id = $1 and ${table === 'loyalty_accounts' ? 'points <> 0' : '1 = 1'} order by ${key.split(', ').map((k) => `${k} collate "C"`).join(', ')}`, [info.tenantId])).rows;
      if (JSON.stringify(local.map((r) => Object.values(r).map(String))) !== JSON.stringify(remote.map((r) => Object.values(r).map(String)))) problems.push(`loyalty: ${table} differ (appliance ${local.length}, cloud ${remote.length} rows)`);
    }
    const negative = (await client.query(`select customer_id from loyalty_accounts where tenant_id = $1 group by customer_id having sum(points) < 0`, [info.tenantId])).rows;
    if (negative.length) problems.push(`loyalty: ${negative.length} balances below zero in the cloud`);
  } finally {
    await client.end();
  }
  return problems;
}

/** After the catch-up: the same bills, rounds, payments and bookings on both sides. */
async function compareFloor(rt: Runtime, info: CloudInfo): Promise<string[]> {
  const db = rt.handle.db;
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: info.pgUrl });
  await client.connect();
  try {
    for (const [table, cols] of [['bills', 'id, status, close_reason'], ['bill_rounds', 'id, bill_id, order_id'], ['bill_payments', 'id, bill_id, amount_cents, tip_cents'], ['reservations', 'id, table_id, status, starts_at'], ['floor_tables', 'id, name, seats']] as const) {
      const local = (await sql.raw<Record<string, unknown>>(`select ${cols} from ${table} where tenant_id = '${info.tenantId}' order by id`).execute(db)).rows;
      const remote = (await client.query(`select ${cols} from ${table} where tenant_id = $1 order by id collate "C"`, [info.tenantId])).rows;
      if (JSON.stringify(local.map((r) => Object.values(r).map(String))) !== JSON.stringify(remote.map((r) => Object.values(r).map(String)))) problems.push(`floor: ${table} differ (appliance ${local.length}, cloud ${remote.length} rows)`);
    }
  } finally {
    await client.end();
  }
  return problems;
}

/**
 * Stock before the outage (online, like loyalty): 8 ingredients, a kitchen (the default) and a cold
 * store, a recipe of two or three ingredients for every dish, an opening delivery. From then on every
 * order completed on the appliance books its consumption in the order's own transaction.
 */
async function prepareStock(rt: Runtime, clock: ManualClock, cloud: CloudInfo, engine: SyncEngine, at: Date): Promise<{ ingredients: string[]; kitchen: string; store: string }> {
  const { menu, stock } = rt.services;
  clock.set(new Date(at.getTime() - 30 * 60_000));
  const ingredients: string[] = [];
  for (let i = 0; i < 8; i++) ingredients.push((await menu.createProduct(cloud.tenantId, { name: `Ingrediënt ${i + 1}`, price_cents: 0, cost_cents: 100 + 50 * i, unit: i % 2 ? 'stuk' : 'kg', min_level: 20, on_menu: false })).id);
  const kitchen = (await stock.createLocation(cloud.tenantId, { name: 'Keuken' })).id;
  const store = (await stock.createLocation(cloud.tenantId, { name: 'Koelcel' })).id;
  for (const [i, p] of cloud.products.entries()) {
    const lines = [0, 3, 5].slice(0, 2 + (i % 2)).map((k) => ({ product_id: ingredients[(i + k) % ingredients.length]!, quantity: k === 0 ? 0.2 : 1 }));
    await stock.putRecipe(cloud.tenantId, p.id, { ingredients: lines });
  }
  const staff = { tenantId: cloud.tenantId, userId: cloud.staffId };
  for (const id of ingredients) {
    await stock.recordMovement(staff, { product_id: id, location_id: store, type: 'INTAKE', quantity: 500, to_location_id: null, from_location_id: null, note: 'Openingsvoorraad', reason: null });
  }
  await engine.syncOnce();
  return { ingredients, kitchen, store };
}

/** Staff stock movements during the outage: `stockPerHour` an hour, cycling delivery, transfer to the kitchen, removal, count. */
async function generateStock(rt: Runtime, clock: ManualClock, cloud: CloudInfo, s: Scenario, start: Date, at: Awaited<ReturnType<typeof prepareStock>>, since: number): Promise<CatchupResult['stock']> {
  const { stock } = rt.services;
  const staff = { tenantId: cloud.tenantId, userId: cloud.staffId };
  const base = { to_location_id: null, from_location_id: null, note: null, reason: null };
  const out = { movements: 0, consumed: 0, refused: 0, ops: 0 };
  const n = Math.round(s.hours * stockPerHour);
  for (let i = 0; i < n; i++) {
    clock.set(new Date(start.getTime() + ((i + 0.25) * 3_600_000) / stockPerHour));
    const product_id = at.ingredients[Math.floor(i / 4) % at.ingredients.length]!; // each ingredient: delivered, moved, used, counted
    try {
      const r =
        i % 4 === 0
          ? await stock.recordMovement(staff, { ...base, product_id, location_id: at.store, type: 'INTAKE', quantity: 40, note: 'Levering' })
          : i % 4 === 1
            ? await stock.recordMovement(staff, { ...base, product_id, location_id: at.store, type: 'TRANSFER_OUT', to_location_id: at.kitchen, quantity: 25 })
            : i % 4 === 2
              ? await stock.recordMovement(staff, { ...base, product_id, location_id: at.store, type: 'REMOVAL', quantity: 1.5, reason: 'breuk' })
              : await stock.recordMovement(staff, { ...base, product_id, location_id: at.store, type: 'ADJUSTMENT', quantity: 300 + (i % 50), note: 'Telling' });
      out.movements += r.movements.length;
    } catch {
      out.refused += 1; // a removal or transfer from an empty shelf (409): nothing booked
    }
  }
  const rows = await rt.handle.db.selectFrom('change_log').select(['kind']).where('tenant_id', '=', cloud.tenantId).where('seq', '>', since).where('entity', '=', 'stock').execute();
  out.consumed = rows.filter((r) => r.kind === 'stock.consumed').length;
  out.ops = rows.length;
  return out;
}

/** After the catch-up: the same ledger, locations and recipes on both sides, the same levels, and those levels the ledger's replay. */
async function compareStock(rt: Runtime, info: CloudInfo): Promise<string[]> {
  const db = rt.handle.db;
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: info.pgUrl });
  await client.connect();
  try {
    for (const [table, cols, key] of [
      ['stock_movements', 'id, product_id, location_id, type, quantity_milli, counted_milli, booked_at, source, ref_id', 'id'],
      ['stock_levels', 'product_id, location_id, quantity_milli', 'product_id, location_id'],
      ['locations', 'id, name, is_default', 'id'],
      ['recipes', 'id, ingredients', 'id'],
    ] as const) {
      const local = (await sql.raw<Record<string, unknown>>(`select ${cols} from ${table} where tenant_id = '${info.tenantId}' order by ${key}`).execute(db)).rows;
      const remote = (await client.query(`select ${cols} from ${table} where tenant_id = $1 order by ${key.split(', ').map((k) => `${k} collate "C"`).join(', ')}`, [info.tenantId])).rows;
      if (JSON.stringify(local.map((r) => Object.values(r).map(String))) !== JSON.stringify(remote.map((r) => Object.values(r).map(String)))) problems.push(`stock: ${table} differ (appliance ${local.length}, cloud ${remote.length} rows)`);
    }
  } finally {
    await client.end();
  }
  const verify = await rt.services.stock.verify({ tenantId: info.tenantId, repair: false });
  if (verify.differences.length) problems.push(`stock: ${verify.differences.length} levels differ from the ledger's replay`);
  return problems;
}

/** Insights before the outage (online): a crew of four employees with a job and a wage. */
async function prepareInsights(rt: Runtime, clock: ManualClock, cloud: CloudInfo, engine: SyncEngine, at: Date): Promise<string[]> {
  clock.set(new Date(at.getTime() - 20 * 60_000));
  const crew: string[] = [];
  for (const [i, job] of ['keuken', 'keuken', 'bediening', 'bediening'].entries()) {
    crew.push((await rt.services.users.create(cloud.tenantId, { name: `Medewerker ${i + 1}`, role: 'staff', pin: String(4100 + i), job, hourly_wage_cents: 1400 + 50 * i })).id);
  }
  await engine.syncOnce();
  return crew;
}

/**
 * Shifts and waste during the outage, through the appliance's services: `shiftsPerDay` shifts a day
 * clocked in and, six and a half hours later, out with a break (those that would end after the
 * outage are still open at the reconnect), every fourth corrected by the manager; `wastePerHour`
 * waste entries an hour, each booking its stock removal.
 */
async function generateInsights(rt: Runtime, clock: ManualClock, cloud: CloudInfo, s: Scenario, start: Date, crew: string[], at: { ingredients: string[]; kitchen: string }): Promise<CatchupResult['insights']> {
  const { shifts, waste } = rt.services;
  const tenantId = cloud.tenantId;
  const since = await rt.changes.lastSeq(tenantId);
  const out = { shifts: 0, open: 0, corrections: 0, waste: 0, refused: 0, ops: 0 };
  const end = start.getTime() + s.hours * 3_600_000;
  const n = Math.max(1, Math.round((s.hours / 24) * shiftsPerDay));
  const gap = (s.hours * 3_600_000) / n;
  const events: Array<{ at: number; run: () => Promise<void> }> = [];
  let closed = 0;
  for (let i = 0; i < n; i++) {
    const userId = crew[i % crew.length]!;
    const inAt = start.getTime() + i * gap + 60_000;
    const outAt = inAt + 6.5 * 3_600_000;
    events.push({ at: inAt, run: async () => void (await shifts.clockIn({ tenantId, userId }), (out.shifts += 1)) });
    if (outAt < end) {
      events.push({
        at: outAt,
        run: async () => {
          const shift = await shifts.clockOut({ tenantId, userId }, { break_minutes: 30 });
          if (++closed % 4 === 0) {
            await shifts.correct({ tenantId, userId: cloud.staffId }, shift.id, { break_minutes: 45, reason: 'Pauze was langer' });
            out.corrections += 1;
          }
        },
      });
    }
  }
  const reasons = ['bederf', 'overproductie', 'retour', 'beschadigd', 'overig'] as const;
  for (let i = 0; i < Math.round(s.hours * wastePerHour); i++) {
    events.push({
      at: start.getTime() + ((i + 0.6) * 3_600_000) / wastePerHour,
      run: async () => void (await waste.record({ tenantId, userId: cloud.staffId }, { product_id: at.ingredients[i % at.ingredients.length]!, quantity: 0.5, reason: reasons[i % reasons.length]!, location_id: at.kitchen }), (out.waste += 1)),
    });
  }
  events.sort((a, b) => a.at - b.at);
  for (const e of events) {
    clock.set(new Date(e.at));
    try {
      await e.run();
    } catch {
      out.refused += 1;
    }
  }
  out.open = out.shifts - closed;
  const rows = await rt.handle.db.selectFrom('change_log').select(['entity', 'kind']).where('tenant_id', '=', tenantId).where('seq', '>', since).execute();
  out.ops = rows.filter((r) => r.entity === 'shift' || r.entity === 'waste' || r.kind === 'stock.wasted').length;
  return out;
}

/**
 * Public ordering while the appliance is offline (issue 12): guests order pickup from the cloud's
 * public menu over HTTP and choose "betaald" (every fifth "mislukt") on the simulator's checkout page,
 * whose callback the cloud handles; an admin refunds part of every tenth paid payment. All of it
 * (orders, their public rows, payments, refunds, order.paid) reaches the appliance at the catch-up.
 */
async function generatePayments(server: Awaited<ReturnType<typeof startCloud>>['server'], info: CloudInfo, s: Scenario): Promise<CatchupResult['payments']> {
  // A fresh admin session per refund: the cloud's clock walks through the outage (web orders), so a session goes idle.
  const adminCookie = () => cloudAdminCookie(server.url);
  const out = { orders: 0, paid: 0, failed: 0, refunds: 0 };
  const n = Math.round(s.hours * publicPerHour);
  for (let i = 0; i < n; i++) {
    const items = [{ product_id: info.products[i % info.products.length]!.id, quantity: 1 + (i % 3) }, { product_id: info.products[(i + 7) % info.products.length]!.id, quantity: 1 }];
    const res = await fetch(`${server.url}/api/v1/public/order/bench`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items, customer: { name: `Gast ${i}`, phone: regularPhone(i * 3) }, type: 'pickup', idempotency_key: `bench-gast-${i}` }),
    });
    if (res.status !== 201) throw new Error(`bench: public order ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { checkout_url: string; payment_id: string };
    out.orders += 1;
    const fail = i % 5 === 4;
    const chosen = await fetch(body.checkout_url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `uitkomst=${fail ? 'mislukt' : 'betaald'}`, redirect: 'manual' });
    if (chosen.status !== 303) throw new Error(`bench: simulator ${chosen.status}`);
    if (fail) {
      out.failed += 1;
      continue;
    }
    out.paid += 1;
    if (out.paid % 10 === 0) {
      const r = await fetch(`${server.url}/api/v1/payments/${body.payment_id}/refund`, { method: 'POST', headers: { cookie: await adminCookie(), 'content-type': 'application/json' }, body: JSON.stringify({ amount_cents: 100 }) });
      if (r.status !== 201) throw new Error(`bench: refund ${r.status} ${await r.text()}`);
      out.refunds += 1;
    }
  }
  return out;
}

/** After the catch-up: the same public orders, payments and refunds on both sides. */
async function comparePayments(rt: Runtime, info: CloudInfo): Promise<string[]> {
  const db = rt.handle.db;
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: info.pgUrl });
  await client.connect();
  try {
    for (const [table, cols] of [
      ['public_orders', 'id, type, payment_required'],
      ['payments', 'id, order_id, provider_payment_id, amount_cents, tip_cents, status, paid_at'],
      ['payment_refunds', 'id, payment_id, amount_cents, status'],
    ] as const) {
      const local = (await sql.raw<Record<string, unknown>>(`select ${cols} from ${table} where tenant_id = '${info.tenantId}' order by id`).execute(db)).rows;
      const remote = (await client.query(`select ${cols} from ${table} where tenant_id = $1 order by id collate "C"`, [info.tenantId])).rows;
      if (JSON.stringify(local.map((r) => Object.values(r).map(String))) !== JSON.stringify(remote.map((r) => Object.values(r).map(String)))) problems.push(`payments: ${table} differ (appliance ${local.length}, cloud ${remote.length} rows)`);
    }
    const unpaid = (await client.query(`select p.id from payments p join orders o on o.id = p.order_id where p.tenant_id = $1 and p.status = 'paid' and o.payment_status <> 'paid'`, [info.tenantId])).rows;
    if (unpaid.length) problems.push(`payments: ${unpaid.length} paid payments whose order is not paid`);
  } finally {
    await client.end();
  }
  return problems;
}

/** After the catch-up: the same shifts, corrections and waste on both sides; with the cloud's address, the same payroll CSV too (hours counted once). */
async function compareInsights(rt: Runtime, info: CloudInfo, cloudUrl?: string): Promise<string[]> {
  const db = rt.handle.db;
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: info.pgUrl });
  await client.connect();
  try {
    for (const [table, cols] of [
      ['shifts', 'id, user_id, start_at, end_at, break_minutes, corrections'],
      ['shift_corrections', 'id, shift_id, before, after'],
      ['waste_entries', 'id, product_id, quantity, reason, cost_cents'],
    ] as const) {
      const local = (await sql.raw<Record<string, unknown>>(`select ${cols} from ${table} where tenant_id = '${info.tenantId}' order by id`).execute(db)).rows;
      const remote = (await client.query(`select ${cols} from ${table} where tenant_id = $1 order by id collate "C"`, [info.tenantId])).rows;
      if (JSON.stringify(local.map((r) => Object.values(r).map(String))) !== JSON.stringify(remote.map((r) => Object.values(r).map(String)))) problems.push(`insights: ${table} differ (appliance ${local.length}, cloud ${remote.length} rows)`);
    }
  } finally {
    await client.end();
  }
  if (cloudUrl) {
    const from = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const local = (await rt.services.shifts.payrollCsv(info.tenantId, from, to)).body.toString('utf8');
    // As the admin: staff get only their own row (CONTRACT §13), the appliance's service call gets every row.
    const res = await fetch(`${cloudUrl}/api/v1/shifts/export-payroll?from=${from}&to=${to}`, { headers: { cookie: await cloudAdminCookie(cloudUrl) } });
    // The bytes, not res.text(): a WHATWG UTF-8 decode drops the byte-order mark.
    const remote = Buffer.from(await res.arrayBuffer()).toString('utf8');
    if (remote !== local) {
      const a = local.split('\r\n');
      const b = remote.split('\r\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      problems.push(`insights: the payroll export differs between the appliance and the cloud (HTTP ${res.status}; line ${at + 1}: ${JSON.stringify(a[at])} vs ${JSON.stringify(b[at])})`);
    }
  }
  return problems;
}

/**
 * Webhooks (issue 16): a receiver on 127.0.0.1 in its own process (bench/servers/receiver.ts, answers
 * 204 at once) and a cloud webhook for the order events, registered as if before the outage, so
 * every order event the catch-up brings to the cloud (and the web and public orders of the outage)
 * is queued and sent while the catch-up runs.
 */
interface WebhookProbe {
  /** The receiver's process (its CPU over the push; BENCH_RECEIVER_NICE). */
  pid: number;
  /** Watches the cloud's queue from the end of the push on (QueueWatch). */
  watch: QueueWatch | null;
  /** Per delivery id, the X-Service-Attempt of each request the receiver got. */
  stats(): Promise<{ requests: number; ids: Map<string, number[]> }>;
  close(): Promise<void>;
}

async function startWebhooks(server: Awaited<ReturnType<typeof startCloud>>['server'], at: Date): Promise<WebhookProbe> {
  const receiver = await startServer('receiver');
  // BENCH_RECEIVER_NICE=<n>: the receiver at a lower priority, as a stand-in for a partner's server that is not on
  // this machine (by default it shares the two cores with the cloud, PostgreSQL and the appliance).
  const nice = Number(process.env.BENCH_RECEIVER_NICE ?? 0);
  if (nice > 0) os.setPriority(receiver.child.pid!, Math.min(19, nice));
  const probe: WebhookProbe = {
    pid: receiver.child.pid!,
    watch: null,
    stats: () =>
      new Promise((resolve) => {
        const onMessage = (m: { type?: string; requests: number; ids: Array<[string, number[]]> }) => {
          if (m?.type !== 'receiver-stats') return;
          receiver.child.off('message', onMessage);
          resolve({ requests: m.requests, ids: new Map(m.ids) });
        };
        receiver.child.on('message', onMessage);
        receiver.child.send({ type: 'receiver-stats' });
      }),
    close: () => receiver.stop(),
  };
  await subscribeWebhook(server, `${receiver.url}/hook`, at);
  return probe;
}

/**
 * When the cloud's webhook queue is empty after the push: started when the push ends (the catch-up's end in
 * BENCH_SYNC_MODE=inprocess), it polls every 100 ms, while the pull and the checks run, until the webhooks
 * consumer has read the tenant's change log up to where it stood at the start (every delivery the push
 * brings is queued) and no delivery is pending. So the time stays right when deliveries trail the push.
 */
class QueueWatch {
  /** performance.now() at the start, at the catch-up's end, and when the queue was found empty. */
  readonly startedAt = performance.now();
  catchupEndAt: number | null = null;
  private readonly done: Promise<{ emptyAt: number | null; cloudCpuMs: number | null; sender: { ms: number; nice: number } | null }>;

  /** `threadsBefore`: the cloud's threads' CPU at the push's start, for the sender thread's CPU from then until the queue is empty. */
  constructor(info: CloudInfo, cloudPid: number, threadsBefore?: Map<number, number>) {
    const cloudBefore = cpuMsOf(cloudPid);
    this.done = (async () => {
      const client = new pg.Client({ connectionString: info.pgUrl });
      await client.connect();
      try {
        const target = Number((await client.query(`select last_seq from change_seq where tenant_id = $1`, [info.tenantId])).rows[0]?.last_seq ?? 0);
        for (;;) {
          const { rows } = await client.query(
            `select coalesce((select last_seq from change_consumers where consumer = 'webhooks' and tenant_id = $1), 0) as seq,
                    exists (select 1 from webhook_deliveries where status = 'pending') as pending`,
            [info.tenantId],
          );
          if (Number(rows[0].seq) >= target && !rows[0].pending) break;
          if (performance.now() - this.startedAt > 300_000) return { emptyAt: null, cloudCpuMs: null, sender: null };
          await new Promise((r) => setTimeout(r, 100));
        }
        const emptyAt = performance.now();
        const cloudAfter = cpuMsOf(cloudPid);
        // The sender thread: the cloud's busiest thread after its main thread over the push and the drain (it sends and queues every delivery).
        const nice = threadNiceOf(cloudPid);
        const busiest = threadsBefore
          ? [...threadCpuMsOf(cloudPid)]
              .filter(([tid]) => tid !== cloudPid)
              .map(([tid, ms]) => ({ tid, ms: ms - (threadsBefore.get(tid) ?? 0) }))
              .sort((a, b) => b.ms - a.ms)[0]
          : undefined;
        return { emptyAt, cloudCpuMs: cloudBefore !== null && cloudAfter !== null ? cloudAfter - cloudBefore : null, sender: busiest ? { ms: busiest.ms, nice: nice.get(busiest.tid) ?? 0 } : null };
      } finally {
        await client.end();
      }
    })();
  }

  /** When the queue was found empty, in ms after the push's end and after the catch-up's end (negative: before it), and the cloud's CPU from the push's end until then. */
  async result(): Promise<{ afterPushMs: number; afterCatchupMs: number; cloudCpuMs: number | null; sender: { ms: number; nice: number } | null } | null> {
    const { emptyAt, cloudCpuMs, sender } = await this.done;
    if (emptyAt === null) return null;
    return { afterPushMs: emptyAt - this.startedAt, afterCatchupMs: emptyAt - (this.catchupEndAt ?? this.startedAt), cloudCpuMs, sender };
  }
}

/** After the catch-up: until the cloud's queue is empty; every delivery delivered once, one order.created per order of the outage. */
async function drainWebhooks(info: CloudInfo, probe: WebhookProbe, since: Date): Promise<{ result: CatchupResult['webhooks']; problems: string[] }> {
  const client = new pg.Client({ connectionString: info.pgUrl });
  await client.connect();
  const problems: string[] = [];
  try {
    const count = async (q: string, args: unknown[] = []) => Number((await client.query(q, args)).rows[0].n);
    const empty = await probe.watch?.result();
    if (!empty) problems.push('webhooks: deliveries still pending 300 s after the push');
    const drainMs = empty ? Math.max(0, empty.afterCatchupMs) : Number.NaN;
    if (empty) console.log(`  webhook queue empty ${sec(empty.afterPushMs)} s after the push's end, ${sec(empty.afterCatchupMs)} s after the catch-up's end; the cloud's CPU from the push's end until then ${empty.cloudCpuMs === null ? '?' : sec(empty.cloudCpuMs)} s`);
    const deliveriesNow = await count(`select count(*) as n from webhook_deliveries`);
    if (empty?.sender) console.log(`  the webhook sender thread's CPU from the push's start until the queue was empty: ${sec(empty.sender.ms)} s${empty.sender.nice ? ` (nice ${empty.sender.nice})` : ''}, ${((empty.sender.ms * 1000) / Math.max(1, deliveriesNow)).toFixed(0)} µs per delivery (${deliveriesNow}; it also queues them: the change-log consumer)`);
    const deliveries = await count(`select count(*) as n from webhook_deliveries`);
    const failed = await count(`select count(*) as n from webhook_deliveries where status = 'failed'`);
    const orderCreated = await count(`select count(*) as n from webhook_deliveries where event_type = 'order.created'`);
    const orders = await count(`select count(*) as n from orders where tenant_id = $1 and created_at >= $2`, [info.tenantId, since.toISOString()]);
    const seen = await probe.stats();
    // Sent twice = one attempt of a delivery received twice, or more requests than the cloud recorded
    // attempts. A delivery whose attempt went unanswered in time is sent again with the same id and
    // the next attempt number (at least once, by design): a retry, counted apart.
    const attempts = new Map((await client.query(`select id, attempts from webhook_deliveries`)).rows.map((r: { id: string; attempts: number }) => [r.id, Number(r.attempts)]));
    let duplicates = 0;
    let retried = 0;
    for (const [id, list] of seen.ids) {
      if (list.length === 1) continue;
      if (new Set(list).size < list.length || list.length > (attempts.get(id) ?? 0)) {
        duplicates += 1;
        if (duplicates <= 5) console.log(`    sent twice: ${id}, attempts received ${JSON.stringify(list)}, recorded ${attempts.get(id)}`);
      } else retried += 1;
    }
    if (failed) problems.push(`webhooks: ${failed} deliveries failed`);
    if (duplicates) problems.push(`webhooks: ${duplicates} deliveries sent twice`);
    if (seen.ids.size !== deliveries) problems.push(`webhooks: the receiver saw ${seen.ids.size} delivery ids, the cloud queued ${deliveries}`);
    if (orderCreated !== orders) problems.push(`webhooks: ${orderCreated} order.created deliveries for ${orders} orders of the outage`);
    return { result: { deliveries, orderCreated, drainMs, duplicates, retried }, problems };
  } finally {
    await client.end();
  }
}

export async function runCatchup(s: Scenario, log: (m: string) => void = console.log): Promise<CatchupResult> {
  if (MODE === 'compiled') await buildCompiledChildren();
  // BENCH_SYNC_KEEP_CLOUD=<file>: the cloud's schema is kept after the run and named in <file>, for BENCH_SYNC_JOIN_ONLY.
  const keepFile = process.env.BENCH_SYNC_KEEP_CLOUD;
  if (keepFile) process.env.BENCH_CLOUD_KEEP_SCHEMA = '1';
  const { server, info } = await startCloud({ compiled: MODE === 'compiled' });
  // BENCH_CLOUD_CPUS=<list> (taskset's): the cloud's threads on these cores only, as a node with fewer cores (or a CPU
  // quota) than its load: there its main thread and the webhook sender thread compete for the same core.
  if (process.env.BENCH_CLOUD_CPUS) execFileSync('taskset', ['-a', '-cp', process.env.BENCH_CLOUD_CPUS, String(server.child.pid)], { stdio: 'ignore' });
  if (keepFile) fs.writeFileSync(keepFile, JSON.stringify({ scenario: s.name, schema: info.schema, info }, null, 2));
  const { config, dataDir, cleanup } = benchConfig('sync');
  const clock = new ManualClock(new Date());
  let rt = await createRuntime(config, { clock });
  let appliance: BenchServer | null = null;
  let hooks: WebhookProbe | null = null;
  try {
    await assertDurability(rt);
    const transport = new TimedTransport(httpTransport(server.url, info.syncKey, { timeoutMs: 120_000 }));
    const engine = new SyncEngine({ db: rt.handle.db, changes: rt.changes, clock, transport, registry: syncRegistry });
    let t = performance.now();
    await engine.syncOnce();
    const bootstrapMs = performance.now() - t;

    const start = new Date(Date.now() - s.hours * 3_600_000);
    // BENCH_SYNC_WEBHOOKS=0: no webhook (the cloud's change-log consumer still reads every change).
    if (process.env.BENCH_SYNC_WEBHOOKS !== '0') hooks = await startWebhooks(server, start);
    await prepareLoyalty(rt, clock, info, engine, start);
    const stockAt = await prepareStock(rt, clock, info, engine, start);
    const stockSince = await rt.changes.lastSeq(info.tenantId);
    const crew = await prepareInsights(rt, clock, info, engine, start);
    // Offline from here: nothing calls the cloud until the catch-up.
    await sql`pragma synchronous = OFF`.execute(rt.handle.db);
    t = performance.now();
    const web = webOrders(server, s.webOrders, start, (s.hours * 60) / Math.max(1, s.webOrders));
    const guests = generatePayments(server, info, s);
    const gen = await generateOutage(rt, clock, info, s, start);
    const haccp = await generateHaccp(rt, clock, info, s, start);
    gen.ops += haccp.ops;
    const floor = await generateFloor(rt, clock, info, s, start);
    gen.ops += floor.ops;
    const loyalty = await generateLoyalty(rt, clock, info, s, start);
    gen.ops += loyalty.ops;
    const stock = await generateStock(rt, clock, info, s, start, stockAt, stockSince);
    gen.ops += stock.ops;
    const insights = await generateInsights(rt, clock, info, s, start, crew, stockAt);
    gen.ops += insights.ops;
    const generateMs = performance.now() - t;
    const webMs = await web;
    const payments = await guests;
    clock.set(new Date());
    await sql`pragma synchronous = FULL`.execute(rt.handle.db);
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(rt.handle.db);
    await assertDurability(rt);
    const pending = await engine.pendingCount();
    log(`  generated ${gen.orders} orders, ${gen.items} items, HACCP ${haccp.logs} readings, ${haccp.incidents} incidents, ${haccp.actions} actions, ${haccp.runs} checklist runs, ${floor.visits} table visits (${floor.orders} orders on bills, ${floor.bookings} bookings, ${floor.full} refused as full), ${loyalty.visits} loyalty visits (${loyalty.redemptions} redemptions from the lease, ${loyalty.refused} refused), ${stock.movements} stock movements by staff (${stock.refused} refused below zero) and ${stock.consumed} orders' recipe consumption; ${gen.ops} ops (${pending} pending) in ${(generateMs / 1000).toFixed(1)} s; ${s.webOrders} web orders in the cloud in ${(webMs / 1000).toFixed(1)} s`);
    log(`  payments: ${payments.orders} public orders in the cloud (${payments.paid} paid, ${payments.failed} failed at the checkout, ${payments.refunds} refunded in part)`);
    log(`  insights: ${insights.shifts} shifts clocked in (${insights.open} still open at the reconnect, ${insights.corrections} corrected), ${insights.waste} waste entries with their stock removals, ${insights.refused} refused; ${insights.ops} ops`);

    // Compiled mode: the generating runtime closes and the appliance starts in its own process on the same file.
    let sampler: ReturnType<typeof phaseSampler> | null = null;
    if (MODE === 'compiled') {
      await rt.close();
      appliance = await startAppliance(dataDir, server, info.syncKey);
      sampler = phaseSampler({ appliance: appliance.child.pid!, cloud: server.child.pid! }, SAMPLE_MS);
    }

    // A long generation (the 7-day one on a loaded machine) can outlive the start's staff session, which ends after
    // 15 idle minutes: the web shop and the checks after the catch-up use a fresh session of the restaurant's admin.
    const cookie = await cloudAdminCookie(server.url);
    // The web shop's latency while nothing else happens, as the baseline for the same during the catch-up.
    let shop = webShop(server, cookie, info.products);
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = await shop.stop();

    // What production's autovacuum would have done before the appliance reconnects (it analyzes a table once
    // 50 rows + a tenth of it changed): the cloud's tables get their planner statistics, after the web orders
    // and the set-up wrote theirs (BENCH_SYNC_ANALYZE=0: not, nor before the joins; autovacuum is off on the
    // benches' PostgreSQL). Without them every table the push fills planned as if empty (bench/README.md
    // "Sync push, session 14"). Not timed.
    if (process.env.BENCH_SYNC_ANALYZE !== '0') log(`  the cloud's ${await analyzeCloud(info.pgUrl)}`);
    // A kept cloud also names the last transaction before the push: bench/sync-floor.ts copies the rows written after it.
    if (keepFile) fs.writeFileSync(keepFile, JSON.stringify({ ...JSON.parse(fs.readFileSync(keepFile, 'utf8')), pushXid: await currentXid(info.pgUrl) }, null, 2));

    // Reconnect: push until acknowledged, pull until has_more=false; customers keep ordering.
    transport.reset();
    server.child.send({ type: 'sql-profile', action: 'reset', label: 'push' }); // BENCH_SQL_PROFILE=1: profile the catch-up only (compiled mode: the push and the pull apart)
    const timed = appliance ? await catchupInChild(appliance, server, sampler!, cookie, info, hooks) : await catchupInProcess(rt, engine, transport, server, cookie, info, log);
    if (hooks) {
      hooks.watch ??= new QueueWatch(info, server.child.pid!);
      hooks.watch.catchupEndAt = performance.now();
    }
    let memory: CatchupResult['memory'] = null;
    if (appliance) {
      // Not timed: the web orders that came in after the last page; then the appliance stops and this process opens its file to compare.
      const { pending } = await ask<{ pending: number }>(appliance, { type: 'drain' }, 'drain-done');
      if (pending !== 0) throw new Error('bench: ops still pending after the catch-up');
      const mem = sampler!.stop();
      await appliance.stop();
      appliance = null;
      rt = await createRuntime(config, { clock });
      memory = { appliance: mem.appliance!, cloud: mem.cloud!, joinSnapshot: { phases: [], peak: 0, hwm: 0 }, joinReplay: { phases: [], peak: 0, hwm: 0 } };
      log(`  memory (compiled, own processes, VmRSS first → peak per phase): appliance ${phaseFigures(mem.appliance!.phases)}, VmHWM ${mib(mem.appliance!.hwm)}; cloud ${phaseFigures(mem.cloud!.phases)}, VmHWM ${mib(mem.cloud!.hwm)}`);
    } else {
      // Not timed: the web orders that came in after the last page.
      for (let more = true; more; ) more = (await engine.pullOnce()).more;
      if ((await engine.pendingCount()) !== 0) throw new Error('bench: ops still pending after the catch-up');
    }
    const verify = await compareOrders(rt, info);
    verify.problems.push(...(await compareHaccp(rt, server.url, cookie, info, haccp)));
    verify.problems.push(...(await compareFloor(rt, info)));
    verify.problems.push(...(await compareLoyalty(rt, info)));
    verify.problems.push(...(await compareStock(rt, info)));
    verify.problems.push(...(await compareInsights(rt, info, server.url)));
    verify.problems.push(...(await comparePayments(rt, info)));
    const webhooks = hooks ? await drainWebhooks(info, hooks, start) : { result: { deliveries: 0, orderCreated: 0, drainMs: 0, duplicates: 0, retried: 0 }, problems: [] };
    verify.problems.push(...webhooks.problems);
    if (hooks) log(`  webhooks: ${webhooks.result.deliveries} deliveries sent by the cloud (${webhooks.result.orderCreated} order.created, one per order of the outage), queue empty ${sec(webhooks.result.drainMs)} s after the catch-up, ${webhooks.result.duplicates} sent twice, ${webhooks.result.retried} retried after an unanswered attempt`);
    if (hooks) log(`  webhook_deliveries on disk after the drain (with indexes and TOAST): ${((await tableBytes(info.pgUrl, 'webhook_deliveries')) / 2 ** 20).toFixed(1)} MiB`);
    const join = await newApplianceJoins(server, info, memory);
    return {
      scenario: s,
      generated: { ...gen, generateMs, webMs },
      bootstrapMs,
      ...timed,
      web: { idle, during: timed.during },
      join,
      mode: MODE,
      memory,
      verify,
      haccp,
      floor,
      loyalty,
      stock,
      insights,
      payments,
      webhooks: webhooks.result,
    };
  } finally {
    await hooks?.close();
    await appliance?.stop();
    await rt.close();
    await server.stop();
    cleanup();
  }
}

/** ANALYZE of every table of the cloud's schema; returns what to print. */
/** PostgreSQL's transaction id now (32 bits, as a row's xmin shows it). */
async function currentXid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ x: string }>(`select (txid_current() % 4294967296)::text as x`)).rows[0]!.x);
  } finally {
    await client.end();
  }
}

async function analyzeCloud(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t0 = performance.now();
    const tables = (await client.query<{ t: string }>(`select quote_ident(tablename) as t from pg_tables where schemaname = current_schema()`)).rows.map((r) => r.t);
    await client.query(`analyze ${tables.join(', ')}`);
    return `${tables.length} tables analyzed before the push in ${sec(performance.now() - t0)} s (as autovacuum would have; BENCH_SYNC_ANALYZE=0: not)`;
  } finally {
    await client.end();
  }
}

type Timed = Pick<CatchupResult, 'wallMs' | 'pushMs' | 'pullMs' | 'pushBatches' | 'pushedOps' | 'pullPages' | 'pulledChanges' | 'httpPushMs' | 'httpPullMs' | 'pushBytes' | 'peakRssAppliance' | 'peakRssCloud' | 'startRssAppliance' | 'peakHeapAppliance' | 'applianceSql' | 'pullBytes'> & { during: number[] };

/** The timed catch-up by the appliance child: it pushes and pulls, this process samples both children's memory per phase. */
async function catchupInChild(appliance: BenchServer, server: BenchServer, sampler: ReturnType<typeof phaseSampler>, cookie: string, info: CloudInfo, hooks: WebhookProbe | null): Promise<Timed> {
  const shop = webShop(server, cookie, info.products);
  // The database's own CPU over the push (bench/lib/pg-cpu.ts): the cloud's process CPU leaves it out.
  const pgBefore = await readPgCpu(info.pgUrl);
  const pgPush: { cpuMs: Promise<number> | null } = { cpuMs: null };
  // The cloud's own process CPU over the push (its Node work: parse, checks, apply; PostgreSQL's is above).
  const cloudBefore = cpuMsOf(server.child.pid!);
  let cloudPushMs: number | null = null;
  // Where the machine's cores went over the push: all of it (/proc/stat), the cloud's main thread apart from its other threads.
  const machineBefore = machineCpuMs();
  const threadsBefore = threadCpuMsOf(server.child.pid!);
  // The webhook receiver's own CPU over the push (it shares the machine; a partner's would not).
  const receiverBefore = hooks ? cpuMsOf(hooks.pid) : null;
  let receiverPushMs: number | null = null;
  // How long the cloud's main thread (the push's apply, the web shop's orders) and the appliance's waited for a core over the push (run queue, schedstat).
  const waitBefore = { cloud: runWaitMsOf(server.child.pid!), appliance: runWaitMsOf(appliance.child.pid!) };
  const waitPush: { cloud: number | null; appliance: number | null } = { cloud: null, appliance: null };
  const split: { machine: { busy: number; total: number } | null; threads: Array<{ tid: number; ms: number }> } = { machine: null, threads: [] };
  sampler.phase('push');
  const r = await ask<{ pushMs: number; pullMs: number; pushBatches: number; pushedOps: number; pullPages: number; pulledChanges: number; httpPushMs: number; httpPullMs: number; pushBytes: number; pullBytes: { total: number; max: number }; applianceSql: CatchupResult['applianceSql']; end: NodeJS.MemoryUsage; peaks: PeaksByPhase; cpuMs: { push: number; pull: number } }>(appliance, { type: 'catchup' }, 'catchup-done', (m) => {
    if (m.type !== 'phase') return;
    sampler.phase(String(m.phase));
    // BENCH_SQL_PROFILE / BENCH_CPU_PROF_CATCHUP: the cloud's profiles of the push and of the pull apart.
    if (m.phase === 'pull') {
      const cloudAfter = cpuMsOf(server.child.pid!);
      if (cloudBefore !== null && cloudAfter !== null) cloudPushMs = cloudAfter - cloudBefore;
      // From here the cloud's webhook queue is watched until it is empty (the deliveries may trail the push).
      if (hooks) hooks.watch = new QueueWatch(info, server.child.pid!, threadsBefore);
      const receiverAfter = hooks ? cpuMsOf(hooks.pid) : null;
      const [cloudWait, applianceWait] = [runWaitMsOf(server.child.pid!), runWaitMsOf(appliance.child.pid!)];
      if (waitBefore.cloud !== null && cloudWait !== null) waitPush.cloud = cloudWait - waitBefore.cloud;
      if (waitBefore.appliance !== null && applianceWait !== null) waitPush.appliance = applianceWait - waitBefore.appliance;
      if (receiverBefore != null && receiverAfter !== null) receiverPushMs = receiverAfter - receiverBefore;
      const machineAfter = machineCpuMs();
      if (machineBefore && machineAfter) split.machine = { busy: machineAfter.busy - machineBefore.busy, total: machineAfter.total - machineBefore.total };
      // Per thread of the cloud over the push (a thread that started meanwhile counts from its start), busiest first.
      split.threads = [...threadCpuMsOf(server.child.pid!)].map(([tid, ms]) => ({ tid, ms: ms - (threadsBefore.get(tid) ?? 0) })).sort((a, b) => b.ms - a.ms);
      pgPush.cpuMs = readPgCpu(info.pgUrl).then((after) => pgCpuBetween(pgBefore, after));
      server.child.send({ type: 'sql-profile', action: 'print', label: 'push' });
      server.child.send({ type: 'sql-profile', action: 'reset', label: 'pull' });
    }
  });
  sampler.phase('after');
  if (pgPush.cpuMs) console.log(`  PostgreSQL backends' CPU over the push (the cloud's database, /proc): ${((await pgPush.cpuMs) / 1000).toFixed(2)} s`);
  if (cloudPushMs !== null) console.log(`  the cloud process's own CPU over the push (/proc): ${(cloudPushMs / 1000).toFixed(2)} s, ${((cloudPushMs * 1000) / Math.max(1, r.pushedOps)).toFixed(0)} µs per pushed op`);
  const { machine: machinePush, threads } = split;
  const cloudMainPushMs = threads.find((t) => t.tid === server.child.pid)?.ms ?? null;
  if (machinePush && cloudPushMs !== null && cloudMainPushMs !== null && pgPush.cpuMs) {
    // The rest: the webhook receiver, the web shop and this bench process, and anything else on the machine.
    const pgMs = await pgPush.cpuMs;
    const rest = machinePush.busy - cloudPushMs - pgMs - r.cpuMs.push - (receiverPushMs ?? 0);
    const nice = threadNiceOf(server.child.pid!);
    console.log(
      `  the machine's cores over the push (/proc/stat): ${sec(machinePush.busy)} of ${sec(machinePush.total)} core-seconds busy (${((100 * machinePush.busy) / Math.max(1, machinePush.total)).toFixed(0)} %): ` +
        `the cloud's main thread ${sec(cloudMainPushMs)} s and its other threads ${sec(cloudPushMs - cloudMainPushMs)} s (busiest: ${threads
          .filter((t) => t.tid !== server.child.pid && t.ms > 0)
          .slice(0, 4)
          .map((t) => `${sec(t.ms)}${nice.get(t.tid) ? ` (nice ${nice.get(t.tid)})` : ''}`)
          .join(', ')} s; the webhook sender's worker thread, V8's GC and compiler threads, libuv's pool, the scrypt thread), ` +
        `PostgreSQL ${sec(pgMs)} s, the appliance ${sec(r.cpuMs.push)} s, ` +
        (receiverPushMs !== null ? `the webhook receiver ${sec(receiverPushMs)} s${Number(process.env.BENCH_RECEIVER_NICE ?? 0) > 0 ? ` (nice ${process.env.BENCH_RECEIVER_NICE})` : ''}, ` : '') +
        `the rest ${sec(Math.max(0, rest))} s (the web shop, this bench, anything else on the machine)`,
    );
  }
  if (waitPush.cloud !== null && waitPush.appliance !== null) console.log(`  waiting for a core over the push (run queue, /proc/<pid>/task/<tid>/schedstat): the cloud's main thread ${sec(waitPush.cloud)} s, the appliance's main thread ${sec(waitPush.appliance)} s`);
  console.log(`  appliance child's own memory at its peaks (MiB; V8 heap committed/used, of it new space; external, of it array buffers): ${peaksLine(r.peaks)}; its CPU push ${sec(r.cpuMs.push)} s, pull ${sec(r.cpuMs.pull)} s`);
  server.child.send({ type: 'sql-profile', action: 'print', label: 'pull' });
  const during = await shop.stop();
  // The sampler goes on (idle → push → pull → after) until the drain; the push's and pull's peaks are the catch-up's.
  const { appliance: a, cloud: c } = sampler.snapshot();
  const at = (p: ProcMemory | undefined, phase: string) => p?.phases.find((x) => x.phase === phase);
  const peakOf = (p: ProcMemory | undefined) => Math.max(at(p, 'push')?.peak ?? 0, at(p, 'pull')?.peak ?? 0);
  return {
    wallMs: r.pushMs + r.pullMs,
    pushMs: r.pushMs,
    pullMs: r.pullMs,
    pushBatches: r.pushBatches,
    pushedOps: r.pushedOps,
    pullPages: r.pullPages,
    pulledChanges: r.pulledChanges,
    httpPushMs: r.httpPushMs,
    httpPullMs: r.httpPullMs,
    pushBytes: r.pushBytes,
    peakRssAppliance: peakOf(a),
    peakRssCloud: peakOf(c),
    startRssAppliance: at(a, 'push')?.first ?? 0,
    peakHeapAppliance: 0,
    applianceSql: r.applianceSql,
    pullBytes: r.pullBytes,
    during,
  };
}

/** The timed catch-up in this process (BENCH_SYNC_MODE=inprocess: the former set-up). */
async function catchupInProcess(rt: Runtime, engine: SyncEngine, transport: TimedTransport, server: BenchServer, cookie: string, info: CloudInfo, log: (m: string) => void): Promise<Timed> {
  // What the appliance holds at the reconnect: the outage's generation (same process) left garbage; a full GC first.
  const retainedBefore = fullGc();
  const shop = webShop(server, cookie, info.products);
  const rss = rssSampler([server.child.pid!]);
  const counter = sqliteCounter();
  counter.reset();
  const t0 = performance.now();
  const { pushBatches, pushedOps } = await pushAll(engine);
  const t1 = performance.now();
  const pushSql = counter.get();
  const afterPush = process.memoryUsage();
  counter.reset();
  pullProfile.clear();
  const { pullPages, pulledChanges } = await pullAll(engine);
  const t2 = performance.now();
  const pullSql = counter.get();
  server.child.send({ type: 'sql-profile', action: 'print' });
  if (process.env.BENCH_SQL_PROFILE) {
    printPullProfile(pullProfile);
  }
  const during = await shop.stop();
  const peak = rss.stop();
  const retainedAfter = fullGc();
  log(`  appliance memory (in process, tsx): heap after a full GC ${mib(retainedBefore.heapUsed)} (RSS ${mib(retainedBefore.rss)}) at the reconnect, ${mib(retainedAfter.heapUsed)} (RSS ${mib(retainedAfter.rss)}) after the catch-up; heap ${mib(afterPush.heapUsed)} (RSS ${mib(afterPush.rss)}) after the push; peak heap ${mib(peak.heap)}, peak RSS ${mib(peak.self)}`);
  const push = transport.get('/api/v1/sync/push');
  const pull = transport.get('/api/v1/sync/pull');
  return {
    wallMs: t2 - t0,
    pushMs: t1 - t0,
    pullMs: t2 - t1,
    pushBatches,
    pushedOps,
    pullPages,
    pulledChanges,
    httpPushMs: push.ms,
    httpPullMs: pull.ms,
    pushBytes: push.bytesOut,
    peakRssAppliance: peak.self,
    peakRssCloud: peak.others[0]!,
    startRssAppliance: peak.start,
    peakHeapAppliance: peak.heap,
    applianceSql: { push: pushSql, pull: pullSql },
    pullBytes: { total: pull.bytesIn, max: pull.maxIn },
    during,
  };
}

/**
 * After the catch-up the cloud holds the whole history: a replacement PC (empty database, new
 * device) bootstraps from it, once by snapshot (the default) and once by replaying the log; both
 * must end with the cloud's orders.
 */
async function newApplianceJoins(server: Awaited<ReturnType<typeof startCloud>>['server'], info: CloudInfo, memory: CatchupResult['memory']): Promise<CatchupResult['join']> {
  const cookie = await cloudAdminCookie(server.url);
  const out: CatchupResult['join'] = {
    snapshotMs: 0,
    snapshotRows: 0,
    replayMs: 0,
    replayChanges: 0,
    problems: [],
    snapshot: { statements: 0, transactions: 0, snapshotPages: 0, pullPages: 0, bytes: 0, maxPage: 0, peakRss: 0, peakHeap: 0, startRss: 0 },
  };
  // The cloud's tables get their planner statistics first (BENCH_SYNC_ANALYZE=0: not). The benches'
  // PostgreSQL runs with autovacuum off, so after the outage's tens of thousands of rows no table had
  // any: the snapshot's reads planned for ~80 rows, e.g. the stock ledger in booking order as a scan
  // and sort of all the rest of the ledger for every page (bench/README.md "Sync join, session 13").
  // In production autovacuum analyzes a table once a tenth of it changed.
  if (process.env.BENCH_SYNC_ANALYZE !== '0') {
    const client = new pg.Client({ connectionString: info.pgUrl });
    await client.connect();
    try {
      const t0 = performance.now();
      const tables = (await client.query<{ t: string }>(`select quote_ident(tablename) as t from pg_tables where schemaname = current_schema()`)).rows.map((r) => r.t);
      await client.query(`analyze ${tables.join(', ')}`);
      console.log(`  the cloud's ${tables.length} tables analyzed before the joins in ${sec(performance.now() - t0)} s (autovacuum is off on this PostgreSQL)`);
    } finally {
      await client.end();
    }
  }
  const counter = sqliteCounter();
  // BENCH_SYNC_JOINS=snapshot (or replay): only that new appliance (default both).
  const joins = (process.env.BENCH_SYNC_JOINS ?? 'snapshot,replay').split(',').map((x) => x.trim());
  for (const bootstrap of (['snapshot', 'replay'] as const).filter((b) => joins.includes(b))) {
    const res = await fetch(`${server.url}/api/v1/sync/devices`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Nieuwe kassa (${bootstrap})` }) });
    const { sync_key } = (await res.json()) as { sync_key: string };
    const { config, dataDir, cleanup } = benchConfig(`join-${bootstrap}`);
    let rt: Runtime | null = null;
    try {
      if (memory) {
        // Compiled mode: the new appliance joins in its own process (BENCH_CPU_PROF_JOIN: node's --cpu-prof of that process), then this process opens its file to compare.
        const child = await startAppliance(dataDir, server, sync_key, { BENCH_BOOTSTRAP: bootstrap }, bootstrap === 'snapshot' ? process.env.BENCH_CPU_PROF_JOIN : undefined);
        const sampler = phaseSampler({ appliance: child.child.pid! }, SAMPLE_MS);
        try {
          await new Promise((r) => setTimeout(r, 500));
          sampler.phase('join');
          // The cloud's side of the join (BENCH_SQL_PROFILE, BENCH_CPU_PROF_CATCHUP): its snapshot reads and serialization.
          server.child.send({ type: 'sql-profile', action: 'reset', label: `join-${bootstrap}` });
          const r = await ask<{ ms: number; pulled: number; sql: { statements: number; transactions: number }; snapshotPages: number; pullPages: number; bytes: number; maxPage: number; end: NodeJS.MemoryUsage; peaks: PeaksByPhase; cpuMs: number }>(child, { type: 'join' }, 'join-done');
          server.child.send({ type: 'sql-profile', action: 'print', label: `join-${bootstrap}` });
          console.log(`  ${bootstrap} join, the appliance child's own memory at its peaks: ${peaksLine(r.peaks)}; its CPU ${sec(r.cpuMs)} s`);
          sampler.phase('after');
          const mem = sampler.stop().appliance!;
          memory[bootstrap === 'snapshot' ? 'joinSnapshot' : 'joinReplay'] = mem;
          const joinPhase = mem.phases.find((p) => p.phase === 'join');
          if (bootstrap === 'snapshot') {
            Object.assign(out, { snapshotMs: r.ms, snapshotRows: r.pulled });
            out.snapshot = { ...r.sql, snapshotPages: r.snapshotPages, pullPages: r.pullPages, bytes: r.bytes, maxPage: r.maxPage, peakRss: joinPhase?.peak ?? 0, peakHeap: r.end.heapUsed, startRss: joinPhase?.first ?? 0 };
          } else Object.assign(out, { replayMs: r.ms, replayChanges: r.pulled });
        } finally {
          sampler.stop();
          await child.stop();
        }
        rt = await createRuntime(config);
      } else {
        rt = await createRuntime(config);
        const transport = new TimedTransport(httpTransport(server.url, sync_key, { timeoutMs: 120_000 }));
        const engine = new SyncEngine({ db: rt.handle.db, changes: rt.changes, clock: rt.clock, transport, bootstrap, registry: syncRegistry });
        // BENCH_CPU_PROF_JOIN=dir: a CPU profile of this process (the new appliance) over the snapshot join.
        const profiler = bootstrap === 'snapshot' && process.env.BENCH_CPU_PROF_JOIN ? await startCpuProfile() : null;
        const rss = rssSampler([]);
        counter.reset();
        const t0 = performance.now();
        const { pulled } = await engine.syncOnce();
        const ms = performance.now() - t0;
        const sqlCount = counter.get();
        const peak = rss.stop();
        if (profiler) console.error(`bench: CPU profile of the snapshot join in ${await profiler.stop(process.env.BENCH_CPU_PROF_JOIN!, 'join-snapshot')}`);
        if (bootstrap === 'snapshot') {
          Object.assign(out, { snapshotMs: ms, snapshotRows: pulled });
          const snap = transport.get('/api/v1/sync/snapshot');
          const pull = transport.get('/api/v1/sync/pull');
          out.snapshot = { ...sqlCount, snapshotPages: snap.calls, pullPages: pull.calls, bytes: snap.bytesIn, maxPage: snap.maxIn, peakRss: peak.self, peakHeap: peak.heap, startRss: peak.start };
        } else Object.assign(out, { replayMs: ms, replayChanges: pulled });
      }
      out.problems.push(...(await compareOrders(rt, info)).problems.map((p) => `${bootstrap}: ${p}`));
      const haccp = await rt.services.haccp.verify(info.tenantId);
      if (!haccp.verified || haccp.chains.length === 0) out.problems.push(`${bootstrap}: the HACCP chains do not verify on the new appliance`);
      out.problems.push(...(await compareFloor(rt, info)).map((p) => `${bootstrap}: ${p}`));
      out.problems.push(...(await compareLoyalty(rt, info)).map((p) => `${bootstrap}: ${p}`));
      out.problems.push(...(await compareStock(rt, info)).map((p) => `${bootstrap}: ${p}`));
      out.problems.push(...(await compareInsights(rt, info)).map((p) => `${bootstrap}: ${p}`));
      out.problems.push(...(await comparePayments(rt, info)).map((p) => `${bootstrap}: ${p}`));
    } finally {
      await rt?.close();
      cleanup();
    }
  }
  return out;
}

/** A full garbage collection of this process (V8's gc, exposed at run time), then its memory: what it retains. */
function fullGc(): NodeJS.MemoryUsage {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage();
}

const sec = (ms: number) => (ms / 1000).toFixed(2);

function webFigures(w: CatchupResult['web']): string {
  const pp = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${percentile(s, 50).toFixed(0)}/${percentile(s, 99).toFixed(0)}`;
  };
  return `${pp(w.idle)} → ${pp(w.during)} (${w.during.length})`;
}

export function catchupReport(results: CatchupResult[]): string {
  const rows: Array<Array<string | number>> = [
    ['scenario', 'orders/items/ops', 'catch-up s', 'target', 'push s (batches)', 'pull s (pages)', 'ops/s', 'cloud wait push/pull s', 'appliance local s', 'web order p50/p99 ms idle → during', 'new appliance: snapshot / replay s', 'RSS appl/cloud', 'converged'],
  ];
  for (const r of results) {
    const ops = r.pushedOps + r.pulledChanges;
    const local = r.wallMs - r.httpPushMs - r.httpPullMs;
    rows.push([
      r.scenario.name,
      `${r.generated.orders}/${r.generated.items}/${r.generated.ops}`,
      sec(r.wallMs),
      `${r.wallMs <= r.scenario.targetMs ? 'met' : 'MISSED'} (< ${r.scenario.targetMs / 1000})`,
      `${sec(r.pushMs)} (${r.pushBatches})`,
      `${sec(r.pullMs)} (${r.pullPages})`,
      Math.round(ops / (r.wallMs / 1000)),
      `${sec(r.httpPushMs)}/${sec(r.httpPullMs)}`,
      sec(local),
      webFigures(r.web),
      `${sec(r.join.snapshotMs)} / ${sec(r.join.replayMs)} (${(r.join.replayMs / r.join.snapshotMs).toFixed(1)}×)`,
      `${mib(r.peakRssAppliance)}/${mib(r.peakRssCloud)}`,
      r.verify.problems.length + r.join.problems.length === 0 ? `yes (${r.verify.orders} orders)` : [...r.verify.problems, ...r.join.problems].join('; '),
    ]);
  }
  return table(rows);
}

/**
 * BENCH_SYNC_JOIN_ONLY=<file> (written by a run with BENCH_SYNC_KEEP_CLOUD=<file>): no outage and no
 * catch-up; the cloud starts on the kept schema (its whole history as that run left it) and only the
 * new appliances join (BENCH_SYNC_JOINS, default both), each checked against the cloud as in a full
 * run. Repeated BENCH_SYNC_REPEAT times on the same history: before/after pairs of the join alone.
 * Drop the schema afterwards by hand (`drop schema <schema> cascade`).
 */
async function runJoinOnly(file: string): Promise<boolean> {
  const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { scenario: string; schema: string; info: CloudInfo };
  if (MODE !== 'compiled') throw new Error('bench: BENCH_SYNC_JOIN_ONLY needs the compiled mode');
  await buildCompiledChildren();
  process.env.BENCH_CLOUD_SCHEMA = kept.schema;
  const repeat = Math.max(1, Math.min(10, Number(process.env.BENCH_SYNC_REPEAT ?? 1)));
  const { server, info } = await startCloud({ compiled: true });
  let ok = true;
  try {
    console.log(`sync join only: ${machine()}; the ${kept.scenario} run's history in schema ${kept.schema}`);
    for (let k = 0; k < repeat; k++) {
      const memory: NonNullable<CatchupResult['memory']> = { appliance: { phases: [], peak: 0, hwm: 0 }, cloud: { phases: [], peak: 0, hwm: 0 }, joinSnapshot: { phases: [], peak: 0, hwm: 0 }, joinReplay: { phases: [], peak: 0, hwm: 0 } };
      const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
      const j = await newApplianceJoins(server, { ...kept.info, ...info, schema: kept.schema }, memory);
      console.log(
        `- join ${k + 1}/${repeat} (load at its start ${load}): snapshot ${sec(j.snapshotMs)} s (${j.snapshotRows} rows; ${j.snapshot.snapshotPages} snapshot pages + ${j.snapshot.pullPages} pull pages, ${j.snapshot.statements} statements in ${j.snapshot.transactions} transactions${j.snapshot.bytes ? `, ${mib(j.snapshot.bytes)} (largest page ${(j.snapshot.maxPage / 1024).toFixed(0)} KiB)` : ''}; VmRSS ${phaseFigures(memory.joinSnapshot.phases)}, VmHWM ${mib(memory.joinSnapshot.hwm)})${j.replayMs ? `, replay ${sec(j.replayMs)} s (${j.replayChanges} changes)` : ''}; ${j.problems.length ? 'NOT CONVERGED: ' + j.problems.join('; ') : 'converged'}`,
      );
      if (j.problems.length) ok = false;
    }
  } finally {
    await server.stop();
  }
  return ok;
}

export async function runSyncCatchupBench(): Promise<CatchupResult[]> {
  const names = (process.env.BENCH_SYNC_SCENARIOS ?? '8h,7d').split(',').map((x) => x.trim()).filter(Boolean);
  const repeat = Math.max(1, Math.min(10, Number(process.env.BENCH_SYNC_REPEAT ?? 1)));
  const results: CatchupResult[] = [];
  console.log(`sync catch-up: ${machine()}`);
  for (let k = 0; k < repeat; k++) {
    for (const name of names) {
      const s = SCENARIOS[name];
      if (!s) throw new Error(`bench: unknown scenario ${name} (8h, 7d)`);
      console.log(`- ${s.name}, run ${k + 1}/${repeat}`);
      const r = await runCatchup(s);
      console.log(
        `  catch-up ${sec(r.wallMs)} s (push ${sec(r.pushMs)} s in ${r.pushBatches} batches of ${r.pushedOps} ops, pull ${sec(r.pullMs)} s in ${r.pullPages} pages of ${r.pulledChanges} changes; waiting on the cloud ${sec(r.httpPushMs)} + ${sec(r.httpPullMs)} s); web orders p50/p99 ms idle → during: ${webFigures(r.web)}; a new appliance joins by snapshot in ${sec(r.join.snapshotMs)} s (${r.join.snapshotRows} rows) vs by replay in ${sec(r.join.replayMs)} s (${r.join.replayChanges} changes)${r.join.problems.length ? ' NOT CONVERGED: ' + r.join.problems.join('; ') : ''}; bootstrap ${sec(r.bootstrapMs)} s; peak RSS (${r.mode === 'compiled' ? 'compiled, each in its own process' : 'in process under tsx; cloud a tsx child'}) appliance ${mib(r.peakRssAppliance)} (${mib(r.startRssAppliance)} at the start of the catch-up${r.peakHeapAppliance ? `, peak heap ${mib(r.peakHeapAppliance)}` : ''}), cloud ${mib(r.peakRssCloud)}; appliance SQLite statements/transactions push ${r.applianceSql.push.statements}/${r.applianceSql.push.transactions}, pull ${r.applianceSql.pull.statements}/${r.applianceSql.pull.transactions}${r.pullBytes.total ? `; pull bytes ${mib(r.pullBytes.total)} (largest page ${(r.pullBytes.max / 1024).toFixed(0)} KiB)` : ''}; snapshot join: ${r.join.snapshot.snapshotPages} snapshot pages + ${r.join.snapshot.pullPages} pull pages, ${r.join.snapshot.statements} statements in ${r.join.snapshot.transactions} transactions${r.join.snapshot.bytes ? `, ${mib(r.join.snapshot.bytes)} (largest page ${(r.join.snapshot.maxPage / 1024).toFixed(0)} KiB)` : ''}, peak RSS ${mib(r.join.snapshot.peakRss)} (from ${mib(r.join.snapshot.startRss)}), ${r.mode === 'compiled' ? 'heap at the end' : 'peak heap'} ${mib(r.join.snapshot.peakHeap)}${r.memory ? ` (VmRSS per phase: snapshot join ${phaseFigures(r.memory.joinSnapshot.phases)}, VmHWM ${mib(r.memory.joinSnapshot.hwm)}; replay join ${phaseFigures(r.memory.joinReplay.phases)}, VmHWM ${mib(r.memory.joinReplay.hwm)})` : ''}; ${r.verify.problems.length ? 'NOT CONVERGED: ' + r.verify.problems.join('; ') : `converged: ${r.verify.orders} orders, ${r.verify.items} items, ${r.verify.history} history rows ${JSON.stringify(r.verify.statuses)}; HACCP chains verify on both sides (${r.haccp.chains})`}`,
      );
      results.push(r);
    }
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const timer = setTimeout(() => {
    console.error('bench: time box of 50 minutes exceeded, stopping');
    process.exit(3);
  }, 50 * 60_000);
  timer.unref();
  if (process.env.BENCH_SYNC_JOIN_ONLY) process.exit((await runJoinOnly(process.env.BENCH_SYNC_JOIN_ONLY)) ? 0 : 1);
  const results = await runSyncCatchupBench();
  console.log('');
  console.log(catchupReport(results));
  const failed = results.some((r) => r.verify.problems.length + r.join.problems.length > 0);
  process.exit(failed ? 1 : 0);
}
