import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { lane } from '../helpers/db.js';

/**
 * Issue 29 point 5: @fastify/swagger and Swagger UI are loaded at the first request for
 * /api/v1/openapi.json or /api/v1/docs, not at start (server/plugins/openapi.ts). What they serve
 * must be what they served when registered at start: the same document byte for byte, and the same
 * docs pages, files, redirects, headers and refusals. `eagerDocs` builds the app the former way.
 */
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** What a client sees of an answer (the request id and the date differ between any two answers). */
async function seen(t: TestApp, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await t.req({ method, url, headers });
  const h = { ...res.headers };
  delete h['date'];
  delete h['x-request-id'];
  delete h['keep-alive'];
  delete h['connection'];
  return { status: res.statusCode, headers: h, body: res.body };
}

describe(`OpenAPI document and Swagger UI loaded at first use (issue 29 point 5, ${lane})`, () => {
  it('the first request for /api/v1/openapi.json after a start gets the whole document, byte for byte the one an eagerly registered @fastify/swagger serves', async () => {
    const lazy = await createTestApp();
    const eager = await createTestApp({ eagerDocs: true });
    // The first request of the lazy app: nothing asked for the document before.
    const first = await lazy.req({ method: 'GET', url: '/api/v1/openapi.json' });
    const reference = await eager.req({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe(reference.headers['content-type']);
    expect(first.body.length).toBeGreaterThan(100_000);
    expect(first.body).toBe(reference.body);
    // Every path with its operations (not an empty frame): the registered /api/v1 routes are there.
    const doc = first.json() as { paths: Record<string, Record<string, unknown>>; webhooks: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    const operations = Object.values(doc.paths).reduce((n, item) => n + HTTP_METHODS.filter((m) => item[m]).length, 0);
    expect(operations).toBeGreaterThan(150);
    for (const path of ['/api/v1/health', '/api/v1/orders', '/api/v1/orders/{id}/advance', '/api/v1/sync/push', '/api/v1/external/orders']) expect(Object.keys(doc.paths)).toContain(path);
    expect(Object.keys(doc.webhooks).length).toBeGreaterThan(0);
    expect(Object.keys(doc.components.schemas)).toContain('Error');
    // Built once: the second answer is the same text (the cached document).
    expect((await lazy.req({ method: 'GET', url: '/api/v1/openapi.json' })).body).toBe(first.body);
  });

  it('the docs page, its files, its json and yaml, redirects, conditional requests and refusals are answered as before', async () => {
    const lazy = await createTestApp();
    const eager = await createTestApp({ eagerDocs: true });
    // The docs page first (before the document was ever built in the lazy app).
    const cases: Array<[string, Record<string, string>?, ('GET' | 'HEAD')?]> = [
      ['/api/v1/docs'],
      ['/api/v1/docs/'],
      ['/api/v1/docs/static/index.html'],
      ['/api/v1/docs/static/swagger-initializer.js'],
      ['/api/v1/docs/static/swagger-ui.css'],
      ['/api/v1/docs/static/swagger-ui.css', {}, 'HEAD'],
      ['/api/v1/docs/static/swagger-ui-bundle.js'],
      ['/api/v1/docs/json'],
      ['/api/v1/docs/yaml'],
      ['/api/v1/docs/static/bestaat-niet.js'],
      ['/api/v1/docs/bestaat-niet'],
      ['/api/v1/docs/static/../../../package.json'],
    ];
    for (const [url, headers, method] of cases) {
      const a = await seen(lazy, url, headers, method);
      const b = await seen(eager, url, headers, method);
      expect(a, `${method ?? 'GET'} ${url}`).toEqual(b);
    }
    const page = await seen(lazy, '/api/v1/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/swagger/i);
    // Swagger UI's own policy, made as strict as ours (security.ts swaggerCsp), and our other headers.
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const missing = await seen(lazy, '/api/v1/docs/bestaat-niet');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'NOT_FOUND', error: expect.any(String) });
    // A file asked again with its ETag: 304, as @fastify/static answers it.
    const css = await lazy.req({ method: 'GET', url: '/api/v1/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    const etag = String(css.headers.etag);
    const again = await seen(lazy, '/api/v1/docs/static/swagger-ui.css', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again).toEqual(await seen(eager, '/api/v1/docs/static/swagger-ui.css', { 'if-none-match': etag }));
    // The json the page loads is the served document.
    expect((await lazy.req({ method: 'GET', url: '/api/v1/docs/json' })).body).toBe((await lazy.req({ method: 'GET', url: '/api/v1/openapi.json' })).body);
    // Only GET (and HEAD) exist there, as before.
    const post = await lazy.req({ method: 'POST', url: '/api/v1/docs/json', payload: {} });
    expect(post.statusCode).toBe((await eager.req({ method: 'POST', url: '/api/v1/docs/json', payload: {} })).statusCode);
  });
});
