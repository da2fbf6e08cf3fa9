import { LRUCache } from 'lru-cache';
import type { ChangeLog } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import { claimMeta } from '../../db/meta.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { newPinSalt } from '../../shared/secrets.js';
import type { UsersService } from '../users/users.service.js';
import type { User } from '../users/users.schemas.js';
import { tenantsRepository, type TenantRow } from './tenants.repository.js';
import {
  DEFAULT_SETTINGS,
  SettingsValues,
  SetupBody,
  type Settings,
  type SettingsPatch,
  type SetupBody as SetupInput,
} from './tenants.schemas.js';

export interface TenantInfo {
  id: string;
  slug: string;
  name: string;
}

export const toTenantInfo = (t: TenantRow): TenantInfo => ({ id: t.id, slug: t.slug, name: t.name });

/** Stored settings merged over the defaults; unknown stored keys (from a newer peer) are kept but not shown. */
export function settingsOf(t: TenantRow): Settings {
  const stored = JSON.parse(t.settings || '{}') as Record<string, unknown>;
  const merged = { ...DEFAULT_SETTINGS } as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_SETTINGS)) {
    if (key in stored) {
      const ok = SettingsValues.shape[key as keyof SettingsValues].safeParse(stored[key]);
      if (ok.success) merged[key] = ok.data;
    }
  }
  return { name: t.name, ...(merged as SettingsValues) };
}

const slugTaken = () => conflict('Deze restaurantnaam (slug) is al in gebruik.');
export const alreadySetUp = () => conflict('Dit apparaat is al ingesteld.');
/** meta key claimed, in the same transaction, by the one first-run setup an appliance gets. */
const FIRST_RUN_KEY = 'first_run_setup_at';

/** A restaurant's id and PIN salt: what logging in and hashing a PIN need of it. */
export interface TenantKey {
  id: string;
  pin_salt: string;
}

/** The tenant reads of the modules the tenants service is built on (users, auth), handed to them by the composition root. */
export interface TenantKeys {
  bySlug(slug: string): Promise<TenantKey | undefined>;
  byId(id: string): Promise<TenantKey | undefined>;
}

/**
 * Reads for the modules below this one: the tenants service is built on the users service, so users
 * and auth cannot take it; they get these instead (a module never reads another's repository).
 */
export function tenantKeys(db: Executor): TenantKeys {
  const key = (t: TenantRow | undefined): TenantKey | undefined => (t ? { id: t.id, pin_salt: t.pin_salt } : undefined);
  return {
    bySlug: async (slug) => key(await tenantsRepository.findBySlug(db, slug)),
    byId: async (id) => key(await tenantsRepository.findById(db, id)),
  };
}

