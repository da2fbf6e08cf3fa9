// Dutch formatting for money, times and dates.
export const euroFmt = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR' });
/** @param {number} cents */
export const euro = (cents) => euroFmt.format((cents ?? 0) / 100);
const timeFmt = new Intl.DateTimeFormat('nl-NL', { hour: '2-digit', minute: '2-digit' });
const dateFmt = new Intl.DateTimeFormat('nl-NL', { weekday: 'short', day: 'numeric', month: 'short' });
const dateTimeFmt = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
/** @param {string} iso */
export const time = (iso) => timeFmt.format(new Date(iso));
/** @param {string} ymd YYYY-MM-DD */
export const day = (ymd) => dateFmt.format(new Date(`${ymd}T12:00:00`));
/** @param {string} iso */
export const dateTime = (iso) => dateTimeFmt.format(new Date(iso));
/** Today as YYYY-MM-DD in this tablet's time zone (the restaurant's). */
export function today(offsetDays = 0) {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
/** @param {string} iso */
export const minutesSince = (iso) => Math.max(0, Math.floor((Date.now() - new Date(iso).getTime()) / 60000));
/** @param {number} n @param {number} [digits] */
export const num = (n, digits = 2) => new Intl.NumberFormat('nl-NL', { maximumFractionDigits: digits }).format(n);
