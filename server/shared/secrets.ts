import crypto from 'node:crypto';
// On a thread of its own, not libuv's pool: each pool thread kept a 16 MiB block per hash for good (scrypt-thread.ts).
import { scrypt } from './scrypt-thread.js';

// N=2^14, r=8, p=1: the scrypt parameters Node documents as its defaults (~16 MiB, tens of ms).
// Under vitest only, a cheaper N keeps hundreds of logins fast; N is stored in each hash, so
// verification always uses the cost the hash was made with.
const PARAMS = { N: process.env.VITEST ? 1024 : 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEYLEN = 32;

/** Password hash with a random salt: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * The most a stored hash may make one verification cost (issue 17): the production cost, N = 2^14
 * with r = 8, p = 1. A hash that asks for more (planted through a database copy, an old release or a
 * hostile device) is not verified at all: with N, r and p read from the hash, one such hash made every
 * login attempt hold a libuv thread for seconds, and four of them starved every other tenant's logins.
 */
export const MAX_SCRYPT_N = 16384;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** The parts of a password hash in this server's own format and within the cost bound, or null. */
function parsePasswordHash(stored: string): { N: number; salt: Buffer; expected: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6) return null;
  const [alg, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string];
  if (alg !== 'scrypt' || !/^\d{1,6}$/.test(n) || r !== String(PARAMS.r) || p !== String(PARAMS.p)) return null;
  const N = Number(n);
  if (N < 2 || N > MAX_SCRYPT_N || (N & (N - 1)) !== 0) return null;
  if (!B64URL.test(saltB64) || !B64URL.test(hashB64)) return null;
  const salt = Buffer.from(saltB64, 'base64url');
  const expected = Buffer.from(hashB64, 'base64url');
  if (salt.length !== 16 || expected.length !== KEYLEN) return null;
  return { N, salt, expected };
}

/** A PIN hash as `hashPin` makes it: `scrypt-pin$` and a 32-byte key (base64url). */
export function isOwnPinHash(stored: string): boolean {
  const m = /^scrypt-pin\$([A-Za-z0-9_-]{43})$/.exec(stored);
  return m !== null && Buffer.from(m[1]!, 'base64url').length === KEYLEN;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parsePasswordHash(stored) : null;
  if (!parsed) {
    // Spend the same time as a real check, so unknown users (and refused hashes) cannot be told apart by timing.
    await scrypt(password, crypto.randomBytes(16), KEYLEN, PARAMS);
    return false;
  }
  const key = await scrypt(password, parsed.salt, KEYLEN, { N: parsed.N, r: PARAMS.r, p: PARAMS.p, maxmem: PARAMS.maxmem });
  return crypto.timingSafeEqual(key, parsed.expected);
}

/**
 * PIN hash: scrypt with the tenant's salt, so one PIN maps to one hash within a tenant. That makes
 * "unique within a tenant" a database constraint and login a single KDF call plus an index lookup
 * (docs/adr/0003-pins.md explains why a per-user salt buys nothing for a 4-to-8-digit PIN).
 */
export async function hashPin(pin: string, tenantSalt: string): Promise<string> {
  // The tenant's salt carries the cost it was made with (`N$salt`), so every PIN of a tenant hashes alike.
  const [n, salt] = tenantSalt.includes('$') ? tenantSalt.split('$') : ['16384', tenantSalt];
  const N = Number(n);
  // Bounded like verifyPassword: a salt asking for more than the production cost is not used.
  if (!Number.isSafeInteger(N) || N < 2 || N > MAX_SCRYPT_N || (N & (N - 1)) !== 0) throw new Error('pin salt: scrypt cost out of bounds');
  const key = await scrypt(pin, Buffer.from(salt!, 'base64url'), KEYLEN, { ...PARAMS, N });
  return `scrypt-pin$${key.toString('base64url')}`;
}

/** A tenant's PIN salt, with the scrypt cost in front: `N$salt`. */
export const newPinSalt = (): string => `${PARAMS.N}$${crypto.randomBytes(16).toString('base64url')}`;

/** A bearer secret with 256 bits of entropy. */
export const newToken = (): string => crypto.randomBytes(32).toString('base64url');

/** Stored form of a high-entropy token: a fast hash is enough (no brute force on 256 bits). */
// crypto.hash (Node ≥ 20.12, engines ≥ 20.19): one native call, no Hash object; ≈ 3× cheaper than createHash().update().digest()
// for a session token, which is hashed on every authenticated request (bench/README.md "Order path, session 14").
export const sha256 = (value: string): string => crypto.hash('sha256', value, 'hex');
