// Dutch notation for everything a person reads (issue 26): money with a decimal comma and thousands
// separators (€ 1.234,50), numbers (1.234,5), dates (vr 27 nov, 27 november 2026) and times (18:30).
// And the other way round: what a person types (12,50 or 12.50 or € 1.234,50) back to a number.
export const euroFmt = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR' });
/** @param {number|null|undefined} cents → "€ 1.234,50" */
export const euro = (cents) => euroFmt.format((cents ?? 0) / 100);
/** @param {number|null|undefined} cents → "1234,50": the value of a money input (no thousands separator, easy to edit). */
export const euroInput = (cents) => (cents === null || cents === undefined ? '' : (cents / 100).toFixed(2).replace('.', ','));
const timeFmt = new Intl.DateTimeFormat('nl-NL', { hour: '2-digit', minute: '2-digit' });
const dateFmt = new Intl.DateTimeFormat('nl-NL', { weekday: 'short', day: 'numeric', month: 'short' });
const longDateFmt = new Intl.DateTimeFormat('nl-NL', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const shortDateFmt = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'short', year: 'numeric' });
const dateTimeFmt = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
/** @param {string} iso → "18:30" */
export const time = (iso) => timeFmt.format(new Date(iso));
/** @param {string} ymd YYYY-MM-DD → "vr 27 nov" */
export const day = (ymd) => dateFmt.format(new Date(`${ymd}T12:00:00`));
/** @param {string} ymd YYYY-MM-DD → "vrijdag 27 november 2026" */
export const longDay = (ymd) => longDateFmt.format(new Date(`${ymd}T12:00:00`));
/** @param {string} ymd YYYY-MM-DD → "27 nov 2026" */
export const shortDay = (ymd) => shortDateFmt.format(new Date(`${ymd}T12:00:00`));
/** @param {string} iso → "27 nov 18:30" */
export const dateTime = (iso) => dateTimeFmt.format(new Date(iso));
/** YYYY-MM-DD of a Date in this tablet's time zone (the restaurant's). @param {Date} d */
export const ymd = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
/** Today as YYYY-MM-DD in this tablet's time zone (the restaurant's). */
export function today(offsetDays = 0) {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  return ymd(d);
}
/** @param {string} date YYYY-MM-DD @param {number} n */
export function addDays(date, n) {
  const d = new Date(`${date}T12:00:00`);
  d.setDate(d.getDate() + n);
  return ymd(d);
}
/** The Monday of the week of a date. @param {string} date YYYY-MM-DD */
export const weekStart = (date) => addDays(date, -((new Date(`${date}T12:00:00`).getDay() + 6) % 7));
/** @param {string} iso */
export const minutesSince = (iso) => Math.max(0, Math.floor((Date.now() - new Date(iso).getTime()) / 60000));
const numFmts = new Map();
/** @param {number|null|undefined} n @param {number} [digits] at most this many decimals → "1.234,5" */
export function num(n, digits = 2) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  let f = numFmts.get(digits);
  if (!f) numFmts.set(digits, (f = new Intl.NumberFormat('nl-NL', { maximumFractionDigits: digits })));
  return f.format(n);
}
/** Minutes as hours and minutes → "7:45". @param {number|null|undefined} m */
export const hours = (m) => (m === null || m === undefined ? '–' : `${Math.floor(m / 60)}:${String(Math.round(m % 60)).padStart(2, '0')}`);

/**
 * What a person typed as a decimal number, in Dutch or English notation: "12,5", "12.5", "1.234,5",
 * "€ 7,50", "-18". NaN when it is not a number. A single separator followed by exactly three digits
 * ("1.250") is read as thousands only with a comma decimal part elsewhere; alone it is a decimal
 * point, which is what a tablet's numeric keyboard types.
 * @param {unknown} raw
 */
export function parseDecimal(raw) {
  let s = String(raw ?? '').replace(/[€\s\u00a0]/g, '').replace(/^\+/, '').replace(/^−/, '-');
  if (s === '' || s === '-') return NaN;
  if (s.includes(',') && s.includes('.')) s = s.lastIndexOf(',') > s.lastIndexOf('.') ? s.replace(/\./g, '').replace(',', '.') : s.replace(/,/g, '');
  else s = s.replace(',', '.');
  return /^-?\d*\.?\d+$/.test(s) || /^-?\d+\.$/.test(s) ? Number(s) : NaN;
}
/** Euros as typed → whole cents, or NaN. @param {unknown} raw */
export function parseCents(raw) {
  const n = parseDecimal(raw);
  return Number.isNaN(n) ? NaN : Math.round(n * 100);
}
