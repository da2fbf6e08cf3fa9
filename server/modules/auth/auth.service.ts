import type { Db } from '../../db/connection.js';
import type { ChangeLog } from '../../db/change-log.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, unauthorized } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Session } from '../../shared/session.js';
import { hashPin, newToken, sha256, verifyPassword } from '../../shared/secrets.js';
import type { TenantKeys } from '../tenants/tenants.service.js';
import type { UsersService } from '../users/users.service.js';
import { authRepository } from './auth.repository.js';
import type { SessionInfo } from './auth.schemas.js';

export const IDLE_MS = 15 * 60_000;
export const ABSOLUTE_MS = 8 * 60 * 60_000;
/** Sliding is recorded at most this often per session, so reads do not each cost a write. */
export const TOUCH_EVERY_MS = 30_000;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
export const LOCKOUT_MAX_FAILURES = 5;
/** The restaurant-wide brake on PIN logins (issue 28 point 2): from this many failures in the window, from any addresses ... */
export const BRAKE_FAILURES = 20;
/** ... one PIN login per this many milliseconds for the whole restaurant. */
export const BRAKE_INTERVAL_MS = 2_000;

/** A live session (server/shared/session.ts): the auth plugin and the sockets get it through `authenticate`. */
export type AuthContext = Session;

/** How long a looked-up session is trusted without asking the database again (sessions are checked on every request). */
export const SESSION_CACHE_MS = 5_000;

export interface AuthDeps {
  db: Db;
  clock: Clock;
  changes?: ChangeLog;
  /** The restaurant by slug (the tenants module's `tenantKeys`). */
  tenants: Pick<TenantKeys, 'bySlug'>;
  /** The user behind a PIN or an e-mail (the users service's `credentials`). */
  users: UsersService['credentials'];
}

