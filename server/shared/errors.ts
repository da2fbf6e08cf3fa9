/**
 * The one catalogue of coded errors (CONTRACT §2). Services throw these; the error plugin renders
 * them as `{ error, code, details? }`. Messages are plain Dutch for restaurant staff and never carry
 * internals.
 */
export type ErrorCode =
  | 'VALIDATION'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'INTERNAL';

export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  INTERNAL: 500,
};

export interface FieldError {
  field: string;
  error: string;
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: FieldError[];
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { status?: number; details?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = opts.status ?? STATUS_OF[code];
    this.details = opts.details;
    this.headers = opts.headers;
  }

  toBody(): ErrorBody {
    return this.details ? { error: this.message, code: this.code, details: this.details } : { error: this.message, code: this.code };
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

// Constructors for the common cases, so messages stay consistent across modules.
export const validation = (message: string, details?: FieldError[]) => new AppError('VALIDATION', message, { details });
export const invalidField = (field: string, message: string) =>
  new AppError('VALIDATION', `Ongeldige invoer: '${field}' ${message}`, { details: [{ field, error: `'${field}' ${message}` }] });
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} niet gevonden.`);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const unauthorized = (message = 'Je bent niet ingelogd.') => new AppError('UNAUTHORIZED', message);
export const forbidden = (message = 'Je hebt geen toegang tot deze functie.') => new AppError('FORBIDDEN', message);
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError('RATE_LIMITED', `Te veel verzoeken; probeer het over ${retryAfterSeconds} seconden opnieuw.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
export const internal = () => new AppError('INTERNAL', 'Er ging iets mis aan onze kant. Probeer het opnieuw.');
/** A request that reaches a server already shutting down (503, the client retries elsewhere or soon). */
export const shuttingDown = () =>
  new AppError('INTERNAL', 'De server wordt afgesloten; probeer het over een paar seconden opnieuw.', {
    status: 503,
    headers: { 'retry-after': '5', connection: 'close' },
  });
