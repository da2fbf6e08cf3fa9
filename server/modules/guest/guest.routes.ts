import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import type { GuestService } from './guest.service.js';

const TableCodes = z
  .object({
    restaurant: z.object({ name: z.string(), slug: z.string() }),
    zones: z.array(z.object({ name: z.string(), tables: z.array(z.object({ id: z.string(), name: z.string(), public_code: z.string(), url: z.string(), qr_png: z.string().meta({ description: 'PNG data URL of the QR code' }) })) })),
  })
  .meta({ id: 'TableQrCodes' });

/** Admin: the QR codes that put each table's pay page (/g/:slug/tafel/:public_code) on the table. */
export const guestRoutes: FastifyPluginAsyncZod<{ guest: GuestService }> = async (app, { guest }) => {
  const tags = ['Gastpagina’s'];
  const origin = (request: { protocol: string; host: string }) => `${request.protocol}://${request.host}`;
  app.get(
    '/floorplan/qr-codes',
    { config: { access: 'admin' }, schema: { tags, summary: "Every table's pay-at-table URL (with its public_code, never its name) and its QR code (PNG data URL); PUBLIC_BASE_URL when set, else this server's address. POST /floorplan/tables/:id/new-code renews a code", response: { 200: TableCodes, ...errors(401, 403) } } },
    async (request) => guest.tableCodes(sessionOf(request).tenantId, origin(request)),
  );
  app.get(
    '/floorplan/qr-sheet',
    { config: { access: 'admin' }, schema: { tags, summary: 'A printable page (HTML) with one QR code per table that opens its pay page', 'x-media': { 200: ['text/html'] }, response: { 200: z.string(), ...errors(401, 403) } } },
    async (request, reply) => reply.type('text/html; charset=utf-8').send(await guest.qrSheet(sessionOf(request).tenantId, origin(request))),
  );
};
