import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';

export interface HaccpSetup {
  t: TestApp;
  r: SeededTenant;
  staff: string;
  admin: string;
}

/** An app (mutation limit raised: these tests post a lot) with one restaurant and its two sessions. */
export async function setup(opts: { clock?: TestApp['clock'] } = {}): Promise<HaccpSetup> {
  const t = await createTestApp({ env: { RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' }, ...(opts.clock ? { clock: opts.clock } : {}) });
  const r = await t.seedTenant();
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
