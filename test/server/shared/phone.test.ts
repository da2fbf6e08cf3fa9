import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../server/shared/errors.js';
import { e164OrThrow, INVALID_PHONE, phoneSearchPrefix, toE164 } from '../../../server/shared/phone.js';

describe('toE164: any notation → E.164, the Netherlands by default', () => {
  it.each([
    ['06 12345678', '+31612345678'],
    ['0612345678', '+31612345678'],
    ['06-1234-5678', '+31612345678'],
    ['0031612345678', '+31612345678'],
    ['+31 6 1234 5678', '+31612345678'],
    ['+31612345678', '+31612345678'],
    ['  +31612345678 ', '+31612345678'],
    ['0031 (0)6 12345678', '+31612345678'],
    ['(020) 555 1234', '+31205551234'],
    ['010-1234567', '+31101234567'],
    ['085 123 4567', '+31851234567'],
    ['+32 470 12 34 56', '+32470123456'],
    ['+49 30 123456', '+4930123456'],
    ['0032 470 12 34 56', '+32470123456'],
  ])('%s is %s', (input, e164) => {
    expect(toE164(input)).toBe(e164);
  });

  it.each(['0612', '06 1234567a', 'abc', '+31 6 1234 567', '112', '', '   ', '+999 123456789', '06 12345678 90', 'bel 06 12345678', '0'.repeat(41)])(
    '%j is not a phone number',
    (input) => {
      expect(toE164(input)).toBeUndefined();
    },
  );

  // The reason for the `max` metadata: these have the length of a Dutch number but are not in the
  // number plan. The `min` set (libphonenumber-js's default, which bookings used) called them valid.
  it.each(['+31 6 0000 0000', '06 99999999', '+31 97 1234 5678'])('%s has the right length but no such number exists: refused', (input) => {
    expect(toE164(input)).toBeUndefined();
  });

  it('every E.164 result normalises to itself (one number, one stored form)', () => {
    const dutchMobile = fc.integer({ min: 10_000_000, max: 59_999_999 }).map((n) => `06${n}`);
    fc.assert(
      fc.property(dutchMobile, fc.constantFrom(' ', '-', ''), (national, sep) => {
        const typed = `${national.slice(0, 2)}${sep}${national.slice(2)}`;
        const e164 = toE164(typed);
        if (e164 === undefined) return;
        expect(e164).toBe(`+31${national.slice(1)}`);
        expect(toE164(e164)).toBe(e164);
        expect(toE164(`0031${national.slice(1)}`)).toBe(e164);
      }),
    );
  });
});

describe('e164OrThrow', () => {
  it('answers E.164, or VALIDATION on the named field with the Dutch message', () => {
    expect(e164OrThrow('06 12345678', 'phone')).toBe('+31612345678');
    try {
      e164OrThrow('12345', 'customer.phone');
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err) && err.code).toBe('VALIDATION');
      expect(isAppError(err) && err.details).toEqual([{ field: 'customer.phone', error: `'customer.phone' ${INVALID_PHONE}` }]);
    }
  });
});

describe('phoneSearchPrefix: the start of a number as typed → the start of its E.164 form', () => {
  it.each([
    ['06', '+316'],
    ['0612', '+31612'],
    ['06 12', '+31612'],
    ['06-1234', '+3161234'],
    ['(020) 55', '+312055'],
    ['+31', '+31'],
    ['+316', '+316'],
    ['0031 6', '+316'],
    ['00316 12', '+31612'],
    ['+32 47', '+3247'],
    ['0049 30', '+4930'],
    ['06 12345678', '+31612345678'],
  ])('%j → %s', (input, prefix) => {
    expect(phoneSearchPrefix(input)).toBe(prefix);
  });

  it.each(['', '0', '+', '+3', '612', '8765', '470 12', 'jan', '06a', '06%', '06_1', '+31 6 x'])('%j is not the start of a number', (input) => {
    expect(phoneSearchPrefix(input)).toBeUndefined();
  });

  it('a valid number starts with the prefix of every start of it typed nationally (what a prefix search relies on)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_000_000, max: 59_999_999 }), fc.integer({ min: 2, max: 10 }), (n, len) => {
        const national = `06${n}`;
        const e164 = toE164(national);
        if (!e164) return;
        const prefix = phoneSearchPrefix(national.slice(0, len));
        expect(prefix).toBeDefined();
        expect(e164.startsWith(prefix!)).toBe(true);
        expect(prefix).toMatch(/^\+\d+$/);
      }),
    );
  });
});
