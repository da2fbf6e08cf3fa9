/** Staff and admins of a restaurant. Composed into `Database` by ../database.ts. */

export interface UsersTable {
  id: string;
  tenant_id: string;
  name: string;
  role: 'admin' | 'staff';
  email: string | null;
  password_hash: string | null;
  pin_hash: string | null;
  hourly_wage_cents: number | null;
  job: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The users tables by name, as composed into `Database`. */
export interface UsersTables {
  users: UsersTable;
}
