import { validate as isUuid, version as uuidVersion } from 'uuid';
import { describe, expect, it } from 'vitest';
import { floorId } from '../../../server/modules/floor/floor.rules.js';
import { derivedId } from '../../../server/modules/haccp/haccp.rules.js';
import { earnId } from '../../../server/modules/loyalty/loyalty.rules.js';
import { fallbackLocationId, saleEntityId, saleMovementId, wasteMovementId } from '../../../server/modules/stock/stock.rules.js';
import { newId, sha256PartsId, stableId } from '../../../server/shared/ids.js';

// The ids below were computed with each area's own derivation BEFORE it moved onto
// server/shared/ids.ts (uuid v5 with string templates, SHA-1 by hand, SHA-256). They are stored and
// synced: if one of these expectations fails, the change breaks the union of two sides' ledgers.
const T = '0190a6f0-0000-7000-8000-000000000001';
const O = '0190a6f0-0000-7000-8000-0000000000aa';
const X = '0190a6f0-0000-7000-8000-0000000000bb';

describe('frozen id derivations (do not change: ids already stored and synced)', () => {
  it('floor: bill rounds and payments', () => {
    expect(floorId('bill-round', O)).toBe('504c6f90-b4ac-5d63-b53f-f8d40bebce66');
    expect(floorId('bill-payment-order', O)).toBe('6c39cca2-9522-5632-8d3c-9ee67c72a70a');
    expect(floorId('bill-payment', T, 'tr_abc123')).toBe('5d71a6e2-cae0-5dfd-a893-364cfe4ed78b');
  });

  it('stock: sale and waste movements, the sale entity, the fallback location', () => {
    expect(saleMovementId(O, X)).toBe('8377ea2f-a1fe-5944-b768-2f1eaea0c0c7');
    expect(saleEntityId(O)).toBe('8e33de21-31cb-50fe-b4b3-511629b3be38');
    expect(wasteMovementId(X, O)).toBe('c7c26713-5d49-5c50-b52a-baba5736c53b');
    expect(fallbackLocationId(T)).toBe('a144d306-41cf-53ed-a1b2-87b822be6abb');
  });

  it('loyalty: the earn row of an order', () => {
    expect(earnId(O)).toBe('095ef452-4943-51b8-817d-c3d065af1cd0');
  });

  it('haccp: units by name, overdue and missing-readings incidents (SHA-256, version 8)', () => {
    expect(derivedId(T, 'haccp-unit', 'koelcel 1')).toBe('cbda975b-bcaa-82c8-9316-a53a731c91cc');
    expect(derivedId(T, 'cloud', 'checklist_overdue', X, '2026-03-29')).toBe('ec0fe206-191e-8f84-8aed-7e0e0d6617e0');
    expect(derivedId(T, 'cloud', 'readings_missing', X, '2026-10-25')).toBe('3da43b66-d6e5-8c57-9005-581f42386986');
    expect(uuidVersion(derivedId(T, 'x'))).toBe(8);
  });
});

describe('stableId', () => {
  const NS = '3f0d5c1e-9b7a-4e2f-8c6d-5a4b3c2d1e0f';

  it('is a version 5 UUID, the same for the same namespace and parts', () => {
    const id = stableId(NS, 'a', 'b');
    expect(isUuid(id)).toBe(true);
    expect(uuidVersion(id)).toBe(5);
    expect(stableId(NS, 'a', 'b')).toBe(id);
  });

  it('differs by namespace, by part, by order and by where the parts split', () => {
    const ids = new Set([
      stableId(NS, 'a', 'b'),
      stableId('0b8e6a52-6f0e-4d3c-9d55-1f3c2f0c1a11', 'a', 'b'),
      stableId(NS, 'a', 'c'),
      stableId(NS, 'b', 'a'),
      stableId(NS, 'a:b'),
      stableId(NS, 'ab'),
      stableId(NS, 'a', 'b', ''),
    ]);
    expect(ids.size).toBe(7);
  });

  it('needs a part and a namespace that is a UUID', () => {
    expect(() => stableId(NS)).toThrow();
    expect(() => stableId('not-a-uuid', 'a')).toThrow();
  });

  it('sha256PartsId is a version 8 UUID of its parts', () => {
    expect(sha256PartsId('a', 'b')).toBe(sha256PartsId('a', 'b'));
    expect(sha256PartsId('a', 'b')).not.toBe(sha256PartsId('a\u0000b', ''));
    expect(uuidVersion(sha256PartsId('a'))).toBe(8);
  });

  it('newId is a time-ordered version 7 UUID', () => {
    const a = newId();
    const b = newId();
    expect(uuidVersion(a)).toBe(7);
    expect(a < b).toBe(true);
  });

  it('newId (random bytes from a pool, session 13): ids in creation order also within a millisecond and across refills of the pool, all distinct, version 7 with the RFC variant, the time of their making', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => newId()); // ~20 refills of the 256-id pool, many ids per millisecond
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(uuidVersion(id)).toBe(7);
      expect('89ab').toContain(id[19]);
      const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      // The sequence's overflow may move the millisecond on by one (uuid's own rule).
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after + 1);
    }
    // The random tail differs between ids of one millisecond (the pool is not reused).
    expect(new Set(ids.map((id) => id.slice(24))).size).toBe(ids.length);
  });
});
