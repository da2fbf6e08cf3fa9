import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { AdminLoginBody, SessionInfo, StaffLoginBody } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

export const authRoutes: FastifyPluginAsyncZod<{ auth: AuthService }> = async (app, { auth }) => {
  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Sessie'],
        summary: 'Staff login with restaurant slug and PIN; sets the ck_token cookie',
        body: StaffLoginBody,
        response: { 200: SessionInfo, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { token, info } = await auth.loginStaff(request.body, request.ip);
      app.setSessionCookie(reply, token, request);
      return info;
    },
  );

  app.post(
    '/auth/admin-login',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Sessie'],
        summary: 'Admin login with slug, e-mail and password; sets the ck_token cookie',
        body: AdminLoginBody,
        response: { 200: SessionInfo, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { token, info } = await auth.loginAdmin(request.body, request.ip);
      app.setSessionCookie(reply, token, request);
      return info;
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: 'session' },
      schema: { tags: ['Sessie'], summary: 'The current session: tenant, user and role', response: { 200: SessionInfo, ...errors(401) } },
    },
    async (request) => auth.sessionInfo(sessionOf(request)),
  );

  app.post(
    '/auth/logout',
    {
      config: { access: 'session' },
      schema: { tags: ['Sessie'], summary: 'Ends the session and clears the cookie', response: { 204: z.null(), ...errors(401) } },
    },
    async (request, reply) => {
      await auth.logout(sessionOf(request).tokenHash);
      app.clearSessionCookie(reply);
      return reply.code(204).send(null);
    },
  );
};
