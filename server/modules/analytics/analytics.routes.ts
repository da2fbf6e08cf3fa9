import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { DaysQuery, MenuEngineering, Revenue, RevenueQuery, TopProducts, TopProductsQuery } from './analytics.schemas.js';
import type { AnalyticsService } from './analytics.service.js';

export const analyticsRoutes: FastifyPluginAsyncZod<{ insights: AnalyticsService }> = async (app, { insights }) => {
  const tags = ['Inzichten'];
  app.get(
    '/analytics/menu-engineering',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary:
          'Menu engineering (Kasavana-Smith) over the last `days` days (default 30): per dish popularity and contribution margin with the thresholds, its class, and a waste-adjusted margin and class',
        querystring: DaysQuery,
        response: { 200: MenuEngineering, ...errors(400, 401) },
      },
    },
    async (request) => insights.menuEngineering(sessionOf(request).tenantId, request.query.days),
  );

  app.get(
    '/analytics/top-products',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Best-selling products over the last `days` days (default 30) by quantity, with revenue and share; completed orders only',
        querystring: TopProductsQuery,
        response: { 200: TopProducts, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { days, limit } = request.query;
      return insights.topProducts(sessionOf(request).tenantId, days, limit);
    },
  );

  app.get(
    '/analytics/revenue',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Revenue of the business days from..to (default the last 7 days, at most 366): omzet incl. and excl. VAT, VAT per rate, orders, average ticket, tips, discounts and payment methods from the till’s journal (so a day agrees with its day close), grouped per day, hour of day or weekday, with labour cost and labour % (of net revenue) from the closed shifts',
        querystring: RevenueQuery,
        response: { 200: Revenue, ...errors(400, 401, 403) },
      },
    },
    async (request) => insights.revenue(sessionOf(request).tenantId, request.query),
  );
};
