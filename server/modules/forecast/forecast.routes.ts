import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../../shared/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { Forecast, ForecastQuery } from './forecast.schemas.js';
import type { ForecastService } from './forecast.service.js';

export const forecastRoutes: FastifyPluginAsyncZod<{ forecast: ForecastService }> = async (app, { forecast }) => {
  app.get(
    '/forecast/orders',
    {
      config: { access: 'session' },
      schema: {
        tags: ['Inzichten'],
        summary:
          'Expected orders per day for the next `days` days (default 7, 1..28), with the method, weeks of history, trend, a back-test over the last 4 weeks (MAPE), a confidence, Dutch public holidays, and the last 28 days for the chart',
        querystring: ForecastQuery,
        response: { 200: Forecast, ...errors(400, 401) },
      },
    },
    async (request) => forecast.forecast(sessionOf(request).tenantId, request.query.days),
  );
};
