// (b) The ceiling of the storage: its own copy of the same seeded SQLite file as the appliance (schema
// by the real migrations, rows by the real services: see seed.ts), served by bare Fastify + better-sqlite3
// prepared statements, WAL + synchronous=FULL via the app's own openSqlite. No session check, no
// schema validation, no Kysely, no change-log fan-out: only the rows the appliance writes and reads.
import Fastify from 'fastify';
import { openSqlite } from '../../server/db/connection.js';
import type { OrderItemRow, OrderRow } from '../../server/modules/orders/orders.repository.js';
import { toOrderDto } from '../../server/modules/orders/orders.service.js';
import { newId } from '../../server/shared/ids.js';
import { serveUntilStopped } from '../lib/child.js';
import { fromTemplateEnv, SEED } from '../lib/seed.js';
import { benchConfig } from '../lib/tmp.js';

const template = fromTemplateEnv();
const s = template.seeded;
const { config, cleanup } = benchConfig('raw', template.dir);
const conn = openSqlite(config.sqliteFile);
const origin = (conn.prepare("select value from meta where key = 'device_id'").pluck().get() as string | undefined) ?? 'appliance';
const pragmas = { journal_mode: conn.pragma('journal_mode', { simple: true }), synchronous: conn.pragma('synchronous', { simple: true }) };
if (pragmas.journal_mode !== 'wal' || pragmas.synchronous !== 2) throw new Error(`raw: durability ${JSON.stringify(pragmas)}`);
const tenantId = s.tenantId;

const q = {
  product: conn.prepare<[string, string], { id: string; name: string; price_cents: number; available: number; archived_at: string | null }>(
    'select id, name, price_cents, available, archived_at from products where tenant_id = ? and id = ?',
  ),
  counter: conn.prepare<[string, string, string], { last: number }>(
    'insert into order_counters (tenant_id, prefix, business_day, last) values (?, ?, ?, 1) on conflict (tenant_id, prefix, business_day) do update set last = order_counters.last + 1 returning last',
  ),
  seq: conn.prepare<[string], { last_seq: number }>(
    'insert into change_seq (tenant_id, last_seq) values (?, 1) on conflict (tenant_id) do update set last_seq = change_seq.last_seq + 1 returning last_seq',
  ),
  order: conn.prepare(
    `insert into orders (id, tenant_id, number, business_day, origin, status, source, table_id, customer_name, customer_phone, notes, total_cents,
       payment_status, idempotency_key, request_hash, created_by, created_at, updated_at)
     values (@id, @tenant_id, @number, @business_day, @origin, @status, @source, @table_id, @customer_name, @customer_phone, @notes, @total_cents,
       @payment_status, @idempotency_key, @request_hash, @created_by, @created_at, @updated_at)`,
  ),
  item: conn.prepare(
    `insert into order_items (id, tenant_id, order_id, position, product_id, name, quantity, unit_price_cents, total_cents, notes)
     values (@id, @tenant_id, @order_id, @position, @product_id, @name, @quantity, @unit_price_cents, @total_cents, @notes)`,
  ),
  history: conn.prepare(
    `insert into order_status_history (id, tenant_id, order_id, from_status, to_status, user_id, source, created_at)
     values (?, ?, ?, null, 'new', ?, 'pos', ?)`,
  ),
  change: conn.prepare(
    `insert into change_log (op_id, tenant_id, seq, origin, entity, entity_id, kind, payload, created_at)
     values (?, ?, ?, ?, 'order', ?, 'order.created', ?, ?)`,
  ),
  live: conn.prepare<[string], OrderRow>(
    `select * from orders where tenant_id = ? and status in ('new', 'accepted', 'preparing', 'ready', 'delivering')
     order by created_at asc, id asc limit 1000`,
  ),
};
// `order_id in (?, ?, ...)` statements, one per list length, as a hand-written server would cache them.
const itemsOf = new Map<number, ReturnType<typeof conn.prepare<string[], OrderItemRow>>>();
function itemsFor(ids: string[]): OrderItemRow[] {
  if (ids.length === 0) return [];
  let st = itemsOf.get(ids.length);
  if (!st) {
    st = conn.prepare<string[], OrderItemRow>(`select * from order_items where order_id in (${ids.map(() => '?').join(',')}) order by order_id, position`);
    itemsOf.set(ids.length, st);
  }
  return st.all(...ids);
}

type Body = { items: Array<{ product_id: string; quantity: number }> };
const createOrder = conn.transaction((body: Body, userId: string) => {
  const nowDate = new Date();
  const now = nowDate.toISOString();
  const day = now.slice(0, 10); // the raw server skips the tenant's time zone
  const id = newId();
  const items: OrderItemRow[] = body.items.map((it, position) => {
    const p = q.product.get(tenantId, it.product_id);
    if (!p || p.archived_at || p.available !== 1) throw new Error('unknown product');
    return {
      id: newId(),
      tenant_id: tenantId,
      order_id: id,
      position,
      product_id: p.id,
      name: p.name,
      quantity: it.quantity,
      unit_price_cents: p.price_cents,
      total_cents: p.price_cents * it.quantity,
      notes: null,
      modifiers: '[]',
      allergens: '[]',
      seat: null,
      course: 1,
      voided_quantity: 0,
      fired_at: now,
      vat_rate: 9,
    };
  });
  const n = q.counter.get(tenantId, 'K', day)!.last;
  const row: OrderRow = {
    id,
    tenant_id: tenantId,
    number: `K-${String(n).padStart(3, '0')}`,
    business_day: day,
    origin,
    status: 'new',
    source: 'pos',
    table_id: null,
    customer_name: null,
    customer_phone: null,
    notes: null,
    total_cents: items.reduce((sum, i) => sum + i.total_cents, 0),
    payment_status: 'open',
    idempotency_key: null,
    request_hash: null,
    created_by: userId,
    created_at: now,
    updated_at: now,
    discount_cents: 0,
    customer_id: null,
  };
  q.order.run(row);
  for (const i of items) q.item.run(i);
  const historyId = newId();
  q.history.run(historyId, tenantId, id, userId, now);
  const order = toOrderDto(row, items);
  const seq = q.seq.get(tenantId)!.last_seq;
  q.change.run(newId(), tenantId, seq, origin, id, JSON.stringify({ order, history: { id: historyId }, business_day: day, origin }), now);
  return order;
});

const app = Fastify({ logger: false });
app.post('/api/v1/orders', async (request, reply) => reply.code(201).send(createOrder(request.body as Body, s.userId)));
app.get('/api/v1/orders/live', async () => {
  const rows = q.live.all(tenantId);
  const byOrder = new Map<string, OrderItemRow[]>();
  for (const i of itemsFor(rows.map((r) => r.id))) {
    const list = byOrder.get(i.order_id);
    if (list) list.push(i);
    else byOrder.set(i.order_id, [i]);
  }
  return { data: rows.map((r) => toOrderDto(r, byOrder.get(r.id) ?? [])) };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped({ port: addr.port, postBody: s.postBody, info: { file: config.sqliteFile, ...pragmas, ...SEED } }, async () => {
  await app.close();
  conn.close();
  cleanup();
});
