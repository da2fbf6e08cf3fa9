import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { Role } from '../server/shared/role.js';
import { sessionOf } from '../server/plugins/auth.js';
import { AppError } from '../server/shared/errors.js';
import { errors, listOf } from '../server/shared/schemas.js';
import { RATE_LIMIT_EXEMPT } from '../server/shared/rate-limit.js';
import { tenantRoom } from '../server/plugins/realtime.js';
import { HelloResponse, MAX_PUSH_BODY_BYTES, PullQuery, PullResponse, PushBody, PushResponse, SnapshotQuery, SnapshotResponse, VersionQuery } from './protocol.js';
import type { SyncService } from './service.js';
import type { DeviceRow } from './cloud.js';
import type { SyncStatus } from './status.js';

declare module '../server/plugins/realtime.js' {
  interface ServerToClientEvents {
    /** The appliance's sync state changed (sync/status.ts): online/offline, pending count, error, stopped. */
    'sync:status': (e: SyncStatus) => void;
  }
}

const Device = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    last_seen_at: z.string().nullable(),
    last_device_seq: z.number().int(),
    app_version: z.string().nullable(),
    schema_version: z.number().int().nullable(),
  })
  .meta({ id: 'SyncDevice' });

const CreatedDevice = Device.extend({ sync_key: z.string().meta({ description: 'Shown once: set it as SYNC_KEY on the appliance.' }) });

const Status = z
  .object({
    role: z.enum(['local', 'cloud']),
    enabled: z.boolean(),
    online: z.boolean(),
    state: z.enum(['disabled', 'starting', 'online', 'offline', 'stopped']),
    pending: z.number().int(),
    oldest_pending_at: z.string().nullable(),
    oldest_pending_age_seconds: z.number().int().nullable(),
    warning: z.boolean(),
    last_success_at: z.string().nullable(),
    last_error: z.string().nullable(),
    last_error_at: z.string().nullable(),
    stopped_reason: z.string().nullable(),
    rejected: z.number().int(),
    conflicts: z.number().int(),
    device_id: z.string().nullable(),
  })
  .meta({ id: 'SyncStatus' });

const onlyInCloud = () => new AppError('NOT_FOUND', 'Deze functie bestaat alleen in de cloud.');

/** Sync endpoints (sync/README.md): status for staff, device registry for admins, push/pull/hello for appliances (bearer SYNC_KEY). */
export interface SyncRoutesOptions {
  sync: SyncService;
  role: Role;
  /** The appliance whose SYNC_KEY the request carried (checked by the `syncKey` guard, server/plugins/guards.ts). */
  deviceOf: (request: FastifyRequest) => DeviceRow;
}

/** A JSON body the cloud serialized itself: with this content type Fastify sends the string unchanged. */
const JSON_UTF8 = 'application/json; charset=utf-8';

