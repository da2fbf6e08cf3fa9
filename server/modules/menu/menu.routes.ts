import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors, listOf } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import {
  CreateModifierGroupBody,
  ModifierGroup,
  UpdateModifierGroupBody,
  Category,
  CreateCategoryBody,
  CreateProductBody,
  IdParams,
  IncludeArchivedQuery,
  Product,
  StaffMenu,
  UpdateCategoryBody,
  UpdateProductBody,
} from './menu.schemas.js';
import type { MenuService } from './menu.service.js';

/** Menu configuration (CONTRACT §6): admin only. */
export const menuRoutes: FastifyPluginAsyncZod<{ menu: MenuService }> = async (app, { menu }) => {
  const tags = ['Menukaart'];

  app.get('/categories', { config: { access: 'admin' }, schema: { tags, summary: 'Menu categories', querystring: IncludeArchivedQuery, response: { 200: listOf(Category), ...errors(400, 401, 403) } } }, async (request) => ({
    data: await menu.listCategories(sessionOf(request).tenantId, request.query.include_archived === 'true'),
  }));
  app.post('/categories', { config: { access: 'admin' }, schema: { tags, summary: 'Create a category', body: CreateCategoryBody, response: { 201: Category, ...errors(400, 401, 403) } } }, async (request, reply) =>
    reply.code(201).send(await menu.createCategory(sessionOf(request).tenantId, request.body)),
  );
  app.patch('/categories/:id', { config: { access: 'admin' }, schema: { tags, summary: 'Rename or reorder a category, or change its course, station or VAT rate', params: IdParams, body: UpdateCategoryBody, response: { 200: Category, ...errors(400, 401, 403, 404) } } }, async (request) =>
    menu.updateCategory(sessionOf(request).tenantId, request.params.id, request.body),
  );
  app.delete('/categories/:id', { config: { access: 'admin' }, schema: { tags, summary: 'Archive a category', params: IdParams, response: { 204: z.null(), ...errors(401, 403, 404) } } }, async (request, reply) => {
    await menu.archiveCategory(sessionOf(request).tenantId, request.params.id);
    return reply.code(204).send(null);
  });

  app.get('/products', { config: { access: 'admin' }, schema: { tags, summary: 'Products (archived ones with include_archived=true)', querystring: IncludeArchivedQuery, response: { 200: listOf(Product), ...errors(400, 401, 403) } } }, async (request) => ({
    data: await menu.listProducts(sessionOf(request).tenantId, request.query.include_archived === 'true'),
  }));
  app.post('/products', { config: { access: 'admin' }, schema: { tags, summary: 'Create a product', body: CreateProductBody, response: { 201: Product, ...errors(400, 401, 403) } } }, async (request, reply) =>
    reply.code(201).send(await menu.createProduct(sessionOf(request).tenantId, request.body)),
  );
  app.patch('/products/:id', { config: { access: 'admin' }, schema: { tags, summary: 'Change a product (price changes apply to new orders only)', params: IdParams, body: UpdateProductBody, response: { 200: Product, ...errors(400, 401, 403, 404) } } }, async (request) =>
    menu.updateProduct(sessionOf(request).tenantId, request.params.id, request.body),
  );
  app.delete('/products/:id', { config: { access: 'admin' }, schema: { tags, summary: 'Archive a product: it leaves the menu, history keeps it', params: IdParams, response: { 204: z.null(), ...errors(401, 403, 404) } } }, async (request, reply) => {
    await menu.archiveProduct(sessionOf(request).tenantId, request.params.id);
    return reply.code(204).send(null);
  });
};

/**
 * The menu for taking orders (docs/orders.md, Menu): any session, so staff tablets can show it while
 * configuration stays admin-only. A separate plugin because `menuRoutes` guards all its routes.
 */
export const staffMenuRoutes: FastifyPluginAsyncZod<{ menu: MenuService }> = async (app, { menu }) => {
  app.get(
    '/menu',
    {
      config: { access: 'session' },
      schema: { tags: ['Menukaart'], summary: 'The menu for staff: live categories with their products, prices and availability (no costs)', response: { 200: StaffMenu, ...errors(401) } },
    },
    async (request) => menu.staffMenu(sessionOf(request).tenantId),
  );
};

/**
 * Modifier groups (CONTRACT §17, docs/menu.md): any session reads them (the order pad), admins
 * change them. Options live in their group; a product lists its groups (`modifier_group_ids`).
 */
export const modifierGroupRoutes: FastifyPluginAsyncZod<{ menu: MenuService }> = async (app, { menu }) => {
  const tags = ['Menukaart'];
  app.get(
    '/modifier-groups',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Modifier groups with their options (archived ones with include_archived=true)', querystring: IncludeArchivedQuery, response: { 200: listOf(ModifierGroup), ...errors(400, 401) } },
    },
    async (request) => ({ data: await menu.listGroups(sessionOf(request).tenantId, request.query.include_archived === 'true') }),
  );
  app.post(
    '/modifier-groups',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a modifier group: min_select..max_select options per item ("Saus (kies 1)": 1..1; "Extra\'s": 0..5)',
        body: CreateModifierGroupBody,
        response: { 201: ModifierGroup, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await menu.createGroup(sessionOf(request).tenantId, request.body)),
  );
  app.patch(
    '/modifier-groups/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change a modifier group; `options` replaces the list (an option given with its id keeps it). Sold items keep what they were sold with.',
        params: IdParams,
        body: UpdateModifierGroupBody,
        response: { 200: ModifierGroup, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => menu.updateGroup(sessionOf(request).tenantId, request.params.id, request.body),
  );
  app.delete(
    '/modifier-groups/:id',
    { config: { access: 'admin' }, schema: { tags, summary: 'Archive a modifier group: products stop asking it, sold items keep their options', params: IdParams, response: { 204: z.null(), ...errors(400, 401, 403, 404) } } },
    async (request, reply) => {
      await menu.archiveGroup(sessionOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
