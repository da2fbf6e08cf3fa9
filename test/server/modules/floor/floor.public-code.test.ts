import { describe, expect, it } from 'vitest';
import { up as migrate0019 } from '../../../../server/db/migrations/0019_table_public_code.js';
import { createTestApp } from '../../../helpers/app.js';
import { quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { seedFloor } from './helpers.js';

/**
 * Issue 28 point 4: a table's pay-at-table code (CONTRACT §11). Migration 0019 gives existing tables
 * a random code; the codes (the migration's and renewed ones) replicate, so the QR code printed on
 * either side opens the bill on both, and a renewed code replaces the old one everywhere.
 */
const CODE = /^[a-km-np-z2-9]{16}$/;

describe('migration 0019: existing tables get a random code', () => {
  it('each existing table (archived ones too) gets its own code, and the codes are announced as table changes once', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const other = await t.seedTenant();
    const floor = await seedFloor(t, r.id);
    await seedFloor(t, other.id);
    await t.services.floor.archiveTable(r.id, floor.t3.id);
    const db = t.handle.db;
    // The database as the release before had it: no column, no index.
    await db.schema.dropIndex('floor_tables_public_code').execute();
    await db.schema.alterTable('floor_tables').dropColumn('public_code').execute();
    await migrate0019(db);

    const rows = await db.selectFrom('floor_tables').select(['id', 'tenant_id', 'public_code']).execute();
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(row.public_code).toMatch(CODE);
    expect(new Set(rows.map((x) => x.public_code)).size).toBe(6);
    const notes = await db.selectFrom('meta').select('key').where('key', 'like', 'floor.announce_codes:%').orderBy('key').execute();
    expect(notes.map((n) => n.key)).toEqual([r.id, other.id].sort().map((id) => `floor.announce_codes:${id}`));

    const before = await t.changes.lastSeq(r.id);
    await t.services.floor.announceMigratedCodes();
    const announced = (await t.changes.readSince(r.id, before, 100)).filter((c) => c.kind === 'table.updated');
    const mine = rows.filter((x) => x.tenant_id === r.id);
    expect(announced.map((c) => [c.entity_id, (c.payload as { fields: unknown }).fields]).sort()).toEqual(mine.map((x) => [x.id, { public_code: x.public_code }]).sort());
    expect(await db.selectFrom('meta').select('key').where('key', 'like', 'floor.announce_codes:%').execute()).toEqual([]);
    // Once: a second run (another node, a restart) records nothing more.
    const after = await t.changes.lastSeq(r.id);
    await t.services.floor.announceMigratedCodes();
    expect(await t.changes.lastSeq(r.id)).toBe(after);
    // The bill opens by the migrated code.
    const t1 = mine.find((x) => x.id === floor.t1.id)!;
    expect((await t.req({ method: 'GET', url: `/api/v1/public/tafel/${r.slug}/${t1.public_code}` })).json()).toMatchObject({ table: { name: 'T1' } });
    expect((await t.req({ method: 'GET', url: `/api/v1/public/tafel/${r.slug}/T1` })).statusCode).toBe(404);
  });
});

describe('sync: the pay-at-table code', () => {
  async function joined() {
    const nodes = await twoNodes();
    const floor = await seedFloor(nodes.cloud, nodes.tenant.id);
    await quiesce(nodes.appliance);
    return { ...nodes, floor };
  }
  const codeOn = async (side: { handle: { db: import('../../../../server/db/connection.js').Db } }, id: string) =>
    (await side.handle.db.selectFrom('floor_tables').select('public_code').where('id', '=', id).executeTakeFirstOrThrow()).public_code;

  it('a code renewed on the cloud reaches the appliance, one renewed offline on the appliance reaches the cloud; the old code opens nothing on either side', async () => {
    const { cloud, appliance, tenant, transport, floor } = await joined();
    expect(await codeOn(appliance, floor.t1.id)).toBe(floor.t1.public_code);

    const renewed = await cloud.services.floor.renewPublicCode(tenant.id, floor.t1.id);
    expect(renewed.public_code).toMatch(CODE);
    await quiesce(appliance);
    expect(await codeOn(appliance, floor.t1.id)).toBe(renewed.public_code);
    await expect(appliance.services.floor.billForTable(tenant.id, floor.t1.public_code!)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    transport.offline = true;
    const local = await appliance.services.floor.renewPublicCode(tenant.id, floor.t2.id);
    await cloud.services.floor.updateTable(tenant.id, floor.t2.id, { seats: 3 });
    transport.offline = false;
    await quiesce(appliance);
    expect(await codeOn(cloud, floor.t2.id)).toBe(local.public_code);
    expect((await cloud.services.floor.billForTable(tenant.id, local.public_code!)).table.name).toBe('T2');
    await expect(cloud.services.floor.billForTable(tenant.id, floor.t2.public_code!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('the codes migration 0019 drew on each side independently end up the same on both once both announced them', async () => {
    const { cloud, appliance, tenant, floor } = await joined();
    // As after the upgrade: each node drew its own code for the same tables and left its note.
    for (const [side, c] of [[cloud, 'cccccccccccccccc'], [appliance, 'aaaaaaaaaaaaaaaa']] as const) {
      // A distinct code per table (the last two characters of the ids can be the same: the unique index refused that once in CI).
      const ids = await side.handle.db.selectFrom('floor_tables').select('id').where('tenant_id', '=', tenant.id).orderBy('id').execute();
      for (const [i, { id }] of ids.entries()) {
        await side.handle.db.updateTable('floor_tables').set({ public_code: `${c.slice(0, 14)}${'abcdefghijk'[i]}${'23456789'[i % 8]}` }).where('id', '=', id).execute();
      }
      await side.handle.db.insertInto('meta').values({ key: `floor.announce_codes:${tenant.id}`, value: '0019' }).execute();
    }
    expect(await codeOn(cloud, floor.t1.id)).not.toBe(await codeOn(appliance, floor.t1.id));
    await cloud.services.floor.announceMigratedCodes();
    await appliance.services.floor.announceMigratedCodes();
    await quiesce(appliance);
    for (const t of [floor.t1, floor.t2, floor.t3]) {
      expect(await codeOn(appliance, t.id)).toBe(await codeOn(cloud, t.id));
      expect(await codeOn(cloud, t.id)).toMatch(CODE);
    }
    // Nothing was refused on the way (the appliance's announcements are valid changes).
    expect(await cloud.handle.db.selectFrom('sync_ops').select('status').where('status', 'not in', ['applied', 'conflict']).execute()).toEqual([]);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});
