import type { PrintEventPayload } from './printing.service.js';

/**
 * The printing area's socket events (docs/kitchen.md). They are not change-log kinds: a print job is
 * this node's own outbox to its printers and never replicates, so printing.routes.ts emits them to
 * the restaurant's room after the job's outcome is committed (the kitchen board shows `print:failed`
 * as an alert on the station's board).
 */
declare module '../../plugins/realtime.js' {
  interface ServerToClientEvents {
    /** A ticket could not be printed after 3 attempts: it moved to the fallback printer (`error` says so) or waits, still retried. */
    'print:failed': (e: PrintEventPayload) => void;
    /** A ticket was printed (the printer took every byte). */
    'print:done': (e: PrintEventPayload) => void;
  }
}
export {};
