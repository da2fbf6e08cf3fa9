import { z } from 'zod';
import { Limit, Offset } from '../../shared/schemas.js';
import { OrderStatus, StatusList } from '../orders/orders.schemas.js';
import '../../shared/validation.js';

export const ExternalOrdersQuery = z
  .object({
    status: StatusList.optional().meta({ description: 'One status or several, comma-separated (e.g. new,accepted).' }),
    limit: Limit,
    offset: Offset,
  })
  .strict();

export const ExternalOrderParams = z.object({ id: z.uuid() });

export const ExternalStatusBody = z
  .object({
    status: OrderStatus.meta({
      description:
        'new → accepted → preparing → ready → delivering → completed: forward only, steps may be skipped; any active status may become cancelled. ' +
        'The current status again is a no-op (200); backward or out of a final status is 409.',
    }),
  })
  .strict();

/** A calendar date; one message per problem (the format first, then whether the day exists). */
const DateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'moet een datum zijn als JJJJ-MM-DD.', abort: true })
  .refine(
    (s) => {
      const d = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
    },
    { message: 'moet een bestaande datum zijn.' },
  );

export const ExternalReservationsQuery = z
  .object({ date: DateParam.optional().meta({ description: 'YYYY-MM-DD (restaurant time zone); default today' }) })
  .strict();

export { PhoneParams as ExternalLoyaltyParams } from '../loyalty/loyalty.schemas.js';
