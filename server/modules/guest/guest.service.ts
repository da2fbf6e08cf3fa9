import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import type QRCode from 'qrcode';
import { notFound } from '../../shared/errors.js';
import type { FloorService } from '../floor/floor.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';

/**
 * The guest page a table's QR code opens: its bill, to pay at the table (issue 15). It carries the
 * table's unguessable `public_code`, never its name (CONTRACT §11, issue 28 point 4).
 */
export const tablePayUrl = (baseUrl: string, slug: string, publicCode: string) =>
  `${baseUrl.replace(/\/+$/, '')}/g/${encodeURIComponent(slug)}/tafel/${encodeURIComponent(publicCode)}`;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The guest pages' server side: the printable sheet of table QR codes for admins. The pages
 * themselves are static (server/plugins/ui.ts) and talk to the public API.
 */
export function createGuestService(deps: { config: { publicBaseUrl?: string }; tenants: TenantsService; floor: FloorService }) {
  const { config, tenants, floor } = deps;
  // A code depends on its URL only, and rendering one (a 360-pixel PNG) costs ≈ 30 ms of CPU: each URL
  // is rendered once (concurrent requests share the rendering) and kept, at most 16 MB of data URLs
  // (≈ 3,000 codes), least recently used out first (issue 28 point 10).
  const codes = new LRUCache<string, string>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (dataUrl) => dataUrl.length,
    // qrcode is loaded at the first code, not when the server starts (issue 29 point 5).
    fetchMethod: (url) => (createRequire(import.meta.url)('qrcode') as typeof QRCode).toDataURL(url, { margin: 2, width: 360, errorCorrectionLevel: 'M' }),
  });
  const qrPng = async (url: string): Promise<string> => (await codes.fetch(url))!;
  return {
    /**
     * Every live table with its pay URL and QR code (PNG data URL), zone by zone. A table without a
     * code yet (made by an appliance one release behind, until the cloud gives it one) is left out.
     */
    async tableCodes(tenantId: string, requestOrigin: string) {
      const tenant = await tenants.byId(tenantId);
      if (!tenant) throw notFound('Restaurant');
      const base = config.publicBaseUrl ?? requestOrigin;
      const plan = await floor.floorplan(tenantId);
      const zones = [];
      for (const z of plan.zones) {
        const tables = [];
        for (const t of z.tables) {
          if (!t.public_code) continue;
          const url = tablePayUrl(base, tenant.slug, t.public_code);
          tables.push({ id: t.id, name: t.name, public_code: t.public_code, url, qr_png: await qrPng(url) });
        }
        zones.push({ name: z.name, tables });
      }
      return { restaurant: { name: tenant.name, slug: tenant.slug }, zones };
    },

    /** A printable page (A4, six codes a page) with every table's code, its name and the address. */
    async qrSheet(tenantId: string, requestOrigin: string): Promise<string> {
      const { restaurant, zones } = await this.tableCodes(tenantId, requestOrigin);
      const cards = zones.flatMap((z) =>
        z.tables.map(
          (t) => `<figure class="card" data-table="${esc(t.name)}"><img src="${t.qr_png}" alt="QR-code tafel ${esc(t.name)}"><figcaption><strong>Tafel ${esc(t.name)}</strong><span>${esc(z.name)}</span><small>Scan om de rekening te bekijken en te betalen</small><code>${esc(t.url)}</code></figcaption></figure>`,
        ),
      );
      return `<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>QR-codes tafels – ${esc(restaurant.name)}</title><style>
body{font-family:system-ui,sans-serif;margin:0;padding:1rem}h1{font-size:1.3rem}
.sheet{display:grid;grid-template-columns:repeat(2,1fr);gap:12mm}
.card{margin:0;border:1px dashed #999;border-radius:8px;padding:6mm;text-align:center;break-inside:avoid}
.card img{width:55mm;height:55mm}figcaption{display:flex;flex-direction:column;gap:1mm}figcaption strong{font-size:1.4rem}code{font-size:.7rem;word-break:break-all}
@media print{h1,.hint{display:none}@page{size:A4;margin:12mm}}
</style></head><body><h1>QR-codes voor de tafels van ${esc(restaurant.name)}</h1><p class="hint">Druk deze pagina af (Ctrl+P) en leg de kaartjes op de tafels.</p>
${cards.length ? `<div class="sheet">${cards.join('')}</div>` : '<p>Er zijn nog geen tafels.</p>'}</body></html>`;
    },
  };
}

export type GuestService = ReturnType<typeof createGuestService>;
