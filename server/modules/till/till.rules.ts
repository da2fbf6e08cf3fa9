/**
 * The till's pure rules (issue 25, CONTRACT §19, docs/till.md): payment methods, change, VAT per
 * rate, discounts spread over lines, receipt numbers. No database: the floor and orders services,
 * sync and the demo all call these.
 */

/** How a payment was made. `online` is set by pay-at-table and web payments, never chosen at the till. */
export const PAYMENT_METHODS = ['contant', 'pin', 'creditcard', 'cadeaubon', 'overig', 'online'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
/** The methods staff choose at the till (POST .../payments). */
export const TILL_METHODS = ['contant', 'pin', 'creditcard', 'cadeaubon', 'overig'] as const;

/** The method of a payment row that predates methods (a node one release behind): pay-at-table was online. */
export const legacyMethod = (source: string): PaymentMethod => (source === 'pay_at_table' ? 'online' : 'overig');
