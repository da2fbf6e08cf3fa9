import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type WireOp } from '../../../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../../../server/db/migrations/index.js';
import { hashRecord, GENESIS } from '../../../../server/modules/haccp/haccp.chain.js';
import type { TemperatureLog } from '../../../../server/modules/haccp/haccp.schemas.js';
import { newId } from '../../../../server/shared/ids.js';
import { ManualClock } from '../../../../server/shared/clock.js';
import type { Runtime } from '../../../../server/runtime.js';
import { createAppliance, FakeTransport, quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from '../../../sync/chunk.js';

/**
 * Food safety across an outage (issue 10 "Sync"): the appliance keeps logging while the cloud is
 * unreachable; afterwards every record is on both sides exactly once and both sides verify both
 * chains (the cloud's and the appliance's). Pushed records are validated like API requests.
 */

const HACCP_TABLES = ['haccp_units', 'haccp_checklists', 'haccp_temperature_logs', 'haccp_checklist_runs', 'haccp_incidents', 'haccp_actions'];
const pick = (state: Record<string, unknown[]>) => Object.fromEntries(HACCP_TABLES.map((t) => [t, state[t]]));

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();

describe('HACCP sync between an appliance and the cloud', () => {
  it('logs, runs, incidents and actions made offline on the appliance arrive in the cloud once; both sides verify both chains', async () => {
    const clock = new ManualClock('2026-11-18T07:00:00Z');
    const { cloud, tenant, transport, appliance, device } = await twoNodes({ clock });
    await appliance.engine.syncOnce(); // bootstrap
    const h = { cloud: cloud.services.haccp, app: appliance.services.haccp };
    const staffC = { tenantId: tenant.id, userId: tenant.staffId };
    await h.cloud.createUnit(tenant.id, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4 });
    const list = await h.cloud.createChecklist(tenant.id, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen' }, { label: 'Handen' }] });
    await h.cloud.logTemperature(staffC, { unit_name: 'Koelcel 1', temperature: 3 });
    await quiesce(appliance);

    // The internet goes down. The restaurant keeps working on the appliance; the cloud too (a web app).
    transport.offline = true;
    const made: string[] = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(60 * 60_000);
      made.push((await h.app.logTemperature(staffC, { unit_name: 'Koelcel 1', temperature: 2 + i * 1.5 })).id); // 2 … 9.5: 6.5, 8 and 9.5 kritiek
    }
    const kritiek = (await h.app.listIncidents(tenant.id, { status: 'open', limit: 50, offset: 0 })).data;
    expect(kritiek).toHaveLength(3);
    await h.app.addAction(staffC, kritiek[0]!.id, 'Deur gesloten.');
    await h.app.runChecklist(staffC, list.id, { completed_items: [list.items[0]!.id], notes: 'Zeep op' });
    await h.app.logTemperature(staffC, { unit_name: 'Vriezer nieuw', unit_type: 'vriezer', temperature: -20, target_max: -18 }); // registers a unit offline
    await h.cloud.logTemperature(staffC, { unit_name: 'Koelcel 1', temperature: 3.5 });
    await expect(appliance.engine.syncOnce()).rejects.toThrow();

    // Back online; one response is lost after the cloud applied the push (it is sent again).
    transport.offline = false;
    transport.faults.push('lose-response');
    await appliance.engine.syncOnce().catch(() => {});
    await quiesce(appliance);

    const cloudExport = await h.cloud.export(tenant.id, 7);
    const appExport = await h.app.export(tenant.id, 7);
    for (const id of made) expect(cloudExport.temperature_logs.filter((l) => l.id === id)).toHaveLength(1);
    expect(cloudExport.temperature_logs).toHaveLength(1 + 6 + 1 + 1);
    expect(ids(cloudExport.temperature_logs)).toEqual(ids(appExport.temperature_logs));
    expect(ids(cloudExport.checklist_runs)).toEqual(ids(appExport.checklist_runs));
    expect(cloudExport.incidents.map((i) => [i.id, i.open, i.actions.length])).toEqual(appExport.incidents.map((i) => [i.id, i.open, i.actions.length]));
    // Two chains, each verifying on both sides, with the same heads.
    for (const e of [cloudExport, appExport]) {
      expect(e.integrity.verified).toBe(true);
      expect(e.integrity.chains.map((c) => c.origin)).toEqual(['cloud', device.id]);
    }
    expect(appExport.integrity.chains).toEqual(cloudExport.integrity.chains);
    expect(cloudExport.integrity.chains.map((c) => c.records)).toEqual([2, 6 + 3 + 1 + 1 + 1]); // logs, incidents, action, run, the new unit's log
    // The incidents' event went into the cloud's log once each (one webhook each), with the appliance as origin.
    const events = (await cloud.changes.readSince(tenant.id, 0, 10_000)).filter((c) => c.kind === 'haccp.incident');
    expect(events.map((e) => e.entity_id).sort()).toEqual(kritiek.map((i) => i.id).sort());
    expect(events.every((e) => e.origin === device.id)).toBe(true);
    // And the tables are identical.
    expect(pick(await replicatedState(appliance, tenant.id))).toEqual(pick(await replicatedState(cloud, tenant.id)));
  });

  it('the same new unit name logged on both sides during an outage is one unit; differing settings are a visible conflict', async () => {
    const { cloud, tenant, transport, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    transport.offline = true;
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    const onCloud = await cloud.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 3', unit_type: 'koelcel', temperature: 3, target_max: 4 });
    const onApp = await appliance.services.haccp.logTemperature(staff, { unit_name: 'koelcel 3', unit_type: 'koelcel', temperature: 5, target_max: 5 });
    expect(onApp.unit_id).toBe(onCloud.unit_id);
    expect(onApp.status).toBe('ok'); // judged against its own registration (5 °C) at the time
    transport.offline = false;
    await quiesce(appliance);
    for (const rt of [cloud, appliance] as Runtime[]) {
      const units = await rt.services.haccp.listUnits(tenant.id);
      expect(units).toEqual([expect.objectContaining({ id: onCloud.unit_id, name: 'Koelcel 3', target_max: 4 })]);
      expect((await rt.services.haccp.export(tenant.id, 1)).temperature_logs.map((l) => [l.unit_id, l.target_max, l.status])).toEqual([
        [onCloud.unit_id, 4, 'ok'],
        [onCloud.unit_id, 5, 'ok'],
      ]);
    }
    const conflicts = await appliance.handle.db.selectFrom('sync_op_results').selectAll().where('status', '=', 'conflict').execute();
    expect(conflicts.map((c) => c.reason)).toEqual(["'Koelcel 3' is ook elders geregistreerd met andere instellingen; de eerste registratie geldt."]);
  });

  it('a new appliance joining by snapshot gets every chain and verifies it', async () => {
    const { cloud, tenant, appliance } = await twoNodes();
    await appliance.engine.syncOnce();
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    await appliance.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 9, target_max: 4 });
    await quiesce(appliance);
    await cloud.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 3 });
    await quiesce(appliance);
    const { createAppliance, FakeTransport } = await import('../../../sync/harness.js');
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Tweede kassa');
    const late = await createAppliance(new FakeTransport(() => cloud, sync_key));
    await late.engine.syncOnce();
    const integrity = await late.services.haccp.verify(tenant.id);
    expect(integrity.verified).toBe(true);
    expect(integrity.chains.map((c) => c.records).sort()).toEqual([1, 2]);
    expect(pick(await replicatedState(late, tenant.id))).toEqual(pick(await replicatedState(cloud, tenant.id)));
  });

  it('one push chunk with a chain of logs, incidents, their action, a run and new units ends as applying its ops one by one; both chains verify on every side', async () => {
    const clock = new ManualClock('2026-11-18T07:00:00Z');
    const { cloud, tenant, transport, appliance, device } = await twoNodes({ clock });
    await appliance.engine.syncOnce();
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    await cloud.services.haccp.createUnit(tenant.id, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4 });
    const list = await cloud.services.haccp.createChecklist(tenant.id, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen' }, { label: 'Handen' }] });
    await cloud.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 3 });
    await quiesce(appliance);
    transport.offline = true;
    // Offline: a chain of readings (three kritiek: an incident each), an action, a run, two new units (one also registered in the cloud, with another target: a conflict).
    await cloud.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 3', unit_type: 'koelcel', temperature: 3, target_max: 4 });
    for (let i = 0; i < 6; i++) {
      clock.advance(20 * 60_000);
      await appliance.services.haccp.logTemperature(staff, { unit_name: 'Koelcel 1', temperature: 2 + i * 1.5 });
    }
    const open = (await appliance.services.haccp.listIncidents(tenant.id, { status: 'open', limit: 50, offset: 0 })).data;
    expect(open).toHaveLength(3);
    await appliance.services.haccp.addAction(staff, open[1]!.id, 'Deur gesloten.');
    await appliance.services.haccp.runChecklist(staff, list.id, { completed_items: [list.items[0]!.id] });
    await appliance.services.haccp.logTemperature(staff, { unit_name: 'koelcel 3', unit_type: 'koelcel', temperature: 5, target_max: 5 });
    await appliance.services.haccp.logTemperature(staff, { unit_name: 'Vriezer nieuw', unit_type: 'vriezer', temperature: -20, target_max: -18 });
    await appliance.services.haccp.logTemperature(staff, { unit_name: 'Vriezer nieuw', temperature: -14 }); // kritiek: an incident on the unit made in this chunk
    const made = await ownOps(appliance, device.id);
    // The same records once more under other op ids (a record can arrive twice): already there.
    const last = made[made.length - 1]!.device_seq;
    const again = [made[1]!, made.find((o) => o.entity === 'haccp_incident')!].map((o, i) => ({ ...o, op_id: `01900000-0000-7000-8000-00000000aa0${i}`, device_seq: last + 1 + i }));
    const ops = [...made, ...again];
    expect(ops.length).toBeLessThanOrEqual(100); // one chunk
    expect(new Set(ops.map((o) => o.entity))).toEqual(new Set(['haccp_unit', 'haccp_temperature_log', 'haccp_incident', 'haccp_action', 'haccp_checklist_run']));

    const reference = await opByOp(cloud, tenant.id, device.id, ops, HACCP_TABLES);
    expect(reference.outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(reference.outcomes.filter((o) => o.status === 'conflict').map((o) => o.reason)).toEqual(["'Koelcel 3' is ook elders geregistreerd met andere instellingen; de eerste registratie geldt."]);
    const applies = watchBatches(['haccp_unit', 'haccp_temperature_log', 'haccp_incident', 'haccp_action', 'haccp_checklist_run']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, ops);
    expect(applies).toEqual({ batched: ops.length, unbatched: 0 }); // applied as one batch, not re-run op by op
    expect(pushed).toEqual(JSON.parse(JSON.stringify(reference.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, HACCP_TABLES)).toEqual(reference.rows);

    // Back online: the appliance adopts the cloud's state; both verify both chains, alike.
    transport.offline = false;
    await quiesce(appliance);
    const [onCloud, onApp] = [await cloud.services.haccp.verify(tenant.id), await appliance.services.haccp.verify(tenant.id)];
    expect(onCloud.verified && onApp.verified).toBe(true);
    expect(onApp.chains).toEqual(onCloud.chains);
    expect(onCloud.chains.map((c) => [c.origin, c.records])).toEqual([
      ['cloud', 2],
      [device.id, 6 + 3 + 1 + 1 + 3 + 1],
    ]);
    expect(pick(await replicatedState(appliance, tenant.id))).toEqual(pick(await replicatedState(cloud, tenant.id)));
    // A new appliance replaying the cloud's log in one pull page (a batch in adopt mode) verifies them too.
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Tweede kassa');
    const late = await createAppliance(new FakeTransport(() => cloud, sync_key), { bootstrap: 'replay', pullLimit: 500 });
    await late.engine.syncOnce();
    expect((await late.services.haccp.verify(tenant.id)).chains).toEqual(onCloud.chains);
    expect(pick(await replicatedState(late, tenant.id))).toEqual(pick(await replicatedState(cloud, tenant.id)));
  });

  describe('pushed records are validated like API requests', () => {
    const V = { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION };
    let seq = 1000;
    const op = (entity: string, entityId: string, kind: string, payload: unknown): WireOp => ({ op_id: newId(), device_seq: ++seq, entity, entity_id: entityId, kind, payload, created_at: '2026-11-20T12:00:00.000Z' });

    it('refuses a record of another chain, of another restaurant’s unit, with invalid fields or at a taken position; nothing of it is stored', async () => {
      const { cloud, tenant, device, transport } = await twoNodes();
      const other = await cloud.seedTenant();
      const theirUnit = await cloud.services.haccp.createUnit(other.id, { name: 'Elders', unit_type: 'koelcel', target_max: 4 });
      const unit = await cloud.services.haccp.createUnit(tenant.id, { name: 'Koelcel 1', unit_type: 'koelcel', target_max: 4 });
      const record = (over: Partial<TemperatureLog>): TemperatureLog => {
        const l: TemperatureLog = {
          id: newId(),
          unit_id: unit.id,
          unit_name: 'Koelcel 1',
          unit_type: 'koelcel',
          temperature: 3,
          target_max: 4,
          target_min: null,
          margin: 2,
          status: 'ok',
          business_day: '2026-11-20',
          user_id: null,
          note: null,
          created_at: '2026-11-20T12:00:00.000Z',
          origin: device.id,
          chain_seq: 1,
          prev_hash: GENESIS,
          hash: '',
          ...over,
        };
        l.hash = hashRecord('temperature_log', tenant.id, l);
        return l;
      };
      const push = async (log: unknown) => {
        const id = (log as { id?: string }).id ?? newId();
        const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { ...V, ops: [op('haccp_temperature_log', id, 'haccp.temperature_logged', { log })] } });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().results[0] as { status: string; reason: string };
      };
      const good = record({});
      expect((await push(good)).status).toBe('applied');
      const refused: Array<[unknown, RegExp]> = [
        [record({ origin: 'cloud', chain_seq: 5 }), /keten van een ander apparaat/],
        [record({ chain_seq: 2, unit_id: theirUnit.id }), /Het meetpunt bestaat niet bij dit restaurant/],
        [record({ chain_seq: 2, user_id: newId() }), /De medewerker bestaat niet bij dit restaurant/],
        [{ ...record({ chain_seq: 2 }), temperature: 'warm' }, /Ongeldige wijziging voor temperatuurregistratie: 'temperature' moet een getal zijn/],
        [{ ...record({ chain_seq: 2 }), status: 'prima' }, /'status' moet een van deze waarden zijn/],
        [{ ...record({ chain_seq: 2 }), hash: 'niet-hex' }, /'hash' moet een sha256-hash/],
        [record({ chain_seq: 1, temperature: 3.5 }), /Op deze plaats in de keten \(nr\. 1\) staat al een andere temperatuurregistratie/],
      ];
      for (const [log, reason] of refused) {
        const result = await push(log);
        expect(result.status).toBe('rejected');
        expect(result.reason).toMatch(reason);
      }
      // Two records at one new position in one push chunk: the first is taken, the second refused.
      const [second, twin] = [record({ chain_seq: 2, prev_hash: good.hash }), record({ chain_seq: 2, prev_hash: good.hash, temperature: 3.5 })];
      const both = await cloud.req({
        method: 'POST',
        url: '/api/v1/sync/push',
        headers: { authorization: `Bearer ${transport.key}` },
        payload: { ...V, ops: [second, twin].map((log) => op('haccp_temperature_log', log.id, 'haccp.temperature_logged', { log })) },
      });
      expect((both.json().results as Array<{ status: string; reason: string | null }>).map((r) => [r.status, r.reason])).toEqual([
        ['applied', null],
        ['rejected', 'Op deze plaats in de keten (nr. 2) staat al een andere temperatuurregistratie.'],
      ]);
      const stored = await cloud.handle.db.selectFrom('haccp_temperature_logs').select('id').where('tenant_id', '=', tenant.id).orderBy('chain_seq').execute();
      expect(stored.map((r) => r.id)).toEqual([good.id, second.id]);
      expect(await cloud.handle.db.selectFrom('haccp_temperature_logs').select('id').where('tenant_id', '=', other.id).execute()).toEqual([]);
      // The accepted records verify as the device's chain on the cloud.
      expect((await cloud.services.haccp.verify(tenant.id)).chains).toEqual([expect.objectContaining({ origin: device.id, records: 2, verified: true })]);
    });
  });
});
