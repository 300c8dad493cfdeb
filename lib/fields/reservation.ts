import { HOLDER_FIELD } from './holder.js';
import type { FieldDef, Resource } from './kinds.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;

/**
 * PRODUCT.md 12 "Limits": a reservation or order holds at most this many units in all, and a
 * ticket's max_orderable_amount_per_order is at most this, so no confirmation issues more
 * barcodes than this and a reservation read carries at most this many (docs/stock-moves.md
 * "Bounded messages").
 */
export const MAX_UNITS_PER_ORDER = 1000;

export const RESERVATION_STATES = ['reserved', 'pending', 'confirmed', 'released', 'expired', 'cancelled'] as const;
export type ReservationState = (typeof RESERVATION_STATES)[number];

/** States that hold stock (and can expire). */
export const LIVE_STATES = ['reserved', 'pending'] as const satisfies readonly ReservationState[];

/**
 * The reservation (PRODUCT.md 9, docs/stock-moves.md): every field once, in the JSON
 * object's order. Only the stock moves change a reservation, so every field is the
 * service's; `barcodes` live in a table of their own and are read with it.
 */
export const RESERVATION_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'GUID of the reservation.' },
  company_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The company of the ticket.' },
  event_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The event of the ticket.' },
  ticket_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The ticket whose stock is held.' },
  amount: { kind: { type: 'integer', min: 1 }, nullable: false, role: 'server-managed', description: 'How many of the ticket are held or sold.' },
  state: {
    kind: { type: 'enum', values: RESERVATION_STATES },
    nullable: false,
    role: 'server-managed',
    description: 'reserved, pending (payment started), confirmed (sold), released, expired, or cancelled (every unit of the sale cancelled after it was sold).',
  },
  expires_at: {
    kind: TIMESTAMP,
    nullable: true,
    role: 'server-managed',
    description: 'When a reserved or pending reservation expires (or expired); null once confirmed or released.',
  },
  barcodes: {
    kind: { type: 'text-list' },
    nullable: false,
    role: 'computed',
    description: `The barcodes issued on confirmation; empty before, and for barcode_type none. At most ${MAX_UNITS_PER_ORDER} (a larger reservation of before the limit: the first ${MAX_UNITS_PER_ORDER}; all of them page by page at /reservation/{guid}/barcodes).`,
  },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When it was reserved.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'The last move.' },
} as const satisfies Record<string, FieldDef>;

export const RESERVATION: Resource<typeof RESERVATION_FIELDS> = { noun: 'reservation', fields: RESERVATION_FIELDS, orderRules: [] };

/** The answer to a scan at the door: a view of the barcode admitted. */
export const SCAN_FIELDS = {
  barcode: { kind: { type: 'text', max: 64 }, nullable: false, role: 'server-managed', description: 'The barcode scanned.' },
  ticket_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The ticket it was sold for.' },
  reservation_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The confirmed reservation (or order line) that issued it.' },
  scanned_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When it was admitted.' },
  order_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The order that sold it; the reservation\'s own guid when it was sold as a reservation.' },
  holder: { ...HOLDER_FIELD, description: 'Who may enter with it ({name, email}), for the door to check; null when none is named.' },
  cancelled_at: {
    kind: TIMESTAMP,
    nullable: true,
    role: 'server-managed',
    description: 'When the barcode was cancelled: always null in an admission (a cancelled barcode is refused with 409 barcode_cancelled and this time).',
  },
} as const satisfies Record<string, FieldDef>;

export const SCAN: Resource<typeof SCAN_FIELDS> = { noun: 'scan', fields: SCAN_FIELDS, orderRules: [] };

/** Whether a reservation's time is up: it is still live and its expiry has passed (it expires on the next move or read of its ticket). */
export function isDue(reservation: { state: ReservationState; expires_at: Date | null }, now: Date): boolean {
  return (LIVE_STATES as readonly string[]).includes(reservation.state) && reservation.expires_at !== null && reservation.expires_at.getTime() <= now.getTime();
}

