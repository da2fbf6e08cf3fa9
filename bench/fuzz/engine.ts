/**
 * The OpenAPI-driven fuzzer (issue 28 point 12). It reads the document the app serves, and for every
 * operation sends requests built from that operation's own schemas: valid-ish bodies, boundary values,
 * wrong types, missing and unknown fields, huge strings, odd path parameters and query strings, and
 * bodies that are null, a list or a bare value, with the credential the operation needs (now and then
 * another one). Every answer is judged: no 5xx; every 4xx in the contract's error shape (CONTRACT §2);
 * every answer a status the operation declares, with a body its declared schema accepts.
 *
 * Deterministic: request n of a run with seed s is planned from fast-check's generator seeded with
 * (s, n), and the operations are visited round-robin in the document's order. The app's own ids
 * (UUIDv7, from the clock and randomness) differ between runs; which id the fuzzer picks from those it has
 * seen is still a function of (s, n).
 */
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { errorShapeProblems, ResponseChecker, type Problem } from './contract.js';
import { boundaryValues, ODD_STRINGS, ODD_VALUES, validArb, type GenContext, type Schema } from './schema-arbitrary.js';
import { IDENTITIES, type FuzzTarget, type IdentityName } from './target.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface Operation {
  method: string;
  path: string;
  /** `POST /api/v1/orders` */
  name: string;
  params: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }>;
  body?: { required: boolean; content: Record<string, Schema | undefined> };
  responses: Record<string, { content?: Record<string, Schema | undefined> }>;
  identity: IdentityName;
}

export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = ([...((item.parameters ?? []) as Schema[]), ...((op.parameters ?? []) as Schema[])] as Schema[])
        .filter((p) => ['path', 'query', 'header'].includes(p.in))
        .map((p) => ({ name: p.name as string, in: p.in, required: p.required === true || p.in === 'path', schema: (p.schema ?? { type: 'string' }) as Schema }));
      const content = op.requestBody?.content as Record<string, { schema?: Schema }> | undefined;
      const responses: Operation['responses'] = {};
      for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Schema>)) {
        responses[status] = { content: r.content ? Object.fromEntries(Object.entries(r.content as Record<string, { schema?: Schema }>).map(([ct, m]) => [ct, m.schema])) : undefined };
      }
      ops.push({
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        params,
        body: content ? { required: op.requestBody.required === true, content: Object.fromEntries(Object.entries(content).map(([ct, m]) => [ct, m.schema])) } : undefined,
        responses,
        identity: identityFor(doc, op, path),
      });
    }
  }
  return ops;
}

