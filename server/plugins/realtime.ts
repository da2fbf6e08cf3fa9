import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Server, type ServerOptions, type Socket } from 'socket.io';
import type { ChangeLog, ChangeRecord } from '../db/change-log.js';
import { readChanges } from '../db/change-log.js';
import type { Db } from '../db/connection.js';
import type { SessionLookup } from '../shared/session.js';
import { SESSION_COOKIE } from './auth.js';

/**
 * Live updates to the tablets (ARCHITECTURE §5). One typed event map; every event carries the
 * change-log `seq` it came from, so a client knows where it is and can catch up after a drop.
 *
 * This plugin knows no area: it declares its own two events here, and every area adds the events it
 * sends by augmenting this interface in its `server/modules/<area>/<area>.events.ts`
 * (`declare module '../../plugins/realtime.js' { interface ServerToClientEvents { ... } }`), next to
 * the change kinds that produce them. The composition root (server/modules/live-events.ts) hands
 * the kind → event mapping to this plugin as the `events` option.
 */
export interface ServerToClientEvents {
  /** First message after connecting (and after catch-up): the tenant's current position. */
  hello: (e: { seq: number }) => void;
  /** The server is stopping (SIGTERM, the desktop app quitting): the connection closes right after; show offline now and reconnect when it is back. */
  'server:closing': (e: { reason: 'shutdown' }) => void;
  /** The client's last_seq is too old to replay: re-fetch GET /orders/live and continue from `seq`. */
  resync: (e: { seq: number }) => void;
}
export type ClientToServerEvents = Record<string, never>;
export interface SocketData {
  tenantId: string;
  userId: string;
}
export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
type TabletSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** One event of the map as it is emitted: its name and its payload. */
export type SocketEvent = { [K in keyof ServerToClientEvents]: { name: K; payload: Parameters<ServerToClientEvents[K]>[0] } }[keyof ServerToClientEvents];

/**
 * An area's live events (`<area>.events.ts`): change-log kind → the socket event tablets get for
 * such a record, or null when this record is not for tablets.
 */
export type LiveEvents = Readonly<Record<string, (c: ChangeRecord) => SocketEvent | null>>;

/** The areas' live events as one map; a change kind claimed by two areas is a wiring error. */
export function composeLiveEvents(areas: readonly LiveEvents[]): LiveEvents {
  const out: Record<string, (c: ChangeRecord) => SocketEvent | null> = {};
  for (const area of areas) {
    for (const [kind, map] of Object.entries(area)) {
      if (out[kind]) throw new Error(`realtime: change kind '${kind}' mapped by two areas`);
      out[kind] = map;
    }
  }
  return Object.freeze(out);
}

/** Change-log record → socket event, or nothing for changes tablets don't see (users, settings...). */
export function toSocketEvent(events: LiveEvents, c: ChangeRecord): SocketEvent | null {
  return Object.hasOwn(events, c.kind) ? events[c.kind]!(c) : null;
}

/** How many missed changes a reconnecting tablet may replay before it is told to re-fetch instead. */
export const CATCH_UP_LIMIT = 1000;

const room = (tenantId: string) => `tenant:${tenantId}`;
/** The socket.io room of a tenant's connections (other plugins emit tenant-wide events to it). */
export const tenantRoom = room;

function parseCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    io: RealtimeServer;
  }
}

/**
 * Fans out committed changes per tenant, in commit order, exactly once per node. The change log's
 * `committed` event is only a wake-up: when the records follow the last emitted seq directly they
 * are emitted as they are; otherwise the gap is read from the log first. All work of one tenant
 * (live emission and reconnect catch-up) runs on one promise chain, so nothing interleaves.
 *
 * Several cloud nodes (docs/adr/0004-cloud-scale-out.md): every node tails the log for the tenants
 * its own sockets are in and emits to its LOCAL sockets only (`io.local`), woken by its own commits
 * and by other nodes' commit notices ('remote'), so each tablet gets every change once, in seq
 * order, from the node it is connected to. The socket.io Redis adapter is not used for these
 * events (a node emitting its own commits through it would race other nodes on order, and a node
 * dying between commit and emit would lose the event); it carries the other room broadcasts.
 */
