import crypto from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

/**
 * Random bytes for ids, drawn from a pool filled 4 KiB at a time: `uuid` asks the platform for 16
 * bytes per id (`crypto.getRandomValues`, a native crypto job each), which cost 3–4 % of the
 * appliance's CPU per order (an order takes six ids: the request's, the order's, its lines', its
 * history's, its change's; bench/README.md "The order path, session 13").
 */
const POOL_IDS = 256;
const pool = new Uint8Array(16 * POOL_IDS);
let poolNext = POOL_IDS;
function randomBytes16(): Uint8Array {
  if (poolNext === POOL_IDS) {
    crypto.randomFillSync(pool);
    poolNext = 0;
  }
  const at = 16 * poolNext++;
  return pool.subarray(at, at + 16);
}

/**
 * uuid's v7 state (uuid/dist/v7.js `updateV7State`): a new millisecond starts its 31-bit sequence at
 * random bits of the id; within one millisecond the sequence counts up (so ids of one process never
 * go backwards in the same millisecond), and its overflow moves the millisecond on.
 */
const v7State = { msecs: -Infinity, seq: 0 };

/** Time-ordered UUID v7, generated where the record is born (CONTRACT §1): exactly uuid's `v7()`, random bytes from the pool above. */
export const newId = (): string => {
  const random = randomBytes16();
  const now = Date.now();
  if (now > v7State.msecs) {
    v7State.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    v7State.msecs = now;
  } else {
    v7State.seq = (v7State.seq + 1) | 0;
    if (v7State.seq === 0) v7State.msecs++;
  }
  return uuidv7({ random, msecs: v7State.msecs, seq: v7State.seq });
};

/**
 * The one way to derive an id from what a record is about (docs/adr/0006): a name-based UUID
 * (version 5, RFC 9562 §5.5: SHA-1 of the namespace and the name) of `parts` joined with U+0000.
 * The same namespace and parts give the same id on every node, so two sides that record "the same"
 * thing during an outage (the round of order X, the earn row of order Y) write one row, and the
 * ledger union keeps one. U+0000 never occurs in a part (the API refuses NUL bytes, ids and fixed
 * words have none), so `('a', 'b:c')` and `('a:b', 'c')` stay different ids.
 *
 * `namespace` is a UUID the area owns (a fresh random one per area, kept next to its wrappers in
 * `<area>.rules.ts`); a derivation is frozen once its ids are stored and synced: changing the
 * namespace, the parts or their order makes the other side's copy a second row.
 */
export function stableId(namespace: string, ...parts: string[]): string {
  if (parts.length === 0) throw new Error('stableId needs at least one part');
  return uuidv5(parts.join('\u0000'), namespace);
}

/**
 * FROZEN, do not change and do not use in new code: ids already stored and synced. The food-safety
 * area's derivation from before `stableId` (a version 8 "custom" UUID, RFC 9562 §5.8: the first 16
 * bytes of SHA-256 of the parts joined with U+0000). It cannot be expressed on `stableId` (another
 * hash), so it lives here, next to it, and only `haccp.rules.ts` calls it.
 */
export function sha256PartsId(...parts: string[]): string {
  const h = crypto.createHash('sha256').update(parts.join('\u0000')).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
