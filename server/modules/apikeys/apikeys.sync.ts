import type { ApiKeysTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { ApiKeyRecord } from './apikeys.schemas.js';
import { toApiKeyRecord } from './apikeys.service.js';

const KINDS = new Set(['api_key.created', 'api_key.revoked', 'api_key.updated']);

/**
 * API keys replicate down (docs/partners.md, "Where keys and webhooks live"): a partner uses one key
 * against whichever node it reaches (an online platform the cloud, a printer bridge on the
 * restaurant's network the appliance, also during an outage), so every node must know every key and
 * every revocation. Only the sha256 of the key travels. Last writer wins on the row (cloud apply
 * order); revocation is sticky: once a node knows a key is revoked, a later change from a side that
 * had not heard of it yet does not bring it back. Two revocations keep the one the cloud saw first.
 * `last_used_at` lives in the local-only `api_key_usage` (per node).
 */
/** The op only revokes a key the cloud knows: everything but `revoked_at` (and its time stamp) as stored. */
function isRevocationOnly(current: ApiKeysTable | undefined, p: ApiKeyRecord): boolean {
  if (!current || p.revoked_at === null) return false;
  return p.name === current.name && p.key_hash === current.key_hash && p.key_prefix === current.key_prefix && JSON.stringify(p.scopes) === current.scopes;
}

export const apiKeysSync: EntityDescriptor[] = [
  {
    entity: 'api_key',
    merge: 'lww-fields',
    tables: ['api_keys'],
    async apply(trx, change, ctx) {
      if (!KINDS.has(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = parsePayload(ApiKeyRecord, change.payload, 'de API-sleutel');
      if (p.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor de API-sleutel.');
      const current = await trx.selectFrom('api_keys').selectAll().where('id', '=', p.id).executeTakeFirst();
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze API-sleutel hoort bij een ander restaurant.');
      // A SYNC_KEY is trusted like the restaurant's staff, not its admin (issue 17, SECURITY.md): a
      // device may only revoke a key the cloud knows (that only ever takes access away); making or
      // changing partner credentials is an admin's act in the cloud.
      const fromDevice = ctx.side === 'cloud' && ctx.mode === 'merge';
      if (fromDevice && !isRevocationOnly(current, p)) {
        throw new RejectOp('Een API-sleutel wordt alleen in de cloud aangemaakt of gewijzigd; een apparaat mag een sleutel alleen intrekken.');
      }
      const holder = await trx.selectFrom('api_keys').select('id').where('key_hash', '=', p.key_hash).where('id', '!=', p.id).executeTakeFirst();
      if (holder) throw new RejectOp('Deze API-sleutel bestaat al.');
      if (!current) await assertTenantRef(trx, 'users', p.created_by, change.tenant_id, 'De maker van de API-sleutel', ctx.batch);
      // Sticky revocation; adopting, the cloud's moment of revocation is the one both sides keep.
      const revoked_at = ctx.mode === 'adopt' ? (p.revoked_at ?? current?.revoked_at ?? null) : (current?.revoked_at ?? p.revoked_at);
      const row: ApiKeysTable = {
        id: p.id,
        tenant_id: change.tenant_id,
        name: p.name,
        key_hash: p.key_hash,
        key_prefix: p.key_prefix,
        scopes: JSON.stringify(p.scopes),
        created_by: current ? current.created_by : p.created_by,
        created_at: current ? current.created_at : p.created_at,
        updated_at: current && current.updated_at > p.updated_at ? current.updated_at : p.updated_at,
        revoked_at,
      };
      await upsertById(trx, 'api_keys', row as ApiKeysTable & Record<string, unknown>);
      return { payload: toApiKeyRecord(row) };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({ entity: 'api_key', entity_id: r.id, kind: 'api_key.updated', payload: toApiKeyRecord(r), created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
