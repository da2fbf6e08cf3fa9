import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { CreateUserBody, UpdateUserBody, User, UserParams } from './users.schemas.js';
import type { UsersService } from './users.service.js';

export const usersRoutes: FastifyPluginAsyncZod<{ users: UsersService }> = async (app, { users }) => {
  app.get(
    '/users',
    { config: { access: 'admin' }, schema: { tags: ['Medewerkers'], summary: 'Users of the restaurant (admins and staff)', response: { 200: listOf(User), ...errors(401, 403) } } },
    async (request) => ({ data: await users.list(sessionOf(request).tenantId) }),
  );

  app.post(
    '/users',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Medewerkers'],
        summary: 'Create a user: staff need a PIN (4-8 digits, unique), admins an e-mail and password',
        body: CreateUserBody,
        response: { 201: User, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await users.create(sessionOf(request).tenantId, request.body)),
  );

  app.patch(
    '/users/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Medewerkers'],
        summary: 'Update a user; a new PIN, password or role ends their sessions',
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: User, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => users.update(sessionOf(request).tenantId, request.params.id, request.body),
  );

  app.delete(
    '/users/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Medewerkers'],
        summary: 'Archive a user (history keeps referring to them); frees the PIN and ends sessions',
        params: UserParams,
        response: { 204: z.null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await users.archive(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
