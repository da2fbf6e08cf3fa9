import type { ChangeRecord } from '../../db/change-log.js';
import type { LiveEvents, SocketEvent } from '../../plugins/realtime.js';

declare module '../../plugins/realtime.js' {
  interface ServerToClientEvents {
    /** A booking was made or changed (`reservation.created` / `reservation.updated`, docs/reservations.md). */
    'reservation:changed': (e: { seq: number; kind: string; reservation: unknown }) => void;
  }
}

const changed = (c: ChangeRecord): SocketEvent => ({
  name: 'reservation:changed',
  payload: { seq: c.seq, kind: c.kind, reservation: (c.payload as { reservation?: unknown }).reservation },
});

/** Bookings' change kinds → the tablets' events (docs/realtime.md). */
export const reservationsEvents: LiveEvents = {
  'reservation.created': changed,
  'reservation.updated': changed,
};
