import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../../plugins/auth.js';
import { errors } from '../../shared/schemas.js';
import { IdempotencyHeaders } from '../orders/orders.schemas.js';
import { returnPage } from './public.pages.js';
import {
  IntakeStatus,
  OrderStatusParams,
  PaymentIdParams,
  PayTableBody,
  PayTableResult,
  PublicMenu,
  PublicMenuQuery,
  PublicOrderBody,
  PublicOrderCreated,
  PublicOrderView,
  PublicPaymentView,
  PublicTableBill,
  SlugParams,
  TableParams,
} from './public.schemas.js';
import type { PublicOrdersService } from './public.service.js';

const Html = z.string().meta({ description: 'text/html' });
/** Where this request reached the server (used when PUBLIC_BASE_URL is not set). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/**
 * Public ordering and pay-at-table (CONTRACT §11): no session; in the cloud for the internet, on
 * the appliance for a restaurant without a cloud. The public reservation routes belong to the
 * reservations module; the payment callbacks to payments.routes.ts.
 */
export const publicRoutes: FastifyPluginAsyncZod<{ publicOrders: PublicOrdersService }> = async (app, { publicOrders }) => {
  const tags = ['Publiek'];

  app.get(
    '/public/menu/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "The restaurant's public menu: name, whether it takes orders now, available products by category with their options and allergens (no costs); ?exclude=gluten,milk leaves out what contains them",
        params: SlugParams,
        querystring: PublicMenuQuery,
        response: { 200: PublicMenu, ...errors(400, 404) },
      },
    },
    async (request) => publicOrders.menu(request.params.slug, request.query.exclude ?? []),
  );

  app.post(
    '/public/order/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          "A guest's order: prices from the menu, source 'web', idempotent by key (body or Idempotency-Key header: a repeat answers 200 with the same order and checkout). Pickup and delivery answer a checkout_url; 409 while ordering is paused.",
        params: SlugParams,
        headers: IdempotencyHeaders,
        body: PublicOrderBody,
        response: { 201: PublicOrderCreated, 200: PublicOrderCreated, ...errors(400, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { created, body } = await publicOrders.placeOrder(request.params.slug, request.body, request.headers['idempotency-key'], originOf(request));
      return reply.code(created ? 201 : 200).send(body);
    },
  );

  app.get(
    '/public/order/:slug/:id',
    { config: { access: 'public' }, schema: { tags, summary: "A guest's own order as they may see it (status, payment, whether the restaurant has seen it)", params: OrderStatusParams, response: { 200: PublicOrderView, ...errors(400, 404) } } },
    async (request) => publicOrders.orderView(request.params.slug, request.params.id),
  );

  app.get(
    '/public/betaling/:id/status',
    { config: { access: 'public' }, schema: { tags, summary: 'A payment as the guest returning from the checkout sees it', params: PaymentIdParams, response: { 200: PublicPaymentView, ...errors(400, 404) } } },
    async (request) => publicOrders.paymentView(request.params.id),
  );

  app.get(
    '/public/betaling/:id',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "Where the checkout sends the guest back: 303 to the guest pages' payment result (/g/:slug/betaling/:id); a small page for an unknown payment",
        params: PaymentIdParams,
        'x-media': { 200: ['text/html'] },
        response: { 200: Html, 303: z.null(), ...errors(400) },
      },
    },
    async (request, reply) => {
      const view = await publicOrders.paymentView(request.params.id).catch(() => null);
      if (view) return reply.header('cache-control', 'no-store').redirect(`/g/${encodeURIComponent(view.restaurant.slug)}/betaling/${view.id}`, 303); // no body: the document declares none
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(returnPage(request.params.id));
    },
  );

  app.get(
    '/public/bestellen/:slug',
    { config: { access: 'public' }, schema: { tags, summary: "The guest pages' ordering page: 303 to /g/:slug/", params: SlugParams, response: { 303: z.null(), ...errors(400) } } },
    async (request, reply) => reply.redirect(`/g/${encodeURIComponent(request.params.slug)}/`, 303),
  );

  app.get(
    '/public/tafel/:slug/:tafel',
    { config: { access: 'public' }, schema: { tags, summary: "Pay-at-table: the table's open bill, by the table's unguessable public_code from its QR code (CONTRACT §11); a table's name, or a code that was renewed, is 404 (unless the restaurant set tafel_by_name)", params: TableParams, response: { 200: PublicTableBill, ...errors(400, 404) } } },
    async (request) => publicOrders.tableBill(request.params.slug, request.params.tafel),
  );

  app.post(
    '/public/tafel/:slug/:tafel/pay',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Pay-at-table: pay part or all of what is open (never more, counting payments still open), plus a tip; answers the checkout',
        params: TableParams,
        body: PayTableBody,
        response: { 201: PayTableResult, ...errors(400, 404, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await publicOrders.payTable(request.params.slug, request.params.tafel, request.body ?? {}, originOf(request))),
  );

  app.get(
    '/public-ordering/status',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Instellingen'],
        summary: "Cloud: how long the restaurant's appliance has been silent, whether public ordering is paused, and the public orders it has not seen yet",
        response: { 200: IntakeStatus, ...errors(401, 403) },
      },
    },
    async (request) => publicOrders.status(sessionOf(request).tenantId),
  );
};
