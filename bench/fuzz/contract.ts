/**
 * What an answer must look like: the contract's error shape for every 4xx (CONTRACT §2), and the
 * response schema the OpenAPI document declares for that operation and status (ajv; the 2020-12
 * dialect, with OpenAPI 3.0's `nullable` rewritten).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Ajv, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Schema } from './schema-arbitrary.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const DOC_ID = 'https://fuzz.invalid/openapi.json';

/** CONTRACT §2: code → HTTP status. */
export const ERROR_STATUS: Record<string, number[]> = {
  VALIDATION: [400, 413, 414],
  UNAUTHORIZED: [401],
  FORBIDDEN: [403],
  NOT_FOUND: [404],
  CONFLICT: [409],
  RATE_LIMITED: [429],
  INTERNAL: [500],
};

/** Words of Fastify's, Node's, ajv's or a database's own English messages: never in front of a client. */
const LEAKS =
  /\b(Bad Request|Not Found|Unsupported Media Type|Payload Too Large|Request Entity|must (be|have|NOT|match|equal)|should|Unexpected (token|end)|querystring|Invalid (input|time|date|type)|Route [A-Z]+:|Body cannot|FST_|ERR_|SQLITE|violates|duplicate key|relation "|syntax error|TypeError|ReferenceError|Cannot read|undefined is|at [\w.]+ \(|node_modules|\/work\/|\.ts:\d+)/;

export interface Problem {
  kind: 'server-error' | 'error-shape' | 'response-schema' | 'undeclared-status' | 'content-type';
  message: string;
}

/** The contract's error body, or why not. */
export function errorShapeProblems(status: number, contentType: string, body: string): string[] {
  const out: string[] = [];
  if (!/^application\/json/.test(contentType)) return [`content-type ${contentType || '(none)'} is not JSON`];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return ['body is not JSON'];
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return ['body is not an object'];
  const b = parsed as Record<string, unknown>;
  const extra = Object.keys(b).filter((k) => !['error', 'code', 'details'].includes(k));
  if (extra.length) out.push(`unexpected keys ${extra.join(', ')}`);
  if (typeof b.error !== 'string' || !b.error.trim()) out.push('error is not a message');
  else if (LEAKS.test(b.error)) out.push(`message leaks English or internals: ${JSON.stringify(b.error.slice(0, 160))}`);
  if (typeof b.code !== 'string' || !(b.code in ERROR_STATUS)) out.push(`code ${JSON.stringify(b.code)} is not a contract code`);
  else if (!ERROR_STATUS[b.code]!.includes(status)) out.push(`code ${b.code} with HTTP ${status}`);
  if ('details' in b) {
    if (!Array.isArray(b.details)) out.push('details is not a list');
    else
      for (const d of b.details as unknown[]) {
        const dd = d as Record<string, unknown> | null;
        if (!dd || typeof dd.field !== 'string' || typeof dd.error !== 'string') {
          out.push(`details entry ${JSON.stringify(d).slice(0, 100)} is not {field, error}`);
          break;
        }
        if (LEAKS.test(dd.error)) {
          out.push(`details message leaks English or internals: ${JSON.stringify(dd.error.slice(0, 160))}`);
          break;
        }
      }
  }
  return out;
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema, `#/components/schemas/X` as `#/$defs/X`. */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => normalize(n));
  if (!node || typeof node !== 'object') return node;
  const src = node as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace(/^#\/components\/schemas\//, `${DOC_ID}#/$defs/`);
    else if (k === 'example' || k === 'examples' || k === 'nullable' || k === 'xml' || k === 'discriminator' || k === 'externalDocs') continue;
    else out[k] = normalize(v);
  }
  if (src.nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<object, ValidateFunction>();

  constructor(doc: Schema) {
    // The 2020-12 dialect also for a document that says 3.0: the schemas come from zod, which writes
    // 2020-12 keywords (prefixItems) either way, and `nullable` is rewritten below.
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    const defs: Schema = {};
    for (const [name, s] of Object.entries((doc.components?.schemas ?? {}) as Record<string, Schema>)) defs[name] = normalize(s);
    this.ajv.addSchema({ $id: DOC_ID, $defs: defs });
  }

  /** ajv's complaint about a body against a declared schema, or null when it matches. */
  check(schema: Schema, value: unknown): string | null {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.ajv.compile(normalize(schema) as Schema);
      this.cache.set(schema, validate);
    }
    if (validate(value)) return null;
    return this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 400);
  }
}
