import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import '../../server/modules/sync-descriptors.js';
import { compiledPayloadOf, parsePayload, PUSHED_PAYLOADS } from '../../sync/apply-helpers.js';
import { RejectOp } from '../../sync/types.js';
import { fcRuns } from '../helpers/fc-runs.js';

/**
 * Issue 29 (the push's CPU per op): the payload schemas a push parses for most ops are marked by
 * `pushedPayload` (sync/apply-helpers.ts) and parsed by zod's ahead-of-time compiled copy
 * (`z.compile`); what that copy does not accept goes through the schema itself. Differential: for
 * random payloads, mostly valid (generated from the schema's own definition, with the refinements'
 * sums and equalities filled in) and each possibly mutated (a field replaced by any JSON value or
 * removed, text padded, numbers at and past their limits, unknown keys, `__proto__`), the compiled
 * copy accepts exactly what the schema accepts, with the same parsed value (same keys in the same
 * order, present-but-undefined keys alike, nothing shared with the input that zod does not share),
 * and refuses with the same issues; `parsePayload` answers the same value or the same Dutch sentence
 * as with the bare schema.
 */

type Def = {
  type: string;
  format?: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, unknown>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: { check: string; minimum?: number; maximum?: number; value?: number; inclusive?: boolean; pattern?: RegExp; format?: string } } }>;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def; optin?: string } })._zod.def;
const optinOf = (s: z.ZodType) => (s as unknown as { _zod: { optin?: string } })._zod.optin;

const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, NaN, Infinity, -0, '', ' ', '\u0000', 1e21, -1, 2 ** 53));
/** Text without white space at its ends (astral characters count as one code point for zod's lengths, two UTF-16 units). */
const word = (min: number, max: number) => fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '_', 'é', 'ß', '€', '😀', '中', '\u0301'), minLength: min, maxLength: max });
const pad = (noisy: boolean) => (noisy ? fc.constantFrom('', '', '', ' ', '\t', '  \n', '\u00a0', '\u2003') : fc.constantFrom('', '', ' '));

/**
 * Values of a schema from its zod definition: valid ones (`noisy` false: every field within its
 * type, format, length and range, optional keys left out or given), or with every field now and
 * then at or past its limits (`noisy`: lengths ±1, out-of-range and non-integer numbers, NaN,
 * unknown enum values, bad dates and ids, white space that a trim removes or a length counts).
 */
