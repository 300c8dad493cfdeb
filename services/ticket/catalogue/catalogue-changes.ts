import { EVENT_FIELDS } from '../../../lib/fields/event.js';
import { resourceJson } from '../../../lib/fields/json.js';
import { TICKET_FIELDS } from '../../../lib/fields/ticket.js';
import type { WebhookEventType } from '../../../lib/webhooks/event-types.js';
import type { Change } from '../store/outbox-store.js';
import type { EventRecord } from './event-fields.js';
import { eventMessage, ticketMessage } from './messages.js';
import type { TicketRecord } from './ticket-fields.js';

/** The webhook events of the catalogue: `data` is the object exactly as its REST read shows it. */

export const eventChange = (type: WebhookEventType & `event.${string}`, event: Omit<EventRecord, 'id'>): Change => ({
  type,
  companyId: event.company_id,
  data: resourceJson(EVENT_FIELDS, eventMessage(event)),
});

export const ticketChange = (type: WebhookEventType & `ticket.${string}`, ticket: Omit<TicketRecord, 'id'>, now: Date): Change => ({
  type,
  companyId: ticket.company_id,
  data: resourceJson(TICKET_FIELDS, ticketMessage(ticket, now)),
});
