import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forbidden } from '../../shared/errors.js';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { Settings, SettingsPatch, SetupBody, TenantInfo } from './tenants.schemas.js';
import { alreadySetUp, type TenantsService } from './tenants.service.js';
import type { Role } from '../../shared/role.js';

export const tenantsRoutes: FastifyPluginAsyncZod<{ tenants: TenantsService; role: Role }> = async (app, { tenants, role }) => {
  app.get(
    '/settings',
    { config: { access: 'admin' }, schema: { tags: ['Instellingen'], summary: 'Restaurant settings', response: { 200: Settings, ...errors(401, 403) } } },
    async (request) => tenants.getSettings(sessionOf(request).tenantId),
  );

  app.patch(
    '/settings',
    {
      config: { access: 'admin' },
      schema: { tags: ['Instellingen'], summary: 'Change some settings; fields not sent stay as they are', body: SettingsPatch, response: { 200: Settings, ...errors(400, 401, 403) } },
    },
    async (request) => tenants.patchSettings(sessionOf(request).tenantId, request.body),
  );

  app.get(
    '/setup',
    { config: { access: 'public' }, schema: { tags: ['Installatie'], summary: 'Whether this appliance still needs its first-run setup', response: { 200: z.object({ needed: z.boolean() }) } } },
    async () => ({ needed: role === 'local' && (await tenants.count()) === 0 }),
  );

  app.post(
    '/setup',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Installatie'],
        summary: 'First-run setup of an empty appliance: creates the restaurant and its admin',
        body: SetupBody,
        response: { 201: z.object({ tenant: TenantInfo }), ...errors(400, 403, 409) },
      },
    },
    async (request, reply) => {
      if (role !== 'local') throw forbidden('De eerste installatie kan alleen op het apparaat in het restaurant.');
      if ((await tenants.count()) > 0) throw alreadySetUp();
      const { tenant } = await tenants.create(request.body, { firstRun: true });
      return reply.code(201).send({ tenant });
    },
  );
};
