import { HOLDER_FIELD, HOLDER_FIELDS } from './holder.js';
import type { FieldDef, Resource } from './kinds.js';
import { CANCEL_FIELDS, CONFIRM_FIELDS, MAX_UNITS_PER_ORDER, RESERVATION_FIELDS, RESERVE_FIELDS } from './reservation.js';

/** Orders (PRODUCT.md 12): what is the order's own; its lines are reservations (lib/fields/reservation.ts). */

/** Where an order is sold: value i is ticketing.v1.OrderChannel number i + 1. */
export const ORDER_CHANNELS = ['online', 'box_office'] as const;
export type OrderChannel = (typeof ORDER_CHANNELS)[number];

/** Lines of one order (each ticket at most once). */
export const ORDER_LINES = { min: 1, max: 20 } as const;

/** Units of one order in all, as of one reservation. */
export const MAX_UNITS = MAX_UNITS_PER_ORDER;

const GUID = { type: 'guid' } as const;

/** An amount of the order's currency: a decimal string with its digits over gRPC, a JSON number over REST. */
const MONEY = { type: 'decimal', min: '-99999999999999.99', max: '99999999999999.99' } as const;
const RATE = { type: 'decimal', min: '0', max: '100' } as const;
const money = (description: string) => ({ kind: MONEY, nullable: false, role: 'server-managed', description }) as const;

/** A line's money (docs/orders.md "Money"), fixed when the order was made. */
export const LINE_PRICE_FIELDS = {
  unit_price: money('The ticket\'s min_price when the order was made (null: 0).'),
  unit_discount: money('The discount on one unit (a coupon\'s), else 0.'),
  unit_service_costs: money('Service costs of one unit: round(q x p / 100), q = unit_price - unit_discount, p = the ticket\'s percentage_service_costs_in_ticket.'),
  unit_total: money('What one unit costs: q, plus unit_service_costs when the ticket does not include them in its price.'),
  vat_percentage: { kind: RATE, nullable: false, role: 'server-managed', description: 'The ticket\'s VAT rate when the order was made.' },
  unit_vat: money('The VAT included in unit_total: round(unit_total x v / (100 + v)).'),
  discount: money('unit_discount x amount.'),
  service_costs: money('unit_service_costs x amount.'),
  vat: money('unit_vat x amount.'),
  total: money('unit_total x amount.'),
} as const satisfies Record<string, FieldDef>;

/** The VAT of one rate over the order's lines. */
export const VAT_SHARE_FIELDS = {
  vat_percentage: { kind: RATE, nullable: false, role: 'server-managed', description: 'The rate.' },
  total: money('The lines\' totals at this rate, VAT included.'),
  vat: money('Their VAT.'),
  net: money('total - vat.'),
} as const satisfies Record<string, FieldDef>;

export const TOTALS_FIELDS = {
  subtotal: money('Sum of unit_price x amount.'),
  discount: money('Sum of the lines\' discounts.'),
  service_costs: money('Sum of the lines\' service costs.'),
  vat: money('Sum of the lines\' VAT.'),
  total: money('Sum of the lines\' totals: what the order costs.'),
  vat_breakdown: { kind: { type: 'object-list', fields: VAT_SHARE_FIELDS }, nullable: false, role: 'server-managed', description: 'One entry per VAT rate, ordered by rate.' },
} as const satisfies Record<string, FieldDef>;

/** One barcode of a line. */
export const ORDER_BARCODE_FIELDS = {
  code: { kind: { type: 'text', max: 64 }, nullable: false, role: 'server-managed', description: 'The barcode.' },
  holder: HOLDER_FIELD,
  cancelled_at: { ...RESERVATION_FIELDS.expires_at, description: 'When the barcode was cancelled (it no longer opens the door); null while it is valid.' },
} as const satisfies Record<string, FieldDef>;

