/** Partner API keys (0012, server/modules/apikeys) and when a node last saw them. Composed into `Database` by ../database.ts. */

/** Partner API keys (0012, server/modules/apikeys): only the sha256 of the key is kept; replicated. */
export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  /** `svc_` + the first 8 hex of the key, to recognise it in a list. */
  key_prefix: string;
  /** JSON list of scopes: read, write, admin. */
  scopes: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

/** When this node last saw an API key (0012); local-only, written at most once a minute per key. */
export interface ApiKeyUsageTable {
  key_id: string;
  tenant_id: string;
  last_used_at: string;
}

/** The apikeys tables by name, as composed into `Database`. */
export interface ApiKeysTables {
  api_keys: ApiKeysTable;
  api_key_usage: ApiKeyUsageTable;
}
