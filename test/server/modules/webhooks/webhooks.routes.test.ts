import { describe, expect, it } from 'vitest';
import type { Resolver } from '../../../../server/modules/webhooks/webhooks.outbound.js';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';
import { settle, startReceiver, verifies } from './receiver.js';

const CLOUD_ENV = { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' };
const ID = '0190a0a0-0000-7000-8000-000000000000';

async function setup(opts: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(opts);
  const r = await t.seedTenant();
  return { t, r, admin: await r.adminCookie(), staff: await r.staffCookie() };
}

const create = (t: TestApp, cookie: string, payload: unknown) => t.req({ method: 'POST', url: '/api/v1/webhooks', cookie, payload: payload as object });

/** Everything a refused request could have touched. */
async function state(t: TestApp, r: SeededTenant) {
  return {
    seq: await t.changes.lastSeq(r.id),
    hooks: await t.handle.db.selectFrom('webhook_subscriptions').selectAll().orderBy('id').execute(),
  };
}

describe('webhook subscriptions (CONTRACT §12)', () => {
  it('POST answers 201 with the secret once; lists and reads never show it', async () => {
    const { t, r, admin } = await setup();
    const res = await create(t, admin, { url: 'https://hooks.partner.example/bestellingen', events: ['order.paid', 'order.created', 'order.paid'], description: 'Bezorgplatform' });
    expect(res.statusCode, res.body).toBe(201);
    const hook = res.json();
    expect(hook).toEqual({
      id: expect.any(String),
      url: 'https://hooks.partner.example/bestellingen',
      events: ['order.created', 'order.paid'],
      description: 'Bezorgplatform',
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
      secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
    });
    const list = await t.req({ method: 'GET', url: '/api/v1/webhooks', cookie: admin });
    expect(list.json()).toEqual({ data: [{ ...hook, secret: undefined }].map(({ secret: _s, ...h }) => h) });
    expect(list.body).not.toContain(hook.secret);
    const one = await t.req({ method: 'GET', url: `/api/v1/webhooks/${hook.id}`, cookie: admin });
    expect(one.statusCode).toBe(200);
    expect(one.body).not.toContain(hook.secret);
    const [logged] = await t.changes.readSince(r.id, (await t.changes.lastSeq(r.id)) - 1);
    expect(logged).toMatchObject({ entity: 'webhook', entity_id: hook.id, kind: 'webhook.created' });
  });

  it.each([
    ['no url', { events: ['order.created'] }, 'url', /verplicht/],
    ['not a URL', { url: 'niet een adres', events: ['order.created'] }, 'url', /geldig webadres/],
    ['ftp', { url: 'ftp://partner.example/x', events: ['order.created'] }, 'url', /geldig webadres/],
    ['too long', { url: `https://partner.example/${'x'.repeat(2000)}`, events: ['order.created'] }, 'url', /maximaal 2000 tekens/],
    ['no events', { url: 'https://partner.example/h', events: [] }, 'events', /minstens één/],
    ['unknown event', { url: 'https://partner.example/h', events: ['order.deleted'] }, 'events.0', /order\.created, order\.paid, order\.status_changed, order\.course_fired, reservation\.created, haccp\.incident, loyalty\.customer_created/],
    ['events not a list', { url: 'https://partner.example/h', events: 'order.created' }, 'events', /een lijst/],
    ['own secret', { url: 'https://partner.example/h', events: ['order.created'], secret: 'x' }, 'secret', /Onbekend veld/],
    ['empty description', { url: 'https://partner.example/h', events: ['order.created'], description: ' ' }, 'description', /niet leeg/],
  ])('%s: 400 VALIDATION naming the field, nothing stored', async (_n, body, field, message) => {
    const { t, r, admin } = await setup();
    const before = await state(t, r);
    const res = await create(t, admin, body);
    expect(res.statusCode).toBe(400);
    const b = res.json();
    expect(b.code).toBe('VALIDATION');
    expect(b.error).toMatch(/^Ongeldige invoer: /);
    expect(b.details[0].field).toBe(field);
    expect(b.details[0].error).toMatch(message);
    expect(await state(t, r)).toEqual(before);
  });

  it('every route needs an admin session: 401 without, 403 for staff', async () => {
    const { t, admin, staff } = await setup();
    const hook = (await create(t, admin, { url: 'https://partner.example/h', events: ['order.created'] })).json();
    const routes: Array<[string, string, object?]> = [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks', { url: 'https://partner.example/h', events: ['order.created'] }],
      ['GET', `/api/v1/webhooks/${hook.id}`],
      ['DELETE', `/api/v1/webhooks/${hook.id}`],
      ['POST', `/api/v1/webhooks/${hook.id}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${hook.id}/deliveries/${ID}/redeliver`],
    ];
    for (const [method, url, payload] of routes) {
      const anon = await t.req({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
      expect(anon.statusCode, `${method} ${url}`).toBe(401);
      expect(anon.json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
      const s = await t.req({ method: method as 'GET', url, cookie: staff, ...(payload ? { payload } : {}) });
      expect(s.statusCode, `${method} ${url}`).toBe(403);
      expect(s.json().code).toBe('FORBIDDEN');
    }
    expect((await t.req({ method: 'GET', url: '/api/v1/webhooks', cookie: admin })).json().data).toHaveLength(1);
  });

  it("another restaurant's webhook is 404 everywhere and stays untouched; a bad id is 400", async () => {
    const { t, r, admin } = await setup();
    const other = await t.seedTenant();
    const theirs = (await create(t, await other.adminCookie(), { url: 'https://partner.example/h', events: ['order.created'] })).json();
    const before = await state(t, other);
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/${theirs.id}`],
      ['DELETE', `/api/v1/webhooks/${theirs.id}`],
      ['POST', `/api/v1/webhooks/${theirs.id}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${theirs.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${theirs.id}/deliveries/${ID}/redeliver`],
      ['GET', `/api/v1/webhooks/${ID}`],
    ] as const) {
      const res = await t.req({ method, url, cookie: admin });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: 'Webhook niet gevonden.', code: 'NOT_FOUND' });
    }
    expect(await state(t, other)).toEqual(before);
    const bad = await t.req({ method: 'DELETE', url: '/api/v1/webhooks/abc', cookie: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toMatchObject({ field: 'id' });
    expect((await t.req({ method: 'GET', url: `/api/v1/webhooks/${theirs.id}/deliveries?status=verzonden`, cookie: admin })).statusCode).toBe(400);
    expect(r.id).not.toBe(other.id);
  });

  it('DELETE removes it (204); after that it is gone (404) and no longer listed', async () => {
    const { t, admin } = await setup();
    const hook = (await create(t, admin, { url: 'https://partner.example/h', events: ['order.created'] })).json();
    expect((await t.req({ method: 'DELETE', url: `/api/v1/webhooks/${hook.id}`, cookie: admin })).statusCode).toBe(204);
    expect((await t.req({ method: 'GET', url: `/api/v1/webhooks/${hook.id}`, cookie: admin })).statusCode).toBe(404);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/webhooks/${hook.id}`, cookie: admin })).statusCode).toBe(404);
    expect((await t.req({ method: 'GET', url: '/api/v1/webhooks', cookie: admin })).json().data).toEqual([]);
  });

  it('rotating the secret shows the new one once; from then on deliveries are signed with it', async () => {
    const { t, r, admin, staff } = await setup();
    const menu = await seedMenu(t, r.id);
    const rx = await startReceiver();
    const hook = (await create(t, admin, { url: rx.url, events: ['order.created'] })).json();
    t.clock.advance(1000);
    const rotated = await t.req({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/rotate-secret`, cookie: admin });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json();
    expect(fresh).toMatchObject({ id: hook.id, updated_at: t.clock.now().toISOString(), secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/) });
    expect(fresh.secret).not.toBe(hook.secret);
    await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
    await settle(t);
    const [got] = rx.requests;
    expect(verifies(fresh.secret, got!.raw, got!.headers['x-service-signature'])).toBe(true);
    expect(verifies(hook.secret, got!.raw, got!.headers['x-service-signature'])).toBe(false);
  });

  it('at most 25 webhooks per restaurant, also when 30 are registered at the same moment', async () => {
    const { t, r, admin } = await setup();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => create(t, admin, { url: `https://partner.example/h${i}`, events: ['order.created'] })));
    expect(results.filter((x) => x.statusCode === 201)).toHaveLength(25);
    const refused = results.filter((x) => x.statusCode === 409);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json()).toEqual({ code: 'CONFLICT', error: 'Er zijn al 25 webhooks; verwijder er eerst een.' });
    expect((await t.req({ method: 'GET', url: '/api/v1/webhooks', cookie: admin })).json().data).toHaveLength(25);
    expect(await t.handle.db.selectFrom('webhook_subscriptions').select('id').where('tenant_id', '=', r.id).execute()).toHaveLength(25);
  });
});

describe('webhook addresses: SSRF rules (issue 16 item 5)', () => {
  /** A fake DNS: names in `table`, everything else unknown. */
  const fakeDns =
    (table: Record<string, string[]>): Resolver =>
    async (host) => {
      const found = table[host];
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };

  it.each([
    ['http://127.0.0.1:8080/h', /127\.0\.0\.1.*loopback/],
    ['http://10.1.2.3/h', /10\.1\.2\.3.*privé-adres/],
    ['http://192.168.1.20/h', /privé-adres/],
    ['http://172.20.0.1/h', /privé-adres/],
    ['http://100.64.0.1/h', /privé-adres/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://0.0.0.0/h', /gereserveerd/],
    ['http://[::1]/h', /loopback/],
    ['http://[fe80::1]/h', /link-local/],
    ['http://[fd00::1]/h', /privé-adres/],
    ['http://[::ffff:127.0.0.1]/h', /loopback/],
    ['http://[64:ff9b::a00:1]/h', /privé-adres/],
    // Issue 28 point 8: 6to4 (2002::/16) and Teredo (2001::/32) are judged by the IPv4 inside them.
    ['http://[2002:7f00:1::1]/h', /loopback/], // 6to4 of 127.0.0.1
    ['http://[2002:c0a8:101::]/h', /privé-adres/], // 6to4 of 192.168.1.1
    ['http://[2002:a9fe:a9fe::1]/h', /link-local/], // 6to4 of 169.254.169.254
    ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/h', /privé-adres/], // Teredo, client 10.0.0.1 (bits inverted)
    ['http://[2001:0:7f00:1::ffff:ffff]/h', /loopback/], // Teredo, server 127.0.0.1
    ['https://zes-naar-vier.partner.test/h', /2002:a00:7::1.*privé-adres/], // a name resolving to 6to4 of 10.0.0.7
    ['http://localhost:3000/h', /loopback/],
    ['https://intern.partner.test/h', /10\.0\.0\.7.*privé-adres/],
    ['https://nergens.partner.test/h', /kon niet worden gevonden/],
  ])('the cloud refuses %s at registration (400 on url), nothing stored', async (url, message) => {
    const { t, r, admin } = await setup({ env: CLOUD_ENV });
    t.services.webhooks.net.resolve = fakeDns({ localhost: ['127.0.0.1', '::1'], 'intern.partner.test': ['93.184.216.34', '10.0.0.7'], 'zes-naar-vier.partner.test': ['93.184.216.34', '2002:a00:7::1'] });
    const before = await state(t, r);
    const res = await create(t, admin, { url, events: ['order.created'] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'url', error: expect.stringMatching(message) }] });
    expect(res.json().error).toMatch(/^Ongeldige invoer: 'url' /);
    expect(await state(t, r)).toEqual(before);
  });

  it('the cloud accepts public addresses; WEBHOOK_ALLOW_PRIVATE=1 lets it reach private ones; the appliance always may', async () => {
    const cloud = await setup({ env: CLOUD_ENV });
    cloud.t.services.webhooks.net.resolve = fakeDns({ 'hooks.partner.test': ['93.184.216.34', '2606:2800:220:1::1'] });
    expect((await create(cloud.t, cloud.admin, { url: 'https://hooks.partner.test/h', events: ['order.created'] })).statusCode).toBe(201);
    expect((await create(cloud.t, cloud.admin, { url: 'http://93.184.216.35/h', events: ['order.created'] })).statusCode).toBe(201);
    // 6to4 and Teredo addresses whose IPv4 inside is public are public (issue 28 point 8).
    expect((await create(cloud.t, cloud.admin, { url: 'http://[2002:5db8:d822::1]/h', events: ['order.created'] })).statusCode).toBe(201);
    expect((await create(cloud.t, cloud.admin, { url: 'http://[2001:0:4136:e378:8000:63bf:a247:27dd]/h', events: ['order.created'] })).statusCode).toBe(201);

    const allowed = await setup({ env: { ...CLOUD_ENV, WEBHOOK_ALLOW_PRIVATE: '1' } });
    expect((await create(allowed.t, allowed.admin, { url: 'http://127.0.0.1:9/h', events: ['order.created'] })).statusCode).toBe(201);

    const appliance = await setup();
    for (const url of ['http://192.168.1.50:9100/bon', 'http://127.0.0.1:9/h', 'http://[fe80::1]/h']) {
      expect((await create(appliance.t, appliance.admin, { url, events: ['order.created'] })).statusCode, url).toBe(201);
    }

    // An appliance with a cloud registers none: the cloud sends, and registering is an admin's act there.
    const bound = await setup({ env: { CLOUD_URL: 'https://cloud.example', SYNC_KEY: 'k'.repeat(32) } });
    const refused = await create(bound.t, bound.admin, { url: 'http://192.168.1.50:9100/bon', events: ['order.created'] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/in de cloud/) });
  });

  it('at send time the cloud checks the resolved address again: a name that now points inside is not contacted (DNS rebinding)', async () => {
    const { t, r, admin, staff } = await setup({ env: CLOUD_ENV });
    const menu = await seedMenu(t, r.id);
    const rx = await startReceiver();
    let answer = ['93.184.216.34'];
    t.services.webhooks.net.resolve = async (host) => (host === 'rebind.partner.test' ? answer.map((address) => ({ address, family: 4 as const })) : []);
    const url = `http://rebind.partner.test:${rx.port}/hook`;
    const hook = (await create(t, admin, { url, events: ['order.created'] })).json();
    answer = ['127.0.0.1'];
    await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
    await settle(t);
    expect(rx.requests).toHaveLength(0);
    const [d] = (await t.req({ method: 'GET', url: `/api/v1/webhooks/${hook.id}/deliveries`, cookie: admin })).json().data;
    // Refused, not retried: a security refusal fails the delivery at once (an admin can send it again).
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null });
    expect(d.last_error).toMatch(/'rebind\.partner\.test' wijst naar 127\.0\.0\.1: deze server zelf \(loopback\)/);
  });

  it('with WEBHOOK_ALLOW_PRIVATE=1 the cloud delivers to an address on its own network', async () => {
    const { t, r, admin, staff } = await setup({ env: { ...CLOUD_ENV, WEBHOOK_ALLOW_PRIVATE: '1' } });
    const menu = await seedMenu(t, r.id);
    const rx = await startReceiver();
    await create(t, admin, { url: rx.url, events: ['order.created'] });
    await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
    await settle(t);
    expect(rx.requests).toHaveLength(1);
  });
});
