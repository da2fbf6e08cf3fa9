import { z } from 'zod';
import type { FieldError } from './errors.js';

/**
 * Plain Dutch validation messages for every zod schema in the service. The message is the
 * predicate ("moet een getal zijn."); `describeIssues` prefixes the field name, so the same
 * text serves `details` and the top-level `error`.
 */
const TYPE_NL: Record<string, string> = {
  string: 'tekst',
  number: 'een getal',
  int: 'een geheel getal',
  boolean: 'waar of onwaar (true/false)',
  array: 'een lijst',
  object: 'een object',
  date: 'een datum',
  bigint: 'een geheel getal',
  null: 'leeg (null)',
};

const FORMAT_NL: Record<string, string> = {
  email: 'een geldig e-mailadres',
  uuid: 'een geldige id',
  uuidv7: 'een geldige id',
  guid: 'een geldige id',
  url: 'een geldig webadres (URL)',
  datetime: 'een geldig tijdstip (ISO-8601, bijvoorbeeld 2026-05-01T18:30:00Z)',
  date: 'een geldige datum (JJJJ-MM-DD)',
  time: 'een geldige tijd (UU:MM)',
};

function sizeWord(origin: string | undefined, n: number | bigint): string {
  switch (origin) {
    case 'string':
      return `${n} ${Number(n) === 1 ? 'teken' : 'tekens'}`;
    case 'array':
    case 'set':
      return `${n} ${Number(n) === 1 ? 'item' : 'items'}`;
    default:
      return String(n);
  }
}

function predicate(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is verplicht.';
      const expected = TYPE_NL[issue.expected] ?? issue.expected;
      return `moet ${expected} zijn.`;
    }
    case 'too_small': {
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'mag niet leeg zijn.';
      if (issue.origin === 'array' && Number(issue.minimum) === 1) return 'moet minstens één item bevatten.';
      const op = issue.inclusive === false ? 'groter dan' : 'minimaal';
      return `moet ${op} ${sizeWord(issue.origin, issue.minimum as number)} ${issue.origin === 'string' || issue.origin === 'array' ? 'lang zijn' : 'zijn'}.`;
    }
    case 'too_big': {
      const op = issue.inclusive === false ? 'kleiner dan' : 'maximaal';
      return `mag ${op} ${sizeWord(issue.origin, issue.maximum as number)} ${issue.origin === 'string' || issue.origin === 'array' ? 'lang zijn' : 'zijn'}.`;
    }
    case 'invalid_format': {
      const f = FORMAT_NL[issue.format];
      return f ? `moet ${f} zijn.` : 'heeft een ongeldig formaat.';
    }
    case 'invalid_value':
      return `moet een van deze waarden zijn: ${issue.values.map((v) => String(v)).join(', ')}.`;
    case 'not_multiple_of':
      return `moet een veelvoud van ${String(issue.divisor)} zijn.`;
    case 'unrecognized_keys':
      return `bevat onbekende velden: ${issue.keys.join(', ')}.`;
    case 'invalid_union':
      return 'heeft een ongeldige waarde.';
    default:
      return undefined;
  }
}

let installed = false;
/** Installs the Dutch messages globally; idempotent. */
export function installDutchMessages(): void {
  if (installed) return;
  installed = true;
  z.config({ customError: (issue) => predicate(issue) });
}
installDutchMessages();

export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => String(p)).join('.');
}

/** A list of zod-like issues → `details` entries with the field named in each sentence. */
export function describeIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string; keys?: string[] }>,
  prefix: ReadonlyArray<PropertyKey> = [],
): FieldError[] {
  return issues.map((i) => {
    const path = [...prefix, ...i.path];
    const field = fieldName(path);
    if (i.code === 'unrecognized_keys' && i.keys) {
      const keys = i.keys.map((k) => fieldName([...path, k]));
      return { field: keys.join(', '), error: `Onbekend veld: ${keys.map((k) => `'${k}'`).join(', ')}.` };
    }
    const sentence = field ? `'${field}' ${i.message}` : `De invoer ${i.message}`;
    return { field: field || '(body)', error: sentence };
  });
}

export function summarise(details: FieldError[]): string {
  const first = details[0];
  if (!first) return 'Ongeldige invoer.';
  const more = details.length > 1 ? ` (en nog ${details.length - 1} ${details.length === 2 ? 'probleem' : 'problemen'})` : '';
  return `Ongeldige invoer: ${first.error.replace(/\.$/, '')}${more}.`;
}

/** What `scanJson` found: a NUL byte (in a string or an object key), a too long string, or too deep nesting. */
export interface JsonIssue {
  kind: 'nul' | 'long' | 'deep';
  path: Array<string | number>;
}

/**
 * Walks parsed JSON (iteratively: no recursion limit to hit) and reports the first NUL byte in a
 * string or an object key (PostgreSQL cannot store one in text: it was a 500 there, and a stored one
 * is refused by every tool that reads the row later), the first string longer than `maxString`
 * characters, or nesting deeper than `maxDepth`. `skip`: top-level keys not to look into (a route
 * that checks them itself, e.g. the ops of a sync push, each refused on its own).
 */
export function scanJson(value: unknown, opts: { maxString?: number; maxDepth?: number; skip?: readonly string[] } = {}): JsonIssue | null {
  const maxString = opts.maxString ?? Infinity;
  const maxDepth = opts.maxDepth ?? Infinity;
  // Per value, its key and its parent's frame instead of a copy of its path (made only for the
  // issue found): every sync op and request body is walked (bench/README.md "Sync catch-up,
  // session 13"). Numbers, booleans and null are never pushed: nothing to find in them. The walk
  // and the issue it reports first are those of a plain depth-first walk over every value.
  const stack: ScanFrame[] = [{ v: value, key: 0, up: null, depth: 0 }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    const v = f.v;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { kind: 'nul', path: pathOf(f) };
      if (v.length > maxString) return { kind: 'long', path: pathOf(f) };
      continue;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    if (f.depth >= maxDepth) return { kind: 'deep', path: pathOf(f) };
    const depth = f.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const c: unknown = v[i];
        if (typeof c === 'string' || (typeof c === 'object' && c !== null)) stack.push({ v: c, key: i, up: f, depth });
      }
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (k.includes('\u0000')) return { kind: 'nul', path: [...pathOf(f), k.replaceAll('\u0000', '\\u0000')] };
      if (k.length > maxString) return { kind: 'long', path: pathOf(f) };
      if (f.depth === 0 && opts.skip?.includes(k)) continue;
      const c = (v as Record<string, unknown>)[k];
      if (typeof c === 'string' || (typeof c === 'object' && c !== null)) stack.push({ v: c, key: k, up: f, depth });
    }
  }
  return null;
}

/** A value `scanJson` is to look at: its key in its parent (`up`; null for the top) and its depth. */
interface ScanFrame {
  v: unknown;
  key: string | number;
  up: ScanFrame | null;
  depth: number;
}

/** The path of a frame, from the top. */
function pathOf(f: ScanFrame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let x: ScanFrame | null = f; x !== null && x.up !== null; x = x.up) path.push(x.key);
  return path.reverse();
}
