import type { FieldDef, Resource } from './kinds.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;

export const EVENT_STATUSES = ['normal'] as const;

/** The event (PRODUCT.md section 5, docs/ticket-api.md): every field once, in the JSON object's order. */
export const EVENT_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'The event\'s id.' },
  company_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The company the event belongs to.' },
  name: { kind: { type: 'text', max: 255, notBlank: true }, nullable: false, role: 'writable', required: true, example: 'Summer concert', description: 'Name shown to buyers.' },
  description: { kind: { type: 'text', max: 10_000 }, nullable: true, role: 'writable', description: 'Longer text shown to buyers.' },
  start: { kind: TIMESTAMP, nullable: true, role: 'writable', column: 'starts_at', example: '2027-07-01T19:00:00+02:00', description: 'When the event starts.' },
  end: { kind: TIMESTAMP, nullable: true, role: 'writable', column: 'ends_at', example: '2027-07-01T23:00:00+02:00', description: 'When the event ends; not before start.' },
  currency: {
    kind: { type: 'text', max: 3, format: 'currency' },
    nullable: false,
    role: 'writable',
    default: 'EUR',
    example: 'EUR',
    description:
      'ISO 4217 code of the currency of every price of the event\'s tickets and orders, one with 0 or 2 minor digits (EUR, USD, GBP, JPY, ...); not sent at creation: the DEFAULT_CURRENCY setting (EUR). It cannot change while the event has a live or confirmed sale (409 currency_locked), nor to one with fewer digits than a ticket\'s min_price or a fixed or price coupon\'s value has.',
  },
  status: { kind: { type: 'enum', values: EVENT_STATUSES }, nullable: false, role: 'computed', description: 'Always normal.' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When the event was created.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'ignored', description: 'When the event last changed.' },
  deleted_at: { kind: TIMESTAMP, nullable: true, role: 'server-managed', description: 'When the event was deleted; null while it lives.' },
  etag: { kind: { type: 'text', max: 64 }, nullable: false, role: 'computed', notInJson: true, description: 'Changes whenever the event changes (AIP-154); the ETag header over REST.' },
} as const satisfies Record<string, FieldDef>;

export const EVENT: Resource<typeof EVENT_FIELDS> = {
  noun: 'event',
  fields: EVENT_FIELDS,
  orderRules: [{ lower: 'start', upper: 'end', allowEqual: true, lowerMessage: 'must not be after {upper}', upperMessage: 'must not be before {lower}' }],
};
