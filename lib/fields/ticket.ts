import type { FieldDef, FieldRole, Resource, ValuesOf } from './kinds.js';
import { MAX_UNITS_PER_ORDER } from './reservation.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;
const BOOLEAN = { type: 'boolean' } as const;
const COUNT = { type: 'integer', min: 0 } as const;
const PERCENTAGE = { type: 'decimal', min: '0', max: '100' } as const;
const AMOUNT = { type: 'decimal', min: '0', max: '9999999999.99' } as const;

export const STATUS_OVERRULES = ['auto', 'available', 'sold_out', 'unavailable'] as const;
export const BARCODE_TYPES = ['generate', 'predefined', 'none'] as const;
export const TICKET_STATUSES = ['available', 'sold_out', 'not_yet_available', 'no_longer_available', 'unavailable'] as const;

/**
 * The ticket (spec 2.1, docs/ticket-api.md): every field once, in the spec table's order.
 * `inCreationResponse` is the field's position in the creation response (spec 2.1 rule 1).
 */
export const TICKET_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', inCreationResponse: 11, description: 'The ticket\'s id.' },
  company_id: { kind: GUID, nullable: false, role: 'server-managed', inCreationResponse: 10, description: 'The company the ticket (and its event) belongs to.' },
  event_id: { kind: GUID, nullable: false, role: 'server-managed', inCreationResponse: 9, description: 'The event the ticket belongs to.' },
  name: { kind: { type: 'text', max: 255, notBlank: true }, nullable: false, role: 'writable', required: true, inCreationResponse: 7, example: 'Regular', description: 'Name shown to buyers.' },
  description: { kind: { type: 'text', max: 10_000 }, nullable: true, role: 'writable', description: 'Longer text shown to buyers.' },
  min_price: { kind: AMOUNT, nullable: true, role: 'writable', example: 24.5, description: 'Lowest price the ticket may be sold for.' },
  vat_percentage: { kind: PERCENTAGE, nullable: false, role: 'writable', required: true, inCreationResponse: 8, example: 21, description: 'VAT included in the price, in percent.' },
  late_personalization: { kind: BOOLEAN, nullable: false, role: 'writable', default: false, description: 'Buyers may name the ticket holder after the purchase.' },
  status_overrule: { kind: { type: 'enum', values: STATUS_OVERRULES }, nullable: false, role: 'writable', default: 'auto', description: 'Forces the status; auto computes it.' },
  barcode_type: { kind: { type: 'enum', values: BARCODE_TYPES }, nullable: false, role: 'writable', default: 'generate', description: 'Where barcodes come from.' },
  class: { kind: { type: 'text', max: 255 }, nullable: true, role: 'writable', example: 'Standing', description: 'Free grouping label, such as a price class.' },
  available_stock: { kind: COUNT, nullable: false, role: 'writable', default: 0, example: 100, description: 'How many can be sold in total.' },
  sold_count: { kind: COUNT, nullable: false, role: 'server-managed', default: 0, description: 'How many were sold.' },
  scanned_count: { kind: COUNT, nullable: false, role: 'server-managed', default: 0, description: 'How many were scanned at the entrance.' },
  increment: { kind: { type: 'integer', min: 1 }, nullable: false, role: 'writable', default: 1, inCreationResponse: 1, description: 'Orders are multiples of this amount.' },
  available_from: { kind: TIMESTAMP, nullable: true, role: 'writable', example: '2027-05-01T10:00:00+02:00', description: 'Start of the sale window (inclusive); null: open.' },
  available_until: { kind: TIMESTAMP, nullable: true, role: 'writable', example: '2027-07-01T19:00:00+02:00', description: 'End of the sale window (exclusive); null: open.' },
  availability_margin: { kind: COUNT, nullable: false, role: 'writable', default: 0, inCreationResponse: 4, description: 'Stock held back: sold out this many early.' },
  min_orderable_amount_per_order: { kind: COUNT, nullable: false, role: 'writable', default: 1, inCreationResponse: 2, description: 'Fewest per order.' },
  max_orderable_amount_per_order: {
    kind: { ...COUNT, max: MAX_UNITS_PER_ORDER },
    nullable: false,
    role: 'writable',
    default: 20,
    inCreationResponse: 3,
    description: `Most per order (at most ${MAX_UNITS_PER_ORDER}).`,
  },
  percentage_service_costs_in_ticket: { kind: PERCENTAGE, nullable: false, role: 'writable', default: '0', inCreationResponse: 5, description: 'Share of the service costs included in the price, in percent.' },
  seats_category_key: { kind: { type: 'text', max: 255 }, nullable: true, role: 'writable', example: 'Balcony', description: 'Seating chart category of seated tickets.' },
  available_in_cashr: { kind: BOOLEAN, nullable: false, role: 'writable', default: false, description: 'Sold at the box office too.' },
  hide_without_coupon: { kind: BOOLEAN, nullable: false, role: 'writable', default: false, description: 'Shown only with a coupon.' },
  combines_products: { kind: BOOLEAN, nullable: false, role: 'writable', default: true, description: 'May be combined with products in one order.' },
  swappable: { kind: BOOLEAN, nullable: false, role: 'writable', default: true, inCreationResponse: 6, description: 'Holders may swap it for another ticket.' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', inCreationResponse: 13, description: 'When the ticket was created.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'ignored', inCreationResponse: 12, description: 'When the ticket last changed.' },
  deleted_at: { kind: TIMESTAMP, nullable: true, role: 'server-managed', description: 'When the ticket was deleted; null while it lives.' },
  status: { kind: { type: 'enum', values: TICKET_STATUSES }, nullable: true, role: 'computed', inCreationResponse: 14, description: 'Computed on every read; null in the creation response.' },
  seated: { kind: BOOLEAN, nullable: false, role: 'writable', default: false, inCreationResponse: 15, description: 'Sold with a seat.' },
  include_service_cost_in_price: { kind: BOOLEAN, nullable: false, role: 'writable', default: false, inCreationResponse: 16, description: 'The price shown includes the service costs.' },
  reserved_count: { kind: COUNT, nullable: false, role: 'server-managed', default: 0, inCreationResponse: 17, description: 'How many are held by open reservations.' },
  pending_count: { kind: COUNT, nullable: false, role: 'server-managed', default: 0, inCreationResponse: 18, description: 'How many are in orders awaiting payment.' },
  etag: { kind: { type: 'text', max: 64 }, nullable: false, role: 'computed', notInJson: true, description: 'Changes whenever the ticket changes (AIP-154); the ETag header over REST.' },
} as const satisfies Record<string, FieldDef>;

