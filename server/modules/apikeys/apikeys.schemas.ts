import { z } from 'zod';
import '../../shared/validation.js';
import { API_SCOPES } from '../../shared/access.js';

/** Scopes (CONTRACT §12, server/shared/access.ts): `admin` includes `write`, which includes `read`. */
export const SCOPES = API_SCOPES;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;
export const SCOPE_RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

/** Whether a key with these scopes may do what `needed` asks. */
export const scopeAllows = (scopes: readonly Scope[], needed: Scope): boolean => scopes.some((s) => SCOPE_RANK[s] >= SCOPE_RANK[needed]);

/** `svc_` + 64 lowercase hex characters (256 bits). */
export const KEY_PATTERN = /^svc_[0-9a-f]{64}$/;

/** Reads per minute per key on the /external read endpoints (docs/partners.md). */
export const EXTERNAL_READS_PER_MINUTE = 300;

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    key_prefix: z.string().meta({ description: 'The first characters of the key (svc_1a2b3c4d), to recognise it; the key itself is never shown again.' }),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable().meta({ description: 'Last use seen by this server, to the minute (null: never used here).' }),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof ApiKey>;

export const CreatedApiKey = ApiKey.extend({
  key: z.string().meta({ description: 'The key, shown this once: `svc_` + 64 hex. Store it safely; only its hash is kept.' }),
}).meta({ id: 'CreatedApiKey' });

const ScopeList = z
  .array(Scope)
  .min(1)
  .transform((s) => [...new Set(s)].sort((a, b) => SCOPE_RANK[a] - SCOPE_RANK[b]));

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(120).meta({ description: 'Who uses the key, e.g. "Thuisbezorgd" or "Bonprinter keuken".' }),
    scopes: ScopeList.meta({ description: 'read, write and/or admin; admin includes write, write includes read.' }),
  })
  .strict();
export type CreateApiKeyInput = z.input<typeof CreateApiKeyBody>;

export const ApiKeyParams = z.object({ id: z.uuid() });

/**
 * An api_key change as it travels through sync (`api_key.created`, `api_key.revoked`): the whole row
 * without usage. Validated like an API request on every side (sync/apply-helpers parsePayload).
 */
export const ApiKeyRecord = z
  .object({
    id: z.uuid(),
    name: z.string().trim().min(1).max(120),
    key_hash: z.string().regex(/^[0-9a-f]{64}$/),
    key_prefix: z.string().regex(/^svc_[0-9a-f]{8}$/),
    scopes: z.array(Scope).min(1).max(3),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .loose();
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;
