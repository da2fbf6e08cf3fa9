import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf, pageOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import {
  CreateLocationBody,
  IdParams,
  Location,
  MoveStockBody,
  MoveStockResult,
  Movement,
  MovementsQuery,
  PurchaseList,
  PutRecipeBody,
  Recipe,
  RecipeParams,
  StockList,
  SuggestionList,
  SuggestQuery,
  UpdateLocationBody,
} from './stock.schemas.js';
import type { StockService } from './stock.service.js';

const SUGGEST_FORMULA =
  'Consumption = everything REMOVAL-type booked in the last `lookback` days (sales through recipes, staff removals, waste; not transfers or count corrections). ' +
  'daily_use = consumption / lookback; target = daily_use × (lead_days + cover_days); quantity_to_order = target − max(total, 0), rounded up (whole units for stuk, fles, doos, portie, gram, ml; else to 0.001). ' +
  'days_of_cover = max(total, 0) / daily_use. Products without consumption are not suggested, nor those that need nothing. Defaults: lookback 28 (1..365), lead_days 2 (0..60), cover_days 7 (0..60). See docs/stock.md.';

/** Locations, recipes and purchase configuration (CONTRACT §16): admin only. */
export const stockAdminRoutes: FastifyPluginAsyncZod<{ stock: StockService }> = async (app, { stock }) => {
  // Who may ask comes before what was asked: a staff member gets 403, not a validation message.
  const tags = ['Voorraad'];

  app.get('/locations', { config: { access: 'admin' }, schema: { tags, summary: 'Stock locations (cold store, freezer, bar ...)', response: { 200: listOf(Location), ...errors(401, 403) } } }, async (request) => ({
    data: await stock.listLocations(sessionOf(request).tenantId),
  }));
  app.post(
    '/locations',
    { config: { access: 'admin' }, schema: { tags, summary: 'Create a location; the first one is the default', body: CreateLocationBody, response: { 201: Location, ...errors(400, 401, 403, 409) } } },
    async (request, reply) => reply.code(201).send(await stock.createLocation(sessionOf(request).tenantId, request.body)),
  );
  app.patch(
    '/locations/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Rename a location or make it the default (exactly one default)', params: IdParams, body: UpdateLocationBody, response: { 200: Location, ...errors(400, 401, 403, 404, 409) } } },
    async (request) => stock.updateLocation(sessionOf(request).tenantId, request.params.id, request.body),
  );
  app.delete(
    '/locations/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Archive a location (not the default, not while it holds stock)', params: IdParams, response: { 204: z.null(), ...errors(400, 401, 403, 404, 409) } } },
    async (request, reply) => {
      await stock.archiveLocation(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/recipes/:product_id',
    { config: { access: 'admin' }, schema: { tags, summary: 'The recipe of a sold product: ingredients per sold unit and their cost', params: RecipeParams, response: { 200: Recipe, ...errors(400, 401, 403, 404) } } },
    async (request) => stock.getRecipe(sessionOf(request).tenantId, request.params.product_id),
  );
  app.put(
    '/recipes/:product_id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Replace a recipe (an empty list removes it); a completed order books it from the default location',
        params: RecipeParams,
        body: PutRecipeBody,
        response: { 200: Recipe, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => stock.putRecipe(sessionOf(request).tenantId, request.params.product_id, request.body),
  );
};

/** Stock and purchasing for staff (spec §4.3): any session. */
export const stockRoutes: FastifyPluginAsyncZod<{ stock: StockService }> = async (app, { stock }) => {
  const tags = ['Voorraad'];

  app.get(
    '/stock',
    { config: { access: 'session' }, schema: { tags, summary: 'Stock per product with the per-location breakdown; below_zero and below_min flag what needs attention', response: { 200: StockList, ...errors(401) } } },
    async (request) => stock.list(sessionOf(request).tenantId),
  );
  app.post(
    '/stock',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Book a stock movement (ADDITION, REMOVAL, INTAKE, TRANSFER_OUT, TRANSFER_IN, ADJUSTMENT)',
        description:
          'REMOVAL and TRANSFER_OUT take stock out: 409 when the location would go below zero (nothing is booked). A transfer is one unit: TRANSFER_OUT with toLocationId, or TRANSFER_IN with fromLocationId, books both legs. ADJUSTMENT: quantity is the counted level; the movement records the difference.',
        body: MoveStockBody,
        response: { 201: MoveStockResult, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      return reply.code(201).send(await stock.recordMovement({ tenantId: s.tenantId, userId: s.userId }, request.body));
    },
  );
  app.get(
    '/stock/movements',
    { config: { access: 'session' }, schema: { tags, summary: 'The stock ledger, newest first (who, when, type, quantity, reason, note, resulting level)', querystring: MovementsQuery, response: { 200: pageOf(Movement), ...errors(400, 401) } } },
    async (request) => stock.movements(sessionOf(request).tenantId, request.query),
  );
  app.get(
    '/purchase-list',
    { config: { access: 'session' }, schema: { tags, summary: 'Stock items below their min_level, with the quantity to order (min_level − total)', response: { 200: PurchaseList, ...errors(401) } } },
    async (request) => stock.purchaseList(sessionOf(request).tenantId),
  );
  app.get(
    '/purchase-list/suggest',
    { config: { access: 'session' }, schema: { tags, summary: 'What to order, from the consumption over the last days', description: SUGGEST_FORMULA, querystring: SuggestQuery, response: { 200: SuggestionList, ...errors(400, 401) } } },
    async (request) => stock.suggest(sessionOf(request).tenantId, request.query),
  );
};
