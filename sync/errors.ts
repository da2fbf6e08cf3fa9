/** Whether a database/driver error is worth retrying (connection lost, overload, lock or serialization failure). */
export function isTransientDbError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^08/.test(code)) return true; // connection exceptions
    if (['57P01', '57P02', '57P03', '53300', '53400', '40001', '40P01', '55P03', '57014'].includes(code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'SQLITE_BUSY', 'SQLITE_LOCKED'].includes(code)) return true;
  }
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|connection error|timeout exceeded when trying to connect|driver has already been destroyed|Cannot use a pool after calling end/i.test(message);
}
