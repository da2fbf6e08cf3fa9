import { composeLiveEvents, type LiveEvents } from '../plugins/realtime.js';
import { floorEvents } from './floor/floor.events.js';
import { haccpEvents } from './haccp/haccp.events.js';
import { ordersEvents } from './orders/orders.events.js';
import { reservationsEvents } from './reservations/reservations.events.js';
import { shiftsEvents } from './shifts/shifts.events.js';

/**
 * The composition root's half of live updates (docs/realtime.md): every area's change kinds → the
 * socket events tablets get. server/plugins/realtime.ts knows no area; it gets this map as an option.
 *
 * Adding an area with live events: write `server/modules/<area>/<area>.events.ts`, which augments
 * `ServerToClientEvents` with the area's events (typed payloads) and exports a `LiveEvents` map
 * (change kind → event), and add it below. Change kinds not listed reach no tablet.
 */
export const MODULE_LIVE_EVENTS: LiveEvents = composeLiveEvents([ordersEvents, floorEvents, reservationsEvents, shiftsEvents, haccpEvents]);
