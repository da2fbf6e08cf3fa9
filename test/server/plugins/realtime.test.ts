import { describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { CATCH_UP_LIMIT } from '../../../server/plugins/realtime.js';
import { orderBody, seedMenu } from '../../helpers/factories.js';

interface Received {
  name: string;
  seq: number;
  orderId?: string;
  status?: string;
}

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}

function client(url: string, cookie: string | undefined, auth: Record<string, unknown> = {}) {
  const socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: cookie ? { cookie } : {}, auth });
  const got: Received[] = [];
  let helloSeq = -1;
  socket.on('order:created', (e: { seq: number; order: { id: string; status: string } }) => got.push({ name: 'order:created', seq: e.seq, orderId: e.order.id, status: e.order.status }));
  socket.on('order:updated', (e: { seq: number; order: { id: string; status: string } }) => got.push({ name: 'order:updated', seq: e.seq, orderId: e.order.id, status: e.order.status }));
  const ready = new Promise<void>((resolve, reject) => {
    socket.on('hello', (e: { seq: number }) => {
      helloSeq = e.seq;
      resolve();
    });
    socket.on('connect_error', reject);
  });
  return { socket, got, ready, hello: () => helloSeq };
}

async function until(cond: () => boolean, ms = 3000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const close = (...sockets: Socket[]) => sockets.forEach((s) => s.close());

describe('live sockets (socket.io)', () => {
  it('each tablet gets exactly its own tenant’s events, in commit order', async () => {
    const t = await createTestApp();
    const url = await listen(t);
    const a = await t.seedTenant();
    const b = await t.seedTenant();
    const [menuA, menuB] = [await seedMenu(t, a.id), await seedMenu(t, b.id)];
    const [cookieA, cookieB, adminA] = [await a.staffCookie(), await b.staffCookie(), await a.adminCookie()];
    const clientsA = [client(url, cookieA), client(url, cookieA), client(url, adminA)];
    const clientsB = [client(url, cookieB), client(url, cookieB)];
    await Promise.all([...clientsA, ...clientsB].map((c) => c.ready));

    const createdA: string[] = [];
    const createdB: string[] = [];
    // Interleaved and partly concurrent writes in both tenants.
    for (let round = 0; round < 4; round++) {
      const [ra, rb, ra2] = await Promise.all([
        t.req({ method: 'POST', url: '/api/v1/orders', cookie: cookieA, payload: orderBody(menuA) }),
        t.req({ method: 'POST', url: '/api/v1/orders', cookie: cookieB, payload: orderBody(menuB) }),
        t.req({ method: 'POST', url: '/api/v1/orders', cookie: cookieA, payload: orderBody(menuA) }),
      ]);
      createdA.push(ra.json().id, ra2.json().id);
      createdB.push(rb.json().id);
    }
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${createdA[0]}`, cookie: adminA, payload: { status: 'preparing' } });

    const logA = (await t.changes.readSince(a.id, 0, 1000)).filter((c) => c.entity === 'order');
    const logB = (await t.changes.readSince(b.id, 0, 1000)).filter((c) => c.entity === 'order');
    await until(() => clientsA.every((c) => c.got.length === logA.length) && clientsB.every((c) => c.got.length === logB.length));
    await new Promise((r) => setTimeout(r, 100)); // nothing extra arrives later
    for (const c of clientsA) {
      expect(c.got.map((e) => e.seq)).toEqual(logA.map((l) => l.seq));
      expect(c.got.map((e) => e.orderId)).toEqual(logA.map((l) => l.entity_id));
      expect(c.got.every((e) => createdA.includes(e.orderId!))).toBe(true);
      expect(c.got.at(-1)).toMatchObject({ name: 'order:updated', status: 'preparing' });
    }
    for (const c of clientsB) {
      expect(c.got.map((e) => e.seq)).toEqual(logB.map((l) => l.seq));
      expect(c.got.every((e) => createdB.includes(e.orderId!))).toBe(true);
    }
    close(...[...clientsA, ...clientsB].map((c) => c.socket));
  });

  it('refuses a connection without a valid session', async () => {
    const t = await createTestApp();
    const url = await listen(t);
    for (const cookie of [undefined, 'ck_token=verzonnen']) {
      const c = client(url, cookie);
      const err = await c.ready.then(() => null, (e: Error & { data?: { code: string } }) => e);
      expect(err?.message).toBe('Je bent niet ingelogd.');
      expect(err?.data).toEqual({ code: 'UNAUTHORIZED' });
      c.socket.close();
    }
  });

  it('a rolled-back write never reaches a tablet', async () => {
    const t = await createTestApp();
    const url = await listen(t);
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const cookie = await r.staffCookie();
    const c = client(url, cookie);
    await c.ready;
    const bad = await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: { items: [{ product_id: menu.soep.id, quantity: 1 }] } });
    expect(bad.statusCode).toBe(400);
    await expect(
      t.changes.write(r.id, async (w) => {
        await w.record({ entity: 'order', entityId: 'x', kind: 'order.created', payload: { order: { id: 'x' } } });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const good = await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: orderBody(menu) });
    await until(() => c.got.length === 1);
    await new Promise((res) => setTimeout(res, 100));
    expect(c.got.map((e) => e.orderId)).toEqual([good.json().id]);
    c.socket.close();
  });

  it('a tablet that reconnects with its last seq catches up on what it missed, in order', async () => {
    const t = await createTestApp();
    const url = await listen(t);
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const cookie = await r.staffCookie();
    const first = client(url, cookie);
    await first.ready;
    await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: orderBody(menu) });
    await until(() => first.got.length === 1);
    const lastSeen = first.got[0]!.seq;
    first.socket.close(); // Wi-Fi drops

    const missed: string[] = [];
    for (let i = 0; i < 3; i++) missed.push((await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: orderBody(menu) })).json().id);

    const again = client(url, cookie, { last_seq: lastSeen });
    await again.ready;
    expect(again.got.map((e) => e.orderId)).toEqual(missed);
    expect(again.hello()).toBe(again.got.at(-1)!.seq);
    // And it is live again afterwards.
    const live = (await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: orderBody(menu) })).json().id;
    await until(() => again.got.length === 4);
    expect(again.got.at(-1)!.orderId).toBe(live);
    again.socket.close();
  });

  it('a tablet too far behind is told to re-fetch instead of replaying', async () => {
    const t = await createTestApp();
    const url = await listen(t);
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const cookie = await r.staffCookie();
    await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: orderBody(menu) });
    for (let i = 0; i < 2; i++) await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: orderBody(menu) });
    // With a small gap the tablet replays everything...
    const c = client(url, cookie, { last_seq: 0 });
    await c.ready;
    expect(c.got.length).toBe(3);
    c.socket.close();
    // ...and with a gap over the limit it gets `resync` with the current position instead.
    await t.changes.write(r.id, async (w) => {
      for (let i = 0; i < CATCH_UP_LIMIT + 1; i++) await w.record({ entity: 'note', entityId: String(i), kind: 'note.added', payload: null });
    });
    const far = client(url, cookie, { last_seq: 0 });
    const farResync = new Promise<number>((res) => far.socket.on('resync', (e: { seq: number }) => res(e.seq)));
    await far.ready;
    expect(await farResync).toBe(await t.changes.lastSeq(r.id));
    expect(far.got).toHaveLength(0);
    far.socket.close();
  });
});
