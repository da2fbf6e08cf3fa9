/**
 * Where this server runs (ARCHITECTURE §1): `local` is the appliance in the restaurant (SQLite),
 * `cloud` the multi-tenant service (PostgreSQL). server/config.ts reads it from ROLE; modules get
 * the plain value from the composition root (server/modules/index.ts) and never read the config.
 */
export type Role = 'local' | 'cloud';
