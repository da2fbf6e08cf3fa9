import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import {
  ClockOutBody,
  CreateShiftBody,
  ListShiftsQuery,
  PayrollQuery,
  Shift,
  ShiftDetail,
  ShiftParams,
  SuggestWeek,
  SuggestWeekBody,
  UpdateShiftBody,
} from './shifts.schemas.js';
import type { ShiftsService } from './shifts.service.js';

/** Shifts (CONTRACT §13 and §16): clocking for staff, worked shifts for admins, the roster suggestion and the payroll export. */
export const shiftsRoutes: FastifyPluginAsyncZod<{ shifts: ShiftsService }> = async (app, { shifts }) => {
  const tags = ['Diensten'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId };
  };

  app.post(
    '/shifts/clock-in',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Clock in the logged-in employee (starts an open shift now); 409 while clocked in or overlapping a recorded shift', response: { 201: Shift, ...errors(401, 409, 429) } },
    },
    async (request, reply) => reply.code(201).send(await shifts.clockIn(actor(request))),
  );

  app.post(
    '/shifts/clock-out',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Clock out the logged-in employee (closes the open shift now, once), optionally with the break taken; 409 when not clocked in',
        body: ClockOutBody,
        response: { 200: Shift, ...errors(400, 401, 409, 429) },
      },
    },
    async (request) => shifts.clockOut(actor(request), request.body ?? {}),
  );

  app.get(
    '/shifts/me',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'The logged-in employee’s open shift (null when not clocked in) and their shifts of the last 14 days',
        response: { 200: z.object({ open: Shift.nullable(), data: z.array(Shift) }), ...errors(401) },
      },
    },
    async (request) => shifts.mine(actor(request)),
  );

  app.get(
    '/shifts',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Worked and open shifts touching the days from..to (default the last 14 days), oldest first', querystring: ListShiftsQuery, response: { 200: listOf(Shift), ...errors(400, 401, 403) } },
    },
    async (request) => ({ data: await shifts.list(sessionOf(request).tenantId, request.query) }),
  );

  app.post(
    '/shifts',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Enter a worked shift for an employee (start, end, break)', body: CreateShiftBody, response: { 201: ShiftDetail, ...errors(400, 401, 403, 404, 409, 429) } },
    },
    async (request, reply) => reply.code(201).send(await shifts.create(actor(request), request.body)),
  );

  app.get(
    '/shifts/:id',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'One shift with every correction (the times before and after, who, when, why)', params: ShiftParams, response: { 200: ShiftDetail, ...errors(400, 401, 403, 404) } },
    },
    async (request) => shifts.get(sessionOf(request).tenantId, request.params.id),
  );

  app.patch(
    '/shifts/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Correct a shift (start, end, break; `end` closes an open shift); the original times are kept in its corrections',
        params: ShiftParams,
        body: UpdateShiftBody,
        response: { 200: ShiftDetail, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => shifts.correct(actor(request), request.params.id, request.body),
  );

  app.post(
    '/shifts/suggest-week',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Roster suggestion for a week from the order forecast: employees per day, and per job where jobs are known',
        body: SuggestWeekBody,
        response: { 200: SuggestWeek, ...errors(400, 401, 429) },
      },
    },
    async (request) => shifts.suggestWeek(sessionOf(request).tenantId, request.body ?? {}),
  );

  app.get(
    '/shifts/export-payroll',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary:
          'Payroll as CSV for Dutch spreadsheets (semicolon, decimal comma, UTF-8 with BOM, header row): hours and gross wage per employee for the days from..to (an admin gets every employee, staff only their own row); shifts across the period’s edges count their part inside it; a text cell starting with =, +, -, @, tab or CR gets a leading apostrophe',
        querystring: PayrollQuery,
        produces: ['text/csv'],
        response: { 200: z.string().meta({ description: 'text/csv; charset=utf-8' }), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      // An admin gets every employee; staff only their own row (CONTRACT §13).
      const { filename, body } = await shifts.payrollCsv(session.tenantId, request.query.from, request.query.to, session.role === 'admin' ? undefined : session.userId);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(body.toString('utf8'));
    },
  );
};
