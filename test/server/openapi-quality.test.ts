import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../server/openapi-export.js';
import { lane } from '../helpers/db.js';
import { ROOT } from '../helpers/process.js';

/**
 * The served OpenAPI document as a partner uses it (issue 28 point 11): Redocly's lint with the
 * project's redocly.yaml (the recommended rules) finds no error, and a client generated from it with
 * openapi-typescript compiles under `tsc --strict` with types that mean something. Both are the npm
 * packages (devDependencies) a partner would use. Once, on the sqlite lane: the document does not
 * depend on the database.
 */
const run = promisify(execFile);
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { description: string; content?: Record<string, unknown> }> }>>;
};

interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

describe.runIf(lane === 'sqlite')('OpenAPI document quality (Redocly lint, generated client)', { timeout: 180_000 }, () => {
  let dir: string;
  let file: string;
  let doc: Doc;

  beforeAll(async () => {
    // The served document, as `npm run openapi` gets it (GET /api/v1/openapi.json on an app it builds).
    doc = (await openApiDocument()) as Doc;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-quality-'));
    file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    return () => fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is OpenAPI 3.1 with an operationId and a real description on every answer', () => {
    expect(doc.openapi).toBe('3.1.0');
    const ids = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        expect(op.operationId, `${method} ${p}`).toMatch(/^[a-z]+[A-Za-z0-9]*$/);
        expect(ids.has(op.operationId!), `${op.operationId} is unique`).toBe(false);
        ids.add(op.operationId!);
        for (const [status, response] of Object.entries(op.responses)) {
          expect(response.description, `${method} ${p} ${status}`).not.toMatch(/^(Default Response)?$/);
          // Every error answer is the contract's JSON error shape, also where the success is CSV, HTML or an image.
          if (/^[45]/.test(status)) expect(Object.keys(response.content ?? {}), `${method} ${p} ${status}`).toEqual(['application/json']);
        }
      }
    }
    expect(ids.size).toBeGreaterThan(100);
    // Stable ids a client's method names come from.
    expect(doc.paths['/api/v1/orders/{id}/advance']!.post!.operationId).toBe('postOrdersByIdAdvance');
    expect(doc.paths['/api/v1/external/orders']!.get!.operationId).toBe('getExternalOrders');
  });

  it('says which media types the pages, exports and images are', () => {
    const media = (p: string, status = '200') => Object.keys(doc.paths[p]!.get!.responses[status]!.content ?? {});
    expect(media('/api/v1/payments/simulator/{id}')).toEqual(['text/html']);
    expect(media('/api/v1/floorplan/qr-sheet')).toEqual(['text/html']);
    expect(media('/api/v1/public/betaling/{id}')).toEqual(['text/html']);
    expect(media('/api/v1/haccp/export')).toEqual(['application/json', 'text/html', 'application/pdf']);
    expect(media('/api/v1/shifts/export-payroll')).toEqual(['text/csv']);
    expect(media('/api/v1/waste/{id}/photo')).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(media('/api/v1/orders')).toEqual(['application/json']);
  });

  it('every partner operation (external API, public endpoints, payment callbacks) and every webhook has examples', () => {
    type Media = Record<string, { example?: unknown }>;
    const partner = Object.entries(doc.paths).filter(([p]) => /^\/api\/v1\/(external|public)\/|^\/api\/v1\/payments\/webhook$/.test(p));
    expect(partner.length).toBeGreaterThanOrEqual(17);
    for (const [p, item] of partner) {
      for (const method of HTTP_METHODS) {
        const op = item[method] as (Doc['paths'][string][string] & { requestBody?: { content: Media }; parameters?: Array<{ name: string; example?: unknown; schema?: { example?: unknown } }> }) | undefined;
        if (!op) continue;
        for (const param of op.parameters ?? []) expect(param.example ?? param.schema?.example, `${method} ${p} parameter ${param.name}`).toBeDefined();
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) expect(media.example, `${method} ${p} request ${type}`).toBeDefined();
        for (const [status, response] of Object.entries(op.responses)) {
          // Every answer with a body shows one, the errors included.
          for (const [type, media] of Object.entries((response.content ?? {}) as Media)) expect(media.example, `${method} ${p} ${status} ${type}`).toBeDefined();
        }
      }
    }
    const webhooks = (doc as unknown as { webhooks: Record<string, { post: { requestBody: { content: Media } } }> }).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual(['haccp.incident', 'loyalty.customer_created', 'order.course_fired', 'order.created', 'order.paid', 'order.status_changed', 'reservation.created']);
    for (const [type, hook] of Object.entries(webhooks)) expect(hook.post.requestBody.content['application/json']!.example, type).toMatchObject({ type });
  });

  it('Redocly lint (redocly.yaml: the recommended rules) finds no error', async () => {
    const { stdout } = await run(bin('redocly'), ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json', '--max-problems=100000'], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string; stderr?: string }) => {
      // Exit code 1 when there are errors: the JSON report is still on stdout.
      if (err.stdout) return { stdout: err.stdout };
      throw new Error(`redocly did not run: ${err.stderr ?? String(err)}`);
    });
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: RedoclyProblem[] };
    const errors = report.problems.filter((p) => p.severity === 'error');
    // An example that no longer fits its schema (no-invalid-*-examples) is one in server/plugins/openapi-examples.ts
    // to update along with the schema it shows.
    expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    // Warnings are allowed, but they do not creep up unnoticed (lower this when they go down).
    expect(report.totals.warnings).toBeLessThanOrEqual(4);
  });

  it('every operation says who may call it and lists the refusals that follow from that', () => {
    const schemes: Record<string, string> = { session: 'session', admin: 'session', syncKey: 'syncKey' };
    let guarded = 0;
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method] as (Doc['paths'][string][string] & { security?: Array<Record<string, string[]>>; 'x-access'?: string }) | undefined;
        if (!op) continue;
        const route = `${method} ${p}`;
        const access = op['x-access'];
        expect(access, route).toMatch(/^(public|session|admin|syncKey|api-key:(read|write|admin))$/);
        const statuses = Object.keys(op.responses);
        expect(statuses, route).toContain('400');
        if (access === 'public') {
          expect(op.security, route).toEqual([]);
          continue;
        }
        guarded += 1;
        expect(op.security, route).toEqual([{ [schemes[access!] ?? 'apiKey']: [] }]);
        expect(statuses, route).toContain('401');
        if (access === 'admin' || access!.startsWith('api-key:')) expect(statuses, route).toContain('403');
        if (method !== 'get' && (access === 'session' || access === 'admin')) expect(statuses, route).toContain('403');
      }
    }
    expect(guarded).toBeGreaterThan(100);
  });

  it('a client generated by openapi-typescript compiles under tsc --strict, with meaningful types', async () => {
    const api = path.join(dir, 'api.d.ts');
    await run(bin('openapi-typescript'), [file, '--output', api], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    fs.writeFileSync(
      path.join(dir, 'client.ts'),
      `import type { components, operations, paths } from './api';
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export const login: Json<operations['postAuthLogin']['requestBody']> = { slug: 'demo', pin: '1234' };
export const status: components['schemas']['Order']['status'] = 'preparing';
// @ts-expect-error: an order status the API does not have
export const wrong: components['schemas']['Order']['status'] = 'eaten';
export type Orders = Json<paths['/api/v1/external/orders']['get']['responses'][200]>;
export const firstId = (o: Orders): string | undefined => o.data[0]?.id;
export const problem: Json<operations['postOrders']['responses'][400]> = { error: 'Ongeldige invoer', code: 'VALIDATION' };
// @ts-expect-error: a code the error shape does not have
export const badCode: Json<operations['postOrders']['responses'][400]>['code'] = 'OOPS';
`,
    );
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(
      process.execPath,
      [tsc, '--strict', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--noUnusedLocals', 'client.ts', 'api.d.ts'],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: `${err.stdout ?? ''}${err.stderr ?? ''}`, failed: true }));
    expect('failed' in result ? result.stdout : '').toBe('');
  });
});
