import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import {
  Bill,
  BillPayment,
  BillPaymentBody,
  CreateTableBody,
  CreateZoneBody,
  FloorPlan,
  FloorTable,
  IdParams,
  MoveBillBody,
  PositionsBody,
  StatusBody,
  Table,
  UpdateTableBody,
  UpdateZoneBody,
  Zone,
} from './floor.schemas.js';
import type { FloorService } from './floor.service.js';

/** Floor plan, tables and bills (CONTRACT §10 and §16, docs/floor.md). */
export const floorRoutes: FastifyPluginAsyncZod<{ floor: FloorService }> = async (app, { floor }) => {
  const tags = ['Plattegrond'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId, via: 'pos' as const };
  };
  const tenant = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).tenantId;

  app.get(
    '/floorplan',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Zones with their tables and live status (vrij, bezet, gereserveerd)', response: { 200: FloorPlan, ...errors(401) } },
    },
    async (request) => floor.floorplan(tenant(request)),
  );

  // ── zones (admin) ──
  app.get(
    '/floorplan/zones',
    { config: { access: 'admin' }, schema: { tags, summary: 'Zones of the floor plan', response: { 200: listOf(Zone), ...errors(401, 403) } } },
    async (request) => ({ data: await floor.listZones(tenant(request)) }),
  );
  app.post(
    '/floorplan/zones',
    { config: { access: 'admin' }, schema: { tags, summary: 'Create a zone (e.g. binnen, terras)', body: CreateZoneBody, response: { 201: Zone, ...errors(400, 401, 403) } } },
    async (request, reply) => reply.code(201).send(await floor.createZone(tenant(request), request.body)),
  );
  app.patch(
    '/floorplan/zones/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Rename or reorder a zone', params: IdParams, body: UpdateZoneBody, response: { 200: Zone, ...errors(400, 401, 403, 404) } } },
    async (request) => floor.updateZone(tenant(request), request.params.id, request.body),
  );
  app.delete(
    '/floorplan/zones/:id',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Archive a zone without tables (409 while it still has tables)', params: IdParams, response: { 204: z.null(), ...errors(400, 401, 403, 404, 409) } },
    },
    async (request, reply) => {
      await floor.archiveZone(tenant(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  // ── tables ──
  app.post(
    '/floorplan/tables',
    { config: { access: 'admin' }, schema: { tags, summary: 'Create a table in a zone', body: CreateTableBody, response: { 201: Table, ...errors(400, 401, 403, 404, 409) } } },
    async (request, reply) => reply.code(201).send(await floor.createTable(tenant(request), request.body)),
  );
  app.patch(
    '/floorplan/tables/positions',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Move tables on the floor plan, all or nothing: an unknown id moves nothing (404)',
        body: PositionsBody,
        response: { 200: listOf(Table), ...errors(400, 401, 404) },
      },
    },
    async (request) => ({ data: await floor.setPositions(tenant(request), request.body) }),
  );
  app.patch(
    '/floorplan/tables/:id',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Change a table (name, seats, zone, position, shape, reservable)', params: IdParams, body: UpdateTableBody, response: { 200: Table, ...errors(400, 401, 403, 404, 409) } },
    },
    async (request) => floor.updateTable(tenant(request), request.params.id, request.body),
  );
  app.post(
    '/floorplan/tables/:id/new-code',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Renew the table's pay-at-table code (public_code, CONTRACT §11): the old code and its printed QR code open nothing from now on (404); print the table's QR code again",
        params: IdParams,
        response: { 200: Table, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => floor.renewPublicCode(tenant(request), request.params.id),
  );
  app.delete(
    '/floorplan/tables/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Archive a table (history keeps it); 409 while it has an open bill or bookings to come',
        params: IdParams,
        response: { 204: z.null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await floor.archiveTable(tenant(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  app.patch(
    '/floorplan/tables/:id/status',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Set the table’s status by hand (vrij, bezet, gereserveerd) or clear it with null',
        params: IdParams,
        body: StatusBody,
        response: { 200: FloorTable, ...errors(400, 401, 404) },
      },
    },
    async (request) => floor.setOverride(tenant(request), request.params.id, request.body.status),
  );

  // ── bills ──
  app.get(
    '/floorplan/tables/:id/bill',
    { config: { access: 'session' }, schema: { tags, summary: 'The table’s open bill (404 when it has none)', params: IdParams, response: { 200: Bill, ...errors(400, 401, 404) } } },
    async (request) => floor.tableBill(tenant(request), request.params.id),
  );
  app.get(
    '/floorplan/bills/:id',
    { config: { access: 'session' }, schema: { tags, summary: 'A bill with its orders, payments and totals', params: IdParams, response: { 200: Bill, ...errors(400, 401, 404) } } },
    async (request) => floor.getBill(tenant(request), request.params.id),
  );
  app.post(
    '/floorplan/bills/:id/payments',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Take a (partial) payment at the table; never more than is open (409). Paid in full: the bill closes and its orders are marked paid.',
        params: IdParams,
        body: BillPaymentBody,
        response: { 201: z.object({ bill: Bill, payment: BillPayment, change_cents: z.number().int().meta({ description: 'cash to give back (contant with received_cents), else 0' }) }), ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await floor.payBill(actor(request), request.params.id, request.body)),
  );
  app.post(
    '/floorplan/bills/:id/move',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Move an open bill to another table; merged into that table’s open bill when it has one (the answer is the bill it lives in then)',
        params: IdParams,
        body: MoveBillBody,
        response: { 200: Bill, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => floor.moveBill(actor(request), request.params.id, request.body.table_id),
  );
  app.post(
    '/floorplan/bills/:id/close',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Close a bill by hand (the table becomes free); 409 when it is already closed', params: IdParams, response: { 200: Bill, ...errors(400, 401, 404, 409) } },
    },
    async (request) => floor.closeBill(actor(request), request.params.id),
  );
};
