import crypto from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { HaccpActionsTable, HaccpChecklistRunsTable, HaccpIncidentsTable, HaccpTemperatureLogsTable } from '../../db/database.js';
import type { Action, BadRecord, ChecklistRun, IncidentRecord, Integrity, TemperatureLog } from './haccp.schemas.js';

/**
 * Tamper evidence (docs/haccp.md). Every food-safety record (temperature log, checklist run,
 * incident, corrective action) is a link in the hash chain of the node that made it (its origin:
 * 'cloud' or the appliance's device id; ARCHITECTURE §4 "food-safety hash chains are per device"):
 *
 *   hash = sha256_hex(prev_hash + canonical_json({ type, tenant_id, ...record without prev_hash and hash }))
 *
 * with RFC 8785 canonical JSON (the `canonicalize` package), `prev_hash` the hash of the origin's
 * previous record (64 zeros for the first) and `chain_seq` its position (1, 2, 3 ...). Records are
 * ledger rows that sync as a union with every column as it was written, so each side holds every
 * origin's chain and verifies it alike.
 */

export const GENESIS = '0'.repeat(64);

/** RFC 8785 (JCS) canonical JSON. The package is CommonJS: its function is the default export at run time. */
const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ?? canonicalizeModule) as (input: unknown) => string | undefined;

