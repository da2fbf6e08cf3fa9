import type { TestApp, SeededTenant } from '../../../helpers/app.js';
import { seedMenu, type SeededMenu } from '../../../helpers/factories.js';
import type { Table, Zone } from '../../../../server/modules/floor/floor.schemas.js';

export interface Floor {
  binnen: Zone;
  terras: Zone;
  /** binnen: T1 (4 seats), T2 (2 seats); terras: T3 (6 seats). */
  t1: Table;
  t2: Table;
  t3: Table;
}

/** Two zones and three tables through the service (so route tests spend no rate-limit budget on set-up). */
export async function seedFloor(t: TestApp, tenantId: string): Promise<Floor> {
  const floor = t.services.floor;
  const binnen = await floor.createZone(tenantId, { name: 'binnen', position: 0 });
  const terras = await floor.createZone(tenantId, { name: 'terras', position: 1 });
  const t1 = await floor.createTable(tenantId, { zone_id: binnen.id, name: 'T1', seats: 4, x: 10, y: 10 });
  const t2 = await floor.createTable(tenantId, { zone_id: binnen.id, name: 'T2', seats: 2, x: 100, y: 10, shape: 'round' });
  const t3 = await floor.createTable(tenantId, { zone_id: terras.id, name: 'T3', seats: 6, x: 10, y: 200 });
  return { binnen, terras, t1, t2, t3 };
}

export interface FloorSetup {
  t: TestApp;
  r: SeededTenant;
  menu: SeededMenu;
  floor: Floor;
  staff: string;
  admin: string;
}

export async function setupFloor(t: TestApp): Promise<FloorSetup> {
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  const floor = await seedFloor(t, r.id);
  return { t, r, menu, floor, staff: await r.staffCookie(), admin: await r.adminCookie() };
}

/** The live status of every table by name, as GET /floorplan answers it. */
export async function statuses(t: TestApp, cookie: string): Promise<Record<string, string>> {
  const res = await t.req({ method: 'GET', url: '/api/v1/floorplan', cookie });
  if (res.statusCode !== 200) throw new Error(`GET /floorplan ${res.statusCode}: ${res.body}`);
  const out: Record<string, string> = {};
  for (const z of res.json().zones) for (const tb of z.tables) out[tb.name] = tb.status;
  return out;
}
