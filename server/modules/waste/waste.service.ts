import fs from 'node:fs/promises';
import path from 'node:path';
import type { ChangeLog } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { businessDay, dateRange } from '../../shared/zoned-time.js';
import type { MenuService } from '../menu/menu.service.js';
import type { StockService } from '../stock/stock.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { windowOf } from '../analytics/calendar.js';
import { wasteRepository, type WasteRow } from './waste.repository.js';
import { MAX_PHOTO_BYTES, PHOTO_TYPES, WASTE_REASONS, type PhotoType, type RecordedWaste, type WasteEntry, type WasteInput, type WasteStats } from './waste.schemas.js';

export interface WasteActor {
  tenantId: string;
  userId: string | null;
}

export interface PhotoUpload {
  buffer: Buffer;
  filename?: string;
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

export const photoTooLarge = () =>
  new AppError('VALIDATION', 'Ongeldige invoer: de foto is groter dan 5 MB.', { status: 413, details: [{ field: 'photo', error: "'photo' mag hoogstens 5 MB (5.242.880 bytes) groot zijn." }] });
export const notAnImage = () => invalidField('photo', 'moet een foto zijn (JPEG, PNG of WebP); dit bestand is geen afbeelding van die soort.');

/** The photo's type from its bytes (never its name or the type the client claims), or VALIDATION. */
export async function photoType(buffer: Buffer): Promise<PhotoType> {
  if (buffer.length > MAX_PHOTO_BYTES) throw photoTooLarge();
  // Loaded at the first photo, not when the server starts (issue 29 point 5).
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(buffer);
  if (!found || !(found.mime in PHOTO_TYPES)) throw notAnImage();
  return found.mime as PhotoType;
}

/**
 * Where photos are kept: `disk` (the appliance: DATA_DIR/uploads/waste) or `database` (the cloud:
 * upload_blobs, so every node reads them; issue 28 point 16).
 */
export type PhotoStore = 'disk' | 'database';

export function createWasteService(deps: { db: Db; changes: ChangeLog; clock: Clock; tenants: TenantsService; menu: MenuService; stock: StockService; dataDir: string; photoStore?: PhotoStore }) {
  const { db, changes, clock, tenants, menu, stock } = deps;
  const photoDir = path.join(deps.dataDir, 'uploads', 'waste');
  const inDatabase = deps.photoStore === 'database';

  async function period(tenantId: string, days: number) {
    const { timezone } = await tenants.cachedSettings(tenantId);
    return { days, ...windowOf(businessDay(clock.now(), timezone), days) };
  }

  async function names(tenantId: string) {
    return new Map((await menu.listProducts(tenantId, true)).map((p) => [p.id, p]));
  }

  function toDto(r: WasteRow, product?: { name: string; unit: string | null }): WasteEntry {
    return {
      id: r.id,
      product_id: r.product_id,
      product_name: product?.name ?? '?',
      unit: product?.unit ?? null,
      location_id: r.location_id,
      quantity: r.quantity,
      reason: r.reason,
      note: r.note,
      unit_cost_cents: r.unit_cost_cents,
      cost_cents: r.cost_cents,
      photo: r.photo_file ? { type: r.photo_type!, bytes: r.photo_bytes!, url: `/api/v1/waste/${r.id}/photo` } : null,
      business_day: r.business_day,
      created_by: r.created_by,
      created_at: r.created_at,
    };
  }

  const service = {
    /**
     * Logs thrown-away goods (CONTRACT §13): the entry with its cost (quantity × the product's cost,
     * else its recipe's ingredient cost), and the stock removal booked by the stock area in the same
     * transaction. A photo (checked from its bytes) is stored under DATA_DIR/uploads/waste first and
     * removed again when the entry is refused.
     */
    async record(actor: WasteActor, input: WasteInput, photo?: PhotoUpload): Promise<RecordedWaste> {
      const type = photo ? await photoType(photo.buffer) : null;
      // Read outside the write (a read beside an open SQLite write would wait for it).
      const product = await menu.getProduct(actor.tenantId, input.product_id);
      if (product.archived_at) throw notFound('Product');
      const unitCost = product.cost_cents ?? (await stock.recipeCost(actor.tenantId, product.id)) ?? 0;
      const { timezone } = await tenants.cachedSettings(actor.tenantId);
      const id = newId();
      const file = type ? `${id}.${PHOTO_TYPES[type]}` : null;
      if (photo && file && !inDatabase) {
        await fs.mkdir(photoDir, { recursive: true });
        await fs.writeFile(path.join(photoDir, file), photo.buffer);
      }
      try {
        return await changes.write(actor.tenantId, async (w) => {
          const booked = await stock.bookWaste(w, {
            tenantId: actor.tenantId,
            wasteId: id,
            productId: product.id,
            quantity: input.quantity,
            locationId: input.location_id ?? null,
            userId: actor.userId,
            reason: input.reason,
            note: input.note ?? null,
          });
          const row: WasteRow = {
            id,
            tenant_id: actor.tenantId,
            product_id: product.id,
            location_id: booked.movement.location_id,
            quantity: input.quantity,
            reason: input.reason,
            note: input.note ?? null,
            unit_cost_cents: unitCost,
            cost_cents: Math.round(input.quantity * unitCost),
            photo_file: file,
            photo_type: type,
            photo_bytes: photo ? photo.buffer.length : null,
            business_day: businessDay(w.nowDate, timezone),
            created_by: actor.userId,
            created_at: w.now,
          };
          await wasteRepository.insert(w.trx, row);
          // The cloud keeps the bytes with the entry, in the same transaction: no file, nothing to clean up.
          if (photo && type && inDatabase) await wasteRepository.insertBlob(w.trx, { id, tenant_id: actor.tenantId, content_type: type, bytes: photo.buffer, created_at: w.now });
          const { tenant_id: _t, ...entry } = row;
          await w.record({ entity: 'waste', entityId: id, kind: 'waste.recorded', payload: { entry } });
          return { ...toDto(row, product), stock: { movement_id: booked.movement.id, location_id: booked.movement.location_id, level: booked.level } };
        });
      } catch (err) {
        if (file && !inDatabase) await fs.rm(path.join(photoDir, file), { force: true });
        throw err;
      }
    },

    async list(tenantId: string, days: number, limit: number, offset: number) {
      const p = await period(tenantId, days);
      const [rows, total, products] = await Promise.all([
        wasteRepository.list(db, tenantId, p.from, p.to, limit, offset),
        wasteRepository.count(db, tenantId, p.from, p.to),
        names(tenantId),
      ]);
      return { data: rows.map((r) => toDto(r, products.get(r.product_id))), total, limit, offset };
    },

    /** The photo of an entry as stored on this node, or NOT_FOUND (no photo, another restaurant's, or taken on another node). */
    async photo(tenantId: string, id: string): Promise<{ type: string; body: Buffer }> {
      const row = await wasteRepository.find(db, tenantId, id);
      if (!row) throw notFound('Afvalregistratie');
      if (!row.photo_file || !row.photo_type) throw notFound('Foto');
      if (inDatabase) {
        const blob = await wasteRepository.findBlob(db, tenantId, id);
        if (blob) return { type: blob.content_type, body: Buffer.from(blob.bytes) };
      }
      let body: Buffer;
      try {
        body = await fs.readFile(path.join(photoDir, path.basename(row.photo_file)));
      } catch {
        throw new AppError('NOT_FOUND', 'Foto niet gevonden: die staat op het apparaat waarop hij gemaakt is.');
      }
      // A file an older cloud release left on this node's disk moves into the database the first time
      // it is asked for here, so every node serves it from then on (the file is left in place).
      if (inDatabase) await wasteRepository.insertBlob(db, { id, tenant_id: tenantId, content_type: row.photo_type, bytes: body, created_at: clock.now().toISOString() });
      return { type: row.photo_type, body };
    },

    /** GET /waste/stats: total cost, per reason, top products and per day over the last `days` days. */
    async stats(tenantId: string, days: number): Promise<WasteStats> {
      const p = await period(tenantId, days);
      const [reasons, products, perDay, info] = await Promise.all([
        wasteRepository.byReason(db, tenantId, p.from, p.to),
        wasteRepository.byProduct(db, tenantId, p.from, p.to),
        wasteRepository.byDay(db, tenantId, p.from, p.to),
        names(tenantId),
      ]);
      const total = reasons.reduce((s, r) => s + Number(r.cost_cents), 0);
      const entries = reasons.reduce((s, r) => s + Number(r.entries), 0);
      const byReason = new Map(reasons.map((r) => [r.reason, r]));
      const dayCost = new Map(perDay.map((d) => [d.business_day, Number(d.cost_cents)]));
      return {
        ...p,
        total_cost_cents: total,
        entries,
        by_reason: WASTE_REASONS.map((reason) => {
          const r = byReason.get(reason);
          const cost = Number(r?.cost_cents ?? 0);
          return { reason, entries: Number(r?.entries ?? 0), cost_cents: cost, share_percent: percent(cost, total) };
        }),
        top_products: products
          .map((x) => ({
            product_id: x.product_id,
            name: info.get(x.product_id)?.name ?? '?',
            unit: info.get(x.product_id)?.unit ?? null,
            quantity: Math.round(Number(x.quantity) * 1000) / 1000,
            entries: Number(x.entries),
            cost_cents: Number(x.cost_cents),
          }))
          .sort((a, b) => b.cost_cents - a.cost_cents || b.quantity - a.quantity || a.name.localeCompare(b.name, 'nl'))
          .slice(0, 10),
        by_day: dateRange(p.from, p.to).map((date) => ({ date, cost_cents: dayCost.get(date) ?? 0 })),
      };
    },

    /**
     * The waste cost booked against each sold dish over business days `from..to`, for the
     * waste-adjusted menu engineering (docs/insights.md): a dish's own waste counts for it; waste of
     * an ingredient is shared out over the sold dishes whose recipe uses it, in proportion to what
     * they consumed (quantity sold × recipe quantity). Waste of an ingredient no sold dish uses is
     * not attributed.
     */
    async costByDish(tenantId: string, from: string, to: string, sold: ReadonlyMap<string, number>): Promise<Map<string, number>> {
      const wasted = await wasteRepository.byProduct(db, tenantId, from, to);
      const out = new Map<string, number>();
      const ingredientWaste = new Map<string, number>();
      for (const x of wasted) {
        const cost = Number(x.cost_cents);
        if (sold.has(x.product_id)) out.set(x.product_id, (out.get(x.product_id) ?? 0) + cost);
        else ingredientWaste.set(x.product_id, (ingredientWaste.get(x.product_id) ?? 0) + cost);
      }
      if (ingredientWaste.size === 0) return out;
      const uses = new Map<string, Array<{ dish: string; weight: number }>>();
      for (const [dish, qty] of sold) {
        const recipe = await stock.getRecipe(tenantId, dish).catch(() => null);
        for (const ing of recipe?.ingredients ?? []) {
          if (!ingredientWaste.has(ing.product_id)) continue;
          uses.set(ing.product_id, [...(uses.get(ing.product_id) ?? []), { dish, weight: qty * ing.quantity }]);
        }
      }
      for (const [ingredient, cost] of ingredientWaste) {
        const list = uses.get(ingredient) ?? [];
        const total = list.reduce((s, u) => s + u.weight, 0);
        if (total <= 0) continue;
        for (const u of list) out.set(u.dish, (out.get(u.dish) ?? 0) + (cost * u.weight) / total);
      }
      return out;
    },
  };
  return service;
}

export type WasteService = ReturnType<typeof createWasteService>;
