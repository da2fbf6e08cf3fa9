import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, isAppError } from '../../shared/errors.js';
import { errors, pageOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { MAX_PHOTO_BYTES, RecordedWaste, WasteBody, WasteEntry, WasteFormFields, WasteListQuery, WasteParams, WasteStats, WasteStatsQuery, type WasteInput } from './waste.schemas.js';
import { photoTooLarge, type PhotoUpload, type WasteService } from './waste.service.js';

/** Multipart limits: one photo, a handful of short text fields. */
const LIMITS = { fileSize: MAX_PHOTO_BYTES, files: 1, fields: 10, fieldSize: 2000, parts: 11 };

const tooMany = (what: string) => new AppError('VALIDATION', `Ongeldige invoer: ${what}.`);

export const wasteRoutes: FastifyPluginAsyncZod<{ waste: WasteService }> = async (app, { waste }) => {
  // Only the waste routes take multipart bodies (this plugin's own context).
  await app.register(multipart, { limits: LIMITS, throwFileSizeLimit: true });
  const tags = ['Afval'];

  app.post(
    '/waste',
    {
      config: { access: 'session' },
      // A photo of up to 5 MB plus its form fields: above the JSON body limit.
      bodyLimit: MAX_PHOTO_BYTES + 64 * 1024,
      schema: {
        tags,
        summary:
          'Log thrown-away goods (JSON, or multipart/form-data with the same fields as text and an optional `photo` file: JPEG, PNG or WebP judged by its bytes, at most 5 MB); removes the stock in the same transaction',
        consumes: ['application/json', 'multipart/form-data'],
        body: WasteBody.nullish(),
        response: { 201: RecordedWaste, ...errors(400, 401, 404, 413, 429) },
      },
    },
    async (request, reply) => {
      let input: WasteInput;
      let photo: PhotoUpload | undefined;
      if (request.isMultipart()) {
        const fields: Record<string, string> = {};
        try {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              if (part.fieldname !== 'photo') {
                await part.toBuffer();
                throw new AppError('VALIDATION', `Ongeldige invoer: onbekend bestandsveld '${part.fieldname}'; stuur de foto als 'photo'.`, {
                  details: [{ field: part.fieldname, error: `Onbekend veld: '${part.fieldname}'.` }],
                });
              }
              photo = { buffer: await part.toBuffer(), filename: part.filename };
            } else {
              fields[part.fieldname] = String(part.value);
            }
          }
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') throw photoTooLarge();
          if (code === 'FST_FILES_LIMIT') throw tooMany('stuur hoogstens één foto');
          if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') throw tooMany('te veel velden');
          if (isAppError(err)) throw err;
          // Anything else came from parsing the body (busboy: "Unexpected end of form", "Boundary not
          // found", a malformed part header): the client's mistake, not ours (issue 28 point 9).
          throw new AppError('VALIDATION', 'Ongeldige invoer: het formulier (multipart/form-data) is onvolledig of beschadigd; stuur het opnieuw.');
        }
        input = WasteFormFields.parse(fields);
      } else {
        input = WasteBody.parse(request.body);
      }
      return reply.code(201).send(await waste.record({ tenantId: sessionOf(request).tenantId, userId: sessionOf(request).userId }, input, photo));
    },
  );

  app.get(
    '/waste',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Waste entries of the last `days` days (default 30), newest first', querystring: WasteListQuery, response: { 200: pageOf(WasteEntry), ...errors(400, 401) } },
    },
    async (request) => {
      const { days, limit, offset } = request.query;
      return waste.list(sessionOf(request).tenantId, days, limit, offset);
    },
  );

  app.get(
    '/waste/stats',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Waste over the last `days` days (default 30): total cost, per reason, the top products and per day',
        querystring: WasteStatsQuery,
        response: { 200: WasteStats, ...errors(400, 401) },
      },
    },
    async (request) => waste.stats(sessionOf(request).tenantId, request.query.days),
  );

  app.get(
    '/waste/:id/photo',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The photo of a waste entry (admins only), as stored on this node',
        params: WasteParams,
        produces: ['image/jpeg', 'image/png', 'image/webp'],
        response: { 200: z.any().meta({ description: 'The image bytes' }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { type, body } = await waste.photo(sessionOf(request).tenantId, request.params.id);
      return reply.type(type).header('cache-control', 'private, no-store').header('x-content-type-options', 'nosniff').send(body);
    },
  );
};
