/** An API key's scopes (CONTRACT §12): `admin` includes `write`, which includes `read`. */
export const API_SCOPES = ['read', 'write', 'admin'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/**
 * Who may call a route (docs/adr/0008-module-frame.md). Every route declares it in its config,
 * `{ config: { access: … } }`; server/plugins/guards.ts checks it before the body is read or validated
 * and writes it into the OpenAPI document (`security`, `x-access`).
 * - `public`: anyone (logins, health, the guest pages' API, payment providers' callbacks);
 * - `session`: a logged-in user of the restaurant, admin or staff (cookie `ck_token`);
 * - `admin`: a logged-in admin;
 * - `{ apiKey: scope }`: a partner's API key with that scope (`Authorization: Bearer svc_…`);
 * - `syncKey`: an appliance's SYNC_KEY (`Authorization: Bearer …`).
 */
export type Access = 'public' | 'session' | 'admin' | 'syncKey' | { apiKey: ApiScope };

/** The access as one word, for the OpenAPI document's `x-access` and for messages: `api-key:read`, `admin`, … */
export function accessName(access: Access): string {
  return typeof access === 'string' ? access : `api-key:${access.apiKey}`;
}
