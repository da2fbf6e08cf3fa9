import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

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

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) {
    // Spend the same time as a real check, so unknown users cannot be told apart by timing.
    await scrypt(password, crypto.randomBytes(16), KEYLEN, PARAMS);
    return false;
  }
  const [alg, n, r, p, saltB64, hashB64] = stored.split('$');
  if (alg !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64url');
  const key = await scrypt(password, Buffer.from(saltB64, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return crypto.timingSafeEqual(key, expected);
}

/**
 * PIN hash: scrypt with the tenant's salt, so one PIN maps to one hash within a tenant. That makes
 * "unique within a tenant" a database constraint and login a single KDF call plus an index lookup
 * (docs/adr/0003-pins.md explains why a per-user salt buys nothing for a 4-to-8-digit PIN).
 */
export async function hashPin(pin: string, tenantSalt: string): Promise<string> {
  // The tenant's salt carries the cost it was made with (`N$salt`), so every PIN of a tenant hashes alike.
  const [n, salt] = tenantSalt.includes('$') ? tenantSalt.split('$') : ['16384', tenantSalt];
  const key = await scrypt(pin, Buffer.from(salt!, 'base64url'), KEYLEN, { ...PARAMS, N: Number(n) });
  return `scrypt-pin$${key.toString('base64url')}`;
}

/** A tenant's PIN salt, with the scrypt cost in front: `N$salt`. */
export const newPinSalt = (): string => `${PARAMS.N}$${crypto.randomBytes(16).toString('base64url')}`;

/** A bearer secret with 256 bits of entropy. */
export const newToken = (): string => crypto.randomBytes(32).toString('base64url');

/** Stored form of a high-entropy token: a fast hash is enough (no brute force on 256 bits). */
export const sha256 = (value: string): string => crypto.createHash('sha256').update(value).digest('hex');