export const RECORD_TYPES = ['temperature_log', 'checklist_run', 'incident', 'corrective_action'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const RECORD_TABLE = {
  temperature_log: 'haccp_temperature_logs',
  checklist_run: 'haccp_checklist_runs',
  incident: 'haccp_incidents',
  corrective_action: 'haccp_actions',
} as const satisfies Record<RecordType, string>;

/** The change-log entity of each record type, and the payload key that carries the record. */
export const RECORD_ENTITY = {
  temperature_log: { entity: 'haccp_temperature_log', key: 'log' },
  checklist_run: { entity: 'haccp_checklist_run', key: 'run' },
  incident: { entity: 'haccp_incident', key: 'incident' },
  corrective_action: { entity: 'haccp_action', key: 'action' },
} as const satisfies Record<RecordType, { entity: string; key: string }>;

export const TYPE_NL: Record<RecordType, string> = {
  temperature_log: 'temperatuurregistratie',
  checklist_run: 'controlelijst',
  incident: 'incident',
  corrective_action: 'correctieve maatregel',
};

export type LogRow = HaccpTemperatureLogsTable;
export type RunRow = HaccpChecklistRunsTable;
export type IncidentRow = HaccpIncidentsTable;
export type ActionRow = HaccpActionsTable;
export type RecordRow = LogRow | RunRow | IncidentRow | ActionRow;

const chain = (r: RecordRow) => ({ origin: r.origin, chain_seq: Number(r.chain_seq), prev_hash: r.prev_hash, hash: r.hash });
const num = (x: number | null): number | null => (x === null ? null : Number(x));

// One conversion from a stored row to the record as the API shows it and as it is hashed: the same
// function at write time and when verifying, on both engines.
export const logDto = (r: LogRow): TemperatureLog => ({
  id: r.id,
  unit_id: r.unit_id,
  unit_name: r.unit_name,
  unit_type: r.unit_type as TemperatureLog['unit_type'],
  temperature: Number(r.temperature),
  target_max: Number(r.target_max),
  target_min: num(r.target_min),
  margin: Number(r.margin),
  status: r.status,
  business_day: r.business_day,
  user_id: r.user_id,
  note: r.note,
  created_at: r.created_at,
  ...chain(r),
});

export const runDto = (r: RunRow): ChecklistRun => ({
  id: r.id,
  checklist_id: r.checklist_id,
  checklist_name: r.checklist_name,
  business_day: r.business_day,
  user_id: r.user_id,
  items: JSON.parse(r.items) as ChecklistRun['items'],
  completed_items: JSON.parse(r.completed_items) as string[],
  missing_items: JSON.parse(r.missing_items) as string[],
  complete: Number(r.complete) === 1,
  notes: r.notes,
  created_at: r.created_at,
  ...chain(r),
});

export const incidentRecordDto = (r: IncidentRow): IncidentRecord => ({
  id: r.id,
  kind: r.kind,
  unit_id: r.unit_id,
  checklist_id: r.checklist_id,
  log_id: r.log_id,
  business_day: r.business_day,
  description: r.description,
  created_at: r.created_at,
  ...chain(r),
});

export const actionDto = (r: ActionRow): Action => ({
  id: r.id,
  incident_id: r.incident_id,
  note: r.note,
  user_id: r.user_id,
  created_at: r.created_at,
  ...chain(r),
});

export function recordDto(type: RecordType, row: RecordRow): { id: string; origin: string; chain_seq: number; prev_hash: string; hash: string } {
  switch (type) {
    case 'temperature_log':
      return logDto(row as LogRow);
    case 'checklist_run':
      return runDto(row as RunRow);
    case 'incident':
      return incidentRecordDto(row as IncidentRow);
    case 'corrective_action':
      return actionDto(row as ActionRow);
  }
}

/** sha256(prev_hash + canonical JSON of the record without its two hashes), hex. */
export function hashRecord(type: RecordType, tenantId: string, record: { prev_hash: string; hash?: string }): string {
  const { hash: _hash, prev_hash, ...rest } = record;
  const canonical = canonicalize({ type, tenant_id: tenantId, ...rest });
  return crypto.createHash('sha256').update(prev_hash + canonical).digest('hex');
}

/** A stored record as the verifier needs it. */
export interface ChainedRecord {
  type: RecordType;
  tenantId: string;
  row: RecordRow;
}

/** What the node's change log says was written (each record's change carries the record with its hash). */
export interface LoggedRecord {
  type: RecordType;
  id: string;
  origin: string;
  chain_seq: number;
  hash: string;
}

const describe = (type: RecordType | null, id: string | null) => (type && id ? `${TYPE_NL[type]} ${id}` : 'onbekend record');

/**
 * Verifies every chain of a tenant: positions 1..n without gaps or doubles, each record's hash
 * recomputed from its content, each `prev_hash` equal to its predecessor's hash, and each record
 * equal to the one its change-log entry recorded (so a record removed from the end, or one added
 * with a correctly computed hash, is noticed too). `mustBeLogged(origin)`: the origins whose every
 * record this node wrote to its change log (its own; on the cloud all of them).
 */
export function verifyChains(records: ChainedRecord[], logged: LoggedRecord[], mustBeLogged: (origin: string) => boolean): Integrity {
  const origins = new Set<string>([...records.map((r) => r.row.origin), ...logged.map((l) => l.origin)]);
  const chains: Integrity['chains'] = [];
  for (const origin of [...origins].sort((a, b) => (a === 'cloud' ? -1 : b === 'cloud' ? 1 : a.localeCompare(b)))) {
    const mine = records.filter((r) => r.row.origin === origin);
    const bySeq = new Map<number, ChainedRecord[]>();
    for (const r of mine) {
      const seq = Number(r.row.chain_seq);
      const group = bySeq.get(seq);
      if (group) group.push(r);
      else bySeq.set(seq, [r]);
    }
    const loggedById = new Map<string, LoggedRecord>();
    const loggedBySeq = new Map<number, LoggedRecord>();
    for (const l of logged) {
      if (l.origin !== origin) continue;
      loggedById.set(l.id, l);
      loggedBySeq.set(l.chain_seq, l);
    }
    const maxSeq = Math.max(0, ...bySeq.keys(), ...loggedBySeq.keys());
    const problems: BadRecord[] = [];
    const bad = (seq: number, r: { type: RecordType | null; id: string | null }, problem: BadRecord['problem'], reason: string) =>
      problems.push({ origin, chain_seq: seq, record_type: r.type, record_id: r.id, problem, reason });
    const valid = (r: ChainedRecord) => hashRecord(r.type, r.tenantId, recordDto(r.type, r.row)) === r.row.hash;

    let prev: string | null = GENESIS;
    let head: string | null = null;
    for (let seq = 1; seq <= maxSeq; seq++) {
      const group = (bySeq.get(seq) ?? []).sort((a, b) => a.row.id.localeCompare(b.row.id));
      const wasLogged = loggedBySeq.get(seq);
      if (wasLogged && !group.some((r) => r.row.id === wasLogged.id)) {
        bad(seq, wasLogged, 'missing', `Record nr. ${seq} (${describe(wasLogged.type, wasLogged.id)}) ontbreekt: het is na het vastleggen verwijderd of vervangen.`);
      }
      if (group.length === 0) {
        if (!wasLogged) bad(seq, { type: null, id: null }, 'missing', `Record nr. ${seq} ontbreekt in de keten.`);
        prev = wasLogged?.hash ?? null;
        continue;
      }
      let chosen = group[0]!;
      if (group.length > 1) {
        const genuine = group.find((r) => valid(r) && (prev === null || r.row.prev_hash === prev) && (!wasLogged || wasLogged.id === r.row.id));
        chosen = genuine ?? chosen;
        for (const r of group) {
          if (r !== chosen) bad(seq, { type: r.type, id: r.row.id }, 'duplicate_position', `Er staan meerdere records op positie ${seq}; deze ${TYPE_NL[r.type]} hoort niet in de keten (mogelijk achteraf ingevoegd).`);
        }
      }
      const who = { type: chosen.type, id: chosen.row.id };
      const entry = loggedById.get(chosen.row.id);
      if (!valid(chosen)) {
        bad(seq, who, 'content_changed', `De inhoud van deze ${TYPE_NL[chosen.type]} is na het vastleggen gewijzigd (de hash klopt niet meer).`);
      } else if (entry && entry.hash !== chosen.row.hash) {
        bad(seq, who, 'content_changed', `Deze ${TYPE_NL[chosen.type]} wijkt af van hoe hij is vastgelegd (andere hash dan in het wijzigingslogboek).`);
      } else if (prev !== null && chosen.row.prev_hash !== prev) {
        bad(seq, who, 'link_broken', `Deze ${TYPE_NL[chosen.type]} sluit niet aan op het vorige record van de keten (prev_hash klopt niet).`);
      } else if (!entry && mustBeLogged(origin)) {
        bad(seq, who, 'not_in_change_log', `Deze ${TYPE_NL[chosen.type]} staat niet in het wijzigingslogboek: niet via de applicatie vastgelegd (mogelijk rechtstreeks in de database ingevoegd).`);
      }
      prev = chosen.row.hash;
      head = chosen.row.hash;
    }
    if (maxSeq > 0 && !bySeq.has(maxSeq)) head = loggedBySeq.get(maxSeq)?.hash ?? head;
    problems.sort((a, b) => a.chain_seq - b.chain_seq);
    chains.push({ origin, records: mine.length, head_hash: head, verified: problems.length === 0, first_bad: problems[0] ?? null, problems: problems.length });
  }
  const broken = chains.find((c) => !c.verified);
  return { verified: !broken, first_bad: broken?.first_bad ?? null, chains };
}
