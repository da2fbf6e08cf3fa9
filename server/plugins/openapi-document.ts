/**
 * The OpenAPI 3.1 document as a partner needs it, from what @fastify/swagger and the zod type
 * provider generate (server/plugins/openapi.ts): a stable operationId per operation, a description
 * per answer instead of "Default Response", the real media types (HTML pages, PDF, CSV, images; every
 * error is JSON), the refusals every operation can give (400, 401, 403, 404, 413, 414, 429) in the error shape,
 * and no unused or self-identifying schema clutter. Redocly's recommended rules and a generated
 * client (openapi-typescript) check the result in test/server/openapi-quality.test.ts.
 *
 * A route says what the generator cannot see through its schema:
 * - `'x-media': { 200: ['application/json', 'text/html', 'application/pdf'] }`: every media type a status
 *   answers with (JSON keeps the zod schema; text/* is a string, anything else bytes).
 * - `operationId`: only where the derived one (method + path) would not do.
 */
import type { RouteOptions } from 'fastify';
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { ERROR_EXAMPLES, OPERATION_EXAMPLES, PARAMETER_EXAMPLES } from './openapi-examples.js';

declare module 'fastify' {
  interface FastifySchema {
    /** OpenAPI only: every media type an answer of this status can have (server/plugins/openapi-document.ts). */
    'x-media'?: Readonly<Record<number, readonly string[]>>;
  }
}

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  summary?: string;
  parameters?: Array<Json & { in: string; name: string }>;
  requestBody?: Json & { content?: Record<string, Json> };
  responses: Record<string, Json & { content?: Record<string, Json>; headers?: Record<string, Json> }>;
  'x-media'?: Record<string, string[]>;
  'x-rate-limit'?: boolean;
  /** Who may call it (server/plugins/guards.ts): public, session, admin, syncKey, api-key:<scope>. */
  'x-access'?: string;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const MUTATING = new Set(['post', 'put', 'patch', 'delete']);
const ERROR_REF = '#/components/schemas/Error';
const API_PREFIX = '/api/v1';

/** What each answer means; the error answers carry the contract's `{ error, code, details? }` with a Dutch message. */
export const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'Done; no body',
  303: 'See Other: the Location header says where to go',
  400: 'Invalid input (VALIDATION): a Dutch message, with the field and what is wrong with it in `details`',
  401: 'No valid session or key (UNAUTHORIZED)',
  403: 'Signed in, but this role or key may not do this (FORBIDDEN)',
  404: 'Not found, or not of this restaurant (NOT_FOUND)',
  409: 'Conflicts with the current state (CONFLICT); the message says what to do',
  413: 'The body is too large (VALIDATION)',
  414: 'A part of the path is longer than 100 characters (VALIDATION)',
  429: 'Too many requests (RATE_LIMITED); Retry-After says after how many seconds to try again',
  500: 'Something went wrong on the server (INTERNAL)',
  501: 'Not available on this server',
  503: 'Temporarily unavailable; Retry-After says when to try again',
};

/** Stable operationId from method and path: `POST /api/v1/orders/{id}/advance` → `postOrdersByIdAdvance`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(API_PREFIX, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return (param ? ['by', ...param[1]!.split(/[^A-Za-z0-9]+|(?=[A-Z])/)] : segment.split(/[^A-Za-z0-9]+/)).filter(Boolean);
    })
    .flat();
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase()).join('');
}

const errorContent = () => ({ 'application/json': { schema: { $ref: ERROR_REF } } });
const retryAfter = (description: string) => ({ 'Retry-After': { description, schema: { type: 'integer', minimum: 1 } } });

function isErrorResponse(response: { content?: Record<string, Json> }): boolean {
  return Object.values(response.content ?? {}).some((media) => (media.schema as Json | undefined)?.$ref === ERROR_REF);
}

/** Media types per x-media: JSON keeps the generated schema, text/* is a string, anything else bytes. */
function mediaContent(types: readonly string[], generated: Record<string, Json> | undefined): Record<string, Json> {
  const json = generated?.['application/json'] ?? Object.values(generated ?? {})[0];
  return Object.fromEntries(
    types.map((type) => {
      if (type === 'application/json') return [type, json ?? { schema: {} }];
      if (type.startsWith('text/')) return [type, { schema: { type: 'string' } }];
      return [type, { schema: { type: 'string', contentMediaType: type } }];
    }),
  );
}

