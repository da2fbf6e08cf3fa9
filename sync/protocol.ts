import { z } from 'zod';
import { AppError } from '../server/shared/errors.js';
import { SCHEMA_VERSION } from '../server/db/migrations/index.js';

/**
 * Wire protocol between an appliance and the cloud (sync/README.md). Every exchange carries
 * `protocol_version` and `schema_version`; the cloud accepts a window of both and refuses anything
 * outside it with a clear Dutch 409 whose details name the field, after which the appliance stops
 * syncing (it never guesses).
 */
export const PROTOCOL_VERSION = 1;
/** Oldest appliance protocol the cloud still speaks. */
export const MIN_PROTOCOL_VERSION = 1;
/** How many schema versions an appliance may be behind the cloud (migrations are additive). */
export const SCHEMA_WINDOW = 2;
export const MAX_PUSH_OPS = 500;
export const MAX_PULL_LIMIT = 1000;
/** Changes per pull page when a client does not say (the appliance asks for up to MAX_PULL_LIMIT changes within PULL_PAGE_BYTES). */
export const PULL_LIMIT = MAX_PUSH_OPS;
export const MAX_WAIT_MS = 25_000;

/**
 * Limits on what one op may carry (issue 17; SECURITY.md). The cloud refuses an op over them as a
 * recorded rejection (the queue moves on); the descriptors then apply the API's own limits per field.
 * - MAX_OP_BYTES: the op's payload as JSON (an order of 100 lines with notes is ~60 KiB);
 * - MAX_FIELD_CHARS: any one string in it (the API's longest text field is 1,000 characters);
 * - MAX_PAYLOAD_DEPTH: nesting of objects and arrays.
 */
export const MAX_OP_BYTES = 256 * 1024;
export const MAX_FIELD_CHARS = 10_000;
export const MAX_PAYLOAD_DEPTH = 16;
/** Body limit of a push: the appliance sends ≈ 1 MB per push (plus at most one op of MAX_OP_BYTES). */
export const MAX_PUSH_BODY_BYTES = 8 * 1024 * 1024;
/** A pull page stops once its payloads pass this many bytes (at least one change per page); an appliance may ask for less (`max_bytes`). */
export const MAX_PULL_BYTES = 4 * 1024 * 1024;
/**
 * What the appliance asks per pull page (issue 29 point 3): pages sized by bytes rather than by
 * count, up to MAX_PULL_LIMIT changes but ≈ 1 MiB of payload, so a page of small echoes is one
 * transaction of a thousand changes while a page of big rows stays small in memory.
 */
export const PULL_PAGE_BYTES = 1024 * 1024;
export const MIN_PULL_BYTES = 16 * 1024;
/**
 * An appliance does not send an op whose payload is over MAX_OP_BYTES (the cloud would refuse it and
 * the push would grow past its body limit); it sends `{ [OVERSIZED]: bytes }` in its place, which the
 * cloud answers as rejected, so the op is accounted for and the queue moves on.
 */
export const OVERSIZED = '$oversized_bytes';

export interface VersionWindow {
  protocol: { min: number; max: number };
  schema: { min: number; max: number };
}

export const cloudWindow = (schemaVersion = SCHEMA_VERSION): VersionWindow => ({
  protocol: { min: MIN_PROTOCOL_VERSION, max: PROTOCOL_VERSION },
  schema: { min: Math.max(1, schemaVersion - SCHEMA_WINDOW), max: schemaVersion },
});

/** The cloud's check of an appliance's versions; returns the refusal, or null when accepted. */
export function versionRefusal(protocol: number, schema: number, window: VersionWindow): AppError | null {
  return (
    outsideWindow('protocolversie', 'protocol_version', 'kent', protocol, window.protocol) ??
    outsideWindow('schemaversie', 'schema_version', 'accepteert', schema, window.schema)
  );
}

