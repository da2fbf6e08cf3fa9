import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { tenantRoom } from '../../plugins/realtime.js';
import type { Role } from '../../shared/role.js';
import { CreatePrinterBody, Printer, PrinterParams, PrintJob, PrintJobsQuery, UpdatePrinterBody } from './printing.schemas.js';
import type { PrintingService } from './printing.service.js';
import './printing.events.js';

/** Kitchen printers (admin) and print jobs (session), CONTRACT §18, docs/kitchen.md. Also runs the sending side where this node prints. */
export const printingRoutes: FastifyPluginAsyncZod<{ printing: PrintingService; role: Role }> = async (app, { printing, role }) => {
  if (role !== 'cloud') {
    // Orders that arrive through sync print here once (the change-log consumer writes their jobs).
    app.consumers.register(printing.consumer);
    printing.onEvent((e) => app.io.to(tenantRoom(e.tenantId)).emit(e.name, e.payload));
    app.addHook('onListen', async () => printing.start());
    app.addHook('onClose', async () => {
      printing.stop();
      await printing.idle();
    });
  }
  const tags = ['Printers'];

  app.get(
    '/printers',
    { config: { access: 'session' }, schema: { tags, summary: "The restaurant's printers with their status (online, offline, unknown), last error and jobs waiting", response: { 200: listOf(Printer), ...errors(401) } } },
    async (request) => ({ data: await printing.listPrinters(sessionOf(request).tenantId) }),
  );

  app.post(
    '/printers',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Add a network printer (raw TCP, ESC/POS): its stations get their tickets; `receipts` takes the till’s receipts; 409 in the cloud (printers are set up on the appliance)',
        body: CreatePrinterBody,
        response: { 201: Printer, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await printing.createPrinter(sessionOf(request).tenantId, request.body)),
  );

  app.patch(
    '/printers/:id',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Change a printer (name, address, width, stations, receipts, fallback)', params: PrinterParams, body: UpdatePrinterBody, response: { 200: Printer, ...errors(400, 401, 403, 404, 409) } },
    },
    async (request) => printing.updatePrinter(sessionOf(request).tenantId, request.params.id, request.body),
  );

  app.delete(
    '/printers/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Remove a printer (archived; printers that had it as fallback no longer do)', params: PrinterParams, response: { 204: z.null(), ...errors(400, 401, 403, 404) } } },
    async (request, reply) => {
      await printing.deletePrinter(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/printers/:id/test',
    { config: { access: 'admin' }, schema: { tags, summary: 'Print a test page (a job of kind test): name, stations, € and accents', params: PrinterParams, response: { 202: PrintJob, ...errors(400, 401, 403, 404, 409) } } },
    async (request, reply) => {
      const s = sessionOf(request);
      return reply.code(202).send(await printing.testPrint(s.tenantId, request.params.id, s.userId));
    },
  );

  app.get(
    '/print-jobs',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Print jobs, newest first (at most 200): ?status=queued|done|failed, ?order_id=, ?printer_id=', querystring: PrintJobsQuery, response: { 200: listOf(PrintJob), ...errors(400, 401) } },
    },
    async (request) => ({ data: await printing.listJobs(sessionOf(request).tenantId, request.query) }),
  );

  app.post(
    '/print-jobs/:id/reprint',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Print a ticket again: a new job of kind reprint, printed with HERDRUK, kept with who asked', params: PrinterParams, response: { 202: PrintJob, ...errors(400, 401, 404, 409) } },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      return reply.code(202).send(await printing.reprint(s.tenantId, request.params.id, s.userId));
    },
  );
};
