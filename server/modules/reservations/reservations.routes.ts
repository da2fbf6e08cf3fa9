import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import {
  Availability,
  AvailabilityQuery,
  IdParams,
  ListQuery,
  PublicBookingBody,
  PublicReservation,
  Reservation,
  SlugParams,
  StaffBookingBody,
  UpdateReservationBody,
} from './reservations.schemas.js';
import type { ReservationsService } from './reservations.service.js';

/** Reservations: the guests' public booking routes (CONTRACT §10) and staff's list and updates (§16). docs/reservations.md. */
export const reservationsRoutes: FastifyPluginAsyncZod<{ reservations: ReservationsService }> = async (app, { reservations }) => {
  const tags = ['Reserveringen'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId };
  };

  app.get(
    '/public/reservations/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Free slots of a date (public): per time whether it can be booked and the largest party that fits',
        params: SlugParams,
        querystring: AvailabilityQuery,
        response: { 200: Availability, ...errors(400, 404) },
      },
    },
    async (request) => reservations.availability(request.params.slug, request.query.date),
  );

  app.post(
    '/public/reservations/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Book a table (public). A full slot is 409; a past date or time, a closed day or a bad party size is 400. Emits reservation.created.',
        params: SlugParams,
        body: PublicBookingBody,
        response: { 201: PublicReservation, ...errors(400, 404, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await reservations.bookPublic(request.params.slug, request.body)),
  );

  app.get(
    '/reservations',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'The bookings of a date (default today), by time', querystring: ListQuery, response: { 200: listOf(Reservation), ...errors(400, 401) } },
    },
    async (request) => ({ data: await reservations.listByDate(actor(request).tenantId, request.query.date) }),
  );

  app.post(
    '/reservations',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Staff book a table for a caller or a walk-in (any time within opening hours; optionally a chosen table)',
        body: StaffBookingBody,
        response: { 201: Reservation, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await reservations.bookStaff(actor(request), request.body)),
  );

  app.get(
    '/reservations/:id',
    { config: { access: 'session' }, schema: { tags, summary: 'One booking', params: IdParams, response: { 200: Reservation, ...errors(400, 401, 404) } } },
    async (request) => reservations.get(actor(request).tenantId, request.params.id),
  );

  app.patch(
    '/reservations/:id',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Mark a booking seated, cancelled or no_show, or move it to another table (which resolves a sync conflict)',
        params: IdParams,
        body: UpdateReservationBody,
        response: { 200: Reservation, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => reservations.update(actor(request), request.params.id, request.body),
  );
};
