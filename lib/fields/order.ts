import { HOLDER_FIELD, HOLDER_FIELDS } from './holder.js';
import type { FieldDef, Resource } from './kinds.js';
import { CONFIRM_FIELDS, MAX_UNITS_PER_ORDER, RESERVATION_FIELDS, RESERVE_FIELDS } from './reservation.js';

/** Orders (PRODUCT.md 12): what is the order's own; its lines are reservations (lib/fields/reservation.ts). */

/** Where an order is sold: value i is ticketing.v1.OrderChannel number i + 1. */
export const ORDER_CHANNELS = ['online', 'box_office'] as const;
export type OrderChannel = (typeof ORDER_CHANNELS)[number];

/** Lines of one order (each ticket at most once). */
export const ORDER_LINES = { min: 1, max: 20 } as const;

/** Units of one order in all, as of one reservation. */
export const MAX_UNITS = MAX_UNITS_PER_ORDER;

const GUID = { type: 'guid' } as const;

/** One barcode of a line. */
export const ORDER_BARCODE_FIELDS = {
  code: { kind: { type: 'text', max: 64 }, nullable: false, role: 'server-managed', description: 'The barcode.' },
  holder: HOLDER_FIELD,
} as const satisfies Record<string, FieldDef>;

/** One line of an order object. */
export const ORDER_LINE_FIELDS = {
  ticket_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The ticket whose stock the line holds.' },
  amount: { ...RESERVATION_FIELDS.amount, description: 'How many of the ticket the line holds or sold.' },
  barcodes: {
    kind: { type: 'object-list', fields: ORDER_BARCODE_FIELDS },
    nullable: false,
    role: 'computed',
    description: `The barcodes issued on confirmation, each {code, holder}; empty before, and for barcode_type none. At most ${MAX_UNITS_PER_ORDER}.`,
  },
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
  state: { ...RESERVATION_FIELDS.state, description: 'The state of every line: reserved, pending (payment started), confirmed (sold), released or expired.' },
  expires_at: { ...RESERVATION_FIELDS.expires_at, description: 'When a reserved or pending order expires (or expired); null once confirmed or released.' },
  lines: {
    kind: { type: 'object-list', fields: ORDER_LINE_FIELDS, maxItems: ORDER_LINES.max },
    nullable: false,
    role: 'computed',
    description: `The lines, ${ORDER_LINES.min}..${ORDER_LINES.max}, in the order they were sent.`,
  },
  created_at: { ...RESERVATION_FIELDS.created_at, description: 'When it was created.' },
  updated_at: RESERVATION_FIELDS.updated_at,
} as const satisfies Record<string, FieldDef>;

/*
 * The request bodies: POST /event/{guid}/orders (a list of NEW_LINE bodies in `lines`) and
 * POST /order/{guid}/confirm (a list of CONFIRM_LINE bodies in `lines`).
 */
export const ORDER_CREATE_FIELDS = {
  ttl_seconds: RESERVE_FIELDS.ttl_seconds,
  channel: { ...ORDER_FIELDS.channel, role: 'writable', default: 'online' },
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
  confirm: { own: body('order', {}), line: body('order line', CONFIRM_LINE_FIELDS) },
};

export const SET_HOLDER: Resource<typeof SET_HOLDER_FIELDS> = body('barcode', SET_HOLDER_FIELDS);
