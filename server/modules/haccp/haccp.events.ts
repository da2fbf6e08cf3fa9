import type { LiveEvents } from '../../plugins/realtime.js';

declare module '../../plugins/realtime.js' {
  interface ServerToClientEvents {
    /** A food-safety incident (change-log kind `haccp.incident`): a `kritiek` temperature (with its log) or an overdue checklist or reading (docs/haccp.md). */
    'haccp:incident': (e: { seq: number; incident: unknown; log?: unknown }) => void;
  }
}

/** Food safety's change kinds → the tablets' events (docs/realtime.md). */
export const haccpEvents: LiveEvents = {
  'haccp.incident': (c) => {
    const h = c.payload as { incident?: unknown; log?: unknown };
    return { name: 'haccp:incident', payload: { seq: c.seq, incident: h.incident, ...(h.log ? { log: h.log } : {}) } };
  },
};
