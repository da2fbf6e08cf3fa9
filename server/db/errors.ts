/** Recognises a unique-constraint violation on either engine (the database is the arbiter of uniqueness). */
export function isUniqueViolation(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Which constraint/index was violated, when the driver says (PostgreSQL names it; SQLite names the columns). */
export function violatedConstraint(err: unknown): string {
  const e = err as { constraint?: string; message?: string };
  return e.constraint ?? e.message ?? '';
}