function describe(status: string, response: Json & { content?: Record<string, Json> }, components: Record<string, Json>): string {
  const current = response.description;
  if (typeof current === 'string' && current && current !== 'Default Response') return current;
  const base = STATUS_DESCRIPTIONS[status] ?? `HTTP ${status}`;
  if (!/^2/.test(status)) return base;
  // 2xx: what comes back, by the described component it is.
  const ref = Object.values(response.content ?? {})
    .map((m) => (m.schema as Json | undefined)?.$ref)
    .find((r): r is string => typeof r === 'string');
  const component = ref ? components[ref.split('/').pop()!] : undefined;
  const name = ref?.split('/').pop();
  if (component && typeof component.description === 'string') return `${base}: ${component.description}`;
  return name ? `${base}: ${name}` : base;
}

function refineOperation(method: string, path: string, op: Operation, components: Record<string, Json>): void {
  op.operationId ??= operationIdOf(method, path);
  const media = op['x-media'] ?? {};
  const rateLimited = op['x-rate-limit'] !== false;
  delete op['x-media'];
  delete op['x-rate-limit'];

  const responses = op.responses;
  const hasPathParams = (op.parameters ?? []).some((p) => p.in === 'path');
  // The refusals every such operation can give, whether or not the route lists them.
  const access = op['x-access'];
  const implied: string[] = [
    '400', // a parameter or body that does not pass its schema, a body that is not JSON, a broken %-escape in the path (app.ts)
  ];
  if (hasPathParams) implied.push('404', '414'); // an unknown id or slug, or a value that makes the path match no route; a segment over 100 characters
  if (op.requestBody || MUTATING.has(method)) implied.push('413'); // over the body limit; a mutation's body is read even where the route takes none
  if (MUTATING.has(method) && rateLimited) implied.push('429'); // the mutation budget per client (CONTRACT §4)
  if (access && access !== 'public') implied.push('401'); // no valid session or key
  if (access === 'admin' || access?.startsWith('api-key:')) implied.push('403'); // staff on an admin route; a key without the scope
  // A cookie-authenticated mutation from another site's page (auth.ts: Sec-Fetch-Site / Origin) is 403.
  if (MUTATING.has(method) && (access === 'session' || access === 'admin')) implied.push('403');
  for (const status of implied) responses[status] ??= { description: '', content: errorContent() };

  for (const [status, response] of Object.entries(responses)) {
    if (media[status]) response.content = mediaContent(media[status], response.content);
    // Every error is the JSON error shape, whatever the success answer's media type (`produces`).
    else if (/^[45]/.test(status) && (isErrorResponse(response) || !response.content)) response.content = errorContent();
    response.description = describe(status, response, components);
    if (status === '429' || status === '503') response.headers = { ...retryAfter('Seconds to wait before trying again'), ...response.headers };
    if (status === '303') response.headers = { Location: { description: 'Where to go', schema: { type: 'string' } }, ...response.headers };
  }
  addExamples(op);
  // Keep the answers in status order.
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** The operation's own examples (openapi-examples.ts) for its parameters, body and answers, and for every error answer without one the status's usual one. */
function addExamples(op: Operation): void {
  const own = OPERATION_EXAMPLES[op.operationId!];
  if (own) {
    for (const p of op.parameters ?? []) {
      const example = own.parameters?.[p.name] ?? PARAMETER_EXAMPLES[p.name];
      if (example !== undefined && p.example === undefined && (p.schema as Json | undefined)?.example === undefined) p.example = example;
    }
  }
  if (own?.request !== undefined) for (const media of Object.values(op.requestBody?.content ?? {})) media.example = own.request;
  for (const [status, response] of Object.entries(op.responses)) {
    const example = own?.responses[Number(status)] ?? (isErrorResponse(response) ? ERROR_EXAMPLES[Number(status)] : undefined);
    if (example === undefined) continue;
    for (const [type, media] of Object.entries(response.content ?? {})) {
      // A string example is the page or file itself; an object one is JSON.
      if ((typeof example === 'string') === !type.endsWith('json')) media.example = example;
    }
  }
}

/**
 * Paths that differ only in a parameter's name (`GET /loyalty/customer/{phone}`, `DELETE
 * /loyalty/customer/{id}`) are one path to OpenAPI: they become one, the parameter named after both
 * (`{phone_or_id}`); each operation's parameter keeps its own schema and description.
 */
function mergeIdenticalPaths(paths: Record<string, Record<string, unknown>>): void {
  const groups = new Map<string, string[]>();
  for (const path of Object.keys(paths)) {
    const shape = path.replace(/\{[^}]+\}/g, '{}');
    groups.set(shape, [...(groups.get(shape) ?? []), path]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const names = group.map((p) => [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!));
    const merged = names[0]!.map((_, i) => [...new Set(names.map((n) => n[i]!))].join('_or_'));
    let k = 0;
    const mergedPath = group[0]!.replace(/\{[^}]+\}/g, () => `{${merged[k++]!}}`);
    const item: Record<string, unknown> = {};
    group.forEach((path, g) => {
      for (const [method, op] of Object.entries(paths[path]!)) {
        for (const p of (op as Operation).parameters ?? []) {
          const i = names[g]!.indexOf(p.name);
          if (p.in === 'path' && i >= 0) p.name = merged[i]!;
        }
        item[method] = op;
      }
      delete paths[path];
    });
    paths[mergedPath] = item;
  }
}

