/**
 * What the fuzzer runs against: the real app (createRuntime, in-process, `app.inject`) on a fresh
 * database of the lane (SQLite in memory or a PostgreSQL schema of its own: test/helpers/db.ts), with one
 * restaurant seeded through the API the way an admin sets it up, and a credential of every kind the API
 * knows: an admin session, a staff session, a partner API key (scope admin, which includes write and
 * read) and an appliance's sync key.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { freshDb } from '../../test/helpers/db.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';

export type IdentityName = 'admin' | 'staff' | 'partner' | 'device' | 'none';
export const IDENTITIES: IdentityName[] = ['admin', 'staff', 'partner', 'device', 'none'];

export interface FuzzTarget {
  runtime: Runtime;
  clock: ManualClock;
  role: 'local' | 'cloud';
  /** The request headers that carry each identity (none: no headers). */
  credentials(name: IdentityName): Record<string, string>;
  /** A session of its own for one request that ends it (a fuzzed logout). */
  throwawaySession(name: 'admin' | 'staff'): Promise<Record<string, string>>;
  /** Logs the sessions in again (after a fuzzed logout, say); true when every identity works again. */
  refresh(): Promise<boolean>;
  /** Ids the fuzzer must not put in a path (its own users, key and device: deleting them ends the run). */
  protectedIds: Set<string>;
  /** Values of string fields and path parameters that are not ids (`slug`, `phone`, `tafel` ...). */
  known: Map<string, Set<unknown>>;
  /** Ids seen so far (seeding included), per kind (`product_id`, `table_id` ...; `id` = any). */
  ids: Map<string, Set<string>>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

const cookieOf = (res: LightMyRequestResponse): string => {
  const c = res.cookies.find((x) => x.name === 'ck_token');
  if (!c) throw new Error(`login answered ${res.statusCode} without a session: ${res.body.slice(0, 200)}`);
  return `ck_token=${c.value}`;
};

export const NOW = '2026-11-20T11:00:00.000Z';

