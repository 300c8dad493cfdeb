import type { FieldDef, Resource } from '../fields/kinds.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './event-types.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;



/**
 * The webhook endpoint (PRODUCT.md 10): every field once, in the JSON object's order.
 * `secret` is the signing key: stored (the worker signs with it), answered by the creation
 * only (the routes and the service leave it out of every other answer).
 */
export const WEBHOOK_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'The endpoint\'s id.' },
  company_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The company whose events it receives.' },
  url: {
    kind: { type: 'text', max: 2048, notBlank: true, format: 'url' },
    nullable: false,
    role: 'writable',
    required: true,
    example: 'https://shop.example.com/webhooks/ticketing',
    description: 'Where events are POSTed: http or https; loopback, private, link-local and metadata addresses are refused unless the operator allows them.',
  },
  events: {
    kind: { type: 'text-list', values: [...WEBHOOK_EVENT_TYPES, ALL_EVENTS], minItems: 1 },
    nullable: false,
    role: 'writable',
    required: true,
    example: ['reservation.confirmed', 'ticket.updated'],
    description: `The event types it receives (${WEBHOOK_EVENT_TYPES.join(', ')}), or ["*"] for all.`,
  },
  description: { kind: { type: 'text', max: 1000 }, nullable: true, role: 'writable', description: 'A note for the people who manage it.' },
  enabled: {
    kind: { type: 'boolean' },
    nullable: false,
    role: 'writable',
    default: true,
    description: 'False pauses deliveries: events committed while it is disabled are never sent to it; those queued before wait and are sent once it is enabled again.',
  },
  secret: {
    kind: { type: 'text', max: 128 },
    nullable: false,
    role: 'server-managed',
    notInJson: true,
    description: 'The signing secret (whsec_ + base64 of 24 random bytes): in the creation answer only.',
  },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When it was created.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'ignored', description: 'When it last changed.' },
  etag: { kind: { type: 'text', max: 64 }, nullable: false, role: 'computed', notInJson: true, description: 'Changes whenever the endpoint changes; the ETag header over REST.' },
} as const satisfies Record<string, FieldDef>;

export const WEBHOOK: Resource<typeof WEBHOOK_FIELDS> = { noun: 'webhook', fields: WEBHOOK_FIELDS, orderRules: [] };

/** Whether an endpoint subscribed with `events` receives an event of `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

/** One attempt to deliver an event to an endpoint, as GET /webhooks/:guid/deliveries shows it. */
export const DELIVERY_FIELDS = {
  event_id: { kind: { type: 'text', max: 64 }, nullable: false, role: 'server-managed', description: 'The event\'s id (the webhook-id header).' },
  event_type: { kind: { type: 'text', max: 64 }, nullable: false, role: 'server-managed', description: 'The event\'s type.' },
  attempt: { kind: { type: 'integer', min: 1 }, nullable: false, role: 'server-managed', description: 'Which attempt this was: 1 for the first.' },
  response_status: { kind: { type: 'integer', min: 0 }, nullable: true, role: 'server-managed', description: 'The receiver\'s HTTP status; null when none came (timeout, refused).' },
  duration_ms: { kind: { type: 'integer', min: 0 }, nullable: false, role: 'server-managed', description: 'How long the attempt took, in milliseconds.' },
  error: { kind: { type: 'text', max: 255 }, nullable: true, role: 'server-managed', description: 'Why it failed, when it did.' },
  next_retry_at: { kind: TIMESTAMP, nullable: true, role: 'server-managed', description: 'When the next attempt is due; null after a delivery or the last attempt.' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When the attempt was made.' },
} as const satisfies Record<string, FieldDef>;

export const DELIVERY: Resource<typeof DELIVERY_FIELDS> = { noun: 'delivery', fields: DELIVERY_FIELDS, orderRules: [] };