export class TenantFanout {
  private readonly last = new Map<string, number>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly io: RealtimeServer,
    private readonly db: Db,
    private readonly changes: ChangeLog,
    private readonly events: LiveEvents,
  ) {}

  private enqueue(tenantId: string, job: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(tenantId) ?? Promise.resolve()).then(job).catch(() => {});
    this.chains.set(tenantId, next);
    return next;
  }

  private emitAll(records: ChangeRecord[], to: { emit: (name: never, payload: never) => unknown }): void {
    for (const c of records) {
      const ev = toSocketEvent(this.events, c);
      if (ev) (to.emit as (n: string, p: unknown) => void)(ev.name, ev.payload);
    }
  }

  onCommitted(tenantId: string, records: ChangeRecord[]): Promise<void> {
    return this.enqueue(tenantId, async () => {
      const first = records[0]?.seq ?? 0;
      const lastSeq = records[records.length - 1]?.seq ?? 0;
      // The first wake-up after start defines this node's fan-out cursor for the tenant.
      const known = this.last.get(tenantId) ?? first - 1;
      if (lastSeq <= known) return;
      let batch = records.filter((r) => r.seq > known);
      if (batch[0] && batch[0].seq !== known + 1) {
        // A commit whose wake-up arrived late (another node or connection): read the gap in order.
        batch = await readChanges(this.db, tenantId, known, lastSeq - known);
      }
      // No tablet of the tenant on this node: nothing to encode (socket.io encodes a broadcast before
      // it looks for sockets in the room); the position moves on as if it had been sent.
      if (this.io.of('/').adapter.rooms.get(room(tenantId))?.size) this.emitAll(batch, this.io.local.to(room(tenantId)) as never);
      this.last.set(tenantId, batch[batch.length - 1]?.seq ?? known);
    });
  }

  /** Another node committed this tenant's changes up to `seq`: emit what this node has not, from the log. */
  onRemote(tenantId: string, seq: number): Promise<void> {
    return this.enqueue(tenantId, async () => {
      let known = this.last.get(tenantId);
      // Never attached nor emitted here: the first attach reads its position from the log itself.
      if (known === undefined || seq <= known) return;
      if (!this.io.of('/').adapter.rooms.get(room(tenantId))?.size) {
        // No tablet of this tenant on this node: nothing to send; the next attach reads the log.
        this.last.delete(tenantId);
        return;
      }
      while (known < seq) {
        const batch = await readChanges(this.db, tenantId, known, Math.min(seq - known, 500));
        if (batch.length === 0) break;
        this.emitAll(batch, this.io.local.to(room(tenantId)) as never);
        known = batch[batch.length - 1]!.seq;
        this.last.set(tenantId, known);
      }
    });
  }

  /** Tenants with sockets on this node and where their fan-out stands (for the cluster sweep). */
  positions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [tenantId, seq] of this.last) if (this.io.of('/').adapter.rooms.get(room(tenantId))?.size) out.set(tenantId, seq);
    return out;
  }

  /** Replays what a reconnecting socket missed, then lets it join the live room; in the tenant's chain. */
  attach(socket: TabletSocket, lastSeen: number | undefined): Promise<void> {
    const tenantId = socket.data.tenantId;
    return this.enqueue(tenantId, async () => {
      // Before the first live emission of this tenant the log itself says where we are. A change
      // replayed here may then also arrive live once: clients ignore a seq they have already seen.
      const current = this.last.get(tenantId) ?? (await this.changes.lastSeq(tenantId));
      // From here on this node's fan-out position for the tenant is defined (other nodes' commits
      // after it are read from the log on their notice, see onRemote).
      this.last.set(tenantId, current);
      if (lastSeen !== undefined && lastSeen < current) {
        if (current - lastSeen > CATCH_UP_LIMIT) {
          socket.emit('resync', { seq: current });
        } else {
          const missed = await readChanges(this.db, tenantId, lastSeen, current - lastSeen);
          this.emitAll(missed, socket as never);
        }
      }
      await socket.join(room(tenantId));
      socket.emit('hello', { seq: current });
    });
  }
}

