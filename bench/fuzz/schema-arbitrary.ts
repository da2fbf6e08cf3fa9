/**
 * JSON Schema (as served in the OpenAPI document) → fast-check arbitraries: values the schema accepts
 * ("valid-ish": the schema cannot say that a product id must exist, so ids come from a pool of ids the
 * fuzzer has seen), and the odd values a careless or hostile client sends (wrong types, boundaries just
 * outside the range, huge strings, control characters, missing and unknown fields).
 *
 * Why not a library: json-schema-fast-check is archived and wants fast-check < 4; json-schema-faker and
 * openapi-sampler only make valid samples and bring their own random source, so runs would not replay
 * from fast-check's seed. The subset the document uses is small (type, properties/required,
 * additionalProperties, items/prefixItems, enum/const, anyOf/oneOf/allOf, nullable, min/max(Length|Items),
 * exclusiveMinimum, pattern, format uuid/date/date-time/email/uri), so it is converted here.
 */
import fc from 'fast-check';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON Schema from the served document: any shape
export type Schema = Record<string, any>;

export interface GenContext {
  /** Resolves `$ref`s of the document. */
  resolve(ref: string): Schema;
  /** An id seen earlier for this property name (`product_id`, `id` ...), or undefined. */
  idFor(name: string | undefined): fc.Arbitrary<string> | undefined;
  /** Known values for some properties (`slug`, `phone`, `unit_name`, `protocol_version` ...). */
  knownFor(name: string | undefined): unknown[] | undefined;
}

export const ODD_STRINGS: string[] = [
  '',
  ' ',
  '0',
  '-1',
  'null',
  'undefined',
  'NaN',
  'true',
  '1e309',
  '9999-12-31',
  '0000-00-00',
  '2026-02-30',
  '2026-13-01T25:61:00Z',
  '24:00',
  '../../etc/passwd',
  '%00',
  'a\u0000b',
  '\u202eevil',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  '😀'.repeat(50),
  'ÀÉÎÕÜ ß 漢字',
  '\uD800',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '0190b2a1-0000-4000-8000-000000000000', // a v4 uuid nobody has
  '0190B2A1-3B5C-7D6E-8F00-0123456789AB', // upper-case v7 nobody has
];

export const ODD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.0001,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e308,
  [],
  [null],
  {},
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  ...ODD_STRINGS,
];

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const DAY = 86_400_000;

/** Around "now" (the server's clock) ± a year, plus the edges of time. */
function dateArb(now: number): fc.Arbitrary<Date> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: -400, max: 400 }).map((d) => new Date(now + d * DAY + ((d * 7919) % DAY))) },
    { weight: 1, arbitrary: fc.constantFrom(new Date('1970-01-01T00:00:00.000Z'), new Date('2000-02-29T12:00:00.000Z'), new Date('9999-12-31T23:59:59.999Z'), new Date('0001-01-01T00:00:00.000Z')) },
  );
}

function stringArb(s: Schema, name: string | undefined, ctx: GenContext, now: number): fc.Arbitrary<unknown> {
  const minLength = typeof s.minLength === 'number' ? s.minLength : 0;
  const maxLength = typeof s.maxLength === 'number' ? s.maxLength : Math.max(minLength, 60);
  const fit = (a: fc.Arbitrary<string>) => a.filter((v) => v.length >= minLength && v.length <= maxLength);
  switch (s.format) {
    case 'uuid': {
      const seen = ctx.idFor(name);
      return seen ? fc.oneof({ weight: 6, arbitrary: seen }, { weight: 1, arbitrary: fc.uuid({ version: 7 }) }) : fc.uuid({ version: 7 });
    }
    case 'date':
      return dateArb(now).map(isoDay);
    case 'date-time':
      return dateArb(now).map((d) => d.toISOString());
    case 'email': // plain addresses (fc.emailAddress's RFC corner cases are refused by the API's stricter rule)
      return fit(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}[a-z0-9]$/), fc.constantFrom('example.com', 'restaurant.nl', 'b.nl')).map(([u, d]) => `${u.replace(/\.\.+/g, '.')}@${d}`));
    case 'uri':
      return fc.constantFrom('https://hooks.example.invalid/fuzz', 'https://partner.example.invalid/webhook?x=1', 'http://127.0.0.1:9/x', 'https://[::1]/x');
  }
  if (typeof s.pattern === 'string') {
    let re: RegExp;
    try {
      re = new RegExp(s.pattern);
    } catch {
      return fit(fc.string({ maxLength }));
    }
    // A time of day and a calendar day are kept near today; everything else straight from the pattern.
    if (s.pattern.includes('-02-29') || s.pattern === '^\\d{4}-\\d{2}-\\d{2}$' || s.pattern.startsWith('^\\d{4}-(0[1-9]')) return dateArb(now).map(isoDay);
    return fit(fc.stringMatching(re, { size: 'small' }));
  }
  return fit(
    fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, Math.max(minLength, 40)) }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, Math.max(minLength, 20)) }) },
      { weight: 1, arbitrary: fc.constant('x'.repeat(Math.min(maxLength, Math.max(minLength, 1)))) },
    ),
  );
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const exMin = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined;
  const exMax = typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : undefined;
  let min = typeof s.minimum === 'number' ? s.minimum : exMin ?? (integer ? -1_000_000 : -1e6);
  let max = typeof s.maximum === 'number' ? s.maximum : exMax ?? (integer ? 1_000_000 : 1e6);
  if (integer) {
    if (exMin !== undefined && min <= exMin) min = Math.floor(exMin) + 1;
    if (exMax !== undefined && max >= exMax) max = Math.ceil(exMax) - 1;
    min = Math.ceil(min);
    max = Math.floor(max);
    if (min > max) return fc.constant(min);
    return fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
  }
  const d = fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: exMin !== undefined, maxExcluded: exMax !== undefined })
    .map((v) => Math.round(v * 1000) / 1000)
    .filter((v) => v >= min && v <= max && (exMin === undefined || v > exMin) && (exMax === undefined || v < exMax));
  return fc.oneof({ weight: 4, arbitrary: d }, { weight: 1, arbitrary: fc.constantFrom(exMin === undefined ? min : max, exMax === undefined ? max : min) });
}

