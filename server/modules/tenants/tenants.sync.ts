import type { TenantsTable } from '../../db/database.js';
import { parsePayload } from '../../../sync/apply-helpers.js';
import { RejectOp, type EntityDescriptor } from '../../../sync/types.js';
import { SettingsPatch } from './tenants.schemas.js';
import { settingsOf } from './tenants.service.js';

/**
 * The restaurant row and its settings: last-writer-wins per field in cloud apply order.
 * `settings.updated` carries `fields` (the patch) and is merged field by field on both sides, so
 * two offline edits of different settings both survive; the same field edited twice ends with the
 * one the cloud applied last. Fields this version does not know are kept in the stored JSON.
 */
export const tenantsSync: EntityDescriptor[] = [
  {
    entity: 'tenant',
    merge: 'lww-fields',
    tables: ['tenants'],
    async apply(trx, change, ctx) {
      if (change.entity_id !== change.tenant_id) throw new RejectOp('Dit restaurant hoort niet bij dit apparaat.');
      if (change.kind === 'tenant.created') {
        if (ctx.side === 'cloud') throw new RejectOp('Een restaurant wordt alleen in de cloud aangemaakt.');
        const p = change.payload as { id: string; slug: string; name: string; pin_salt: string; settings?: Record<string, unknown>; updated_at?: string; archived_at?: string | null };
        const exists = await trx.selectFrom('tenants').select('id').where('id', '=', change.entity_id).executeTakeFirst();
        if (!exists) {
          await trx
            .insertInto('tenants')
            .values({
              id: change.entity_id,
              slug: p.slug,
              name: p.name,
              pin_salt: p.pin_salt,
              settings: JSON.stringify(p.settings ?? {}),
              created_at: change.created_at,
              updated_at: p.updated_at ?? change.created_at,
              archived_at: p.archived_at ?? null,
            })
            .execute();
        }
        return;
      }
      if (change.kind === 'settings.updated') {
        const p = change.payload as { fields?: Record<string, unknown> };
        if (!p || typeof p.fields !== 'object' || p.fields === null) throw new RejectOp('Ongeldige instellingenwijziging.');
        // From a device: the same rules as PATCH /settings (known fields, their ranges and sizes). The
        // cloud is never older than an appliance it accepts (the version window), so every field an
        // appliance may send is one it knows. An appliance adopting the cloud's change keeps fields it
        // does not know yet (a newer cloud).
        if (ctx.side === 'cloud') p.fields = parsePayload(SettingsPatch, p.fields, 'de instellingen');
        const row = await trx.selectFrom('tenants').selectAll().where('id', '=', change.entity_id).executeTakeFirst();
        if (!row) throw new RejectOp('Restaurant niet gevonden.');
        const { name, ...values } = p.fields;
        const stored = { ...(JSON.parse(row.settings || '{}') as Record<string, unknown>), ...values };
        const next: TenantsTable = {
          ...row,
          name: typeof name === 'string' && name.length > 0 ? name : row.name,
          settings: JSON.stringify(stored),
          updated_at: change.created_at,
        };
        await trx.updateTable('tenants').set({ name: next.name, settings: next.settings, updated_at: next.updated_at }).where('id', '=', row.id).execute();
        return { payload: { fields: p.fields, settings: settingsOf(next) } };
      }
      throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
    },
    async snapshot(db, tenantId, after) {
      const row = after === null ? await db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst() : undefined;
      if (!row) return { changes: [], next: null };
      const { id, slug, name, pin_salt, updated_at, archived_at } = row;
      const payload = { id, slug, name, pin_salt, settings: JSON.parse(row.settings || '{}') as Record<string, unknown>, updated_at, archived_at };
      return { changes: [{ entity: 'tenant', entity_id: id, kind: 'tenant.created', payload, created_at: row.created_at }], next: null };
    },
  },
];
