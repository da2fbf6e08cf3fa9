/**
 * Examples in the OpenAPI document for what partners call (the external API, the public endpoints
 * and the payment callbacks), by operationId (openapi-document.ts derives it from method + path).
 * Taken from the demo restaurant's real answers; Redocly's lint checks each against its schema
 * (redocly.yaml: no-invalid-media-type-examples is an error), and test/server/openapi-quality.test.ts
 * that every partner operation has them.
 */
export interface OperationExamples {
  /** Parameters by name, where PARAMETER_EXAMPLES' value for that name would not fit. */
  parameters?: Record<string, unknown>;
  /** The request body (for every media type the operation accepts). */
  request?: unknown;
  /** Answers by status. */
  responses: Record<number, unknown>;
}

const ORDER_ID = '01a21d7a-729d-752e-934a-99d1c50e519e';
const PRODUCT_ID = '01a21d79-87e4-70d7-acd4-45e672234b23';
const PAYMENT_ID = '01a21d7a-72a5-711c-824b-51507fa3dd6d';
const SAUS_ID = '01a21d79-8a10-7b2c-9d3e-4f5a6b7c8d9e';
const MAYONAISE_ID = '01a21d79-8a11-7c3d-8e4f-5a6b7c8d9e0f';

const ORDER = {
  id: ORDER_ID,
  number: 'W-013',
  status: 'new',
  source: 'web',
  table_id: null,
  customer: { name: 'Jan Jansen', phone: '+31612345678' },
  notes: '[Afhalen]',
  items: [
    {
      id: '01a21d7a-729e-71e4-a688-419fecb296f8',
      product_id: PRODUCT_ID,
      name: 'Bitterballen (8 stuks)',
      quantity: 2,
      unit_price_cents: 950,
      total_cents: 1900,
      notes: null,
      modifiers: [{ option_id: MAYONAISE_ID, group_id: SAUS_ID, group_name: 'Saus', name: 'Mayonaise', price_delta_cents: 50, quantity: 1 }],
      seat: null,
      course: 1,
      allergens: ['eggs', 'gluten', 'milk', 'mustard'],
      voided_quantity: 0,
      held: false,
      fired_at: '2026-11-27T14:48:13.725Z',
      vat_rate: 9,
    },
  ],
  discounts: [],
  discount_cents: 0,
  total_cents: 1900,
  vat: [{ rate: 9, gross_cents: 1900, vat_cents: 157, net_cents: 1743 }],
  payment_status: 'open',
  created_at: '2026-11-27T14:48:13.725Z',
  updated_at: '2026-11-27T14:48:13.725Z',
};

/** A dish as the menus show it (allergens and modifier groups: CONTRACT §17). */
const BITTERBALLEN = {
  id: PRODUCT_ID,
  name: 'Bitterballen (8 stuks)',
  description: 'Met grove mosterd',
  price_cents: 850,
  allergens: ['gluten', 'milk', 'mustard'],
  dietary: [],
  modifier_groups: [
    {
      id: SAUS_ID,
      name: 'Saus',
      min_select: 0,
      max_select: 1,
      options: [{ id: MAYONAISE_ID, name: 'Mayonaise', price_delta_cents: 50, available: true, allergens: ['eggs'] }],
    },
  ],
};

/** A new guest order; a repeat with the same idempotency key answers 200 with the same body. */
const CREATED_ORDER = { order: ORDER, payment_id: PAYMENT_ID, checkout_url: 'https://www.mollie.com/checkout/select-method/7UhSN1zuXS', restaurant_online: true };

/** The partner operations' parameters by name (an operation's own `parameters` win). */
export const PARAMETER_EXAMPLES: Record<string, unknown> = {
  slug: 'demo',
  id: ORDER_ID,
  date: '2026-11-29',
  status: 'new,accepted',
  limit: '50',
  offset: '0',
  exclude: 'gluten,milk',
  tafel: 'k7m2p9x4q8r3t6wz',
  'idempotency-key': 'web-8f1c2d',
};