/** Values the schema accepts (ids from the pool where the name says which kind). */
export function validArb(schema: Schema | undefined, ctx: GenContext, now: number, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object') return fc.jsonValue({ maxDepth: 2 });
  if (typeof schema.$ref === 'string') return validArb(ctx.resolve(schema.$ref), ctx, now, name, depth);
  if (schema.nullable === true) {
    const { nullable: _n, ...rest } = schema;
    return fc.oneof({ weight: 5, arbitrary: validArb(rest, ctx, now, name, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  }
  // Values that mean something here (the restaurant's slug, a guest's phone, the sync protocol's version):
  // half of the time, so that a request gets past "unknown" to the work behind it.
  const known = schema.format === 'uuid' ? undefined : ctx.knownFor(name);
  if (known?.length) return fc.oneof(fc.constantFrom(...known), validArb(schema, { ...ctx, knownFor: () => undefined }, now, name, depth));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alts = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alts) && alts.length) return fc.oneof(...alts.map((a) => validArb(a, ctx, now, name, depth)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const part of schema.allOf as Schema[]) {
      const p = typeof part.$ref === 'string' ? ctx.resolve(part.$ref) : part;
      Object.assign(merged.properties, p.properties ?? {});
      merged.required.push(...((p.required as string[]) ?? []));
    }
    return validArb(merged, ctx, now, name, depth);
  }
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => validArb({ ...schema, type: t }, ctx, now, name, depth)));
  switch (type[0]) {
    case 'string':
      return stringArb(schema, name, ctx, now);
    case 'integer':
      return numberArb(schema, true);
    case 'number':
      return numberArb(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (Array.isArray(schema.prefixItems)) return fc.tuple(...(schema.prefixItems as Schema[]).map((p) => validArb(p, ctx, now, name, depth + 1)));
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, depth > 1 ? 2 : 4));
      const item = validArb(schema.items, ctx, now, singular(name), depth + 1);
      // Lists of codes and ids are sets in practice (the API refuses a code twice).
      const items = (typeof schema.items?.$ref === 'string' ? ctx.resolve(schema.items.$ref) : schema.items) as Schema | undefined;
      if (items && (Array.isArray(items.enum) || items.format === 'uuid' || 'const' in items)) {
        const distinct = Array.isArray(items.enum) ? Math.min(maxLength, items.enum.length) : maxLength;
        return fc.uniqueArray(item, { minLength: Math.min(minLength, distinct), maxLength: distinct, selector: (v) => JSON.stringify(v) });
      }
      return fc.array(item, { minLength, maxLength });
    }
    case 'object':
    default: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const keys = Object.keys(props);
      if (!keys.length) {
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), validArb(schema.additionalProperties, ctx, now, undefined, depth + 1), { maxKeys: 3 });
        return type[0] === 'object' ? fc.constant({}) : fc.jsonValue({ maxDepth: 2 });
      }
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const k of keys) model[k] = validArb(props[k], ctx, now, k, depth + 1);
      return fc.record(model, { requiredKeys: ((schema.required as string[]) ?? []).filter((k) => k in model) });
    }
  }
}

const singular = (name: string | undefined) => (name?.endsWith('_ids') ? name.slice(0, -1) : name);

/** Just outside what the schema allows, for this one value. */
export function boundaryValues(schema: Schema | undefined, ctx: GenContext): unknown[] {
  if (!schema) return [];
  if (typeof schema.$ref === 'string') return boundaryValues(ctx.resolve(schema.$ref), ctx);
  const out: unknown[] = [];
  const t = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (t === 'integer' || t === 'number') {
    if (typeof schema.minimum === 'number') out.push(schema.minimum - 1, schema.minimum - 0.5);
    if (typeof schema.maximum === 'number') out.push(schema.maximum + 1, schema.maximum + 0.5);
    if (typeof schema.exclusiveMinimum === 'number') out.push(schema.exclusiveMinimum);
    if (t === 'integer') out.push(1.5, 2 ** 53 + 2, String(schema.minimum ?? 1));
    out.push(Number.MAX_VALUE, -Number.MAX_VALUE, '12', '1e3');
  }
  if (t === 'string') {
    if (typeof schema.maxLength === 'number') out.push('y'.repeat(schema.maxLength + 1));
    if (typeof schema.minLength === 'number' && schema.minLength > 0) out.push('z'.repeat(schema.minLength - 1));
    out.push('x'.repeat(100_000), ' '.repeat(3), 'a\u0000b', 123, ['x']);
    if (Array.isArray(schema.enum)) out.push(String(schema.enum[0]).toUpperCase() + '_', ` ${String(schema.enum[0])}`);
  }
  if (t === 'array') {
    if (typeof schema.maxItems === 'number') out.push(Array.from({ length: schema.maxItems + 1 }, () => null));
    if (typeof schema.minItems === 'number' && schema.minItems > 0) out.push([]);
    out.push(Array.from({ length: 10_000 }, (_, i) => i), 'x', { 0: 'x' });
  }
  if (t === 'boolean') out.push('true', 1, 'ja');
  if (t === 'object') out.push([], 'x', 1);
  return out;
}