/** One version against its accepted range: the Dutch refusal for a too old app or a too old cloud, or null. */
function outsideWindow(label: string, field: string, verb: string, value: number, range: { min: number; max: number }): AppError | null {
  if (value >= range.min && value <= range.max) return null;
  const span = `${range.min} tot ${range.max}`;
  return new AppError(
    'CONFLICT',
    value < range.min
      ? `Deze versie van de app is te oud om met de cloud te synchroniseren (${label} ${value}, de cloud accepteert ${span}). Werk de app bij; tot dan wordt er niet gesynchroniseerd.`
      : `De cloud is ouder dan deze app (${label} ${value}, de cloud ${verb} ${span}). Er wordt niet gesynchroniseerd tot de cloud is bijgewerkt.`,
    { details: [{ field, error: `'${field}' ${value} valt buiten ${range.min}-${range.max}.` }] },
  );
}

/** A version in a query string (text, so coerced); in a JSON body it must be a number (BodyVersion). */
const Version = z.coerce.number().int().min(0).max(1_000_000);
const BodyVersion = z.number().int().min(0).max(1_000_000);

export const VersionQuery = z.object({
  protocol_version: Version,
  schema_version: Version,
  app_version: z.string().max(64).optional(),
});

export const WireOp = z.object({
  op_id: z.string().min(1).max(64),
  device_seq: z.number().int().min(1),
  entity: z.string().min(1).max(64),
  entity_id: z.string().min(1).max(64),
  kind: z.string().min(1).max(64),
  payload: z.unknown(),
  created_at: z.string().min(1).max(40),
});
export type WireOp = z.infer<typeof WireOp>;

export const PushBody = z.object({
  protocol_version: BodyVersion,
  schema_version: BodyVersion,
  app_version: z.string().max(64).optional(),
  ops: z.array(WireOp).max(MAX_PUSH_OPS),
});
export type PushBody = z.infer<typeof PushBody>;

export const OpResult = z.object({
  op_id: z.string(),
  device_seq: z.number().int(),
  status: z.enum(['applied', 'conflict', 'rejected']),
  server_seq: z.number().int().nullable(),
  reason: z.string().nullable(),
  duplicate: z.boolean(),
});
export type OpResult = z.infer<typeof OpResult>;

export const PushResponse = z.object({
  protocol_version: z.number().int(),
  schema_version: z.number().int(),
  /** Highest device_seq the cloud has processed for this device (all ops up to it are final). */
  acked_through: z.number().int(),
  results: z.array(OpResult),
  /** false: a transient error stopped the batch after `results`; the rest is to be sent again later. */
  complete: z.boolean(),
});
export type PushResponse = z.infer<typeof PushResponse>;

export const PullQuery = VersionQuery.extend({
  cursor: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PULL_LIMIT).default(PULL_LIMIT),
  /** Long-poll: when nothing is newer than the cursor, wait up to this many ms for a change. */
  wait: z.coerce.number().int().min(0).max(MAX_WAIT_MS).default(0),
  /** The page stops once its payloads pass this many bytes (at least one change); absent: MAX_PULL_BYTES. A cloud from before this field ignores it. */
  max_bytes: z.coerce.number().int().min(MIN_PULL_BYTES).max(MAX_PULL_BYTES).default(MAX_PULL_BYTES),
  /**
   * `bare`: the asking device's own ops that the cloud recorded exactly as sent come back without
   * their payload (`BareEcho`; sync/README.md "Echoes"). Absent (an appliance from before it): every
   * change with its payload, as before. A cloud from before this field ignores it.
   */
  echoes: z.enum(['bare']).optional(),
});

/** A current row as a change that `apply` in adopt mode turns into that row (snapshot; no op id: it is state, not an op). */
export const SnapshotChange = z.object({
  entity: z.string(),
  entity_id: z.string(),
  kind: z.string(),
  payload: z.unknown(),
  created_at: z.string(),
});
export type SnapshotChange = z.infer<typeof SnapshotChange>;

