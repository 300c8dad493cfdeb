import { moveEventTypes } from '../stock-moves.js';

/** Every event type a webhook endpoint can subscribe to (PRODUCT.md 10, docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  'event.created',
  'event.updated',
  'event.deleted',
  'ticket.created',
  'ticket.updated',
  'ticket.deleted',
  // reservation.created, .pending, .confirmed, .released, .expired, .cancelled: one per stock move.
  ...moveEventTypes('reservation'),
  // order.created, .pending, .confirmed, .released, .expired, .cancelled: the same moves of a whole order.
  ...moveEventTypes('order'),
  'ticket.scanned',
  // A barcode's holder named, changed or cleared after the sale (data: the order).
  'barcode.holder_changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent by POST /webhooks/:guid/test only; no endpoint subscribes to it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** In `events`: every event type. */
export const ALL_EVENTS = '*';