export const TICKET: Resource<typeof TICKET_FIELDS> = {
  noun: 'ticket',
  fields: TICKET_FIELDS,
  orderRules: [
    {
      lower: 'min_orderable_amount_per_order',
      upper: 'max_orderable_amount_per_order',
      allowEqual: true,
      lowerMessage: 'must not be greater than {upper} ({upperValue})',
      upperMessage: 'must not be less than {lower} ({lowerValue})',
    },
    { lower: 'available_from', upper: 'available_until', allowEqual: false, lowerMessage: 'must be before {upper}', upperMessage: 'must be after {lower}' },
  ],
};

export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** What the status is computed from. */
type StatusInputs = Pick<
  ValuesOf<typeof TICKET_FIELDS, FieldRole>,
  'status_overrule' | 'available_from' | 'available_until' | 'sold_count' | 'reserved_count' | 'pending_count' | 'availability_margin' | 'available_stock'
>;

/**
 * The definition of the computed `status` (docs/ticket-api.md "Responses"), evaluated by the
 * ticket service on every read: the override when status_overrule is not auto; else the sale
 * window [available_from, available_until); else sold out when sold + reserved + pending +
 * margin reach the stock; else available.
 */
export function ticketStatus(ticket: StatusInputs, now: Date): TicketStatus {
  if (ticket.status_overrule !== 'auto') return ticket.status_overrule;
  if (ticket.available_from && now.getTime() < ticket.available_from.getTime()) return 'not_yet_available';
  if (ticket.available_until && now.getTime() >= ticket.available_until.getTime()) return 'no_longer_available';
  return remainingStock(ticket) === 0 ? 'sold_out' : 'available';
}

/** What can still be reserved (docs/ticket-api.md): available_stock - availability_margin - sold - reserved - pending, never below 0. */
export function remainingStock(ticket: Pick<StatusInputs, 'available_stock' | 'availability_margin' | 'sold_count' | 'reserved_count' | 'pending_count'>): number {
  return Math.max(0, ticket.available_stock - ticket.availability_margin - ticket.sold_count - ticket.reserved_count - ticket.pending_count);
}

/** Whether open reservations hold some of the ticket's stock (reserved or pending): then a delete is refused and a read settles expiries first. */
export function holdsStock(ticket: Pick<ValuesOf<typeof TICKET_FIELDS, FieldRole>, 'reserved_count' | 'pending_count'>): boolean {
  return ticket.reserved_count + ticket.pending_count > 0;
}
