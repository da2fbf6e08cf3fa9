/** A user's role in a restaurant (CONTRACT §3): admins manage, staff work the floor. */
export type UserRole = 'admin' | 'staff';

/**
 * A logged-in session as the infrastructure sees it (server/plugins/auth.ts puts it on
 * `request.auth`; sockets connect with it): who, in which restaurant, with which role, since when.
 * The auth module (server/modules/auth) makes and checks them and hands the lookup to the plugins.
 */
export interface Session {
  tokenHash: string;
  tenantId: string;
  tenantSlug: string;
  tenantName: string;
  userId: string;
  userName: string;
  userEmail: string | null;
  role: UserRole;
  createdAt: string;
  lastSeenAt: string;
}

/** Token (the cookie's value) → live session, or null when unknown, expired or its user archived. */
export type SessionLookup = (token: string | undefined) => Promise<Session | null>;