/** What any error answer of that status looks like (an operation's own examples say more). */
export const ERROR_EXAMPLES: Record<number, unknown> = {
  400: {
    error: "Ongeldige invoer: 'quantity' moet minstens 1 zijn.",
    code: 'VALIDATION',
    details: [{ field: 'items.0.quantity', error: "'quantity' moet minstens 1 zijn." }],
  },
  401: { error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' },
  403: { error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' },
  404: { error: 'Deze pagina of functie bestaat niet.', code: 'NOT_FOUND' },
  413: { error: 'De invoer is te groot.', code: 'VALIDATION' },
  414: { error: 'Ongeldige invoer: een deel van het adres is te lang (hoogstens 100 tekens).', code: 'VALIDATION' },
  429: { error: 'Te veel verzoeken; probeer het over 42 seconden opnieuw.', code: 'RATE_LIMITED' },
  503: { error: 'De betaalprovider is even niet bereikbaar; probeer het over een paar minuten opnieuw.', code: 'INTERNAL' },
};

const forbiddenScope = (scope: string) => ({ error: `Deze API-sleutel mag dit niet: daarvoor is de scope '${scope}' nodig.`, code: 'FORBIDDEN' });
const missingKey = { error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' };

/** A kitchen printer and a print job as GET /printers and GET /print-jobs show them (CONTRACT §18). */
const PRINTER_BAR = {
  id: '01a21d79-b1c2-7d3e-8f4a-5b6c7d8e9f0a',
  name: 'Bar',
  host: '192.168.1.51',
  port: 9100,
  width_mm: 58,
  stations: ['bar'],
  receipts: true,
  fallback_printer_id: null,
  status: 'online',
  last_error: null,
  queued: 0,
  created_at: '2026-11-27T14:00:00.000Z',
  updated_at: '2026-11-27T14:00:00.000Z',
};
const PRINTER = { ...PRINTER_BAR, id: '01a21d79-b1c2-7d3e-8f4a-5b6c7d8e9f0b', name: 'Keuken', host: '192.168.1.50', width_mm: 80, stations: ['keuken'], receipts: false, fallback_printer_id: PRINTER_BAR.id };
const PRINT_JOB = {
  id: '01a21d7d-3c4d-7e5f-8a6b-7c8d9e0f1a2a',
  printer_id: PRINTER.id,
  order_id: ORDER_ID,
  kind: 'ticket',
  status: 'done',
  attempts: 0,
  last_error: null,
  moved_to: null,
  requested_by: null,
  reprint_of: null,
  stations: ['keuken'],
  created_at: '2026-11-27T14:48:13.725Z',
  done_at: '2026-11-27T14:48:14.102Z',
};

const notFound = (what: string) => ({ error: `${what} niet gevonden.`, code: 'NOT_FOUND' });

// ---- menu depth (CONTRACT §17, docs/menu.md): the demo's forced sauce; tonight's first table, its mains fired, a cola voided
const STAFF_ID = '01a21d79-8700-7a1b-b3c2-5d9e0f1a2b3d';
const SAUS_GROUP = {
  id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f0',
  name: 'Saus (kies 1)',
  min_select: 1,
  max_select: 1,
  options: [
    { id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f4', name: 'Stroganoffsaus', price_delta_cents: 0, ingredient_product_id: '01a21d79-8a20-7b2c-9d3e-4f5a6b7c8d01', ingredient_quantity: 0.05, available: true, allergens: ['milk', 'mustard'] },
    { id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f1', name: 'Pepersaus', price_delta_cents: 0, ingredient_product_id: '01a21d79-8a20-7b2c-9d3e-4f5a6b7c8d02', ingredient_quantity: 0.05, available: true, allergens: ['milk'] },
  ],
  created_at: '2026-11-20T09:00:00.000Z',
  updated_at: '2026-11-20T09:00:00.000Z',
  archived_at: null,
};
const STEAK_LINE = {
  ...ORDER.items[0],
  id: '01a21d7a-729e-71e4-a688-419fecb296f9',
  product_id: '01a21d7a-6c3b-7d4e-9f50-61728394a5b6',
  name: 'Biefstuk met friet',
  quantity: 1,
  unit_price_cents: 2450,
  total_cents: 2450,
  modifiers: [
    { option_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f1', group_id: SAUS_GROUP.id, group_name: 'Saus (kies 1)', name: 'Pepersaus', price_delta_cents: 0, quantity: 1 },
    { option_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f3', group_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f2', group_name: 'Bakwijze', name: 'Medium', price_delta_cents: 0, quantity: 1 },
  ],
  seat: 1,
  course: 2,
  allergens: ['milk'],
  held: false,
  fired_at: '2026-11-27T19:12:40.000Z',
};
const COLA_LINE = {
  ...ORDER.items[0],
  id: '01a21d7a-729e-71e4-a688-419fecb296fa',
  product_id: '01a21d7a-6c3b-7d4e-9f50-61728394a5b7',
  name: 'Cola',
  quantity: 2,
  unit_price_cents: 300,
  total_cents: 300,
  modifiers: [],
  seat: null,
  course: 1,
  allergens: [],
  voided_quantity: 1,
  held: false,
  fired_at: '2026-11-27T19:01:05.000Z',
  vat_rate: 21,
};
const TABLE_ORDER = {
  ...ORDER,
  number: 'K-004',
  source: 'pos',
  table_id: '01a21d7a-6f10-7b2c-8d3e-4f5a6b7c8d9e',
  customer: null,
  notes: null,
  items: [COLA_LINE, STEAK_LINE],
  total_cents: 2750,
  vat: [
    { rate: 9, gross_cents: 2450, vat_cents: 202, net_cents: 2248 },
    { rate: 21, gross_cents: 300, vat_cents: 52, net_cents: 248 },
  ],
  created_at: '2026-11-27T19:01:05.000Z',
  updated_at: '2026-11-27T19:12:40.000Z',
};
const FIRE = { id: '01a21d7b-1a2b-7c3d-8e4f-5a6b7c8d9e0f', course: 2, user_id: STAFF_ID, user_name: 'Sanne', created_at: '2026-11-27T19:12:40.000Z' };
const VOID = { id: '01a21d7b-2b3c-7d4e-8f5a-6b7c8d9e0f1a', item_id: COLA_LINE.id, quantity: 1, reason: 'Verkeerd aangeslagen', user_id: STAFF_ID, user_name: 'Sanne', created_at: '2026-11-27T19:03:12.000Z' };

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  // ---- menu depth (CONTRACT §17, docs/menu.md): modifier groups, fire and void answers, the course log
  getModifierGroups: { responses: { 200: { data: [SAUS_GROUP] } } },
  postModifierGroups: { responses: { 201: SAUS_GROUP } },
  patchModifierGroupsById: { responses: { 200: { ...SAUS_GROUP, updated_at: '2026-11-27T10:00:00.000Z' } } },
  postOrdersByIdFire: { responses: { 200: TABLE_ORDER } },
  postOrdersByIdItemsByItemIdVoid: { responses: { 200: TABLE_ORDER } },
  getOrdersByIdCourses: { responses: { 200: { fires: [FIRE], voids: [VOID] } } },
  // ---- revenue for the manager (CONTRACT §19, docs/till.md "Revenue"): the figures of test/server/modules/analytics/revenue.test.ts
  getAnalyticsRevenue: {
    parameters: { from: '2026-11-19', to: '2026-11-20', group: 'day' },
    responses: {
      200: {
        from: '2026-11-19',
        to: '2026-11-20',
        days: 2,
        group: 'day',
        data: [
          { key: '2026-11-19', orders: 1, gross_cents: 2050, vat_cents: 224, net_cents: 1826, avg_ticket_cents: 2050, tips_cents: 150, discounts_cents: 0, days: 1, labour_cents: 0, labour_percent: 0 },
          { key: '2026-11-20', orders: 3, gross_cents: 3475, vat_cents: 385, net_cents: 3090, avg_ticket_cents: 1158, tips_cents: 0, discounts_cents: 265, days: 1, labour_cents: 9425, labour_percent: 305 },
        ],
        totals: { orders: 4, gross_cents: 5525, vat_cents: 609, net_cents: 4916, avg_ticket_cents: 1381, tips_cents: 150, discounts_cents: 265, voids_cents: 0, refunds_cents: 0 },
        vat: [
          { rate: 9, gross_cents: 3845, vat_cents: 317, net_cents: 3528 },
          { rate: 21, gross_cents: 1680, vat_cents: 292, net_cents: 1388 },
        ],
        by_method: [
          { method: 'contant', count: 2, amount_cents: 1090, tip_cents: 0 },
          { method: 'pin', count: 2, amount_cents: 4435, tip_cents: 150 },
        ],
        labour_cents: 9425,
        labour_percent: 191.7,
        labour_hours: 8.5,
        labour_unpriced_hours: 2,
        open_shifts: 0,
      },
      400: { error: "Ongeldige invoer: 'from' mag niet na 'to' liggen.", code: 'VALIDATION', details: [{ field: 'from', error: "'from' mag niet na 'to' liggen." }] },
    },
  },
  // ---- kitchen printers and print jobs (CONTRACT §18, docs/kitchen.md)
  getPrinters: { responses: { 200: { data: [PRINTER, { ...PRINTER_BAR, status: 'offline', last_error: 'Printer weigert de verbinding (192.168.1.51:9100); staat hij aan?', queued: 2 }] } } },
  postPrinters: {
    request: { name: 'Keuken', host: '192.168.1.50', port: 9100, width_mm: 80, stations: ['keuken'], receipts: false, fallback_printer_id: PRINTER_BAR.id },
    responses: { 201: { ...PRINTER, status: 'unknown', last_error: null, queued: 0 } },
  },
  patchPrintersById: { request: { stations: ['keuken', 'dessert'] }, responses: { 200: { ...PRINTER, stations: ['keuken', 'dessert'] } } },
  postPrintersByIdTest: { responses: { 202: { ...PRINT_JOB, kind: 'test', order_id: null, stations: ['keuken'], requested_by: '01a21d79-8800-7b1c-9d2e-3f4a5b6c7d8e', status: 'queued', done_at: null } } },
  getPrintJobs: { parameters: { status: 'done' }, responses: { 200: { data: [PRINT_JOB] } } },
  postPrintJobsByIdReprint: {
    responses: { 202: { ...PRINT_JOB, id: '01a21d7d-3c4d-7e5f-8a6b-7c8d9e0f1a2b', kind: 'reprint', status: 'queued', attempts: 0, requested_by: '01a21d79-8800-7b1c-9d2e-3f4a5b6c7d8e', reprint_of: PRINT_JOB.id, done_at: null } },
  },
  // ---- external API (Authorization: Bearer svc_…)
  getExternalOrders: {
    responses: { 200: { data: [ORDER], total: 1554, limit: 1, offset: 0 }, 401: missingKey, 403: forbiddenScope('read') },
  },
  getExternalMenu: {
    responses: {
      200: {
        categories: [
          {
            id: '01a21d79-878d-75e6-819f-377b00c76a56',
            name: 'Voorgerechten',
            products: [{ ...BITTERBALLEN, available: true, course: 1 }],
          },
        ],
      },
      401: missingKey,
    },
  },
  getExternalStock: {
    responses: {
      200: {
        data: [
          {
            product_id: '01a21d7a-0c79-75b2-86fa-6b20d0f69b1b',
            name: 'Appeltaart',
            unit: 'portie',
            total: 42,
            min_level: 9,
            below_min: false,
            below_zero: false,
            locations: [{ location_id: '01a21d7a-0bb8-742c-bc13-9dfd965eea01', name: 'Keuken', quantity: 11, below_zero: false }],
          },
        ],
        locations: [{ id: '01a21d7a-0bb8-742c-bc13-9dfd965eea01', name: 'Keuken', is_default: true }],
      },
    },
  },
  getExternalReservations: {
    responses: {
      200: {
        data: [
          {
            id: '01a21d7a-6418-7369-bf1e-8a48a22c61ec',
            date: '2026-11-27',
            time: '17:00',
            starts_at: '2026-11-27T16:00:00.000Z',
            ends_at: '2026-11-27T17:45:00.000Z',
            party_size: 4,
            name: 'Peters',
            phone: '+31634008319',
            email: null,
            notes: 'kinderstoel graag',
            table_id: '01a21d7a-522d-71a6-86f7-7ecd2cb80f63',
            table_name: '4',
            status: 'booked',
            source: 'staff',
            conflict: null,
            created_at: '2026-11-27T14:48:10.007Z',
            updated_at: '2026-11-27T14:48:10.007Z',
          },
        ],
      },
    },
  },
  getExternalLoyaltyByPhone: {
    responses: { 200: { customer_id: '01a21d79-f9ec-713e-9aab-1088005b8b28', phone: '+31611223344', name: 'Mohamed El Idrissi', balance: 22 }, 404: notFound('Klant') },
  },
  postExternalOrdersByIdStatus: {
    request: { status: 'accepted' },
    responses: {
      200: { ...ORDER, status: 'accepted', updated_at: '2026-11-27T14:52:01.118Z' },
      403: forbiddenScope('write'),
      404: notFound('Bestelling'),
      409: { error: "Deze statuswijziging is niet toegestaan (van 'completed' naar 'accepted').", code: 'CONFLICT' },
    },
  },

  // ---- public ordering, reservations and pay-at-table (no session)
  getPublicMenuBySlug: {
    responses: {
      200: {
        restaurant: {
          name: 'Bistro De Gouden Lepel',
          slug: 'demo',
          address: 'Lepelstraat 12, 1011 AB Amsterdam',
          phone: '+31201234567',
          opening_hours: { wed: [['17:00', '22:00']], thu: [['17:00', '22:00']], fri: [['12:00', '23:00']], sat: [['12:00', '23:00']], sun: [['12:00', '21:00']] },
          max_party_size: 10,
        },
        ordering: { accepting: true, message: null },
        categories: [{ id: '01a21d79-878d-75e6-819f-377b00c76a56', name: 'Voorgerechten', products: [BITTERBALLEN] }],
      },
      404: notFound('Restaurant'),
    },
  },
  postPublicOrderBySlug: {
    request: { items: [{ product_id: PRODUCT_ID, quantity: 2, modifiers: [{ option_id: MAYONAISE_ID }] }], customer: { name: 'Jan Jansen', phone: '06 12345678' }, type: 'pickup', idempotency_key: 'web-8f1c2d' },
    responses: {
      200: CREATED_ORDER,
      201: CREATED_ORDER,
      // type 'table' takes the table's public_code (as in its QR code), not its name (CONTRACT §11).
      400: {
        error: "Ongeldige invoer: 'table' is geen tafel van dit restaurant.",
        code: 'VALIDATION',
        details: [{ field: 'table', error: "'table' is geen tafel van dit restaurant." }],
      },
      404: notFound('Restaurant'),
      409: {
        error: 'Dit restaurant neemt op dit moment geen online bestellingen aan. Probeer het later opnieuw of bel het restaurant.',
        code: 'CONFLICT',
      },
    },
  },
  getPublicOrderBySlugById: {
    responses: {
      200: {
        id: ORDER_ID,
        number: 'W-013',
        status: 'new',
        payment_status: 'open',
        type: 'pickup',
        items: [{ name: 'Bitterballen (8 stuks)', quantity: 2, total_cents: 1900, options: ['Mayonaise'] }],
        total_cents: 1900,
        seen_by_restaurant: true,
        payment: { id: PAYMENT_ID, status: 'open', checkout_url: 'https://www.mollie.com/checkout/select-method/7UhSN1zuXS' },
        created_at: '2026-11-27T14:48:13.725Z',
      },
      404: notFound('Bestelling'),
    },
  },
  getPublicBetalingByIdStatus: {
    parameters: { id: PAYMENT_ID },
    responses: {
      200: {
        id: PAYMENT_ID,
        status: 'paid',
        purpose: 'order',
        amount_cents: 1900,
        tip_cents: 0,
        table_name: null,
        restaurant: { name: 'Bistro De Gouden Lepel', slug: 'demo' },
        order: { id: ORDER_ID, number: 'W-013', status: 'new', payment_status: 'paid' },
      },
      404: notFound('Betaling'),
    },
  },
  getPublicBetalingById: {
    parameters: { id: PAYMENT_ID },
    responses: { 200: '<!doctype html><html lang="nl"><head><title>Betaling</title></head><body>…</body></html>' },
  },
  getPublicBestellenBySlug: { responses: {} },
  getPublicReservationsBySlug: {
    responses: {
      200: {
        date: '2026-11-29',
        slots: [
          { time: '18:00', available: true, max_party_size: 8 },
          { time: '18:30', available: false, max_party_size: 0 },
        ],
      },
      404: notFound('Restaurant'),
    },
  },
  postPublicReservationsBySlug: {
    request: { date: '2026-11-29', time: '19:00', party_size: 4, name: 'Fam. de Vries', phone: '06 12345678', email: 'devries@example.nl', notes: 'Verjaardag' },
    responses: {
      201: { id: '01a21d7a-7321-71da-afc4-a23d20b87dae', date: '2026-11-29', time: '19:00', party_size: 4, name: 'Fam. de Vries', status: 'booked', created_at: '2026-11-27T14:48:13.856Z' },
      404: notFound('Restaurant'),
      409: { error: 'Dit tijdstip is vol; kies een ander tijdstip.', code: 'CONFLICT' },
    },
  },
  getPublicTafelBySlugByTafel: {
    responses: {
      200: {
        table: { name: '6' },
        orders: [{ number: 'K-021', items: [{ name: 'Bitterballen (8 stuks)', quantity: 1, total_cents: 850, options: [] }], total_cents: 850, payment_status: 'open' }],
        total_cents: 850,
        paid_cents: 0,
        open_cents: 850,
      },
      404: notFound('Tafel'),
    },
  },
  postPublicTafelBySlugByTafelPay: {
    request: { amount_cents: 850, tip_cents: 150 },
    responses: {
      201: { payment_id: PAYMENT_ID, checkout_url: 'https://www.mollie.com/checkout/select-method/7UhSN1zuXS' },
      404: notFound('Tafel'),
      409: { error: 'Er staat voor deze tafel niets open om te betalen.', code: 'CONFLICT' },
    },
  },

  // ---- the payment provider's callbacks
  postPaymentsWebhook: { request: { id: 'tr_7UhSN1zuXS' }, responses: { 200: { received: 1 } } },
  postPublicTafelWebhook: { request: { id: 'tr_7UhSN1zuXS' }, responses: { 200: { received: 1 } } },
};

const EVENT = { id: '01a21d7b-0d52-7c1e-9f3a-2b6c8e1d4f70', created_at: '2026-11-27T14:48:13.725Z', tenant: { id: '01a21d79-8700-7a1b-b3c2-5d9e0f1a2b3c', slug: 'demo' } };

/** A body of each webhook event (the `webhooks` of the document). */
export const WEBHOOK_EXAMPLES: Record<string, unknown> = {
  'order.created': { ...EVENT, type: 'order.created', data: { order: ORDER } },
  'order.status_changed': { ...EVENT, type: 'order.status_changed', data: { order: { ...ORDER, status: 'accepted' }, from: 'new', to: 'accepted' } },
  'order.course_fired': {
    ...EVENT,
    type: 'order.course_fired',
    data: {
      order: {
        ...ORDER,
        number: 'K-004',
        source: 'pos',
        status: 'preparing',
        table_id: '01a21d7a-6f10-7b2c-8d3e-4f5a6b7c8d9e',
        customer: null,
        notes: null,
        total_cents: 2450,
        items: [
          {
            ...ORDER.items[0],
            id: '01a21d7a-729e-71e4-a688-419fecb296f9',
            product_id: '01a21d7a-6c3b-7d4e-9f50-61728394a5b6',
            name: 'Biefstuk met friet',
            quantity: 1,
            unit_price_cents: 2450,
            total_cents: 2450,
            modifiers: [
              { option_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f1', group_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f0', group_name: 'Saus (kies 1)', name: 'Pepersaus', price_delta_cents: 0, quantity: 1 },
              { option_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f3', group_id: '01a21d7a-6d01-7a02-8b03-9c04d05e06f2', group_name: 'Bakwijze', name: 'Medium', price_delta_cents: 0, quantity: 1 },
            ],
            seat: 1,
            course: 2,
            allergens: ['milk'],
            held: false,
            fired_at: '2026-11-27T19:12:40.000Z',
          },
        ],
        updated_at: '2026-11-27T19:12:40.000Z',
      },
      fire: { id: '01a21d7b-1a2b-7c3d-8e4f-5a6b7c8d9e0f', course: 2, user_id: '01a21d79-8700-7a1b-b3c2-5d9e0f1a2b3d', created_at: '2026-11-27T19:12:40.000Z' },
    },
  },
  'order.paid': { ...EVENT, type: 'order.paid', data: { order: { ...ORDER, payment_status: 'paid' }, payment: { provider: 'mollie', payment_id: 'tr_7UhSN1zuXS', amount_cents: 1900 } } },
  'reservation.created': {
    ...EVENT,
    type: 'reservation.created',
    data: {
      reservation: {
        id: '01a21d7a-7321-71da-afc4-a23d20b87dae',
        date: '2026-11-29',
        time: '19:00',
        starts_at: '2026-11-29T18:00:00.000Z',
        ends_at: '2026-11-29T19:45:00.000Z',
        party_size: 4,
        name: 'Fam. de Vries',
        phone: '+31612345678',
        email: null,
        notes: 'Verjaardag',
        table_id: '01a21d7a-522d-71a6-86f7-7ecd2cb80f63',
        status: 'booked',
        source: 'web',
        created_at: '2026-11-27T14:48:13.856Z',
        updated_at: '2026-11-27T14:48:13.856Z',
      },
    },
  },
  'haccp.incident': {
    ...EVENT,
    type: 'haccp.incident',
    data: {
      incident: {
        id: '01a21d7c-1e2f-7a3b-8c4d-5e6f7a8b9c0d',
        kind: 'temperature',
        unit_id: '01a21d79-a1b2-7c3d-8e4f-5a6b7c8d9e0f',
        checklist_id: null,
        log_id: '01a21d7c-1e2e-7f10-9a2b-3c4d5e6f7a8b',
        business_day: '2026-11-27',
        description: 'Koelcel 1: 12 °C, kritiek (norm hoogstens 7 °C).',
        created_at: '2026-11-27T14:48:13.725Z',
        origin: 'cloud',
        chain_seq: 42,
        prev_hash: 'a3f1c0d2e4b5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d',
        hash: '5e4f3a2b1c0d9e8f7a6b5c4da3f1c0d2e4b5968778695a4b3c2d1e0f9a8b7c6d',
        open: true,
        actions: [],
      },
      log: {
        id: '01a21d7c-1e2e-7f10-9a2b-3c4d5e6f7a8b',
        unit_id: '01a21d79-a1b2-7c3d-8e4f-5a6b7c8d9e0f',
        unit_name: 'Koelcel 1',
        unit_type: 'koelcel',
        temperature: 12,
        target_max: 7,
        target_min: null,
        margin: 1,
        status: 'kritiek',
        business_day: '2026-11-27',
        user_id: '01a21d79-8800-7b1c-9d2e-3f4a5b6c7d8e',
        note: null,
        created_at: '2026-11-27T14:48:13.700Z',
        origin: 'cloud',
        chain_seq: 41,
        prev_hash: '0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4da3f1c0d2e4b5968778695a4b3c2d1e',
        hash: 'a3f1c0d2e4b5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d',
      },
    },
  },
  'loyalty.customer_created': {
    ...EVENT,
    type: 'loyalty.customer_created',
    data: { customer: { id: '01a21d79-f9ec-713e-9aab-1088005b8b28', phone: '+31611223344', name: 'Mohamed El Idrissi', email: null, created_at: '2026-11-27T14:48:13.725Z' } },
  },
};