export const syncRoutes: FastifyPluginAsyncZod<SyncRoutesOptions> = async (app, { sync, role, deviceOf }) => {
  const cloudOnly = async () => {
    if (role !== 'cloud') throw onlyInCloud();
  };

  // Live: the staff app hears `sync:status` whenever the worker reports a visible change.
  if (app.hasDecorator('io')) {
    const onStatus = (tenantId: string, status: Parameters<Parameters<typeof sync.board.on<'status'>>[1]>[1]) => {
      app.io.to(tenantRoom(tenantId)).emit('sync:status', status);
    };
    sync.board.on('status', onStatus);
    app.addHook('onClose', async () => {
      sync.board.off('status', onStatus);
    });
  }

  // Open long-polls (GET /sync/pull with `wait`): when the server starts to close they are answered at
  // once with what there is (normally nothing), instead of holding the close up for their whole wait;
  // the appliance polls again, on another cloud node or, with this one gone, after its back-off.
  const polls = new Set<AbortController>();
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    for (const poll of polls) poll.abort();
    done();
  });
  // The appliances' contacts noted in memory (sync/cloud.ts CONTACT_FLUSH_MS) are written before the database closes.
  app.addHook('onClose', async () => {
    await sync.cloud.flushContacts();
  });

  app.get(
    '/sync/status',
    { config: { access: 'session' }, schema: { tags: ['Synchronisatie'], summary: 'Sync state of this node: pending changes, oldest, last success and error', response: { 200: Status, ...errors(401) } } },
    async (request) => sync.status(sessionOf(request).tenantId),
  );

  app.get(
    '/sync/devices',
    { config: { access: 'admin' }, preHandler: cloudOnly, schema: { tags: ['Synchronisatie'], summary: 'Registered appliances (cloud)', response: { 200: listOf(Device), ...errors(401, 403, 404) } } },
    async (request) => ({ data: await sync.cloud.listDevices(sessionOf(request).tenantId) }),
  );

  app.post(
    '/sync/devices',
    {
      config: { access: 'admin' },
      preHandler: cloudOnly,
      schema: {
        tags: ['Synchronisatie'],
        summary: 'Register an appliance; answers its SYNC_KEY once',
        body: z.object({ name: z.string().trim().min(1).max(120) }).strict(),
        response: { 201: CreatedDevice, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { device, sync_key } = await sync.cloud.createDevice(sessionOf(request).tenantId, request.body.name);
      return reply.code(201).send({ ...device, sync_key });
    },
  );

  app.delete(
    '/sync/devices/:id',
    {
      config: { access: 'admin' },
      preHandler: cloudOnly,
      schema: { tags: ['Synchronisatie'], summary: 'Revoke an appliance key (its accepted changes stay)', params: z.object({ id: z.string().min(1).max(64) }), response: { 204: z.null(), ...errors(401, 403, 404) } },
    },
    async (request, reply) => {
      await sync.cloud.revokeDevice(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/sync/devices/:id/rotate',
    {
      config: { access: 'admin' },
      preHandler: cloudOnly,
      schema: {
        tags: ['Synchronisatie'],
        summary: "Give an appliance a new SYNC_KEY (answered once); the old key stops working at once, the appliance keeps its data",
        params: z.object({ id: z.string().min(1).max(64) }),
        response: { 200: CreatedDevice, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { device, sync_key } = await sync.cloud.rotateDevice(sessionOf(request).tenantId, request.params.id);
      return { ...device, sync_key };
    },
  );

  // Appliance endpoints: authenticated by the device's SYNC_KEY, exempt from the mutation rate limit (CONTRACT §4).
  app.get(
    '/sync/hello',
    { preHandler: cloudOnly, config: { access: 'syncKey', ...RATE_LIMIT_EXEMPT }, schema: { tags: ['Synchronisatie'], summary: 'Appliance handshake: versions, device and tenant', querystring: VersionQuery, response: { 200: HelloResponse, ...errors(401, 404, 409) } } },
    async (request) => sync.cloud.hello(deviceOf(request), request.query),
  );

  app.post(
    '/sync/push',
    {
      preHandler: cloudOnly,
      bodyLimit: MAX_PUSH_BODY_BYTES,
      // Exempt from the per-IP rate limit, not from limits: a per-device budget (429). NUL bytes and
      // sizes inside the ops are refused per op (a recorded rejection), never as a 400 for the whole push.
      config: { access: 'syncKey', ...RATE_LIMIT_EXEMPT, nulCheckSkip: ['ops'] },
      schema: { tags: ['Synchronisatie'], summary: "Apply a batch of the appliance's ops, idempotently, in device_seq order", body: PushBody, response: { 200: PushResponse, ...errors(400, 401, 404, 409, 413, 429) } },
    },
    async (request) => sync.cloud.push(deviceOf(request), request.body),
  );

  app.get(
    '/sync/snapshot',
    {
      preHandler: cloudOnly,
      config: { access: 'syncKey', ...RATE_LIMIT_EXEMPT },
      schema: { tags: ['Synchronisatie'], summary: "Bootstrap of an empty appliance: the tenant's current rows, page by page, and the seq to pull from afterwards", querystring: SnapshotQuery, response: { 200: SnapshotResponse, ...errors(400, 401, 404, 409) } },
    },
    async (request, reply) => {
      // Serialized by the cloud (sync/cloud.ts RawJson): sent as is, in the SnapshotResponse shape.
      const page = await sync.cloud.snapshot(deviceOf(request), request.query);
      return reply.type(JSON_UTF8).send(page.json as never);
    },
  );

  app.get(
    '/sync/pull',
    { preHandler: cloudOnly, config: { access: 'syncKey', ...RATE_LIMIT_EXEMPT }, schema: { tags: ['Synchronisatie'], summary: 'Cloud changes after a cursor, in seq order (long-poll with wait)', querystring: PullQuery, response: { 200: PullResponse, ...errors(400, 401, 404, 409) } } },
    async (request, reply) => {
      const device = deviceOf(request);
      const abort = new AbortController();
      // The appliance hung up during a long-poll, or this server is closing: stop waiting.
      reply.raw.once('close', () => abort.abort());
      polls.add(abort);
      if (closing) abort.abort(); // arrived while the close began
      try {
        // Serialized by the cloud (sync/cloud.ts RawJson: the payloads' stored JSON text as is), in the PullResponse shape.
        const page = await sync.cloud.pull(device, request.query, abort.signal);
        return reply.type(JSON_UTF8).send(page.json as never);
      } finally {
        polls.delete(abort);
      }
    },
  );
};