function collectRefs(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) collectRefs(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else collectRefs(v, out);
    }
  }
}

/** Components nothing refers to (the zod registry's `…Input` twins of output-only schemas) are left out. */
function pruneComponents(doc: Json): void {
  const components = doc.components as { schemas?: Record<string, unknown> } | undefined;
  const schemas = components?.schemas;
  if (!schemas) return;
  const reachable = new Set<string>();
  const prefix = '#/components/schemas/';
  let frontier = new Set<string>();
  collectRefs({ ...doc, components: { ...components, schemas: {} } }, frontier);
  while (frontier.size) {
    const next = new Set<string>();
    for (const ref of frontier) {
      if (!ref.startsWith(prefix) || reachable.has(ref)) continue;
      reachable.add(ref);
      collectRefs(schemas[ref.slice(prefix.length)], next);
    }
    frontier = next;
  }
  for (const name of Object.keys(schemas)) if (!reachable.has(prefix + name)) delete schemas[name];
}

/** `$schema` and the registry's fragment-only `$id` on every generated schema: the document declares the dialect once. */
function stripSchemaIds(node: unknown): void {
  if (Array.isArray(node)) for (const n of node) stripSchemaIds(n);
  else if (node && typeof node === 'object') {
    const o = node as Json;
    if (typeof o.$schema === 'string') delete o.$schema;
    if (typeof o.$id === 'string' && o.$id.startsWith('#')) delete o.$id;
    for (const v of Object.values(o)) stripSchemaIds(v);
  }
}

/**
 * The whole document, refined (see the top of this file), with the `webhooks` the composition root
 * hands in (the webhooks area's events: this plugin knows no area). Pure: also used by tests on a
 * generated document.
 */
export function refineDocument(doc: Json, webhooks: Record<string, Json> = {}): Json {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  stripSchemaIds(doc);
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Operation | undefined;
      if (op) refineOperation(method, path, op, components);
    }
  }
  mergeIdenticalPaths(paths);
  const refined: Json = { ...doc, jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema', webhooks };
  pruneComponents(refined);
  return refined;
}

/** Per route: the zod transform, plus what the route's options say about the document (rate-limit exemption). */
export const transform: SwaggerTransform = (input) => {
  const out = jsonSchemaTransform(input as Parameters<typeof jsonSchemaTransform>[0]);
  const route: RouteOptions = input.route;
  const config = route.config as { rateLimit?: unknown } | undefined;
  if (out.schema && !out.schema.hide && config?.rateLimit === false) (out.schema as Json)['x-rate-limit'] = false;
  return out;
};

export const transformObjectWith =
  (webhooks: Record<string, Json> = {}): SwaggerTransformObject =>
  (input) =>
    refineDocument(jsonSchemaTransformObject(input) as Json, webhooks);
export const transformObject = transformObjectWith();
