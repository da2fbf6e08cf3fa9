import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, internal, isAppError, type ErrorBody } from '../shared/errors.js';
import { describeIssues, fieldName, scanJson, summarise } from '../shared/validation.js';

const WHERE_NL: Record<string, string> = { body: '', querystring: '', params: '', headers: 'header ' };

/** Fastify's own errors (parsing, limits, routing) as catalogue errors. */
function fromFrameworkError(err: FastifyError): AppError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION', 'Ongeldige invoer: de body is geen geldige JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('VALIDATION', 'De invoer is te groot.', { status: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION', 'Ongeldige invoer: stuur de gegevens als JSON (Content-Type: application/json).');
    case 'FST_ERR_VALIDATION':
      return new AppError('VALIDATION', 'Ongeldige invoer.');
    default:
      break;
  }
  if (err.statusCode === 413) return new AppError('VALIDATION', 'De invoer is te groot.', { status: 413 });
  if (err.statusCode === 404) return new AppError('NOT_FOUND', 'Deze pagina of functie bestaat niet.');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError('VALIDATION', 'Ongeldig verzoek.', { status: 400 });
  }
  return undefined;
}

export function toAppError(err: unknown): AppError | undefined {
  if (isAppError(err)) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const context = (err as { validationContext?: string }).validationContext ?? 'body';
    const details = describeIssues(
      err.validation.map((v) => ({
        path: v.instancePath.split('/').filter(Boolean),
        message: v.message ?? 'is ongeldig.',
        code: v.keyword,
        keys: (v.params as { keys?: string[] }).keys,
      })),
    ).map((d) => (WHERE_NL[context] ? { ...d, error: `${WHERE_NL[context]}${d.error}` } : d));
    return new AppError('VALIDATION', summarise(details), { details });
  }
  if (err instanceof z.ZodError) {
    // A service validating its input with zod (`Schema.parse`) rather than throwing a coded error.
    const details = describeIssues(err.issues.map((i) => ({ path: i.path, message: i.message, code: i.code, keys: 'keys' in i ? (i.keys as string[]) : undefined })));
    return new AppError('VALIDATION', summarise(details), { details });
  }
  if (err && typeof err === 'object' && 'code' in err && typeof (err as FastifyError).code === 'string') {
    return fromFrameworkError(err as FastifyError);
  }
  return undefined;
}

/**
 * Route config: top-level body fields the route checks for NUL bytes itself (a sync push refuses
 * each op on its own, so one bad op does not turn the whole push into a 400 that is sent again forever).
 */
export interface NulCheckConfig {
  nulCheckSkip?: readonly string[];
}

/**
 * A NUL byte anywhere in a request's JSON body, query or path parameters is a VALIDATION error (400),
 * on both databases, for every route, before any route sees the request: PostgreSQL cannot store it
 * in text (it was a 500 there) and SQLite would store what the other database refuses.
 */
export function nulByteRefusal(request: FastifyRequest): AppError | undefined {
  const skip = (request.routeOptions?.config as NulCheckConfig | undefined)?.nulCheckSkip;
  const parts: Array<[unknown, readonly string[] | undefined]> = [[request.body, skip], [request.query, undefined], [request.params, undefined]];
  for (const [value, skipKeys] of parts) {
    const issue = scanJson(value, { skip: skipKeys });
    if (!issue) continue;
    const field = fieldName(issue.path) || '(body)';
    const error = `'${field}' bevat een ongeldig teken (een NUL-byte, \\u0000).`;
    return new AppError('VALIDATION', `Ongeldige invoer: ${error.replace(/\.$/, '')}.`, { details: [{ field, error }] });
  }
  return undefined;
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('preValidation', (request, _reply, done) => {
    const refusal = nulByteRefusal(request);
    if (refusal) return done(refusal);
    done();
  });

  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    let appError = toAppError(err);
    if (!appError || (appError.code === 'INTERNAL' && appError.statusCode === 500)) {
      // A bug or an outage: log everything, tell the client nothing internal. (A 503 made on
      // purpose, e.g. `shuttingDown` or sync's `unavailable`, keeps its own message and Retry-After.)
      request.log.error({ err }, isResponseSerializationError(err) ? 'response did not match its schema' : 'unhandled error');
      appError = internal();
    } else if (appError.statusCode >= 500) {
      request.log.error({ err }, 'server error');
    }
    if (appError.headers) reply.headers(appError.headers);
    const body: ErrorBody = appError.toBody();
    // Serialised here, not by the route's response schema: an error body is always this shape, also
    // where a route declares another body for the same status (e.g. /health's 503).
    return reply.code(appError.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(body));
  });

  app.setNotFoundHandler((request, reply) => {
    const body: ErrorBody = { error: 'Deze pagina of functie bestaat niet.', code: 'NOT_FOUND' };
    return reply.code(404).type('application/json; charset=utf-8').send(body);
  });
}

export default fp(errorsPlugin, { name: 'errors' });
