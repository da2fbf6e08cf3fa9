import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, Limit, Offset } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { CloseFormat, CloseParams, DayClose, DayCloseBody, DayClosePreview, JournalIntegrity, JournalList, JournalQuery, PreviewQuery } from './journal.schemas.js';
import { closeCsv, closeHtml } from './journal.print.js';
import type { JournalService } from './journal.service.js';

/** The journal (CONTRACT §19, docs/till.md): read and verify; entries are only ever appended by the till's own actions. */
export const journalRoutes: FastifyPluginAsyncZod<{ journal: JournalService }> = async (app, { journal }) => {
  const tags = ['Kassa'];

  app.get(
    '/journal',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The till’s journal: every payment, discount, void, refund and day close of the business days from..to (default today), each a link of its device’s hash chain',
        querystring: JournalQuery,
        response: { 200: JournalList, ...errors(400, 401, 403) },
      },
    },
    async (request) => journal.list(sessionOf(request).tenantId, request.query.from, request.query.to),
  );

  app.get(
    '/journal/verify',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Checks every device’s journal chain: hashes, links, positions and the change log they were written with; `first_bad` names the first entry that was edited, deleted or inserted',
        response: { 200: JournalIntegrity, ...errors(401, 403) },
      },
    },
    async (request) => journal.verify(sessionOf(request).tenantId),
  );

  const closeTags = ['Dagafsluiting'];
  app.get(
    '/day-closes/preview',
    {
      config: { access: 'admin' },
      schema: { tags: closeTags, summary: 'X report: the figures of a business day so far (default today), from the journal', querystring: PreviewQuery, response: { 200: DayClosePreview, ...errors(400, 401, 403) } },
    },
    async (request) => journal.closes.preview(sessionOf(request).tenantId, request.query.date),
  );

  app.post(
    '/day-closes',
    {
      config: { access: 'admin' },
      schema: {
        tags: closeTags,
        summary: 'Z report: closes a business day for good with the cash counted; 409 when it is closed already, or (appliance) while the sync with the cloud is behind unless force',
        body: DayCloseBody,
        response: { 201: DayClose, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      return reply.code(201).send(await journal.closes.close({ tenantId: s.tenantId, userId: s.userId }, request.body));
    },
  );

  app.get(
    '/day-closes',
    {
      config: { access: 'admin' },
      schema: {
        tags: closeTags,
        summary: 'The day closes, newest first',
        querystring: z.object({ limit: Limit, offset: Offset }).strict(),
        response: { 200: z.object({ data: z.array(DayClose), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }), ...errors(400, 401, 403) },
      },
    },
    async (request) => journal.closes.list(sessionOf(request).tenantId, request.query.limit, request.query.offset),
  );

  app.get(
    '/day-closes/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: closeTags,
        summary: 'One day close: JSON, a printable 80 mm page (?format=html) or CSV for the accountant (?format=csv)',
        params: CloseParams,
        querystring: CloseFormat,
        produces: ['application/json', 'text/html', 'text/csv'],
        response: { 200: DayClose, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      const c = await journal.closes.get(s.tenantId, request.params.id);
      if (request.query.format === 'csv' || request.query.format === 'html') {
        const restaurant = await journal.closes.restaurant(s.tenantId);
        if (request.query.format === 'csv') {
          return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="dagafsluiting-${c.number}-${c.business_date}.csv"`).serializer((x: unknown) => x as string).send(closeCsv(c, restaurant) as never);
        }
        return reply.type('text/html; charset=utf-8').serializer((x: unknown) => x as string).send(closeHtml(c, restaurant) as never);
      }
      return c;
    },
  );
};
