import crypto from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { JournalEntriesTable } from '../../db/database.js';
import type { JournalBad, JournalEntry, JournalIntegrity } from './journal.schemas.js';

/**
 * Tamper evidence of the journal (docs/till.md "Journal"), the pattern of the HACCP records
 * (server/modules/haccp/haccp.chain.ts): every entry is a link in the hash chain of the node that
 * wrote it (`origin`: 'cloud' or the appliance's device id):
 *
 *   hash = sha256_hex(prev_hash + canonical_json({ type: 'journal', tenant_id, ...entry without prev_hash and hash }))
 *
 * with RFC 8785 canonical JSON, `prev_hash` the hash of the origin's previous entry (64 zeros for the
 * first) and `chain_seq` its position. Entries are ledger rows that sync as a union with every column
 * as written, so each side holds every origin's chain and verifies it alike. Pure: no database.
 */

export const GENESIS = '0'.repeat(64);

const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ?? canonicalizeModule) as (input: unknown) => string | undefined;

export const JOURNAL_KINDS = ['payment', 'discount', 'void', 'refund', 'close'] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

export const KIND_NL: Record<JournalKind, string> = { payment: 'betaling', discount: 'korting', void: 'annulering', refund: 'terugbetaling', close: 'dagafsluiting' };
const kindNl = (kind: string) => KIND_NL[kind as JournalKind] ?? 'journaalregel';

export type JournalRow = JournalEntriesTable;

