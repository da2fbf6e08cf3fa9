import crypto from 'node:crypto';
import type { ChangeLog } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { sha256 } from '../../shared/secrets.js';
import { apiKeysRepository, type ApiKeyRow } from './apikeys.repository.js';
import { CreateApiKeyBody, KEY_PATTERN, type ApiKey, type ApiKeyRecord, type CreateApiKeyInput, type Scope } from './apikeys.schemas.js';

/** Who is calling the external API: the key, its restaurant and what it may do. */
export interface ApiKeyContext {
  keyId: string;
  tenantId: string;
  name: string;
  scopes: Scope[];
}

/** `last_used_at` is written at most this often per key and node (a busy partner polls every few seconds). */
export const USAGE_WRITE_INTERVAL_MS = 60_000;

export const parseScopes = (json: string): Scope[] => JSON.parse(json) as Scope[];

export function toApiKeyDto(row: ApiKeyRow, lastUsedAt: string | null): ApiKey {
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(row.scopes),
    key_prefix: row.key_prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: lastUsedAt,
  };
}

/** The row as it travels through sync (no usage: that stays on its node). */
export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  key_hash: row.key_hash,
  key_prefix: row.key_prefix,
  scopes: parseScopes(row.scopes),
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
  revoked_at: row.revoked_at,
});

/** A new key: `svc_` + 64 hex (256 random bits). */
export const newApiKey = (): string => `svc_${crypto.randomBytes(32).toString('hex')}`;

/** The bearer token of an `Authorization: Bearer svc_…` header, or null. */
export function bearerKey(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !KEY_PATTERN.test(m[1]!)) return null;
  return m[1]!;
}

/** Where partner credentials and webhooks are made once an appliance syncs with a cloud (a SYNC_KEY is trusted like staff, not like an admin: SECURITY.md). */
export const MANAGED_IN_CLOUD = 'Dit apparaat is met de cloud verbonden: API-sleutels en webhooks maak en wijzig je in de cloud. Intrekken en verwijderen kan hier ook.';

export function createApiKeysService(deps: { db: Db; changes: ChangeLog; clock: Clock; role?: 'local' | 'cloud' }) {
  const { db, changes, clock } = deps;
  /** When this node last wrote `api_key_usage` for a key (ms), so a busy key costs one write a minute. */
  const touched = new Map<string, number>();

  return {
    /** Creates a key; the answer is the only place the key itself ever appears. */
    async create(tenantId: string, raw: CreateApiKeyInput, createdBy: string | null): Promise<ApiKey & { key: string }> {
      const input = CreateApiKeyBody.parse(raw);
      if (deps.role === 'local' && (await apiKeysRepository.boundToCloud(db))) throw conflict(MANAGED_IN_CLOUD);
      const key = newApiKey();
      return changes.write(tenantId, async (w) => {
        const row: ApiKeyRow = {
          id: newId(),
          tenant_id: tenantId,
          name: input.name,
          key_hash: sha256(key),
          key_prefix: key.slice(0, 12),
          scopes: JSON.stringify(input.scopes),
          created_by: createdBy,
          created_at: w.now,
          updated_at: w.now,
          revoked_at: null,
        };
        await apiKeysRepository.insert(w.trx, row);
        await w.record({ entity: 'api_key', entityId: row.id, kind: 'api_key.created', payload: toApiKeyRecord(row) });
        return { ...toApiKeyDto(row, null), key };
      });
    },

    async list(tenantId: string): Promise<ApiKey[]> {
      const rows = await apiKeysRepository.list(db, tenantId);
      return rows.map(({ last_used_at, ...row }) => toApiKeyDto(row, last_used_at ?? null));
    },

    async get(tenantId: string, id: string): Promise<ApiKey> {
      const row = await apiKeysRepository.find(db, tenantId, id);
      if (!row) throw notFound('API-sleutel');
      return toApiKeyDto(row, await apiKeysRepository.lastUsed(db, id));
    },

    /** Revokes a key at once on this node (other nodes: when the change has synced). Revoking again changes nothing. */
    async revoke(tenantId: string, id: string): Promise<ApiKey> {
      return changes.write(tenantId, async (w) => {
        const row = await apiKeysRepository.find(w.trx, tenantId, id);
        if (!row) throw notFound('API-sleutel');
        if (row.revoked_at) return toApiKeyDto(row, await apiKeysRepository.lastUsed(w.trx, id));
        const next: ApiKeyRow = { ...row, revoked_at: w.now, updated_at: w.now };
        await apiKeysRepository.update(w.trx, id, { revoked_at: w.now, updated_at: w.now });
        await w.record({ entity: 'api_key', entityId: id, kind: 'api_key.revoked', payload: toApiKeyRecord(next) });
        return toApiKeyDto(next, await apiKeysRepository.lastUsed(w.trx, id));
      });
    },

    /**
     * The key behind an `Authorization` header, or null when it is missing, malformed, unknown or
     * revoked (all answered 401). Read on every request, so a revocation counts from the next one.
     * Notes the use (`last_used_at`) at most once a minute per key.
     */
    async authenticate(authorization: string | undefined): Promise<ApiKeyContext | null> {
      const key = bearerKey(authorization);
      if (!key) return null;
      const row = await apiKeysRepository.findByHash(db, sha256(key));
      if (!row || row.revoked_at) return null;
      const now = clock.now();
      const last = touched.get(row.id);
      if (last === undefined || now.getTime() - last >= USAGE_WRITE_INTERVAL_MS || now.getTime() < last) {
        touched.set(row.id, now.getTime());
        await apiKeysRepository.touch(db, row.id, row.tenant_id, now.toISOString());
      }
      return { keyId: row.id, tenantId: row.tenant_id, name: row.name, scopes: parseScopes(row.scopes) };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
