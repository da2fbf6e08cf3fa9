import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scrypt } from '../../../server/shared/scrypt-thread.js';
import { hashPassword, hashPin, newToken, sha256, verifyPassword } from '../../../server/shared/secrets.js';

// sha256 is the stored form of session tokens and API keys: it must stay exactly the hex digest of the
// string's UTF-8 bytes that createHash gave (stored hashes of live sessions and keys are compared with it).
describe('sha256', () => {
  it('is the hex sha256 of the UTF-8 bytes, as createHash().update().digest("hex")', () => {
    const samples = ['', 'a', 'abc', newToken(), newToken(), 'é€😀 token', '\u0000nul', 'x'.repeat(10_000)];
    for (const s of samples) expect(sha256(s)).toBe(crypto.createHash('sha256').update(s).digest('hex'));
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

// scrypt runs on a thread of its own (server/shared/scrypt-thread.ts), not libuv's pool: the keys and the
// errors must stay exactly those of crypto.scrypt (stored password and PIN hashes are compared with them).
describe('scrypt on its own thread', () => {
  const opts = { N: 1024, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

  it('gives crypto.scrypt’s keys, for hashes asked at once, each its own', async () => {
    const inputs = ['', 'pw', '4821', 'é€😀 wachtwoord', 'x'.repeat(1000)].map((pw, i) => ({ pw, salt: crypto.randomBytes(16), keylen: 16 + i * 8 }));
    const keys = await Promise.all(inputs.map((x) => scrypt(x.pw, x.salt, x.keylen, opts)));
    keys.forEach((key, i) => {
      const x = inputs[i]!;
      expect(Buffer.isBuffer(key)).toBe(true);
      expect(key.equals(crypto.scryptSync(x.pw, x.salt, x.keylen, opts))).toBe(true);
    });
  });

  it('rejects parameters crypto.scrypt refuses, with its error code', async () => {
    const err = await scrypt('pw', crypto.randomBytes(16), 32, { N: 1000, r: 8, p: 1 }).catch((e: unknown) => e);
    let expected: unknown;
    try {
      crypto.scryptSync('pw', crypto.randomBytes(16), 32, { N: 1000, r: 8, p: 1 });
    } catch (e) {
      expected = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe((expected as { code?: string }).code);
  });

  it('hashes and verifies passwords and PINs as before', async () => {
    const stored = await hashPassword('een-lang-wachtwoord');
    expect(await verifyPassword('een-lang-wachtwoord', stored)).toBe(true);
    expect(await verifyPassword('fout', stored)).toBe(false);
    const salt = crypto.randomBytes(16).toString('base64url');
    const pin = await hashPin('4821', `1024$${salt}`);
    expect(pin).toBe(`scrypt-pin$${crypto.scryptSync('4821', Buffer.from(salt, 'base64url'), 32, { N: 1024, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString('base64url')}`);
  });
});