const parseDetail = (s: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** One conversion from a stored row to the entry as the API shows it and as it is hashed (both engines alike). */
export const entryDto = (r: JournalRow): JournalEntry => ({
  id: r.id,
  origin: r.origin,
  chain_seq: Number(r.chain_seq),
  prev_hash: r.prev_hash,
  hash: r.hash,
  kind: r.kind as JournalKind,
  ref_id: r.ref_id,
  order_id: r.order_id,
  bill_id: r.bill_id,
  amount_cents: Number(r.amount_cents),
  tip_cents: Number(r.tip_cents),
  method: r.method,
  business_day: r.business_day,
  at: r.at,
  user_id: r.user_id,
  detail: parseDetail(r.detail),
  created_at: r.created_at,
});

/** sha256(prev_hash + canonical JSON of the entry without its two hashes), hex. */
export function hashEntry(tenantId: string, entry: JournalEntry): string {
  const { hash: _hash, prev_hash, ...rest } = entry;
  const canonical = canonicalize({ type: 'journal', tenant_id: tenantId, ...rest });
  return crypto.createHash('sha256').update(prev_hash + canonical).digest('hex');
}

/** What this node's change log says was written (each entry's change carries the entry with its hash). */
export interface LoggedEntry {
  id: string;
  origin: string;
  chain_seq: number;
  hash: string;
}

/**
 * Verifies every chain of a restaurant: positions 1..n without gaps or doubles, each entry's hash
 * recomputed from its content, each `prev_hash` equal to its predecessor's hash, and each entry
 * equal to the one its change-log entry recorded (so an entry removed from the end, or one added
 * with a correctly computed hash, is noticed too). `mustBeLogged(origin)`: the origins whose every
 * entry this node wrote or received through its change log.
 */
export function verifyJournal(tenantId: string, rows: JournalRow[], logged: LoggedEntry[], mustBeLogged: (origin: string) => boolean): JournalIntegrity {
  const origins = new Set<string>([...rows.map((r) => r.origin), ...logged.map((l) => l.origin)]);
  const chains: JournalIntegrity['chains'] = [];
  for (const origin of [...origins].sort((a, b) => (a === 'cloud' ? -1 : b === 'cloud' ? 1 : a.localeCompare(b)))) {
    const mine = rows.filter((r) => r.origin === origin);
    const bySeq = new Map<number, JournalRow[]>();
    for (const r of mine) {
      const seq = Number(r.chain_seq);
      bySeq.set(seq, [...(bySeq.get(seq) ?? []), r]);
    }
    const loggedById = new Map<string, LoggedEntry>();
    const loggedBySeq = new Map<number, LoggedEntry>();
    for (const l of logged) {
      if (l.origin !== origin) continue;
      loggedById.set(l.id, l);
      loggedBySeq.set(l.chain_seq, l);
    }
    const maxSeq = Math.max(0, ...bySeq.keys(), ...loggedBySeq.keys());
    const problems: JournalBad[] = [];
    const bad = (seq: number, r: { kind: string | null; id: string | null }, problem: JournalBad['problem'], reason: string) =>
      problems.push({ origin, chain_seq: seq, entry_id: r.id, kind: (r.kind as JournalKind | null) ?? null, problem, reason });
    const valid = (r: JournalRow) => hashEntry(tenantId, entryDto(r)) === r.hash;

    let prev: string | null = GENESIS;
    let head: string | null = null;
    for (let seq = 1; seq <= maxSeq; seq++) {
      const group = (bySeq.get(seq) ?? []).sort((a, b) => a.id.localeCompare(b.id));
      const wasLogged = loggedBySeq.get(seq);
      if (wasLogged && !group.some((r) => r.id === wasLogged.id)) {
        bad(seq, { kind: null, id: wasLogged.id }, 'missing', `Journaalregel nr. ${seq} (${wasLogged.id}) ontbreekt: ze is na het vastleggen verwijderd of vervangen.`);
      }
      if (group.length === 0) {
        if (!wasLogged) bad(seq, { kind: null, id: null }, 'missing', `Journaalregel nr. ${seq} ontbreekt in de keten.`);
        prev = wasLogged?.hash ?? null;
        continue;
      }
      let chosen = group[0]!;
      if (group.length > 1) {
        chosen = group.find((r) => valid(r) && (prev === null || r.prev_hash === prev) && (!wasLogged || wasLogged.id === r.id)) ?? chosen;
        for (const r of group) {
          if (r !== chosen) bad(seq, r, 'duplicate_position', `Er staan meerdere regels op positie ${seq}; deze ${kindNl(r.kind)} hoort niet in de keten (mogelijk achteraf ingevoegd).`);
        }
      }
      const entry = loggedById.get(chosen.id);
      if (!valid(chosen)) {
        bad(seq, chosen, 'content_changed', `De inhoud van deze ${kindNl(chosen.kind)} is na het vastleggen gewijzigd (de hash klopt niet meer).`);
      } else if (entry && entry.hash !== chosen.hash) {
        bad(seq, chosen, 'content_changed', `Deze ${kindNl(chosen.kind)} wijkt af van hoe ze is vastgelegd (andere hash dan in het wijzigingslogboek).`);
      } else if (prev !== null && chosen.prev_hash !== prev) {
        bad(seq, chosen, 'link_broken', `Deze ${kindNl(chosen.kind)} sluit niet aan op de vorige regel van de keten (prev_hash klopt niet).`);
      } else if (!entry && mustBeLogged(origin)) {
        bad(seq, chosen, 'not_in_change_log', `Deze ${kindNl(chosen.kind)} staat niet in het wijzigingslogboek: niet via de kassa vastgelegd (mogelijk rechtstreeks in de database ingevoegd).`);
      }
      prev = chosen.hash;
      head = chosen.hash;
    }
    if (maxSeq > 0 && !bySeq.has(maxSeq)) head = loggedBySeq.get(maxSeq)?.hash ?? head;
    problems.sort((a, b) => a.chain_seq - b.chain_seq);
    chains.push({ origin, entries: mine.length, head_hash: head, verified: problems.length === 0, first_bad: problems[0] ?? null, problems: problems.length });
  }
  const broken = chains.find((c) => !c.verified);
  return { verified: !broken, first_bad: broken?.first_bad ?? null, chains };
}
