import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';

export interface HaccpSetup {
  t: TestApp;
  r: SeededTenant;
  staff: string;
  admin: string;
}

/** Open every day of the week (the default settings close on Monday, when nothing is due). */
export const EVERY_DAY = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['10:00', '23:00']]])) as Record<string, [string, string][]>;

/**
 * An app (mutation limit raised: these tests post a lot) with one restaurant, open every day unless
 * `openingHours` says otherwise, and its two sessions.
 */
export async function setup(opts: { clock?: TestApp['clock']; openingHours?: Record<string, [string, string][]> } = {}): Promise<HaccpSetup> {
  const t = await createTestApp({ env: { RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' }, ...(opts.clock ? { clock: opts.clock } : {}) });
  const r = await t.seedTenant();
  await t.services.tenants.patchSettings(r.id, { opening_hours: opts.openingHours ?? EVERY_DAY });
  const [staff, admin] = [await r.staffCookie(), await r.adminCookie()];
  return { t, r, staff, admin };
}

export const api = (t: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, cookie?: string, payload?: unknown) =>
  t.req({ method, url: `/api/v1${url}`, ...(cookie ? { cookie } : {}), ...(payload !== undefined ? { payload: payload as object } : {}) });

/** Row counts of every HACCP table of a tenant (for "a refused request changes nothing"). */
export async function haccpCounts(t: TestApp, tenantId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['haccp_units', 'haccp_checklists', 'haccp_temperature_logs', 'haccp_checklist_runs', 'haccp_incidents', 'haccp_actions'] as const) {
    const r = await t.handle.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
    out[table] = Number(r.n);
  }
  out.changes = await t.changes.lastSeq(tenantId);
  return out;
}
