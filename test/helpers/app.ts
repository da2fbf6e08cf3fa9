import type { LightMyRequestResponse, InjectOptions } from 'fastify';
import { onTestFinished } from 'vitest';
import { loadConfig, type Config } from '../../server/config.js';
import { createRuntime, type Runtime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { freshDb, type TestDb } from './db.js';

export interface TestApp extends Runtime {
  clock: ManualClock;
  testDb: TestDb;
  /** app.inject with an optional session cookie. */
  req(opts: InjectOptions & { cookie?: string }): Promise<LightMyRequestResponse>;
  seedTenant(opts?: { slug?: string; name?: string }): Promise<SeededTenant>;
}

export interface SeededTenant {
  id: string;
  slug: string;
  adminEmail: string;
  adminPassword: string;
  staffPin: string;
  staffId: string;
  adminId: string;
  /** A fresh admin session cookie (`ck_token=...`). */
  adminCookie(): Promise<string>;
  staffCookie(): Promise<string>;
}

let counter = 0;

export function cookieFrom(res: LightMyRequestResponse): string {
  const c = res.cookies.find((x) => x.name === 'ck_token');
  if (!c) throw new Error(`no ck_token cookie in response ${res.statusCode}: ${res.body}`);
  return `ck_token=${c.value}`;
}

/** A freshly built app on a fresh database (SQLite or PostgreSQL by lane), closed when the test ends. */
export async function createTestApp(
  opts: { config?: Partial<Config>; env?: Record<string, string>; clock?: ManualClock; autoClose?: boolean; eagerDocs?: boolean } = {},
): Promise<TestApp> {
  const testDb = await freshDb();
  const clock = opts.clock ?? new ManualClock();
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/restaurant-test', ...opts.env }, opts.config);
  const rt = await createRuntime(config, { clock, handle: testDb.handle, eagerDocs: opts.eagerDocs });
  const close = async () => {
    await rt.close();
    await testDb.drop();
  };
  if (opts.autoClose !== false) onTestFinished(close);

  const req: TestApp['req'] = ({ cookie, headers, ...rest }) =>
    rt.app.inject({ ...rest, headers: { ...(headers ?? {}), ...(cookie ? { cookie } : {}) } });

  const seedTenant: TestApp['seedTenant'] = async (o = {}) => {
    counter += 1;
    const slug = o.slug ?? `resto-${counter}-${Math.random().toString(36).slice(2, 8)}`;
    const adminEmail = `admin@${slug}.test`;
    const adminPassword = 'geheim-wachtwoord-1';
    const { tenant, admin } = await rt.services.tenants.create({ slug, name: o.name ?? `Restaurant ${slug}`, admin_email: adminEmail, admin_password: adminPassword });
    const staffPin = String(1000 + counter);
    const staff = await rt.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: staffPin, hourly_wage_cents: 1450 });
    return {
      id: tenant.id,
      slug,
      adminEmail,
      adminPassword,
      staffPin,
      staffId: staff.id,
      adminId: admin.id,
      adminCookie: async () =>
        cookieFrom(await req({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug, email: adminEmail, password: adminPassword } })),
      staffCookie: async () => cookieFrom(await req({ method: 'POST', url: '/api/v1/auth/login', payload: { slug, pin: staffPin } })),
    };
  };

  return { ...rt, clock, testDb, close, req, seedTenant };
}