export interface RealtimePluginOptions {
  /** Cookie value → live session (the auth module's `authenticate`): no session, no connection. */
  lookup: SessionLookup;
  changes: ChangeLog;
  db: Db;
  /** Every area's change kinds → socket events (server/modules/live-events.ts). */
  events: LiveEvents;
  adapter?: ServerOptions['adapter'];
  sweepMs?: number;
}

async function realtimePlugin(
  app: FastifyInstance,
  opts: RealtimePluginOptions,
): Promise<void> {
  // Set when the server starts to close: new connections are refused (the HTTP handshake itself, so
  // nothing is left open that would hold the close up).
  let closing = false;
  const io: RealtimeServer = new Server(app.server, {
    serveClient: true,
    cors: { origin: false },
    allowRequest: (_req, callback) => callback(closing ? 'De server wordt afgesloten.' : null, !closing),
    ...(opts.adapter ? { adapter: opts.adapter } : {}),
  });
  app.decorate('io', io);
  const fanout = new TenantFanout(io, opts.db, opts.changes, opts.events);

  // A tablet connects with the session cookie it logged in with; no session, no connection.
  io.use(async (socket, next) => {
    try {
      const token = parseCookie(socket.handshake.headers.cookie, SESSION_COOKIE);
      const ctx = await opts.lookup(token);
      if (!ctx) {
        const err = new Error('Je bent niet ingelogd.') as Error & { data?: unknown };
        err.data = { code: 'UNAUTHORIZED' };
        return next(err);
      }
      socket.data.tenantId = ctx.tenantId;
      socket.data.userId = ctx.userId;
      next();
    } catch (err) {
      next(err as Error);
    }
  });

  io.on('connection', (socket) => {
    const raw = (socket.handshake.auth as { last_seq?: unknown }).last_seq;
    const lastSeen = typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 ? raw : undefined;
    void fanout.attach(socket, lastSeen);
  });

  const listener = (tenantId: string, records: ChangeRecord[]) => void fanout.onCommitted(tenantId, records);
  opts.changes.on('committed', listener);
  const remote = (tenantId: string, seq: number) => void fanout.onRemote(tenantId, seq);
  opts.changes.on('remote', remote);
  // In a cluster a commit notice can be lost (Redis blip, a node dying after its commit): every few
  // seconds compare the tenants with sockets here against the log, so a quiet tenant still gets it.
  const sweep = opts.adapter
    ? setInterval(() => {
        const positions = fanout.positions();
        if (positions.size === 0) return;
        void opts.db
          .selectFrom('change_seq')
          .select(['tenant_id', 'last_seq'])
          .where('tenant_id', 'in', [...positions.keys()])
          .execute()
          .then((rows) => rows.forEach((r) => Number(r.last_seq) > positions.get(r.tenant_id)! && void fanout.onRemote(r.tenant_id, Number(r.last_seq))))
          .catch(() => {});
      }, opts.sweepMs ?? 5000)
    : undefined;
  sweep?.unref();
  // Stopping (SIGTERM): before the HTTP server waits for its connections, tell this node's tablets it
  // is going away and close their sockets, so they show offline at once and the close does not wait
  // for them (an open socket would hold it up to the 10 s limit). Local only: other cloud nodes stay.
  app.addHook('preClose', (done) => {
    closing = true;
    io.local.emit('server:closing', { reason: 'shutdown' });
    io.local.disconnectSockets(true);
    done();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    opts.changes.off('committed', listener);
    opts.changes.off('remote', remote);
    await io.close();
  });
}

export default fp(realtimePlugin, { name: 'realtime' });
