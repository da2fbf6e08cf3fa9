import type { ChangeRecord } from '../../db/change-log.js';
import type { LiveEvents, SocketEvent } from '../../plugins/realtime.js';

type TableStatus = 'vrij' | 'bezet' | 'gereserveerd';

declare module '../../plugins/realtime.js' {
  interface ServerToClientEvents {
    /** A table's live status changed (change-log kind `table.status_changed`, docs/floor.md): vrij, bezet or gereserveerd; `manual` when staff set it. */
    'table:status': (e: { seq: number; table_id: string; zone_id: string; name: string; status: TableStatus; from: string; manual: boolean }) => void;
    /** The floor plan's layout changed (a zone or table created, changed, moved or archived): re-fetch GET /floorplan. */
    'floorplan:changed': (e: { seq: number; kind: string; id: string }) => void;
  }
}

const layoutChanged = (c: ChangeRecord): SocketEvent => ({ name: 'floorplan:changed', payload: { seq: c.seq, kind: c.kind, id: c.entity_id } });

/** The floor's change kinds → the tablets' events (docs/realtime.md, docs/floor.md). */
export const floorEvents: LiveEvents = {
  'table.status_changed': (c) => {
    const t = c.payload as { table_id: string; zone_id: string; name: string; status: TableStatus; from: string; manual: boolean };
    return { name: 'table:status', payload: { seq: c.seq, table_id: t.table_id, zone_id: t.zone_id, name: t.name, status: t.status, from: t.from, manual: t.manual } };
  },
  'zone.created': layoutChanged,
  'zone.updated': layoutChanged,
  'zone.archived': layoutChanged,
  'table.created': layoutChanged,
  'table.updated': layoutChanged,
  'table.archived': layoutChanged,
};
