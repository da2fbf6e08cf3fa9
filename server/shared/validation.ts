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
