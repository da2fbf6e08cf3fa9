import { createRequire } from 'node:module';
import type * as Libphonenumber from 'libphonenumber-js/max';
import { invalidField } from './errors.js';

/**
 * Phone numbers, the same for every area (CONTRACT §1 and §8, docs/adr/0006): E.164 out, the
 * Netherlands for numbers written without a country code, one Dutch message for a number that is
 * not one. The only file that imports libphonenumber.
 *
 * Metadata: libphonenumber-js's `max` set, the one Google's libphonenumber always uses. The default
 * `min` set checks only a number's length for its country, so `+31 6 0000 0000` or
 * `+31 97 1234 5678` pass as valid; `max` checks the digits against the real number plan (which
 * ranges are mobile, fixed, VoIP) for about 65 kB more. A phone is an identity here (loyalty
 * customers are upserted by it, bookings and orders are looked up by it), so a number the plan does
 * not have must be refused where it is typed, and every area must give the same answer for the same
 * number: before, a booking (min) took numbers that loyalty (max) refused.
 */

let lib: typeof Libphonenumber | undefined;
/** libphonenumber-js with its `max` metadata, loaded at the first phone number rather than when the server starts (issue 29 point 5). */
const phoneLib = (): typeof Libphonenumber => (lib ??= createRequire(import.meta.url)('libphonenumber-js/max') as typeof Libphonenumber);

/** Country for numbers written without a country code (`06 12345678`, `020 555 1234`). */
export const DEFAULT_COUNTRY = 'NL' as const;

/** The message of a refused number (after the field's label: "'phone' moet ..."). */
export const INVALID_PHONE = 'moet een geldig telefoonnummer zijn, bijvoorbeeld 06 12345678 of +31 6 1234 5678.';

/** More than this is not a phone number in any notation (E.164 has at most 15 digits). */
const MAX_INPUT = 40;

/**
 * A phone number in any notation → E.164 (`06 12345678`, `0031612345678`, `+31 6 1234 5678`,
 * `0031 (0)6 12345678` → `+31612345678`); undefined when it is not a valid number. The whole input
 * must be the number (no text around it).
 */
export function toE164(input: string): string | undefined {
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_INPUT) return undefined;
  const parsed = phoneLib().parsePhoneNumberFromString(text, { defaultCountry: DEFAULT_COUNTRY, extract: false });
  if (!parsed || !parsed.isValid()) return undefined;
  return parsed.number;
}

/** `toE164`, or a VALIDATION error on `field` (its name in the request, e.g. `customer.phone`) with the Dutch message. */
export function e164OrThrow(input: string, field: string): string {
  const e164 = toE164(input);
  if (!e164) throw invalidField(field, INVALID_PHONE);
  return e164;
}

/**
 * What someone typed into a search box as the start of a phone number, as the start of its E.164
 * form, so a prefix search over stored numbers finds it: `06` → `+316`, `0612` → `+31612`,
 * `020-55` → `+312055`, `0031 6` → `+316`, `+32 47` → `+3247`. Undefined when the input is not the
 * start of a number: it must begin with `+`, `00` or the national `0`, contain only digits, spaces,
 * dashes, dots and brackets, and have at least two digits (a lone `0` or `+3` would match nearly
 * everything). A run of digits without a leading 0 or + (`612`, `8765`) may be from the middle of a
 * number: that is a contains-search, not this.
 */
export function phoneSearchPrefix(input: string): string | undefined {
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_INPUT || !/^[\d\s+().-]+$/.test(text)) return undefined;
  const compact = text.replace(/[\s().-]/g, '');
  if (!/^(\+|0)\d+$/.test(compact) || compact.replace(/\D/g, '').length < 2) return undefined;
  const typed = new (phoneLib().AsYouType)(DEFAULT_COUNTRY);
  typed.input(compact);
  const value = typed.getNumberValue();
  return value && value.length > 1 ? value : undefined;
}

/**
 * The national significant number of an E.164 number (`+31612345678` → `612345678`): the digits a
 * number keeps in every notation (`06-12345678`, `0031 6 1234 5678`), for finding it in free text
 * (a loyalty erasure, docs/loyalty.md). Undefined when it is not a valid number.
 */
export function nationalDigits(e164: string): string | undefined {
  const parsed = phoneLib().parsePhoneNumberFromString(e164);
  return parsed?.isValid() ? String(parsed.nationalNumber) : undefined;
}
