/** Sessions and the login lock-out (server/modules/auth). Composed into `Database` by ../database.ts. */

export interface SessionsTable {
  token_hash: string;
  tenant_id: string;
  user_id: string;
  role: 'admin' | 'staff';
  created_at: string;
  last_seen_at: string;
  ip: string | null;
}

export interface LoginFailuresTable {
  id: string;
  tenant_id: string;
  ip: string;
  created_at: string;
}

/** The auth tables by name, as composed into `Database`. */
export interface AuthTables {
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
}
