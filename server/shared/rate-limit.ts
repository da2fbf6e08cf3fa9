/**
 * Rate limiting of mutations (CONTRACT §4): POST, PUT, PATCH and DELETE count against the client
 * IP's budget of RATE_LIMIT_MUTATIONS_PER_MINUTE; reads never count.
 */
export const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Route config for the routes CONTRACT §4 exempts from the limit: inbound payment-provider
 * callbacks and appliance sync traffic (authenticated otherwise; a lost payment callback loses
 * money). Spread it into the route's config:
 *
 *   app.post('/payments/callback/:provider', { config: { ...RATE_LIMIT_EXEMPT }, schema }, handler)
 *
 * Nothing else should use it: every other mutation is limited.
 */
export const RATE_LIMIT_EXEMPT = { rateLimit: false } as const;