function arb(schema: z.ZodType, noisy: boolean): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const sometimes = <T,>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<unknown>) => (noisy ? fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: edge }) : valid);
  switch (def.type) {
    case 'string': {
      if (def.format === 'uuid') return sometimes(fc.uuid(), fc.constantFrom('00000000-0000-0000-0000-000000000000', 'not-a-uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', ' 6ba7b810-9dad-11d1-80b4-00c04fd430c8'));
      const day = fc.date({ min: new Date('1999-01-01'), max: new Date('2099-12-31'), noInvalidDate: true });
      if (def.format === 'date') return sometimes(day.map((d) => d.toISOString().slice(0, 10)), fc.constantFrom('2026-02-29', '2028-02-29', '2026-13-01', '2026-1-1', '2026-01-01T00:00:00Z'));
      if (def.format === 'datetime') {
        const offset = (def as { offset?: boolean }).offset === true;
        const zones = noisy ? ['Z', '+01:00', '-05:30', '+24:00', '', 'z'] : offset ? ['Z', '+01:00', '-05:30'] : ['Z'];
        return fc.tuple(day, fc.constantFrom(...zones), fc.constantFrom(0, 1, 2)).map(([d, zone, ms]) => d.toISOString().slice(0, 19) + (ms === 0 ? '' : ms === 1 ? '.123' : '.1234567') + zone);
      }
      const regex = checks.find((c) => c.check === 'string_format' && c.format === 'regex')?.pattern;
      if (regex) return sometimes(fc.stringMatching(regex), fc.tuple(fc.stringMatching(regex), pad(true)).map(([x, p]) => p + x + p));
      const min = checks.find((c) => c.check === 'min_length')?.minimum ?? 0;
      const max = checks.find((c) => c.check === 'max_length')?.maximum ?? 60;
      const valid = fc.tuple(pad(false), word(min, Math.max(min, Math.min(max - 2, 30))), pad(false)).map(([a, x, b]) => (max - x.length >= 2 ? a + x + b : x));
      const edge = fc.tuple(
        pad(true),
        fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), word(Math.max(0, max - 1), max + 1), fc.string({ unit: 'grapheme', minLength: Math.max(0, max - 1), maxLength: max + 1 }), fc.constantFrom('', ' ', '\u0000')),
        pad(true),
      ).map(([a, x, b]) => a + x + b);
      return sometimes(valid, edge);
    }
    case 'number': {
      const gt = checks.find((c) => c.check === 'greater_than');
      const lt = checks.find((c) => c.check === 'less_than');
      const lo = gt ? gt.value! + (gt.inclusive ? 0 : 1) : -1e6;
      const hi = lt ? lt.value! - (lt.inclusive ? 0 : 1) : 1e6;
      const int = checks.some((c) => c.check === 'number_format');
      const from = Math.max(lo, -1e6);
      const valid = int ? fc.oneof({ weight: 5, arbitrary: fc.integer({ min: from, max: Math.min(hi, from + 5000) }) }, { weight: 1, arbitrary: fc.constantFrom(lo, hi) }) : fc.double({ min: from, max: Math.min(hi, 1e9), noNaN: true });
      return sometimes(valid, fc.constantFrom(lo - 1, hi + 1, 0.5, -0, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER + 2, '1'));
    }
    case 'boolean':
      return sometimes(fc.boolean(), fc.constantFrom(0, 'true', null));
    case 'null':
      return fc.constant(null);
    case 'unknown':
    case 'any':
      return fc.jsonValue({ maxDepth: 2 });
    case 'enum':
      return sometimes(fc.constantFrom(...Object.values(def.entries!)), fc.constantFrom('', 'NEW', 'onbekend'));
    case 'literal':
      return sometimes(fc.constantFrom(...def.values!), fc.constantFrom('x', 1, null));
    case 'nullable':
      return fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: arb(def.innerType!, noisy) });
    case 'optional':
    case 'default':
      return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: arb(def.innerType!, noisy) });
    case 'array': {
      const min = checks.find((c) => c.check === 'min_length')?.minimum ?? 0;
      const max = checks.find((c) => c.check === 'max_length')?.maximum ?? 5;
      return fc.array(arb(def.element!, noisy), { minLength: noisy ? 0 : min, maxLength: Math.max(min, Math.min(max, 4)) });
    }
    case 'record':
      return fc.dictionary(noisy ? fc.string({ maxLength: 8 }) : word(1, 8), arb(def.valueType!, noisy), { maxKeys: 3 });
    case 'object': {
      const entries = Object.entries(def.shape!);
      const fields = fc.tuple(
        ...entries.map(([, s]) => {
          const a = arb(s, noisy);
          // A key the schema may leave out: left out, or given (undefined among the given values).
          return optinOf(s) ? fc.oneof({ weight: 1, arbitrary: fc.constant(ABSENT) }, { weight: 4, arbitrary: a }) : a;
        }),
      );
      const extra = fc.oneof(
        { weight: 6, arbitrary: fc.constant([] as Array<[string, unknown]>) },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'extra', 'tenant_id', 'toString'), anyJson), { maxLength: 2 }) },
      );
      return fc.tuple(fields, extra, fc.boolean()).map(([values, more, extraFirst]) => {
        const out: Record<string, unknown> = {};
        const own = (k: string, v: unknown) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        if (extraFirst) for (const [k, v] of more) own(k, v);
        entries.forEach(([k], i) => {
          if (values[i] !== ABSENT) own(k, values[i]);
        });
        if (!extraFirst) for (const [k, v] of more) if (!Object.prototype.hasOwnProperty.call(out, k)) own(k, v);
        return out;
      });
    }
    default:
      throw new Error(`no generator for zod type '${def.type}'`);
  }
}
const ABSENT = Symbol('absent');

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The refinements' rules made to hold (most of the time) so that valid payloads are common. */
const FIXUPS: Record<string, (v: unknown) => void> = {
  'order.created': (v) => {
    const o = isObj(v) && isObj(v.order) ? v.order : undefined;
    if (!o || !Array.isArray(o.items)) return;
    let sum = 0;
    for (const i of o.items) {
      if (isObj(i) && typeof i.unit_price_cents === 'number' && typeof i.quantity === 'number') i.total_cents = i.unit_price_cents * i.quantity;
      if (isObj(i) && typeof i.total_cents === 'number') sum += i.total_cents;
    }
    o.total_cents = sum;
  },
  'order.status_changed': (v) => {
    if (isObj(v) && isObj(v.history)) v.history.to_status = v.to;
  },
  'till.payment': (v) => {
    if (isObj(v) && typeof v.items === 'string' && v.items.length % 4 !== 0) v.items = JSON.stringify([{ name: v.items }]);
  },
};

/** Every place in a value (a path of keys), for the mutation. */
function paths(v: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (isObj(v)) for (const k of Object.keys(v)) paths(v[k], [...at, k], out);
  return out;
}
/** The value with the place at `path` replaced by `x`, or removed (`remove`). */
function mutate(v: unknown, path: Array<string | number>, x: unknown, remove: boolean): unknown {
  if (path.length === 0) return x;
  let parent = v as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove && !Array.isArray(parent)) delete parent[last];
  else parent[last] = x;
  return v;
}

/** A payload as it arrives in a push: JSON (a clone per parse, so neither parse sees what the other did). */
const clone = (v: unknown): unknown => (v === undefined ? undefined : structuredClone(v));

