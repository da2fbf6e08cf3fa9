import type { AreaModel } from './types.js';

/**
 * The areas that take part in the sync convergence property, one line each (see ./types.ts).
 * Their commands are mixed into the core stream (users, settings, orders, menu, sync steps, faults).
 */
export const AREA_MODELS: AreaModel[] = [];
