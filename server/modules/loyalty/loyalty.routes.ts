import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Role } from '../../shared/role.js';
import { sessionOf } from '../../plugins/auth.js';
import { AppError } from '../../shared/errors.js';
import { RATE_LIMIT_EXEMPT } from '../../shared/rate-limit.js';
import { errors, listOf } from '../../shared/schemas.js';
import {
  AdjustBody,
  Customer,
  CustomerExport,
  CustomerWithHistory,
  IdParams,
  OnlineRedeemBody,
  OnlineRedeemResult,
  PhoneParams,
  RedeemBody,
  RedeemResult,
  SearchQuery,
  Transaction,
  UpsertCustomerBody,
} from './loyalty.schemas.js';
import type { LoyaltyService } from './loyalty.service.js';

export interface LoyaltyRoutesOptions {
  loyalty: LoyaltyService;
  role: Role;
  /** The appliance whose SYNC_KEY the request carried (checked by the `syncKey` guard, server/plugins/guards.ts), for its online redemption. */
  deviceOf: (request: FastifyRequest) => { id: string; tenant_id: string };
}

export const loyaltyRoutes: FastifyPluginAsyncZod<LoyaltyRoutesOptions> = async (app, { loyalty, role, deviceOf }) => {
  const tags = ['Loyaliteit'];
  const actor = (request: Parameters<typeof sessionOf>[0]) => {
    const s = sessionOf(request);
    return { tenantId: s.tenantId, userId: s.userId };
  };

  app.get(
    '/loyalty/customers',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Customers by name, e-mail (case-insensitive) or a phone number in any notation',
        querystring: SearchQuery,
        response: { 200: listOf(Customer), ...errors(400, 401) },
      },
    },
    async (request) => ({ data: await loyalty.search(sessionOf(request).tenantId, request.query) }),
  );

  app.get(
    '/loyalty/customer/:phone',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'A customer by phone (any notation, Dutch numbers without country code) with balance and transactions, newest first',
        params: PhoneParams,
        response: { 200: CustomerWithHistory, ...errors(400, 401, 404) },
      },
    },
    async (request) => loyalty.getByPhone(sessionOf(request).tenantId, request.params.phone),
  );

  app.post(
    '/loyalty/customer',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Create or update a customer by phone number: 201 created (emits loyalty.customer_created), 200 updated',
        body: UpsertCustomerBody,
        response: { 201: Customer, 200: Customer, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { customer, created } = await loyalty.upsert(actor(request), request.body);
      return reply.code(created ? 201 : 200).send(customer);
    },
  );

  app.post(
    '/loyalty/redeem',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Redeem points; more than can be spent here is 409 (never below zero, also across an outage: docs/loyalty.md)',
        body: RedeemBody,
        response: { 200: RedeemResult, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => loyalty.redeem(actor(request), request.body),
  );

  app.post(
    '/loyalty/adjust',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Correct a balance (admin): + adds points, − takes them off like a redemption (never below zero)',
        body: AdjustBody,
        response: { 200: z.object({ customer_id: z.string(), balance: z.number().int(), transaction: Transaction }), ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => loyalty.adjust(actor(request), request.body),
  );

  app.get(
    '/loyalty/customer/:id/export',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Everything held about a customer (right of access); the export is logged',
        params: IdParams,
        response: { 200: CustomerExport, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => loyalty.exportCustomer(actor(request), request.params.id),
  );

  app.delete(
    '/loyalty/customer/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Erase a customer: phone, name and e-mail removed everywhere (also from orders), points history kept anonymised; logged and synced',
        params: IdParams,
        response: { 204: z.null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await loyalty.erase(actor(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  // The appliance's online redemption (bearer SYNC_KEY; exempt from the mutation rate limit like the other sync calls).
  app.post(
    '/sync/loyalty/redeem',
    {
      preHandler: async () => {
        if (role !== 'cloud') throw new AppError('NOT_FOUND', 'Deze functie bestaat alleen in de cloud.');
      },
      config: { access: 'syncKey', ...RATE_LIMIT_EXEMPT },
      schema: {
        tags: ['Synchronisatie'],
        summary: "An appliance redeems online: its lease returns for the customer first, then the points from the cloud's pool (docs/loyalty.md)",
        body: OnlineRedeemBody,
        response: { 200: OnlineRedeemResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => loyalty.redeemOnline(deviceOf(request), request.body),
  );
};
