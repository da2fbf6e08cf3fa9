import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DbHandle } from '../../db/connection.js';
import { SCHEMA_VERSION } from '../../db/migrations/index.js';
import type { Role } from '../../shared/role.js';
import { VERSION } from '../../version.js';

const Health = z
  .object({
    status: z.enum(['ok', 'degraded']),
    role: z.enum(['local', 'cloud']),
    version: z.string(),
    schema_version: z.number().int(),
    database: z.object({ dialect: z.enum(['sqlite', 'postgres']), reachable: z.boolean() }),
    payments: z
      .object({
        provider: z.enum(['mollie', 'simulator']),
        warning: z.string().nullable().meta({ description: 'Set when a cloud runs the payment simulator (PAYMENT_PROVIDER=simulator): anyone can mark their own order paid there' }),
      })
      .meta({ description: 'The payment provider of new payments' }),
  })
  .meta({ id: 'Health' });

export interface HealthPayments {
  provider: 'mollie' | 'simulator';
  warning: string | null;
}

export const healthRoutes: FastifyPluginAsyncZod<{ db: DbHandle; role: Role; payments: HealthPayments }> = async (app, { db, role, payments }) => {
  app.get(
    '/health',
    { config: { access: 'public' }, schema: { tags: ['Systeem'], summary: 'Liveness and readiness: role, version, database reachable, payment provider (with a warning when a cloud runs the simulator)', response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const reachable = await db.ping();
      const body = {
        status: reachable ? ('ok' as const) : ('degraded' as const),
        role,
        version: VERSION,
        schema_version: SCHEMA_VERSION,
        database: { dialect: db.dialect, reachable },
        payments,
      };
      return reply.code(reachable ? 200 : 503).send(body);
    },
  );
};
