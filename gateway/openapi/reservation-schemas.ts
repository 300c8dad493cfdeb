import { STOCK_CONFLICTS } from '../../lib/stock-conflicts.js';
import { RESERVATION_FIELDS, RESERVATION_STATES, SCAN_FIELDS, type ObjectField } from '../../services/ticket/domain/reservation-fields.js';
import { PREDEFINED_BARCODE, RESERVE_TTL_DEFAULT, PENDING_TTL_DEFAULT, SCAN_BARCODE_MAX, TTL_RANGE } from '../../services/ticket/domain/reservation-rules.js';
import type { Schema } from './schemas.js';

/** JSON Schemas of the stock moves, from the reservation field list and the move rules. */

const TIMESTAMP: Schema = { type: 'string', format: 'date-time', examples: ['2027-07-01T18:00:00+00:00'] };

function fieldSchema(field: ObjectField): Schema {
  const base: Schema = (() => {
    switch (field.kind) {
      case 'guid':
        return { type: 'string', format: 'uuid' };
      case 'integer':
        return { type: 'integer', minimum: 1 };
      case 'state':
        return { type: 'string', enum: [...RESERVATION_STATES] };
      case 'timestamp':
        return TIMESTAMP;
      case 'text':
        return { type: 'string' };
      case 'text-list':
        return { type: 'array', items: { type: 'string' } };
    }
  })();
  const type = field.nullable ? [base.type as string, 'null'] : base.type;
  return { ...base, type, description: field.description };
}

function objectOf(fields: readonly ObjectField[], description: string): Schema {
  const properties = Object.fromEntries(fields.map((field) => [field.name, fieldSchema(field)]));
  return { type: 'object', description, properties, required: Object.keys(properties), additionalProperties: false };
}

const ttl = (fallback: number): Schema => ({ type: 'integer', minimum: TTL_RANGE.min, maximum: TTL_RANGE.max, default: fallback });

export function reservationSchemas(): Record<string, Schema> {
  return {
    Reservation: objectOf(RESERVATION_FIELDS, 'Stock of a ticket held, being paid for, or sold.'),
    Scan: objectOf(SCAN_FIELDS, 'A barcode admitted at the door.'),
    ReservationCreate: {
      type: 'object',
      required: ['amount'],
      additionalProperties: false,
      properties: {
        amount: { type: 'integer', minimum: 1, description: 'From the ticket\'s min_orderable to max_orderable amount per order, a multiple of its increment.' },
        ttl_seconds: { ...ttl(RESERVE_TTL_DEFAULT), description: 'How long the stock is held.' },
      },
    },
    ReservationPending: {
      type: 'object',
      additionalProperties: false,
      properties: { ttl_seconds: { ...ttl(PENDING_TTL_DEFAULT), description: 'How long the payment may take; counted from now.' } },
    },
    ReservationConfirm: {
      type: 'object',
      additionalProperties: false,
      properties: {
        barcodes: {
          type: 'array',
          description: 'Only for barcode_type predefined: exactly `amount` codes, unique within the event.',
          items: { type: 'string', minLength: PREDEFINED_BARCODE.min, maxLength: PREDEFINED_BARCODE.max, pattern: '^[\\x21-\\x7e]+$' },
        },
      },
    },
    ReservationEmpty: { type: 'object', additionalProperties: false, properties: {} },
    ScanCreate: {
      type: 'object',
      required: ['barcode'],
      additionalProperties: false,
      properties: { barcode: { type: 'string', minLength: 1, maxLength: SCAN_BARCODE_MAX } },
    },
  };
}

/** The extension members a refused stock move adds to a problem. */
export const STOCK_PROBLEM_MEMBERS: Record<string, Schema> = {
  code: { type: 'string', enum: Object.keys(STOCK_CONFLICTS), description: 'A 409 of a stock move (or of a delete blocked by held stock): why, for the shop to explain.' },
  scanned_at: { ...TIMESTAMP, description: 'already_scanned: when the barcode was first scanned.' },
};
