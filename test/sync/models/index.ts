import type { AreaModel } from './types.js';
import { stockModel } from './stock.js';
import { haccpModel } from './haccp.js';
import { floorModel } from './floor.js';
import { paymentsModel } from './payments.js';
import { shiftsModel } from './shifts.js';
import { loyaltyModel } from './loyalty.js';
import { partnersModel } from './partners.js';
import { depthModel } from './depth.js';
import { tillModel } from './till.js';

/**
 * The areas that take part in the sync convergence property, one line each (see ./types.ts).
 * Their commands are mixed into the core stream (users, settings, orders, menu, sync steps, faults).
 */
export const AREA_MODELS: AreaModel[] = [
  stockModel,
  haccpModel,
  floorModel,
  paymentsModel,
  shiftsModel,
  loyaltyModel,
  partnersModel,
  depthModel,
  tillModel,
];
