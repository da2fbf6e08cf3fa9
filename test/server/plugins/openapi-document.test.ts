import { describe, expect, it } from 'vitest';
import { operationIdOf, refineDocument } from '../../../server/plugins/openapi-document.js';

/** The refinement of the generated document (server/plugins/openapi-document.ts), on small documents. */
const ERROR = { $ref: '#/components/schemas/Error' };
const json = (schema: unknown) => ({ 'application/json': { schema } });

function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}) {
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, paths, components: { schemas: { Error: { type: 'object' }, ...schemas } } };
}
type Op = { operationId: string; responses: Record<string, { description: string; content?: Record<string, { schema?: unknown; example?: unknown }>; headers?: object }> };
const op = (d: Record<string, unknown>, path: string, method: string) => (d.paths as Record<string, Record<string, Op>>)[path]![method]!;

describe('openapi-document', () => {
  it('derives stable operationIds from method and path', () => {
    expect(operationIdOf('post', '/api/v1/orders/{id}/advance')).toBe('postOrdersByIdAdvance');
    expect(operationIdOf('get', '/api/v1/analytics/menu-engineering')).toBe('getAnalyticsMenuEngineering');
    expect(operationIdOf('post', '/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver')).toBe('postWebhooksByIdDeliveriesByDeliveryIdRedeliver');
    expect(operationIdOf('get', '/api/v1/recipes/{product_id}')).toBe('getRecipesByProductId');
  });

  it('adds the refusals an operation can give from its input, method, rate limit and access', () => {
    const d = refineDocument(
      doc({
        '/api/v1/things/{id}': {
          patch: { 'x-access': 'admin', parameters: [{ in: 'path', name: 'id', schema: { type: 'string' } }], requestBody: { content: json({ type: 'object' }) }, responses: { 200: { description: 'Default Response', content: json({ type: 'object' }) } } },
          get: { 'x-access': 'api-key:read', parameters: [{ in: 'path', name: 'id', schema: { type: 'string' } }], responses: { 200: { description: 'Default Response', content: json({ type: 'object' }) } } },
        },
        '/api/v1/callback': { post: { 'x-access': 'public', 'x-rate-limit': false, requestBody: { content: json({ type: 'object' }) }, responses: { 200: { description: 'Default Response' } } } },
        '/api/v1/me': {
          get: { 'x-access': 'session', responses: { 200: { description: 'Default Response', content: json({ type: 'object' }) } } },
          post: { 'x-access': 'session', requestBody: { content: json({ type: 'object' }) }, responses: { 200: { description: 'Default Response', content: json({ type: 'object' }) } } },
        },
        '/api/v1/clock-in': { post: { 'x-access': 'session', responses: { 201: { description: 'Default Response', content: json({ type: 'object' }) } } } },
      }),
    );
    // A mutation that takes no body still reads one: too large is 413 (found by the fuzzer).
    expect(Object.keys(op(d, '/api/v1/clock-in', 'post').responses)).toEqual(['201', '400', '401', '403', '413', '429']);
    expect(Object.keys(op(d, '/api/v1/things/{id}', 'patch').responses)).toEqual(['200', '400', '401', '403', '404', '413', '414', '429']);
    expect(Object.keys(op(d, '/api/v1/things/{id}', 'get').responses)).toEqual(['200', '400', '401', '403', '404', '414']);
    expect(Object.keys(op(d, '/api/v1/callback', 'post').responses)).toEqual(['200', '400', '413']);
    expect(Object.keys(op(d, '/api/v1/me', 'get').responses)).toEqual(['200', '400', '401']);
    // A session's mutation: 403 when it comes from another site's page (auth.ts), also for staff routes.
    expect(Object.keys(op(d, '/api/v1/me', 'post').responses)).toEqual(['200', '400', '401', '403', '413', '429']);
    const patch = op(d, '/api/v1/things/{id}', 'patch');
    expect(patch.responses['429']!.content).toEqual({ 'application/json': { schema: ERROR, example: expect.objectContaining({ code: 'RATE_LIMITED' }) } });
    expect(patch.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(patch.responses['200']!.description).toBe('OK');
    expect(patch.responses['403']!.description).toMatch(/FORBIDDEN/);
    // The markers are read, not published.
    expect(JSON.stringify(d.paths)).not.toMatch(/x-rate-limit|x-media/);
  });

  it('x-media sets the media types; errors stay JSON whatever the route produces', () => {
    const d = refineDocument(
      doc({
        '/api/v1/export': {
          get: {
            'x-media': { 200: ['application/json', 'text/html', 'application/pdf'] },
            responses: { 200: { description: 'Default Response', content: json({ $ref: '#/components/schemas/Export' }) }, 401: { description: 'Default Response', content: { 'text/csv': { schema: ERROR } } } },
          },
        },
      }, { Export: { type: 'object', description: 'Everything' } }),
    );
    const get = op(d, '/api/v1/export', 'get');
    expect(get.responses['200']!.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Export' } },
      'text/html': { schema: { type: 'string' } },
      'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
    });
    expect(get.responses['200']!.description).toBe('OK: Everything');
    expect(Object.keys(get.responses['401']!.content!)).toEqual(['application/json']);
  });

  it('merges paths that differ only in a parameter name, and leaves out components nothing uses', () => {
    const d = refineDocument(
      doc(
        {
          '/api/v1/customer/{phone}': { get: { parameters: [{ in: 'path', name: 'phone', schema: { type: 'string' } }], responses: { 200: { description: 'x', content: json({ $ref: '#/components/schemas/Used' }) } } } },
          '/api/v1/customer/{id}': { delete: { parameters: [{ in: 'path', name: 'id', schema: { type: 'string', format: 'uuid' } }], responses: { 204: { description: 'x' } } } },
        },
        { Used: { type: 'object', properties: { a: { $ref: '#/components/schemas/Nested' } } }, Nested: { type: 'string' }, UsedInput: { type: 'object' } },
      ),
    );
    expect(Object.keys(d.paths as object)).toEqual(['/api/v1/customer/{phone_or_id}']);
    const item = (d.paths as Record<string, Record<string, { parameters: Array<{ name: string; schema: unknown }> }>>)['/api/v1/customer/{phone_or_id}']!;
    expect(item.get!.parameters[0]).toMatchObject({ name: 'phone_or_id', schema: { type: 'string' } });
    expect(item.delete!.parameters[0]).toMatchObject({ name: 'phone_or_id', schema: { format: 'uuid' } });
    // Nothing refers to UsedInput (Error: the implied 400, 404 and 414).
    expect(Object.keys((d.components as { schemas: object }).schemas).sort()).toEqual(['Error', 'Nested', 'Used']);
  });
});
