import { z } from 'zod';
import './validation.js';

/** zod atoms shared by every module: the contract's conventions in one place (CONTRACT §1). */
export const Id = z.uuid();
export const IsoDateTime = z.string();
export const Cents = z.number().int().min(0).max(100_000_000);

export const ErrorResponse = z
  .object({
    error: z.string(),
    code: z.enum(['VALIDATION', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'INTERNAL']),
    details: z.array(z.object({ field: z.string(), error: z.string() })).optional(),
  })
  .meta({ id: 'Error', description: 'Every error: a Dutch message and a code (CONTRACT §2).' });

/** Query integers arrive as strings; out-of-range or non-numeric is VALIDATION, never clamped. */
const queryInt = (min: number, max: number, dflt: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: 'moet een geheel getal zijn.' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? dflt);

export const Limit = queryInt(1, 200, 50);
export const Offset = queryInt(0, 1_000_000_000, 0);
export const Days = (dflt = 30, max = 365) => queryInt(1, max, dflt);
export const Lookback = queryInt(1, 365, 28);
export const LeadDays = queryInt(0, 60, 2);

export const Pagination = z.object({ limit: Limit, offset: Offset });

/**
 * Response schemas of answers the server always builds itself, field by field in the schema's own
 * order, with one mapping function (an `Order` is always `toOrderDto`'s): server/app.ts serializes
 * them with one `JSON.stringify` instead of zod parsing the answer first (the kitchen board's 40
 * orders on every reconnect; bench/README.md "The order path, session 11"), after a plain check made
 * from the schema (shared/shape-check.ts: exactly its fields, in its order, of its types), in
 * production too (session 12). Under the test runner the answer is also parsed by zod and must come
 * out unchanged (same fields, same order, nothing stripped or defaulted), and the plain check must
 * agree with zod, so every test that reaches such a route checks the contract and the check.
 * A list or page of such items is built by the server too.
 */
const BUILT = new WeakSet<object>();
export function builtByServer<T extends z.ZodType>(schema: T): T {
  BUILT.add(schema);
  return schema;
}
export const isBuiltByServer = (schema: unknown): schema is z.ZodType => typeof schema === 'object' && schema !== null && BUILT.has(schema);

export const listOf = <T extends z.ZodType>(item: T) => {
  const list = z.object({ data: z.array(item) });
  return BUILT.has(item) ? builtByServer(list) : list;
};
export const pageOf = <T extends z.ZodType>(item: T) => {
  const page = z.object({ data: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
  return BUILT.has(item) ? builtByServer(page) : page;
};

/** Standard error responses for the OpenAPI description. */
export const errors = (...codes: Array<400 | 401 | 403 | 404 | 409 | 413 | 429>) =>
  Object.fromEntries(codes.map((c) => [c, ErrorResponse])) as Record<number, typeof ErrorResponse>;