export async function createFuzzTarget(opts: { role?: 'local' | 'cloud' } = {}): Promise<FuzzTarget> {
  const role = opts.role ?? 'cloud';
  const testDb = await freshDb();
  const clock = new ManualClock(NOW);
  const env: Record<string, string> = {
    ROLE: role,
    LOG_LEVEL: 'silent',
    DATA_DIR: '/tmp/restaurant-fuzz',
    // The fuzzer is one client sending thousands of mutations: the limit would answer most of them 429.
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    WEBHOOK_SENDER: 'inline',
    // Webhook targets are 127.0.0.1:9 (nothing listens: refused at once), not names that need DNS.
    WEBHOOK_ALLOW_PRIVATE: '1',
    PAYMENT_PROVIDER: 'simulator',
  };
  if (role === 'cloud') env.DATABASE_URL = 'postgres://127.0.0.1:5432/unused'; // the handle below is what is used
  const runtime = await createRuntime(loadConfig(env), { clock, handle: testDb.handle });
  const inject = (o: InjectOptions) => runtime.app.inject(o);

  const slug = `fuzz-${Math.random().toString(36).slice(2, 8)}`;
  const adminEmail = `admin@${slug}.test`;
  const adminPassword = 'geheim-wachtwoord-1';
  const staffPin = '4321';
  const { tenant, admin } = await runtime.services.tenants.create({ slug, name: 'Fuzz-bistro', admin_email: adminEmail, admin_password: adminPassword });
  const staff = await runtime.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: staffPin, hourly_wage_cents: 1450 });

  const creds: Record<IdentityName, Record<string, string>> = { admin: {}, staff: {}, partner: {}, device: {}, none: {} };
  const adminLogin = () => inject({ method: 'POST', url: '/api/v1/auth/admin-login', remoteAddress: '10.99.0.1', payload: { slug, email: adminEmail, password: adminPassword } });
  // The fuzzed PIN logins set off the restaurant-wide brake (one PIN login per 2 s, SECURITY.md):
  // the clock stands still here, so it is moved on by the seconds the answer asks to wait.
  const staffLogin = async () => {
    for (let attempt = 0; ; attempt++) {
      const res = await inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress: '10.99.0.2', payload: { slug, pin: staffPin } });
      if (res.statusCode !== 429 || attempt === 5) return res;
      clock.advance((Number(res.headers['retry-after']) || 2) * 1000 + 1);
    }
  };
  const login = async () => {
    // From an address of its own, so the fuzzed logins' lock-out (5 failures per address) never locks these out.
    creds.admin = { cookie: cookieOf(await adminLogin()) };
    creds.staff = { cookie: cookieOf(await staffLogin()) };
  };
  await login();

  const ids = new Map<string, Set<string>>();
  const known = new Map<string, Set<unknown>>();
  const remember = <T>(map: Map<string, Set<T>>, key: string, v: T) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(v);
  };
  remember(known, 'slug', slug);
  remember(known, 'email', adminEmail);
  remember(known, 'pin', staffPin);
  remember(known, 'password', adminPassword);
  remember(known, 'protocol_version', PROTOCOL_VERSION);
  remember(known, 'schema_version', SCHEMA_VERSION);
  remember(known, 'url', 'http://127.0.0.1:9/webhook');

  const post = async (url: string, payload: object, method: 'POST' | 'PUT' | 'PATCH' = 'POST') => {
    const res = await inject({ method, url: `/api/v1${url}`, headers: creds.admin, payload });
    if (res.statusCode >= 300) throw new Error(`seeding ${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    return res.json();
  };

  // A partner key and (in the cloud) an appliance.
  const key = await post('/api-keys', { name: 'Fuzz-partner', scopes: ['admin'] });
  creds.partner = { authorization: `Bearer ${key.key}` };
  const protectedIds = new Set<string>([admin.id, staff.id, key.id]);
  if (role === 'cloud') {
    const device = await post('/sync/devices', { name: 'Kassa' });
    creds.device = { authorization: `Bearer ${device.sync_key}` };
    protectedIds.add(device.id);
  }

  // A small restaurant: menu, stock, floor, food safety, guests, a few orders.
  const cat = await post('/categories', { name: 'Hoofdgerechten' });
  const friet = await post('/products', { name: 'Friet', price_cents: 395, category_id: cat.id, unit: 'stuk', min_level: 10 });
  const burger = await post('/products', { name: 'Burger', price_cents: 1450, category_id: cat.id });
  const zalm = await post('/products', { name: 'Zalm', price_cents: 0, unit: 'kg', on_menu: false });
  const koelcel = await post('/locations', { name: 'Koelcel', is_default: true });
  const kelder = await post('/locations', { name: 'Kelder' });
  await post('/stock', { productId: zalm.id, locationId: koelcel.id, type: 'INTAKE', quantity: 12.5 });
  await post('/stock', { productId: friet.id, locationId: kelder.id, type: 'INTAKE', quantity: 40 });
  await post(`/recipes/${burger.id}`, { ingredients: [{ product_id: zalm.id, quantity: 0.2 }] }, 'PUT').catch(() => undefined);
  const zone = await post('/floorplan/zones', { name: 'Terras' });
  for (const name of ['1', '2', 'Bar']) {
    const table = await post('/floorplan/tables', { zone_id: zone.id, name, seats: 4, x: 10, y: 10 });
    remember(known, 'tafel', table.public_code ?? name);
  }
  await post('/haccp/units', { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 7 });
  remember(known, 'unit_name', 'Koelcel 1');
  await post('/haccp/temperature', { unit_name: 'Koelcel 1', temperature: 12 }); // kritiek: an incident
  await post('/haccp/checklists', { name: 'Opening', frequency: 'daily', items: [{ label: 'Handen wassen' }, { label: 'Koelcel dicht' }] });
  const customer = await post('/loyalty/customer', { phone: '06 12345678', name: 'Gast' });
  remember(known, 'phone', '+31612345678');
  remember(known, 'phone', '0612345678');
  remember(ids, 'customer_id', customer.id);
  remember(known, 'phone_or_id', '0612345678');
  remember(known, 'phone_or_id', customer.id);
  await post('/reservations', { date: NOW.slice(0, 10), time: '19:00', party_size: 2, name: 'Jansen', phone: '0612345679' }).catch(() => undefined);
  for (let i = 0; i < 3; i++) await post('/orders', { items: [{ product_id: friet.id, quantity: 2 }, { product_id: burger.id, quantity: 1 }], customer: { phone: '0612345678' } });
  await post('/webhooks', { url: 'http://127.0.0.1:9/webhook', events: ['order.created', 'order.paid'] });

  return {
    runtime,
    clock,
    role,
    credentials: (name) => creds[name],
    throwawaySession: async (name) => ({ cookie: cookieOf(await (name === 'admin' ? adminLogin() : staffLogin())) }),
    refresh: async () => {
      try {
        await login();
        return true;
      } catch {
        return false;
      }
    },
    protectedIds,
    known,
    ids,
    inject,
    close: async () => {
      await runtime.close();
      await testDb.drop();
    },
  };
}
