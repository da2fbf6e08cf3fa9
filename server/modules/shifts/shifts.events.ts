import type { ChangeRecord } from '../../db/change-log.js';
import type { LiveEvents, SocketEvent } from '../../plugins/realtime.js';

declare module '../../plugins/realtime.js' {
  interface ServerToClientEvents {
    /** Someone clocked in or out, or a shift was entered or corrected (`shift.*`, docs/insights.md): who is at work now. */
    'shift:changed': (e: { seq: number; kind: string; shift_id: string; user_id: string; status: 'open' | 'closed' }) => void;
  }
}

const changed = (c: ChangeRecord): SocketEvent | null => {
  const sh = (c.payload as { shift?: { user_id: string; end_at: string | null } }).shift;
  if (!sh) return null;
  return { name: 'shift:changed', payload: { seq: c.seq, kind: c.kind, shift_id: c.entity_id, user_id: sh.user_id, status: sh.end_at === null ? 'open' : 'closed' } };
};

/** Shifts' change kinds → the tablets' events (docs/realtime.md). */
export const shiftsEvents: LiveEvents = {
  'shift.clocked_in': changed,
  'shift.clocked_out': changed,
  'shift.created': changed,
  'shift.corrected': changed,
};
