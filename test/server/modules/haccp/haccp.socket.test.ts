import { describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { OVERDUE_JOB } from '../../../../server/modules/haccp/haccp.jobs.js';
import type { TestApp } from '../../../helpers/app.js';
import { api, setup } from './helpers.js';

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}

interface Alert {
  seq: number;
  incident: { id: string; kind: string; open: boolean; description: string };
  log?: { id: string; status: string; temperature: number };
}

function tablet(url: string, cookie: string) {
  const socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
  const alerts: Alert[] = [];
  socket.on('haccp:incident', (e: Alert) => alerts.push(e));
  const ready = new Promise<void>((resolve, reject) => {
    socket.on('hello', () => resolve());
    socket.on('connect_error', reject);
  });
  return { socket, alerts, ready };
}

async function until(cond: () => boolean, ms = 3000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('live alert to the tablets (haccp:incident)', () => {
  it('a kritiek reading reaches every tablet of the restaurant at once, with its log; ok and waarschuwing do not; other restaurants hear nothing', async () => {
    const { t, r, staff, admin } = await setup();
    const url = await listen(t);
    const other = await t.seedTenant();
    const tablets = [tablet(url, staff), tablet(url, admin)];
    const outsider = tablet(url, await other.staffCookie());
    await Promise.all([...tablets, outsider].map((x) => x.ready));

    await api(t, 'POST', '/haccp/temperature', staff, { unit_name: 'Koelcel 1', unit_type: 'koelcel', temperature: 3, target_max: 4 });
    await api(t, 'POST', '/haccp/temperature', staff, { unit_name: 'Koelcel 1', temperature: 5.5 });
    const hot = (await api(t, 'POST', '/haccp/temperature', staff, { unit_name: 'Koelcel 1', temperature: 8.2 })).json();
    await until(() => tablets.every((x) => x.alerts.length === 1));
    await new Promise((res) => setTimeout(res, 100)); // nothing else arrives
    const event = (await t.changes.readSince(r.id, 0, 1000)).find((c) => c.kind === 'haccp.incident')!;
    for (const x of tablets) {
      expect(x.alerts).toEqual([
        {
          seq: event.seq,
          incident: expect.objectContaining({ id: hot.incident_id, kind: 'temperature', open: true, description: 'Koelcel 1: 8,2 °C gemeten (maximaal 4 °C, marge 2 °C): kritiek.' }),
          log: expect.objectContaining({ id: hot.id, status: 'kritiek', temperature: 8.2 }),
        },
      ]);
    }
    expect(outsider.alerts).toEqual([]);
    for (const x of [...tablets, outsider]) x.socket.close();
  });

  it('an overdue incident from the job is announced too', async () => {
    const { t, staff, admin } = await setup();
    const url = await listen(t);
    const x = tablet(url, staff);
    await x.ready;
    await api(t, 'POST', '/haccp/checklists', admin, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'a' }] });
    t.clock.set('2026-11-21T10:01:00Z');
    await t.app.scheduler.run(OVERDUE_JOB);
    await until(() => x.alerts.length === 1);
    expect(x.alerts[0]!.incident).toMatchObject({ kind: 'checklist_overdue', open: true });
    expect(x.alerts[0]!.log).toBeUndefined();
    x.socket.close();
  });
});
