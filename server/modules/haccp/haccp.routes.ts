import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../shared/errors.js';
import { ErrorResponse, errors, listOf, pageOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import {
  Action,
  ActionBody,
  Checklist,
  ChecklistRun,
  CreateChecklistBody,
  CreateUnitBody,
  Export,
  ExportQuery,
  IdParams,
  IncludeArchivedQuery,
  Incident,
  IncidentsQuery,
  LoggedTemperature,
  LogTemperatureBody,
  RunChecklistBody,
  Today,
  Unit,
  UpdateChecklistBody,
  UpdateUnitBody,
} from './haccp.schemas.js';
import { renderExportHtml } from './haccp.html.js';
import type { PdfRenderer } from './haccp.pdf.js';
import type { HaccpService } from './haccp.service.js';

const pdfUnavailable = () =>
  new AppError('INTERNAL', 'Een PDF maken kan op deze server niet (Chromium is niet geïnstalleerd). Open de afdrukbare pagina (format=html) en kies daar Afdrukken → Opslaan als PDF.', {
    status: 501,
  });

/** Food safety (CONTRACT §9 and §16, docs/haccp.md). */
export const haccpRoutes: FastifyPluginAsyncZod<{ haccp: HaccpService; pdf: PdfRenderer }> = async (app, { haccp, pdf }) => {
  const tags = ['Voedselveiligheid'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId };
  };
  const tenantOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).tenantId;

  // ---- units
  app.get(
    '/haccp/units',
    { config: { access: 'session' }, schema: { tags, summary: 'Temperature points (koelcel, vriezer ...); archived ones with include_archived=true', querystring: IncludeArchivedQuery, response: { 200: listOf(Unit), ...errors(400, 401) } } },
    async (request) => ({ data: await haccp.listUnits(tenantOf(request), request.query.include_archived === 'true') }),
  );
  app.post(
    '/haccp/units',
    { config: { access: 'admin' }, schema: { tags, summary: 'Register a temperature point; a name already in use is 409', body: CreateUnitBody, response: { 201: Unit, ...errors(400, 401, 403, 409, 429) } } },
    async (request, reply) => reply.code(201).send(await haccp.createUnit(tenantOf(request), request.body)),
  );
  app.patch(
    '/haccp/units/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Change a temperature point (name, type, target, readings per day); earlier logs keep their own target', params: IdParams, body: UpdateUnitBody, response: { 200: Unit, ...errors(400, 401, 403, 404, 409, 429) } } },
    async (request) => haccp.updateUnit(tenantOf(request), request.params.id, request.body),
  );
  app.delete(
    '/haccp/units/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Archive a temperature point: it needs no more readings, its logs stay', params: IdParams, response: { 204: z.null(), ...errors(400, 401, 403, 404, 429) } } },
    async (request, reply) => {
      await haccp.archiveUnit(tenantOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  // ---- temperature
  app.post(
    '/haccp/temperature',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Log a temperature: status ok / waarschuwing / kritiek from the target and the restaurant margin (CONTRACT §9); an unknown unit name registers the unit; kritiek opens an incident (haccp.incident, live alert)',
        body: LogTemperatureBody,
        response: { 201: LoggedTemperature, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await haccp.logTemperature(actor(request), request.body)),
  );

  // ---- checklists
  app.get(
    '/haccp/checklists',
    { config: { access: 'session' }, schema: { tags, summary: 'Active checklists with their items', response: { 200: listOf(Checklist), ...errors(401) } } },
    async (request) => ({ data: await haccp.listChecklists(tenantOf(request)) }),
  );
  app.post(
    '/haccp/checklists',
    { config: { access: 'admin' }, schema: { tags, summary: 'Create a checklist: daily (deadline HH:MM, local time) or weekly (on a weekday); items get ids', body: CreateChecklistBody, response: { 201: Checklist, ...errors(400, 401, 403, 429) } } },
    async (request, reply) => reply.code(201).send(await haccp.createChecklist(tenantOf(request), request.body)),
  );
  app.patch(
    '/haccp/checklists/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Change a checklist; items with an id keep it, items without one are new; earlier runs keep the list as it was', params: IdParams, body: UpdateChecklistBody, response: { 200: Checklist, ...errors(400, 401, 403, 404, 429) } } },
    async (request) => haccp.updateChecklist(tenantOf(request), request.params.id, request.body),
  );
  app.delete(
    '/haccp/checklists/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Archive a checklist: no longer due, its runs stay', params: IdParams, response: { 204: z.null(), ...errors(400, 401, 403, 404, 429) } } },
    async (request, reply) => {
      await haccp.archiveChecklist(tenantOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/haccp/checklists/:id/run',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Record a run: completed_items are item ids (an unknown id is 400); the run stores who, done and missing items, complete or not, notes',
        params: IdParams,
        body: RunChecklistBody,
        response: { 201: ChecklistRun, ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await haccp.runChecklist(actor(request), request.params.id, request.body)),
  );

  // ---- incidents
  app.get(
    '/haccp/incidents',
    { config: { access: 'session' }, schema: { tags, summary: 'Incidents with their corrective actions, newest first; status=open or closed', querystring: IncidentsQuery, response: { 200: pageOf(Incident), ...errors(400, 401) } } },
    async (request) => haccp.listIncidents(tenantOf(request), request.query),
  );
  app.post(
    '/haccp/incidents/:id/actions',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Record a corrective action (a new record, never an edit); the incident is closed from then on',
        params: IdParams,
        body: ActionBody,
        response: { 201: z.object({ action: Action, incident: Incident }), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await haccp.addAction(actor(request), request.params.id, request.body.note)),
  );

  app.get(
    '/haccp/today',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: "Today's food-safety round for a tablet: each unit with its norm, readings recorded and still owed today, the last reading; each checklist done or not; the margin",
        description: 'The staff app opens the temperature screen on the unit due next and warns before a reading that would be kritiek (docs/haccp.md).',
        response: { 200: Today, ...errors(401) },
      },
    },
    async (request) => haccp.today(tenantOf(request)),
  );

  // ---- export
  app.get(
    '/haccp/export',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary:
          'Everything for the food-safety inspector over the last `days` days (default 30, 1..365): logs, runs, incidents with actions, open incidents, chain verification and the gaps (missing readings, skipped checklists). format=html: a printable Dutch page (text/html); format=pdf: that page as application/pdf where Chromium is installed (otherwise 501)',
        querystring: ExportQuery,
        'x-media': { 200: ['application/json', 'text/html', 'application/pdf'] },
        response: { 200: Export, ...errors(400, 401), 501: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { days, format } = request.query;
      if (format === 'pdf' && !pdf.available()) throw pdfUnavailable();
      const data = await haccp.export(tenantOf(request), days);
      if (!format || format === 'json') return data;
      const html = renderExportHtml(data);
      if (format === 'html') return reply.type('text/html; charset=utf-8').send(html as never);
      const file = await pdf.render(html);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="haccp-${data.tenant.slug}-${data.period.from}-${data.period.to}.pdf"`)
        .send(file as never);
    },
  );
};
