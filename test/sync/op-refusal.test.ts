import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { opRefusal } from '../../sync/cloud.js';
import { MAX_FIELD_CHARS, MAX_PAYLOAD_DEPTH, type WireOp } from '../../sync/protocol.js';
import { fieldName, scanJson } from '../../server/shared/validation.js';
import { fcRuns } from '../helpers/fc-runs.js';

/**
 * opRefusal skips scanJson when the op's JSON text and a walk over its objects and arrays show that
 * it cannot find anything (issue 29, sync/cloud.ts `clearOfIssues`). Its answer must be the one it
 * gave when it always asked scanJson, kept here as the reference, for payloads at the limits.
 */
function reference(payload: unknown): string | null {
  const issue = scanJson(payload, { maxString: MAX_FIELD_CHARS, maxDepth: MAX_PAYLOAD_DEPTH });
  if (!issue) return null;
  const field = fieldName(issue.path) || 'payload';
  if (issue.kind === 'nul') return `Ongeldige wijziging: '${field}' bevat een ongeldig teken (een NUL-byte).`;
  if (issue.kind === 'long') return `Ongeldige wijziging: '${field}' is te lang (maximaal ${MAX_FIELD_CHARS} tekens).`;
  return `Ongeldige wijziging: '${field}' is te diep genest (maximaal ${MAX_PAYLOAD_DEPTH} niveaus).`;
}

let seq = 0;
const op = (payload: unknown): WireOp => ({
  op_id: '00000000-0000-4000-8000-000000000001',
  device_seq: ++seq,
  entity: 'order',
  entity_id: 'x',
  kind: 'order.created',
  payload,
  created_at: '2026-11-29T12:00:00.000Z',
});

/** Strings around the limits: NUL bytes, a written backslash-u0000, lengths at and over MAX_FIELD_CHARS (also in characters JSON escapes). */
const text = fc.oneof(
  fc.constantFrom('', 'a', 'x\u0000y', '\u0000', '\\u0000', 'a'.repeat(MAX_FIELD_CHARS), 'a'.repeat(MAX_FIELD_CHARS + 1), '"'.repeat(MAX_FIELD_CHARS / 2), 'é'.repeat(MAX_FIELD_CHARS - 1), '\n'.repeat(MAX_FIELD_CHARS / 4)),
  fc.string({ maxLength: 8 }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(null), fc.boolean(), fc.integer(), text, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
})).value;
/** A value wrapped in `levels` arrays or objects: nesting at and around MAX_PAYLOAD_DEPTH. */
const nested = fc.tuple(json, fc.integer({ min: 0, max: MAX_PAYLOAD_DEPTH + 2 }), fc.boolean()).map(([v, levels, inArrays]) => {
  let out: unknown = v;
  for (let i = 0; i < levels; i++) out = inArrays ? [out] : { k: out };
  return out;
});

describe('opRefusal (the payload checks)', () => {
  it('refuses what scanJson finds, with the same reason, for any JSON payload at the limits', () => {
    fc.assert(
      fc.property(nested, (payload) => {
        // As the push sees it: parsed from JSON.
        const wire = JSON.parse(JSON.stringify(payload)) as unknown;
        expect(opRefusal(op(wire))).toBe(reference(wire));
      }),
      { numRuns: fcRuns({ sqlite: 1500, postgres: 300 }) },
    );
  });

  it('finds each issue at the edge of the fast path', () => {
    const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });
    for (const payload of [
      { a: 'x\u0000' },
      'a'.repeat(MAX_FIELD_CHARS),
      'a'.repeat(MAX_FIELD_CHARS + 1),
      { 'k\u0000': 1 },
      { a: 'a'.repeat(MAX_FIELD_CHARS + 1) },
      { a: 'a'.repeat(MAX_FIELD_CHARS - 10), b: 'b'.repeat(20) },
      { ['k'.repeat(MAX_FIELD_CHARS + 1)]: 1 },
      deep(MAX_PAYLOAD_DEPTH),
      deep(MAX_PAYLOAD_DEPTH + 1),
      { a: '\\u0000' },
      // Not JSON (only an in-process caller can send one): a Date is walked by scanJson, not by the fast path.
      { at: new Date(0), a: 'ok' },
    ]) {
      expect(opRefusal(op(payload))).toBe(reference(payload));
    }
    expect(opRefusal(op(deep(MAX_PAYLOAD_DEPTH + 1)))).toMatch(/te diep genest/);
    expect(opRefusal(op({ a: 'x\u0000' }))).toMatch(/NUL-byte/);
  });
});