/** The credential an operation needs: from its `security` where the document says, else from where it lives. */
function identityFor(doc: Schema, op: Schema, path: string): IdentityName {
  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Schema>;
  const security = (op.security ?? doc.security) as Array<Record<string, string[]>> | undefined;
  if (Array.isArray(security) && security.length) {
    const names = security.flatMap((s) => Object.keys(s));
    if (names.length === 0) return 'none';
    const describe = (n: string) => `${n} ${JSON.stringify(schemes[n] ?? {})}`.toLowerCase();
    if (names.some((n) => /cookie|session/.test(describe(n)))) return 'admin';
    if (names.some((n) => /sync|device|appliance/.test(describe(n)))) return 'device';
    if (names.some((n) => /api.?key|partner|svc_/.test(describe(n)))) return 'partner';
  }
  if (/^\/api\/v1\/external\//.test(path)) return 'partner';
  if (/^\/api\/v1\/sync\/(hello|push|snapshot|pull|loyalty\/)/.test(path)) return 'device';
  if (/^\/api\/v1\/(public\/|payments\/(webhook|simulator)|health|setup)/.test(path)) return 'none';
  return 'admin';
}

export interface Finding {
  kind: Problem['kind'];
  operation: string;
  status: number;
  message: string;
  count: number;
  /** The first request that showed it. */
  example: { n: number; identity: string; method: string; url: string; headers: Record<string, string>; body?: string; answer: string };
}

export interface FuzzResult {
  seed: number;
  requests: number;
  ms: number;
  byOperation: Map<string, number>;
  /** Answers below 300 per operation: how often the fuzzer got past validation to the real work. */
  okByOperation: Map<string, number>;
  byStatus: Map<number, number>;
  findings: Finding[];
  /** The five slowest requests. */
  slowest: Array<{ ms: number; operation: string; url: string }>;
}

export interface FuzzOptions {
  seed: number;
  requests: number;
  /** Only these kinds of problem count as findings (default: all). */
  kinds?: Array<Problem['kind']>;
  onProgress?: (done: number, result: FuzzResult) => void;
  /** Called when a request has not been answered after 10 s. */
  onStall?: (n: number, operation: string, url: string, body: string | undefined) => void;
  /** Stop after this many ms (the requests done so far are the result). */
  timeBudgetMs?: number;
}

const singular = (seg: string) =>
  ({ betaling: 'payment', simulator: 'payment', 'api-keys': 'api_key', customer: 'customer', waste: 'waste' })[seg] ??
  seg.replace(/-/g, '_').replace(/ies$/, 'y').replace(/(?<!s)s$/, '');
const snake = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
/** encodeURIComponent, with a lone surrogate sent as the invalid UTF-8 it would be (%ED%A0%80). */
const enc = (v: string): string => {
  try {
    return encodeURIComponent(v);
  } catch {
    return v.split(/([\uD800-\uDFFF])/).map((part, i) => (i % 2 ? '%ED%A0%80' : encodeURIComponent(part))).join('');
  }
};
const isUuid = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

/** What kind of id a path parameter wants: `/floorplan/tables/{id}` → table_id, `{deliveryId}` → delivery_id. */
function idKindOf(path: string, param: string): string {
  if (param !== 'id') return snake(param);
  const segs = path.split('/');
  const i = segs.indexOf(`{${param}}`);
  return `${singular(segs[i - 1] ?? '')}_id`;
}

export class Fuzzer {
  private readonly ops: Operation[];
  /** The operations the run sends requests to (all, or `only`); the warm-up still reads every list. */
  private readonly planned: Operation[];
  private readonly checker: ResponseChecker;
  private readonly ctx: GenContext;
  private readonly bodyArbs = new Map<string, fc.Arbitrary<unknown>>();
  private readonly now: number;

  constructor(
    private readonly doc: Schema,
    private readonly target: FuzzTarget,
    /** Only these operations (`PATCH /api/v1/reservations/{id}`), e.g. to chase one finding. */
    only?: readonly string[],
  ) {
    this.ops = operationsOf(doc);
    this.planned = only?.length ? this.ops.filter((op) => only.includes(op.name)) : this.ops;
    if (this.planned.length === 0) throw new Error(`fuzz: no operation named ${only!.join(', ')}`);
    this.checker = new ResponseChecker(doc);
    this.now = target.clock.now().getTime();
    const pick = (set: Set<string> | undefined) => (set && set.size ? [...set] : undefined);
    const pickAny = (set: Set<unknown> | undefined) => (set && set.size ? [...set] : undefined);
    this.ctx = {
      resolve: (ref) => ref.replace(/^#\//, '').split('/').reduce<Schema>((n, k) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')] as Schema, doc),
      idFor: (name) => {
        const kind = name ? snake(name) : 'id';
        // Read the pool when the value is drawn, not when the arbitrary is built: it grows during the run.
        return fc.nat().map((n) => {
          const pool = pick(this.target.ids.get(kind)) ?? pick(this.target.ids.get('id'));
          return pool ? pool[n % pool.length]! : '0190b2a1-3b5c-7d6e-8f00-0123456789ab';
        });
      },
      knownFor: (name) => (name ? pickAny(this.target.known.get(name)) : undefined),
    };
  }

  get operations(): readonly Operation[] {
    return this.planned;
  }

  /** Remembers every id (and table code, phone) an answer shows, under the kind its key or place names. */
  private harvest(node: unknown, key: string | undefined, op: Operation, depth = 0): void {
    if (depth > 6 || !node || typeof node !== 'object') return;
    const add = (kind: string, v: string) => {
      if (this.target.protectedIds.has(v)) return;
      let set = this.target.ids.get(kind);
      if (!set) this.target.ids.set(kind, (set = new Set()));
      if (set.size < 500) set.add(v);
    };
    if (Array.isArray(node)) {
      for (const n of node.slice(0, 50)) this.harvest(n, key, op, depth + 1);
      return;
    }
    const obj = node as Record<string, unknown>;
    if (isUuid(obj.id)) {
      add('id', obj.id);
      if (key && key !== 'data') add(`${singular(key)}_id`, obj.id);
      else {
        const segs = op.path.split('/').filter((s) => s && !s.startsWith('{'));
        add(`${singular(segs[segs.length - 1] ?? '')}_id`, obj.id);
      }
    }
    for (const [k, v] of Object.entries(obj)) {
      if (k !== 'id' && isUuid(v)) add(snake(k), v);
      else if (k === 'public_code' && typeof v === 'string') {
        let set = this.target.known.get('tafel') as Set<unknown> | undefined;
        if (!set) this.target.known.set('tafel', (set = new Set()));
        if (set.size < 50) set.add(v);
      } else if (v && typeof v === 'object') this.harvest(v, k, op, depth + 1);
    }
  }

  /** Request n of the run: which operation, who sends it, what it sends. */
  plan(seed: number, n: number): { op: Operation; identity: IdentityName; inject: InjectOptions; body?: string } {
    const op = this.planned[n % this.planned.length]!;
    const g = fc.sample(fc.gen(), { seed: (Math.imul(seed, 0x9e3779b1) ^ n) | 0, numRuns: 1 })[0]!;
    // Choices without fast-check's bias towards small numbers and first options (values keep it: boundaries).
    const draw = <T>(arb: fc.Arbitrary<T>): T => g(() => fc.noBias(arb));
    const value_ = <T>(arb: fc.Arbitrary<T>): T => g(() => arb);
    const chance = (p: number) => draw(fc.integer({ min: 0, max: 999 })) < p * 1000;

    // Who: the operation's own credential mostly, sometimes another one (or a broken one).
    let identity: IdentityName = op.identity;
    if (chance(0.12)) identity = draw(fc.constantFrom(...IDENTITIES));
    let headers: Record<string, string> = { ...this.target.credentials(identity) };
    if (chance(0.02)) headers = draw(fc.constantFrom<Record<string, string>>({ cookie: 'ck_token=verlopen' }, { authorization: 'Bearer svc_0000' }, { authorization: 'Basic Zm9vOmJhcg==' }, { cookie: 'ck_token=' }));
    if (identity === 'none' || identity === 'partner' || identity === 'device') delete headers.cookie;

    // Path parameters.
    let url = op.path;
    for (const p of op.params.filter((x) => x.in === 'path')) {
      const odd = chance(0.2);
      let raw: string;
      if (odd) raw = draw(fc.constantFrom('abc', '0', '-1', 'x'.repeat(101), '%zz', '%2F', '...', '%00', '%C3%A9', ' ', '%20', '1e3', 'null', "'", '%3Cscript%3E', 'ZZZZZZZZ-ZZZZ-7ZZZ-8ZZZ-ZZZZZZZZZZZZ', '00000000-0000-0000-0000-000000000000'));
      else {
        const s = p.schema;
        const ctxName = s.format === 'uuid' || (typeof s.pattern === 'string' && s.pattern.includes('[89abAB]')) ? idKindOf(op.path, p.name) : p.name;
        const value = value_(validArb(s.format === 'uuid' || ctxName.endsWith('_id') ? { ...s, format: 'uuid' } : s, this.ctx, this.now, ctxName));
        raw = enc(String(value));
        if (chance(0.05)) raw = raw.toUpperCase();
      }
      if (!raw) raw = 'x';
      url = url.replace(`{${p.name}}`, raw);
    }

    // Query string.
    const query: string[] = [];
    for (const p of op.params.filter((x) => x.in === 'query')) {
      if (!p.required && !chance(0.5)) continue;
      let value: unknown;
      if (p.name === 'wait') value = draw(fc.constantFrom(0, 0, 1, -1, 'x', 99_999_999)); // a long-poll: never really wait
      else if (chance(0.25)) value = draw(fc.constantFrom(...boundaryValues(p.schema, this.ctx).filter((v) => typeof v !== 'string' || v.length < 5000), ...ODD_STRINGS));
      else value = value_(validArb(p.schema, this.ctx, this.now, p.name));
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) query.push(`${encodeURIComponent(p.name)}=${enc(typeof v === 'object' ? JSON.stringify(v) : String(v))}`);
      if (chance(0.04)) query.push(`${enc(p.name)}=${enc(String(draw(validArb(p.schema, this.ctx, this.now, p.name))))}`);
    }
    if (chance(0.05)) query.push(draw(fc.constantFrom('onbekend=1', 'limit=', '%zz=1', 'a[b]=c', '__proto__[x]=1', 'limit=1&limit=2', `q=${'x'.repeat(3000)}`)));
    if (query.length) url += `?${query.join('&')}`;

    // Header parameters (Idempotency-Key).
    for (const p of op.params.filter((x) => x.in === 'header')) {
      if (!chance(0.3)) continue;
      const v = chance(0.3) ? draw(fc.constantFrom('', 'x'.repeat(300), 'é', '\t')) : String(draw(validArb(p.schema, this.ctx, this.now, p.name)));
      if (/^[\t\x20-\x7e]*$/.test(v)) headers[p.name] = v;
    }

    // Body.
    let payload: string | undefined;
    const jsonSchema = op.body?.content['application/json'];
    const hasJson = op.body && 'application/json' in op.body.content;
    if (op.body || (op.method !== 'GET' && chance(0.15))) {
      const mode = draw(fc.integer({ min: 0, max: 99 }));
      if (hasJson && mode < 45) payload = JSON.stringify(this.validBody(op, jsonSchema, value_));
      else if (hasJson && mode < 80) payload = JSON.stringify(this.mutatedBody(op, jsonSchema, value_, draw, chance));
      else if (mode < 96) {
        payload = draw(fc.constantFrom('null', '[]', '[1]', '"1"', '1', 'true', '{}', '{', '{"a":', '', ' ', '\u0000', '{"__proto__":{"x":1}}', '[{}]', `"${'x'.repeat(200_000)}"`, '{"a":1,"a":2}'));
        headers['content-type'] = 'application/json';
      } else {
        const [ct, body] = draw(
          fc.constantFrom<[string, string]>(
            ['text/plain', '{}'],
            ['application/x-www-form-urlencoded', 'a=1&b=2'],
            ['multipart/form-data; boundary=xx', '--xx\r\nContent-Disposition: form-data; name="reason"\r\n\r\nbederf'],
            ['multipart/form-data; boundary=xx', '--xx\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\nnojpeg\r\n--xx--\r\n'],
            ['application/json; charset=latin1', '{}'],
            ['application/xml', '<a/>'],
            ['application/json', 'x'.repeat(1_200_000)],
          ),
        );
        payload = body;
        headers['content-type'] = ct;
      }
      if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      if (op.body && !op.body.required && chance(0.1)) {
        payload = undefined;
        delete headers['content-type'];
      }
    }
    if (chance(0.01)) headers.origin = 'https://kwaadaardig.example';
    return { op, identity, body: payload, inject: { method: op.method as InjectOptions['method'], url, headers, payload, remoteAddress: op.path.includes('/auth/') ? `10.1.${(n >> 8) & 255}.${n & 255}` : undefined } };
  }

  private validBody(op: Operation, schema: Schema | undefined, draw: <T>(a: fc.Arbitrary<T>) => T): unknown {
    let arb = this.bodyArbs.get(op.name);
    if (!arb) this.bodyArbs.set(op.name, (arb = validArb(schema, this.ctx, this.now)));
    return draw(arb);
  }

  /** A valid body with one thing wrong: a field missing, of the wrong type, past its bounds, or one too many. */
  private mutatedBody(op: Operation, schema: Schema | undefined, value: <T>(a: fc.Arbitrary<T>) => T, draw: <T>(a: fc.Arbitrary<T>) => T, chance: (p: number) => boolean): unknown {
    const body = this.validBody(op, schema, value);
    const resolved = schema?.$ref ? this.ctx.resolve(schema.$ref) : schema;
    if (!body || typeof body !== 'object' || Array.isArray(body) || !resolved?.properties) return draw(fc.constantFrom(...ODD_VALUES));
    const obj = { ...(body as Record<string, unknown>) };
    const props = Object.keys(resolved.properties as object);
    const key = draw(fc.constantFrom(...props));
    const what = draw(fc.integer({ min: 0, max: 3 }));
    if (what === 0) {
      const required = (resolved.required as string[] | undefined) ?? [];
      delete obj[required.length ? draw(fc.constantFrom(...required)) : key];
    } else if (what === 1) obj[key] = draw(fc.constantFrom(...ODD_VALUES));
    else if (what === 2) {
      const edges = boundaryValues(resolved.properties[key], this.ctx);
      obj[key] = edges.length ? draw(fc.constantFrom(...edges)) : null;
    } else obj[chance(0.5) ? 'onbekend_veld' : `${key}_x`] = 1;
    return obj;
  }

  /** The problems with one answer, judged against the contract and the document. */
  judge(op: Operation, res: LightMyRequestResponse): Problem[] {
    const out: Problem[] = [];
    const status = res.statusCode;
    const ct = String(res.headers['content-type'] ?? '');
    if (status >= 500) out.push({ kind: 'server-error', message: `HTTP ${status}` });
    if (status >= 400) for (const m of errorShapeProblems(status, ct, res.body)) out.push({ kind: 'error-shape', message: m });
    const declared = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    if (!declared) {
      out.push({ kind: 'undeclared-status', message: `HTTP ${status} is not among ${Object.keys(op.responses).join(', ')}` });
      return out;
    }
    if (status >= 400) return out; // the error shape is checked above, the same for every operation
    const content = declared.content;
    if (!content || !Object.keys(content).length) {
      if (res.body.length) out.push({ kind: 'response-schema', message: `HTTP ${status} declares no body, got ${res.body.length} bytes` });
      return out;
    }
    const mediaType = ct.split(';')[0]!.trim();
    const match = Object.keys(content).find((k) => k === mediaType || (k.endsWith('/*') && mediaType.startsWith(k.slice(0, -1))) || k === '*/*');
    if (!match) {
      if (status !== 204 && res.body.length) out.push({ kind: 'content-type', message: `HTTP ${status} sent ${mediaType || '(none)'}, declared ${Object.keys(content).join(', ')}` });
      return out;
    }
    const schema = content[match];
    if (schema && /json/.test(match)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        out.push({ kind: 'response-schema', message: 'body is not JSON' });
        return out;
      }
      const why = this.checker.check(schema, parsed);
      if (why) out.push({ kind: 'response-schema', message: why });
    }
    return out;
  }

  /** Harvests ids first: every list the operations' own credentials can read. */
  async warmUp(): Promise<void> {
    for (const op of this.ops.filter((o) => o.method === 'GET' && !o.params.some((p) => p.in === 'path'))) {
      const res = await this.target.inject({ method: 'GET', url: op.path, headers: this.target.credentials(op.identity) });
      if (res.statusCode === 200 && /json/.test(String(res.headers['content-type']))) this.harvest(res.json(), undefined, op);
    }
  }

  async run(opts: FuzzOptions): Promise<FuzzResult> {
    const started = Date.now();
    const result: FuzzResult = { seed: opts.seed, requests: 0, ms: 0, byOperation: new Map(), okByOperation: new Map(), byStatus: new Map(), findings: [], slowest: [] };
    const findings = new Map<string, Finding>();
    await this.warmUp();
    for (let n = 0; n < opts.requests; n++) {
      if (opts.timeBudgetMs && Date.now() - started > opts.timeBudgetMs) break;
      const { op, identity, inject, body } = this.plan(opts.seed, n);
      // A logout ends the session it is sent with: not one the rest of the run needs.
      if (op.path === '/api/v1/auth/logout' && (identity === 'admin' || identity === 'staff') && inject.headers && 'cookie' in inject.headers)
        inject.headers = { ...inject.headers, ...(await this.target.throwawaySession(identity)) };
      const t0 = Date.now();
      // A request that hangs is a finding too: say which one while it hangs.
      const stall = setTimeout(() => opts.onStall?.(n, op.name, String(inject.url), body), 10_000);
      // No answer within 30 s (a promise that never settles keeps no handle open: without this timer the
      // process would just end): a finding, and the end of the run, as the app may hold a lock now.
      let hung: ReturnType<typeof setTimeout> | undefined;
      const res = await Promise.race([
        this.target.inject(inject),
        new Promise<null>((resolve) => (hung = setTimeout(() => resolve(null), 30_000))),
      ]).finally(() => {
        clearTimeout(stall);
        clearTimeout(hung);
      });
      if (!res) {
        const key = `hang ${op.name}`;
        findings.set(key, {
          kind: 'server-error',
          operation: op.name,
          status: 0,
          message: 'no answer within 30 s (the run stops here)',
          count: 1,
          example: { n, identity, method: op.method, url: String(inject.url).slice(0, 300), headers: {}, body: body?.slice(0, 500), answer: '' },
        });
        break;
      }
      const took = Date.now() - t0;
      if (took > (result.slowest[0]?.ms ?? 0) || result.slowest.length < 5) {
        result.slowest.push({ ms: took, operation: op.name, url: String(inject.url).slice(0, 200) });
        result.slowest.sort((a, b) => b.ms - a.ms).splice(5);
      }
      result.requests++;
      result.byOperation.set(op.name, (result.byOperation.get(op.name) ?? 0) + 1);
      result.byStatus.set(res.statusCode, (result.byStatus.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode < 300) result.okByOperation.set(op.name, (result.okByOperation.get(op.name) ?? 0) + 1);
      if (res.statusCode < 300 && /json/.test(String(res.headers['content-type']))) {
        try {
          this.harvest(JSON.parse(res.body), undefined, op);
        } catch {
          /* judged below */
        }
      }
      for (const p of this.judge(op, res)) {
        if (opts.kinds && !opts.kinds.includes(p.kind)) continue;
        const key = `${p.kind} ${op.name} ${res.statusCode} ${p.message.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, '#').slice(0, 120)}`;
        const f = findings.get(key);
        if (f) f.count++;
        else
          findings.set(key, {
            kind: p.kind,
            operation: op.name,
            status: res.statusCode,
            message: p.message,
            count: 1,
            example: {
              n,
              identity,
              method: op.method,
              url: String(inject.url).slice(0, 300),
              headers: Object.fromEntries(Object.entries((inject.headers ?? {}) as Record<string, string>).filter(([k]) => k !== 'cookie' && k !== 'authorization')),
              body: body?.slice(0, 500),
              answer: res.body.slice(0, 500),
            },
          });
      }
      // A fuzzed logout (or a PIN change) ends a session of ours: log in again and go on.
      if (res.statusCode === 401 && identity !== 'none' && (identity === 'admin' || identity === 'staff') && op.path !== '/api/v1/auth/me') {
        const me = await this.target.inject({ method: 'GET', url: '/api/v1/auth/me', headers: this.target.credentials(identity) });
        if (me.statusCode === 401 && !(await this.target.refresh())) throw new Error(`request ${n} (${op.name}) ended the ${identity} session and logging in again failed`);
      }
      if (opts.onProgress && n % 1000 === 999) {
        result.findings = [...findings.values()];
        opts.onProgress(n + 1, result);
      }
    }
    result.ms = Date.now() - started;
    result.findings = [...findings.values()];
    return result;
  }
}

export function formatFindings(r: FuzzResult): string {
  const lines = [`seed ${r.seed}: ${r.requests} requests in ${(r.ms / 1000).toFixed(1)} s, ${r.findings.length} distinct findings`];
  for (const f of [...r.findings].sort((a, b) => a.kind.localeCompare(b.kind) || a.operation.localeCompare(b.operation))) {
    lines.push(`- [${f.kind}] ${f.operation} → ${f.status} (${f.count}×): ${f.message}`);
    lines.push(`    request #${f.example.n} as ${f.example.identity}: ${f.example.method} ${f.example.url} ${JSON.stringify(f.example.headers)}${f.example.body !== undefined ? ` body ${JSON.stringify(f.example.body.slice(0, 200))}` : ''}`);
    lines.push(`    answer: ${f.example.answer.slice(0, 300)}`);
  }
  return lines.join('\n');
}
