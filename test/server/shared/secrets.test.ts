import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newToken, sha256 } from '../../../server/shared/secrets.js';

// sha256 is the stored form of session tokens and API keys: it must stay exactly the hex digest of the
// string's UTF-8 bytes that createHash gave (stored hashes of live sessions and keys are compared with it).
describe('sha256', () => {
  it('is the hex sha256 of the UTF-8 bytes, as createHash().update().digest("hex")', () => {
    const samples = ['', 'a', 'abc', newToken(), newToken(), 'é€😀 token', '\u0000nul', 'x'.repeat(10_000)];
    for (const s of samples) expect(sha256(s)).toBe(crypto.createHash('sha256').update(s).digest('hex'));
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