/** The same value: same types, own keys in the same order, the same numbers (-0 and NaN too), and shared with the input where zod's is. */
function same(a: unknown, b: unknown, inputObjs: Set<unknown>, at = '$'): string | null {
  if (typeof a !== typeof b) return `${at}: ${typeof a} vs ${typeof b}`;
  if (a === null || typeof a !== 'object') return Object.is(a, b) ? null : `${at}: ${String(a)} vs ${String(b)}`;
  if (b === null) return `${at}: object vs null`;
  if (inputObjs.has(a) !== inputObjs.has(b)) return `${at}: one is the input's own object, the other not`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${at}: array vs object`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${at}: prototypes differ`;
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b as object);
  if (ka.join('\u0001') !== kb.join('\u0001')) return `${at}: keys [${ka.map(String).join(', ')}] vs [${kb.map(String).join(', ')}]`;
  for (const k of ka) {
    const d = same((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k], inputObjs, `${at}.${String(k)}`);
    if (d) return d;
  }
  return null;
}
function objectsOf(v: unknown, out = new Set<unknown>()): Set<unknown> {
  if (v !== null && typeof v === 'object' && !out.has(v)) {
    out.add(v);
    for (const k of Reflect.ownKeys(v)) objectsOf((v as Record<PropertyKey, unknown>)[k], out);
  }
  return out;
}

const outcome = (f: () => unknown): { ok: true; value: unknown } | { ok: false; message: string } => {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    if (!(err instanceof RejectOp)) throw err;
    return { ok: false, message: err.message };
  }
};

describe('pushed payloads: the compiled schema (z.compile) against the schema itself', () => {
  const names = [...PUSHED_PAYLOADS.keys()];

  it('marks the schemas that dominate a push, and zod compiles each of them', () => {
    for (const n of ['order.created', 'order.status_changed', 'order.paid', 'stock.moved', 'journal.appended', 'till.payment', 'till.receipt', 'bill']) expect(names).toContain(n);
    for (const [n, s] of PUSHED_PAYLOADS) expect(compiledPayloadOf(s), n).toBeDefined();
  });

  for (const name of names) {
    it(`${name}: same verdict, same parsed value, same issues and sentence`, () => {
      const schema = PUSHED_PAYLOADS.get(name)!;
      const compiled = compiledPayloadOf(schema)!;
      const bare = schema.clone(); // not marked: parsePayload runs zod's runtime parser on it
      let accepted = 0;
      let runs = 0;
      const payload = fc
        .tuple(fc.boolean().chain((noisy) => arb(schema, noisy)), fc.nat(), anyJson, fc.constantFrom('keep', 'keep', 'keep', 'replace', 'remove', 'pad'))
        .map(([v, at, x, how]) => {
          FIXUPS[name]?.(v);
          if (how === 'keep') return v;
          const all = paths(v);
          const path = all[at % all.length]!;
          if (how === 'pad') {
            let cur: unknown = v;
            for (const k of path) cur = (cur as Record<string | number, unknown>)[k];
            return typeof cur === 'string' ? mutate(v, path, ` ${cur}\t`, false) : v;
          }
          return mutate(v, path, x, how === 'remove');
        });
      fc.assert(
        fc.property(fc.oneof({ weight: 19, arbitrary: payload }, { weight: 1, arbitrary: anyJson }), (input) => {
          runs++;
          const a = clone(input);
          const b = clone(input);
          const want = schema.safeParse(a);
          const got = compiled.safeParse(b);
          expect(got.success, JSON.stringify(input)).toBe(want.success);
          if (want.success) {
            accepted++;
            expect(same(want.data, got.data, new Set([...objectsOf(a), ...objectsOf(b)]))).toBeNull();
            // Neither parse changed its input.
            expect(same(a, clone(input), new Set())).toBeNull();
            expect(same(b, clone(input), new Set())).toBeNull();
          } else {
            expect(JSON.stringify(got.error!.issues)).toBe(JSON.stringify(want.error!.issues));
          }
          // parsePayload end to end: the marked schema (compiled) and the bare one answer alike.
          const viaMarked = outcome(() => parsePayload(schema, clone(input), 'een test'));
          const viaBare = outcome(() => parsePayload(bare, clone(input), 'een test'));
          expect(viaMarked.ok).toBe(viaBare.ok);
          if (viaMarked.ok && viaBare.ok) expect(same(viaBare.value, viaMarked.value, new Set())).toBeNull();
          else expect(viaMarked).toEqual(viaBare);
        }),
        { numRuns: fcRuns({ sqlite: 400, postgres: 200 }, 'PUSH_PAYLOAD_RUNS') },
      );
      // Not a vacuous test: valid payloads are common (and so are refused ones).
      expect(accepted, `${accepted} of ${runs} accepted`).toBeGreaterThan(runs * 0.15);
      expect(accepted, `${accepted} of ${runs} accepted`).toBeLessThan(runs * 0.95);
    });
  }
});