/*
 * The bodies of the moves (ReserveTicketRequest, MarkReservationPendingRequest,
 * ConfirmReservationRequest, ScanBarcodeRequest; the path names the ticket, reservation or
 * event): the gateway's input coercion, the service's value rules and the OpenAPI request
 * schemas come from these rows as from a resource's.
 */
const TTL = { type: 'integer', min: 1, max: 3600 } as const;

export const RESERVE_FIELDS = {
  amount: {
    kind: { type: 'integer', min: 1, max: MAX_UNITS_PER_ORDER },
    nullable: false,
    role: 'writable',
    required: true,
    example: 2,
    description: `How many to hold: from the ticket's min_orderable to max_orderable amount per order (never more than ${MAX_UNITS_PER_ORDER}), a multiple of its increment.`,
  },
  // The real system's 8-minute shop reservation.
  ttl_seconds: { kind: TTL, nullable: false, role: 'writable', default: 480, description: 'How long the stock is held, in seconds.' },
} as const satisfies Record<string, FieldDef>;

export const PENDING_FIELDS = {
  ttl_seconds: { kind: TTL, nullable: false, role: 'writable', default: 1800, description: 'How long the payment may take, in seconds from now.' },
} as const satisfies Record<string, FieldDef>;

export const CONFIRM_FIELDS = {
  barcodes: {
    kind: { type: 'text-list', maxItems: MAX_UNITS_PER_ORDER },
    nullable: false,
    role: 'writable',
    description: 'Only for barcode_type predefined: exactly `amount` codes of 4 to 64 printable characters, unique within the event.',
  },
} as const satisfies Record<string, FieldDef>;

/** The longest reason a cancellation may give. */
export const CANCEL_REASON_MAX = 255;

/** POST /reservation/{guid}/cancel (CancelReservationRequest); an order's adds cancellation_fee (lib/fields/order.ts). */
export const CANCEL_FIELDS = {
  barcodes: {
    kind: { type: 'text-list', minItems: 1, maxItems: MAX_UNITS_PER_ORDER },
    nullable: false,
    role: 'writable',
    description: 'The barcodes to cancel, each of this sale and not yet cancelled or scanned. Left out: every barcode not yet cancelled (for barcode_type none, the whole amount). Over gRPC an empty list is the same as leaving it out.',
  },
  return_stock: {
    kind: { type: 'boolean' },
    nullable: false,
    role: 'writable',
    default: true,
    description: 'true: the units go back to the stock (sold_count - n). false: the places are gone as well (available_stock - n, never below 0).',
  },
  reason: {
    kind: { type: 'text', max: CANCEL_REASON_MAX },
    nullable: true,
    role: 'writable',
    example: 'Refunded by the payment provider',
    description: `Why, in at most ${CANCEL_REASON_MAX} characters; kept with the cancellation.`,
  },
} as const satisfies Record<string, FieldDef>;

export const SCAN_REQUEST_FIELDS = {
  barcode: { kind: { ...SCAN_FIELDS.barcode.kind, notBlank: true }, nullable: false, role: 'writable', required: true, example: 'TKT-4F7A-2C91', description: 'The barcode read at the door.' },
} as const satisfies Record<string, FieldDef>;

const body = <T extends Record<string, FieldDef>>(noun: string, fields: T): Resource<T> => ({ noun, fields, orderRules: [] });

/** The move bodies by REST path segment (`release` takes none). */
export const MOVE_BODIES = {
  reserve: body('reservation', RESERVE_FIELDS),
  pending: body('reservation', PENDING_FIELDS),
  confirm: body('reservation', CONFIRM_FIELDS),
  release: body('reservation', {}),
  cancel: body('cancellation', CANCEL_FIELDS),
  scan: body('scan', SCAN_REQUEST_FIELDS),
};
