import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { JournalIntegrity, JournalList, JournalQuery } from './journal.schemas.js';
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
};