/** A change of the cloud's log: what it changed, plus where it sits (seq) and which op made it where. */
export const WireChange = SnapshotChange.extend({
  seq: z.number().int(),
  op_id: z.string(),
  origin: z.string(),
});
export type WireChange = z.infer<typeof WireChange>;

/**
 * An echo sent bare (a pull with `echoes=bare`): one of the asking device's own ops that the cloud
 * recorded exactly as the device sent it (equal as JSON values), so without its payload; the device
 * has it in its own log (sync/README.md "Echoes").
 */
export const BareEcho = WireChange.extend({
  payload: z.null(),
  echo: z.literal('same'),
});
export type BareEcho = z.infer<typeof BareEcho>;

/** A change of a pull page: with its payload (no `echo` field), or a bare echo (payload null, `echo: 'same'`), nothing in between. */
export const PullChange = z.union([WireChange.extend({ echo: z.never().optional() }), BareEcho]);
export type PullChange = z.infer<typeof PullChange>;

export const PullResponse = z.object({
  protocol_version: z.number().int(),
  schema_version: z.number().int(),
  changes: z.array(PullChange),
  next_cursor: z.number().int(),
  has_more: z.boolean(),
});
export type PullResponse = z.infer<typeof PullResponse>;

/**
 * Entities per snapshot page at most (issue 29 point 3). A page is sized by its bytes first
 * (`max_bytes`); a count this high only stops a page of many small rows (journal entries, receipts)
 * from ending at a thousand. A cloud from before this limit refuses anything above
 * SNAPSHOT_LIMIT_V1 (a 400 naming `limit`): the appliance then asks with that (sync/engine.ts).
 */
export const MAX_SNAPSHOT_LIMIT = 10_000;
/** The most entities per snapshot page that every cloud accepts (the limit up to session 15). */
export const SNAPSHOT_LIMIT_V1 = 1000;
/** A snapshot page stops once its changes pass this many bytes as JSON (at least one step of rows); an appliance may ask for less (`max_bytes`). */
export const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024;
/** What the appliance asks per snapshot page: up to MAX_SNAPSHOT_LIMIT entities within ≈ 2 MiB (4 MiB pages measured slower and ≈ 30 MiB bigger: bench/README.md, session 15). */
export const SNAPSHOT_PAGE_BYTES = 2 * 1024 * 1024;

export const SnapshotQuery = VersionQuery.extend({
  /** Absent for the first page; then the `next_cursor` of the page before (opaque). */
  cursor: z.string().min(1).max(1000).optional(),
  /** Entities (rows with what belongs to them, e.g. an order with its items and history) per page. */
  limit: z.coerce.number().int().min(1).max(MAX_SNAPSHOT_LIMIT).default(200),
  /** The page stops once its changes pass this many bytes (checked after each step of rows); absent: MAX_SNAPSHOT_BYTES. A cloud from before this field ignores it. */
  max_bytes: z.coerce.number().int().min(MIN_PULL_BYTES).max(MAX_SNAPSHOT_BYTES).default(MAX_SNAPSHOT_BYTES),
});

export const SnapshotResponse = z.object({
  protocol_version: z.number().int(),
  schema_version: z.number().int(),
  /** The tenant's cloud seq when the snapshot began: every change up to it is in the rows; pull from it afterwards. */
  seq: z.number().int(),
  changes: z.array(SnapshotChange),
  /** null: this was the last page. */
  next_cursor: z.string().nullable(),
});
export type SnapshotResponse = z.infer<typeof SnapshotResponse>;

export const HelloResponse = z.object({
  protocol_version: z.number().int(),
  schema_version: z.number().int(),
  device: z.object({ id: z.string(), name: z.string(), tenant_id: z.string() }),
  tenant: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  /** The tenant's current last seq in the cloud. */
  last_seq: z.number().int(),
});
export type HelloResponse = z.infer<typeof HelloResponse>;