/** One cancellation of (part of) a confirmed order (docs/cancellations.md): what is owed, recorded; no money moves. */
export const CANCELLATION_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'GUID of the cancellation.' },
  barcodes: { kind: { type: 'text-list' }, nullable: false, role: 'server-managed', description: 'The barcodes it cancelled (none for the units of barcode_type none).' },
  reason: { ...CANCEL_FIELDS.reason, role: 'server-managed', description: 'The reason given, or null.' },
  cancellation_fee: money('What the buyer is not refunded of the cancelled units.'),
  refund_amount: money('The sum of the cancelled units\' unit_total, less cancellation_fee: what is owed to the buyer.'),
  stock_returned: { kind: { type: 'boolean' }, nullable: false, role: 'server-managed', description: 'Whether the units went back to the stock (false: the places are gone too).' },
  created_at: { ...RESERVATION_FIELDS.created_at, description: 'When it was cancelled.' },
} as const satisfies Record<string, FieldDef>;

/** One line of an order object. */
export const ORDER_LINE_FIELDS = {
  ticket_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The ticket whose stock the line holds.' },
  amount: { ...RESERVATION_FIELDS.amount, description: 'How many of the ticket the line holds or sold.' },
  barcodes: {
    kind: { type: 'object-list', fields: ORDER_BARCODE_FIELDS },
    nullable: false,
    role: 'computed',
    description: `The barcodes issued on confirmation, each {code, holder, cancelled_at}; empty before, and for barcode_type none. At most ${MAX_UNITS_PER_ORDER}.`,
  },
  price: { kind: { type: 'object', fields: LINE_PRICE_FIELDS }, nullable: false, role: 'server-managed', description: 'The line\'s money, fixed when the order was made.' },
} as const satisfies Record<string, FieldDef>;

/**
 * The order object (PRODUCT.md 12), every field once in the JSON object's order: the REST
 * answers, the webhook `data` (services/ticket/webhooks/change-events.ts) and the OpenAPI Order are
 * this table. State and expiry are its lines' (they always move together).
 */
export const ORDER_FIELDS = {
  guid: { ...RESERVATION_FIELDS.guid, description: 'GUID of the order.' },
  company_id: { ...RESERVATION_FIELDS.company_id, description: 'The company of the event.' },
  event_id: { ...RESERVATION_FIELDS.event_id, description: 'The event of every line\'s ticket.' },
  channel: {
    kind: { type: 'enum', values: ORDER_CHANNELS },
    nullable: false,
    role: 'server-managed',
    description: 'online, or box_office (which sells only tickets with available_in_cashr).',
  },
  state: { ...RESERVATION_FIELDS.state, description: 'The state of every line: reserved, pending (payment started), confirmed (sold), released, expired, or cancelled (every unit cancelled; a partly cancelled order stays confirmed).' },
  expires_at: { ...RESERVATION_FIELDS.expires_at, description: 'When a reserved or pending order expires (or expired); null once confirmed or released.' },
  lines: {
    kind: { type: 'object-list', fields: ORDER_LINE_FIELDS, maxItems: ORDER_LINES.max },
    nullable: false,
    role: 'computed',
    description: `The lines, ${ORDER_LINES.min}..${ORDER_LINES.max}, in the order they were sent.`,
  },
  created_at: { ...RESERVATION_FIELDS.created_at, description: 'When it was created.' },
  updated_at: RESERVATION_FIELDS.updated_at,
  currency: { kind: { type: 'text', max: 3, format: 'currency' }, nullable: false, role: 'server-managed', example: 'EUR', description: 'The event\'s currency when the order was made: every amount of the order is in it.' },
  coupon_code: { kind: { type: 'text', max: 64 }, nullable: true, role: 'server-managed', description: 'The coupon code the order was made with; null: none.' },
  totals: { kind: { type: 'object', fields: TOTALS_FIELDS }, nullable: false, role: 'server-managed', description: 'The sums over the lines, fixed when the order was made (a cancellation leaves them as they are).' },
  cancellations: {
    kind: { type: 'object-list', fields: CANCELLATION_FIELDS, maxItems: MAX_UNITS_PER_ORDER },
    nullable: false,
    role: 'computed',
    description: 'Its cancellations, oldest first; empty while none. Each cancels at least one unit, so there are never more than the order has units.',
  },
  refunded_total: money('The sum of the cancellations\' refund_amount: what is owed back to the buyer in all.'),
} as const satisfies Record<string, FieldDef>;

/*
 * The request bodies: POST /event/{guid}/orders (a list of NEW_LINE bodies in `lines`) and
 * POST /order/{guid}/confirm (a list of CONFIRM_LINE bodies in `lines`).
 */
