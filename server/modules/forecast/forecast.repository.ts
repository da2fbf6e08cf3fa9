import type { Executor } from '../../db/connection.js';

/** Completed orders per business day (the only orders that count for insights: docs/insights.md). */
export const forecastRepository = {
  countsByDay: async (db: Executor, tenantId: string, from: string, to: string): Promise<Map<string, number>> => {
    const rows = await db
      .selectFrom('orders')
      .select(['business_day', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'completed')
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .groupBy('business_day')
      .execute();
    return new Map(rows.map((r) => [r.business_day, Number(r.n)]));
  },

  firstDay: async (db: Executor, tenantId: string): Promise<string | null> => {
    const row = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.min('business_day').as('first'))
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'completed')
      .executeTakeFirst();
    return (row?.first as string | null | undefined) ?? null;
  },
};
