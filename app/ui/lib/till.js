// The bill screen's arithmetic (issue 25, CONTRACT §19, docs/till.md), the same rules as the server's
// server/modules/till/till.rules.ts so the screen shows what the server will take: a line's price
// after its order's discounts, what some units of it cost when the bill is split by dish, equal
// parts (the last part takes the rounding rest) and the cash keypad's quick amounts.

/** The methods staff choose at the till, with their Dutch words. */
export const METHODS = /** @type {const} */ ([
  ['contant', 'Contant'],
  ['pin', 'Pin'],
  ['creditcard', 'Creditcard'],
  ['cadeaubon', 'Cadeaubon'],
  ['overig', 'Overig'],
]);
/** Every method a payment can carry (online: pay-at-table and web). */
export const METHOD_WORD = { ...Object.fromEntries(METHODS), online: 'Online' };

/** n / d rounded half away from zero (integers; d > 0). @param {number} n @param {number} d */
export function divRound(n, d) {
  const a = Math.abs(n);
  const q = Math.floor(a / d);
  const v = 2 * (a - q * d) >= d ? q + 1 : q;
  return n < 0 ? -v : v;
}

/**
 * `amount` spread over lines in proportion to their gross (shares rounded down), the rounding rest
 * on the largest line (the first of equals). @param {number[]} grosses @param {number} amount
 */
export function spread(grosses, amount) {
  const total = grosses.reduce((s, g) => s + g, 0);
  const take = Math.max(0, Math.min(amount, total));
  if (take === 0 || total === 0) return grosses.map(() => 0);
  const shares = grosses.map((g) => Math.floor((take * g) / total));
  let rest = take - shares.reduce((s, x) => s + x, 0);
  const order = grosses.map((_g, i) => i).sort((a, b) => grosses[b] - grosses[a] || a - b);
  for (const i of order) {
    if (rest === 0) break;
    const add = Math.min(grosses[i] - shares[i], rest);
    shares[i] += add;
    rest -= add;
  }
  return shares;
}

/**
 * Each line of an order after its discounts: its own first (never below zero), then the order's
 * spread over what is left. @param {any} order → [{ item, gross_cents, discount_cents }]
 */
export function linesAfterDiscounts(order) {
  const items = order.items ?? [];
  const discounts = order.discounts ?? [];
  const ids = new Set(items.map((/** @type {any} */ i) => i.id));
  const own = items.map((/** @type {any} */ i) => Math.min(i.total_cents, discounts.filter((/** @type {any} */ d) => d.item_id === i.id).reduce((s, /** @type {any} */ d) => s + d.amount_cents, 0)));
  const left = items.map((/** @type {any} */ i, /** @type {number} */ n) => i.total_cents - own[n]);
  const wide = discounts.filter((/** @type {any} */ d) => d.item_id === null || !ids.has(d.item_id)).reduce((s, /** @type {any} */ d) => s + d.amount_cents, 0);
  const shares = spread(left, wide);
  return items.map((/** @type {any} */ item, /** @type {number} */ n) => ({ item, gross_cents: left[n] - shares[n], discount_cents: own[n] + shares[n] }));
}

/**
 * What `q` more units of a line cost when `paidBefore` of its `units` are paid: the units share the
 * line's gross, all of them together exactly the gross. @param {number} gross @param {number} units @param {number} paidBefore @param {number} q
 */
export function unitsShare(gross, units, paidBefore, q) {
  if (units <= 0) return 0;
  return divRound(gross * (paidBefore + q), units) - divRound(gross * paidBefore, units);
}

/**
 * The bill's lines as the screen shows them: per live order, each line with its price after
 * discounts, its units (after voids) and how many of them earlier payments paid (split by dish).
 * @param {any} bill
 */
export function billLines(bill) {
  const paid = new Map();
  for (const p of bill.payments ?? []) for (const i of p.items ?? []) paid.set(i.item_id, (paid.get(i.item_id) ?? 0) + i.quantity);
  return (bill.orders ?? [])
    .filter((/** @type {any} */ o) => o.status !== 'cancelled')
    .map((/** @type {any} */ order) => ({
      order,
      lines: linesAfterDiscounts(order).map(({ item, gross_cents, discount_cents }) => {
        const units = item.quantity - (item.voided_quantity ?? 0);
        return { item, order_id: order.id, gross_cents, discount_cents, units, paid_units: Math.min(units, paid.get(item.id) ?? 0) };
      }),
    }));
}

/**
 * What the chosen units come to (item id → units), as the server will count it.
 * @param {ReturnType<typeof billLines>} groups @param {Record<string, number>} picked
 */
export function pickedAmount(groups, picked) {
  let sum = 0;
  for (const g of groups) for (const l of g.lines) if (picked[l.item.id] > 0) sum += unitsShare(l.gross_cents, l.units, l.paid_units, picked[l.item.id]);
  return sum;
}

/**
 * `total` in `n` equal parts: each the total divided and rounded down, the last part the rest.
 * @param {number} total @param {number} n
 */
export function equalParts(total, n) {
  const k = Math.max(1, Math.floor(n));
  const part = Math.floor(total / k);
  return Array.from({ length: k }, (_x, i) => (i === k - 1 ? total - part * (k - 1) : part));
}

/**
 * The cash keypad's quick amounts for what is due: exact, then the next round 5, 10, 20 and 50
 * euros above it (each once, ascending). @param {number} due cents
 */
export function quickAmounts(due) {
  const out = [due];
  for (const step of [500, 1000, 2000, 5000]) {
    const up = Math.floor(due / step) * step + step;
    if (!out.includes(up)) out.push(up);
  }
  return out.filter((c) => c > 0).sort((a, b) => a - b);
}