export function createTenantsService(deps: { db: Db; changes: ChangeLog; users: UsersService }) {
  const { db, changes, users } = deps;

  // Settings are read on hot paths (every order needs the time zone): cached, dropped as soon as
  // this node commits a tenant change, and on the other cloud nodes when its notice arrives
  // (`tenant.changed`, through the cluster bus); the TTL bounds staleness when a notice is lost.
  // 5 minutes, as the devices cache (sync/cloud.ts DEVICES_CACHE_MS): a restaurant with a web order
  // every few minutes (30 an hour on a busy evening, bench/README.md "Cloud capacity") finds them
  // warm; with 60 s nearly every one of its orders read them again.
  const SETTINGS_TTL_MS = 5 * 60_000;
  const settingsCache = new Map<string, { at: number; settings: Settings }>();
  // Public pages and orders find their restaurant by slug (every guest's request): the row cached
  // per slug (at most SLUG_CACHE_MAX, for SETTINGS_TTL_MS; unknown slugs are not cached), forgotten
  // like the settings. A read that began before a change is not cached (`generation`).
  const SLUG_CACHE_MAX = 10_000;
  const bySlugCache = new LRUCache<string, TenantRow>({ max: SLUG_CACHE_MAX, ttl: SETTINGS_TTL_MS });
  let generation = 0;
  const forget = (tenantId: string) => {
    generation++;
    settingsCache.delete(tenantId);
    for (const [slug, row] of bySlugCache.entries()) if (row.id === tenantId) bySlugCache.delete(slug);
  };
  changes.on('committed', (tenantId, records) => {
    if (!records.some((r) => r.entity === 'tenant')) return;
    forget(tenantId);
    changes.announce('tenant.changed', tenantId);
  });
  changes.on('notice', (topic, data, local) => {
    if (topic === 'tenant.changed' && !local) forget(data);
  });

  async function getSettings(tenantId: string): Promise<Settings> {
    const t = await tenantsRepository.findById(db, tenantId);
    if (!t) throw notFound('Restaurant');
    return settingsOf(t);
  }

  return {
    /** Settings for hot paths, possibly up to SETTINGS_TTL_MS old when another cloud node changed them and its notice was lost. */
    async cachedSettings(tenantId: string): Promise<Settings> {
      const hit = settingsCache.get(tenantId);
      if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.settings;
      const settings = await getSettings(tenantId);
      settingsCache.set(tenantId, { at: Date.now(), settings });
      return settings;
    },

    /**
     * `cachedSettings` for a caller inside a transaction: a miss is read through `exec`, the caller's
     * transaction (on the appliance's single SQLite connection a read beside the open transaction
     * would wait for it forever).
     */
    async cachedSettingsIn(exec: Executor, tenantId: string): Promise<Settings> {
      const hit = settingsCache.get(tenantId);
      if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.settings;
      const t = await tenantsRepository.findById(exec, tenantId);
      if (!t) throw notFound('Restaurant');
      const settings = settingsOf(t);
      settingsCache.set(tenantId, { at: Date.now(), settings });
      return settings;
    },

    async bySlug(slug: string): Promise<TenantRow | undefined> {
      return tenantsRepository.findBySlug(db, slug);
    },

    /** `bySlug` for the public pages' hot paths: possibly up to SETTINGS_TTL_MS old when a change's notice from another cloud node was lost. */
    async cachedBySlug(slug: string): Promise<TenantRow | undefined> {
      const hit = bySlugCache.get(slug);
      if (hit) return hit;
      const at = generation;
      const row = await tenantsRepository.findBySlug(db, slug);
      if (row && at === generation) {
        bySlugCache.set(slug, row);
        // The same row holds the settings: the order that follows (cachedSettings) needs no read of its own.
        if (!settingsCache.has(row.id)) settingsCache.set(row.id, { at: Date.now(), settings: settingsOf(row) });
      }
      return row;
    },

    /** `exec`: a caller's transaction (e.g. a change-log consumer's, which must not wait for another connection). */
    async byId(id: string, exec: Executor = db): Promise<TenantRow | undefined> {
      return tenantsRepository.findById(exec, id);
    },

    async count(): Promise<number> {
      return tenantsRepository.count(db);
    },

    /**
     * A new restaurant with its first admin, in one transaction. `firstRun`: the appliance's
     * first-run setup, which may happen once: the transaction claims a meta row and checks that no
     * restaurant exists, so of several concurrent setups exactly one commits (the rest: CONFLICT).
     */
    async create(raw: SetupInput, opts: { firstRun?: boolean } = {}): Promise<{ tenant: TenantInfo; admin: User }> {
      const input = SetupBody.parse(raw);
      if (await tenantsRepository.findBySlug(db, input.slug)) throw slugTaken();
      const id = newId();
      const pinSalt = newPinSalt();
      const prepared = await users.prepare(id, pinSalt, {
        name: input.admin_name ?? 'Beheerder',
        role: 'admin',
        email: input.admin_email,
        password: input.admin_password,
      });
      try {
        return await changes.write(id, async (w) => {
          if (opts.firstRun) {
            if (!(await claimMeta(w.trx, FIRST_RUN_KEY, w.now))) throw alreadySetUp();
            if ((await tenantsRepository.count(w.trx)) > 0) throw alreadySetUp();
          }
          const settings = input.timezone ? { timezone: input.timezone } : {};
          const row: TenantRow = {
            id,
            slug: input.slug,
            name: input.name,
            settings: JSON.stringify(settings),
            pin_salt: pinSalt,
            created_at: w.now,
            updated_at: w.now,
            archived_at: null,
          };
          await tenantsRepository.insert(w.trx, row);
          await w.record({ entity: 'tenant', entityId: id, kind: 'tenant.created', payload: { ...toTenantInfo(row), pin_salt: pinSalt, settings } });
          const admin = await users.insertInTx(w, prepared);
          return { tenant: toTenantInfo(row), admin };
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw slugTaken();
        throw err;
      }
    },

    getSettings,

    /** Field-wise patch; the change log carries only the fields that changed (last-writer-wins per field). */
    async patchSettings(tenantId: string, patch: SettingsPatch): Promise<Settings> {
      // An empty patch changes nothing: no write, no change-log entry.
      if (Object.keys(patch).length === 0) return this.getSettings(tenantId);
      return changes.write(tenantId, async (w) => {
        const t = await tenantsRepository.findById(w.trx, tenantId);
        if (!t) throw notFound('Restaurant');
        const { name, ...values } = patch;
        const stored = { ...(JSON.parse(t.settings || '{}') as Record<string, unknown>), ...values };
        const next: TenantRow = { ...t, name: name ?? t.name, settings: JSON.stringify(stored), updated_at: w.now };
        await tenantsRepository.update(w.trx, tenantId, { name: next.name, settings: next.settings, updated_at: w.now });
        await w.record({ entity: 'tenant', entityId: tenantId, kind: 'settings.updated', payload: { fields: patch, settings: settingsOf(next) } });
        return settingsOf(next);
      });
    },
  };
}

export type TenantsService = ReturnType<typeof createTenantsService>;
