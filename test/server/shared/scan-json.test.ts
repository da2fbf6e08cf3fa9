import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanJson, type JsonIssue } from '../../../server/shared/validation.js';
import { fcRuns } from '../../helpers/fc-runs.js';

/**
 * scanJson walks every sync op and request body; session 13 made it keep a parent link per value
 * instead of a copy of its path, and skip numbers, booleans and null. The issue it reports (kind
 * and path) must be the one the plain walk it replaced reported: that walk is kept here as the
 * reference.
 */
function reference(value: unknown, opts: { maxString?: number; maxDepth?: number; skip?: readonly string[] } = {}): JsonIssue | null {
  const maxString = opts.maxString ?? Infinity;
  const maxDepth = opts.maxDepth ?? Infinity;
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { kind: 'nul', path };
      if (v.length > maxString) return { kind: 'long', path };
      continue;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    if (path.length >= maxDepth) return { kind: 'deep', path };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (k.includes('\u0000')) return { kind: 'nul', path: [...path, k.replaceAll('\u0000', '\\u0000')] };
      if (k.length > maxString) return { kind: 'long', path };
      if (path.length === 0 && opts.skip?.includes(k)) continue;
      stack.push({ v: (v as Record<string, unknown>)[k], path: [...path, k] });
    }
  }
  return null;
}

/** Short strings, some with a NUL byte, some long; keys likewise. */
const text = fc.oneof(fc.constantFrom('', 'a', 'abcdef', 'x\u0000y', '\u0000', 'abcdefghij'), fc.string({ maxLength: 12 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(null), fc.boolean(), fc.integer(), text, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 5 }),
})).value;

describe('scanJson', () => {
  it('reports the same first issue as the plain walk it replaced, for any JSON value and limits', () => {
    fc.assert(
      fc.property(json, fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), fc.array(text, { maxLength: 2 }), (value, maxString, maxDepth, skip) => {
        const opts = { maxString, maxDepth, skip };
        expect(scanJson(value, opts)).toEqual(reference(value, opts));
      }),
      { numRuns: fcRuns({ sqlite: 2000, postgres: 500 }) },
    );
  });

  it('finds a NUL byte, a long string and deep nesting with their paths', () => {
    expect(scanJson({ a: [1, { b: 'x\u0000' }] })).toEqual({ kind: 'nul', path: ['a', 1, 'b'] });
    expect(scanJson({ a: 'abcdef' }, { maxString: 3 })).toEqual({ kind: 'long', path: ['a'] });
    expect(scanJson({ a: { b: { c: 1 } } }, { maxDepth: 2 })).toEqual({ kind: 'deep', path: ['a', 'b'] });
    expect(scanJson({ 'k\u0000': 1 })).toEqual({ kind: 'nul', path: ['k\\u0000'] });
    expect(scanJson({ ops: ['\u0000'] }, { skip: ['ops'] })).toBeNull();
    expect(scanJson([1, true, null, 2.5])).toBeNull();
  });
});