export function createAuthService(deps: AuthDeps) {
  const { db, clock } = deps;

  // Every authenticated request needs its session; a short-lived cache saves a three-table join on
  // the hot paths. Logout, and any committed change of a user (new PIN, role, archive; also when
  // synced in), drop that user's entries at once; another cloud node may trust a revoked session
  // for at most SESSION_CACHE_MS.
  const sessionCache = new Map<string, { ctx: AuthContext; fetchedAt: number }>();
  deps.changes?.on('committed', (_tenantId, records) => {
    const users = new Set(records.filter((r) => r.entity === 'user').map((r) => r.entity_id));
    if (users.size === 0) return;
    for (const [key, entry] of sessionCache) if (users.has(entry.ctx.userId)) sessionCache.delete(key);
  });

  const lockedOut = (earlier: Array<{ created_at: string }>, now: number) => {
    const releaseAt = new Date(earlier[earlier.length - LOCKOUT_MAX_FAILURES]!.created_at).getTime() + LOCKOUT_WINDOW_MS;
    const seconds = Math.max(1, Math.ceil((releaseAt - now) / 1000));
    const minutes = Math.ceil(seconds / 60);
    return new AppError('RATE_LIMITED', `Te veel mislukte inlogpogingen; probeer het over ${minutes} ${minutes === 1 ? 'minuut' : 'minuten'} opnieuw.`, {
      headers: { 'retry-after': String(seconds) },
    });
  };

  /**
   * Counts this login attempt for tenant+IP before the (slow) credential check, and refuses it when
   * 5 earlier attempts in the window are failures or still being checked. Recording first is what
   * makes the limit hold for parallel guesses too: checking first let 20 simultaneous requests all
   * pass the check before any failure was written. The attempt's row stays as the failure record;
   * a successful login removes only its own row (startSession: earlier failures keep counting, issue
   * 28 point 1), a refused attempt removes its own. An address already locked out is refused before
   * it writes anything, so its attempts never count against the restaurant's brake.
   *
   * `brake` (PIN logins, issue 28 point 2): once the restaurant has BRAKE_FAILURES failures in the
   * window from any addresses, each of its PIN logins must be the only one in the last
   * BRAKE_INTERVAL_MS; others are asked to wait that moment (429 with Retry-After of a second or
   * two). Guessing across many addresses then yields one PIN per 2 s instead of hundreds, and staff
   * are slowed, never locked out: the brake lifts 15 minutes after the failures.
   */
  async function beginAttempt(tenantId: string, ip: string, opts: { brake: boolean }): Promise<string> {
    const now = clock.now().getTime();
    const windowStart = new Date(now - LOCKOUT_WINDOW_MS).toISOString();
    const before = await authRepository.attemptsSince(db, tenantId, ip, windowStart, '');
    if (before.length >= LOCKOUT_MAX_FAILURES) throw lockedOut(before, now);
    const id = newId();
    await authRepository.insertAttempt(db, { id, tenant_id: tenantId, ip, created_at: new Date(now).toISOString() });
    const earlier = await authRepository.attemptsSince(db, tenantId, ip, windowStart, id);
    if (earlier.length >= LOCKOUT_MAX_FAILURES) {
      await authRepository.deleteAttempt(db, id);
      throw lockedOut(earlier, now);
    }
    if (opts.brake) {
      const tenantWide = await authRepository.tenantAttemptsSince(db, tenantId, windowStart, id);
      const newest = tenantWide.newest ? new Date(tenantWide.newest).getTime() : -Infinity;
      if (tenantWide.count >= BRAKE_FAILURES && newest > now - BRAKE_INTERVAL_MS) {
        await authRepository.deleteAttempt(db, id);
        const seconds = Math.max(1, Math.ceil((newest + BRAKE_INTERVAL_MS - now) / 1000));
        throw new AppError('RATE_LIMITED', `Er zijn bij dit restaurant veel verkeerde pincodes geprobeerd; probeer het over ${seconds} ${seconds === 1 ? 'seconde' : 'seconden'} opnieuw.`, {
          headers: { 'retry-after': String(seconds) },
        });
      }
    }
    return id;
  }

  async function startSession(tenantId: string, userId: string, role: 'admin' | 'staff', ip: string, attemptId: string) {
    const token = newToken();
    const now = clock.now().toISOString();
    await authRepository.startSession(db, { token_hash: sha256(token), tenant_id: tenantId, user_id: userId, role, created_at: now, last_seen_at: now, ip }, attemptId);
    const ctx = await authenticate(token);
    if (!ctx) throw new Error('session vanished right after creation');
    return { token, info: sessionInfo(ctx), ctx };
  }

  function sessionInfo(ctx: AuthContext): SessionInfo {
    const idle = new Date(new Date(ctx.lastSeenAt).getTime() + IDLE_MS);
    const absolute = new Date(new Date(ctx.createdAt).getTime() + ABSOLUTE_MS);
    return {
      tenant: { id: ctx.tenantId, slug: ctx.tenantSlug, name: ctx.tenantName },
      user: ctx.userEmail ? { id: ctx.userId, name: ctx.userName, email: ctx.userEmail } : { id: ctx.userId, name: ctx.userName },
      role: ctx.role,
      expires_at: (idle < absolute ? idle : absolute).toISOString(),
      absolute_expires_at: absolute.toISOString(),
    };
  }

  /** Token → session, applying idle and absolute expiry and sliding the idle window. */
  async function authenticate(token: string | undefined): Promise<AuthContext | null> {
    if (!token || token.length > 200) return null;
    const tokenHash = sha256(token);
    const now0 = clock.now().getTime();
    const cached = sessionCache.get(tokenHash);
    if (cached) {
      const { ctx, fetchedAt } = cached;
      const fresh = now0 - fetchedAt < SESSION_CACHE_MS && now0 >= fetchedAt;
      const alive = now0 - new Date(ctx.lastSeenAt).getTime() < TOUCH_EVERY_MS && now0 - new Date(ctx.createdAt).getTime() < ABSOLUTE_MS;
      if (fresh && alive) return ctx;
      sessionCache.delete(tokenHash);
    }
    const row = await authRepository.findSession(db, tokenHash);
    if (!row) return null;
    const now = clock.now().getTime();
    const lastSeen = new Date(row.last_seen_at).getTime();
    const expired = now - lastSeen >= IDLE_MS || now - new Date(row.created_at).getTime() >= ABSOLUTE_MS || row.user_archived_at !== null;
    if (expired) {
      await authRepository.deleteSession(db, tokenHash);
      return null;
    }
    let lastSeenAt = row.last_seen_at;
    if (now - lastSeen >= TOUCH_EVERY_MS) {
      lastSeenAt = new Date(now).toISOString();
      await authRepository.touchSession(db, tokenHash, lastSeenAt);
    }
    const ctx: AuthContext = {
      tokenHash,
      tenantId: row.tenant_id,
      tenantSlug: row.slug,
      tenantName: row.tenant_name,
      userId: row.user_id,
      userName: row.user_name,
      userEmail: row.user_email,
      role: row.role,
      createdAt: row.created_at,
      lastSeenAt,
    };
    if (sessionCache.size >= 10_000) sessionCache.clear();
    sessionCache.set(tokenHash, { ctx, fetchedAt: now });
    return ctx;
  }

  return {
    authenticate,
    sessionInfo,

    async loginStaff(input: { slug: string; pin: string }, ip: string) {
      const tenant = await deps.tenants.bySlug(input.slug);
      if (!tenant) throw unauthorized('Onbekend restaurant of onjuiste pincode.');
      const attempt = await beginAttempt(tenant.id, ip, { brake: true });
      const user = await deps.users.byPinHash(tenant.id, await hashPin(input.pin, tenant.pin_salt));
      // PIN login is for staff only (CONTRACT §3): an admin logs in with e-mail and password, also
      // when a PIN reached their row some other way (an older release, a database copy).
      if (!user || user.role !== 'staff') throw unauthorized('Onbekend restaurant of onjuiste pincode.');
      return startSession(tenant.id, user.id, 'staff', ip, attempt);
    },

    async loginAdmin(input: { slug: string; email: string; password: string }, ip: string) {
      const tenant = await deps.tenants.bySlug(input.slug);
      const fail = () => unauthorized('Onjuist e-mailadres of wachtwoord.');
      if (!tenant) {
        await verifyPassword(input.password, null);
        throw fail();
      }
      const attempt = await beginAttempt(tenant.id, ip, { brake: false });
      const user = await deps.users.byEmail(tenant.id, input.email.toLowerCase());
      const ok = await verifyPassword(input.password, user?.role === 'admin' ? user.password_hash : null);
      if (!user || user.role !== 'admin' || !ok) throw fail();
      return startSession(tenant.id, user.id, 'admin', ip, attempt);
    },

    async logout(tokenHash: string): Promise<void> {
      sessionCache.delete(tokenHash);
      await authRepository.deleteSession(db, tokenHash);
    },

    /** Housekeeping job: drop sessions and login failures that can no longer matter. */
    async purgeExpired(): Promise<number> {
      const now = clock.now().getTime();
      const n = await authRepository.deleteExpiredSessions(db, new Date(now - IDLE_MS).toISOString(), new Date(now - ABSOLUTE_MS).toISOString());
      await authRepository.deleteAttemptsBefore(db, new Date(now - LOCKOUT_WINDOW_MS).toISOString());
      return n;
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