/** The total a buyer was shown, checked against the order's (409 price_changed when it differs). */
const EXPECTED_TOTAL = {
  kind: { type: 'decimal', min: '0', max: '99999999999999.99' },
  nullable: true,
  role: 'writable',
  example: 42,
  description: 'The total the buyer was shown, in the event\'s currency: when it differs from totals.total the request is refused with 409 price_changed (the actual `total` a member of the problem) and nothing changes.',
} as const satisfies FieldDef;

export const ORDER_CREATE_FIELDS = {
  ttl_seconds: RESERVE_FIELDS.ttl_seconds,
  channel: { ...ORDER_FIELDS.channel, role: 'writable', default: 'online' },
  expected_total: EXPECTED_TOTAL,
  coupon_code: {
    ...ORDER_FIELDS.coupon_code,
    role: 'writable',
    example: 'MEMBERS-2026',
    description: 'A coupon code of the event, matched ignoring case: its discount on the lines it applies to (at most its applies_to_count units, whole lines in line order), and the hidden tickets it names. One use of the code is held while the order is reserved, pending or confirmed.',
  },
} as const satisfies Record<string, FieldDef>;

export const ORDER_CONFIRM_FIELDS = {
  expected_total: EXPECTED_TOTAL,
} as const satisfies Record<string, FieldDef>;

/** POST /order/{guid}/cancel (CancelOrderRequest): a reservation's cancellation, and its fee. */
export const ORDER_CANCEL_FIELDS = {
  ...CANCEL_FIELDS,
  cancellation_fee: {
    kind: { type: 'decimal', min: '0', max: '99999999999999.99' },
    nullable: false,
    role: 'writable',
    default: 0,
    example: 2.5,
    description: 'In the order\'s currency: kept from the refund of the units cancelled, at least 0, at most their unit_total summed (else 422).',
  },
} as const satisfies Record<string, FieldDef>;

export const NEW_LINE_FIELDS = {
  ticket_id: { kind: GUID, nullable: false, role: 'writable', required: true, description: 'A live ticket of the event, at most once per order.' },
  amount: RESERVE_FIELDS.amount,
} as const satisfies Record<string, FieldDef>;

export const CONFIRM_LINE_FIELDS = {
  ticket_id: { kind: GUID, nullable: false, role: 'writable', required: true, description: 'A ticket of one of the order\'s lines.' },
  barcodes: CONFIRM_FIELDS.barcodes,
  holders: {
    kind: { type: 'object-list', fields: HOLDER_FIELDS, maxItems: MAX_UNITS_PER_ORDER },
    nullable: false,
    role: 'writable',
    description: 'The holders of the line\'s barcodes, one per barcode in their order; fewer leave the rest without one, more than the line has barcodes are refused.',
  },
} as const satisfies Record<string, FieldDef>;

const body = <T extends Record<string, FieldDef>>(noun: string, fields: T): Resource<T> => ({ noun, fields, orderRules: [] });

/** PUT /order/{guid}/barcodes/{code} (SetBarcodeHolderRequest): the holder, or null to clear it. */
export const SET_HOLDER_FIELDS = {
  holder: {
    ...HOLDER_FIELD,
    role: 'writable',
    required: true,
    description: 'The new holder {name, email}, or null to clear it: a first holder needs the ticket\'s late_personalization, a different one (or null) its swappable; the same one again changes nothing.',
  },
} as const satisfies Record<string, FieldDef>;

export const ORDER: Resource<typeof ORDER_FIELDS> = body('order', ORDER_FIELDS);

/** The order bodies: the request's own fields, and each line's (`lines` is the list of them). */
export const ORDER_BODIES = {
  create: { own: body('order', ORDER_CREATE_FIELDS), line: body('order line', NEW_LINE_FIELDS) },
  confirm: { own: body('order', ORDER_CONFIRM_FIELDS), line: body('order line', CONFIRM_LINE_FIELDS) },
  cancel: { own: body('cancellation', ORDER_CANCEL_FIELDS) },
} satisfies Record<string, { own: Resource; line?: Resource }>;

export const SET_HOLDER: Resource<typeof SET_HOLDER_FIELDS> = body('barcode', SET_HOLDER_FIELDS);
