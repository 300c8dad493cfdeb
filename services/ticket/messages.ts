import { Event } from '../../lib/gen/ticketing/v1/event.js';
import { Ticket } from '../../lib/gen/ticketing/v1/ticket.js';
import { EVENT_FIELDS, EVENT_STATUSES } from '../../lib/fields/event.js';
import { toMessageFields } from '../../lib/fields/messages.js';
import { TICKET_FIELDS, ticketStatus } from '../../lib/fields/ticket.js';
import { etagOf } from './domain/etag.js';
import type { EventRecord } from './domain/event-fields.js';
import type { TicketRecord } from './domain/ticket-fields.js';

/** Stored records as protobuf messages (lib/fields/messages.ts), with their computed fields. */

/** Every event reads with this status. */
const EVENT_STATUS = EVENT_STATUSES[0];

export function ticketEtag(ticket: Omit<TicketRecord, 'id'>, now: Date): string {
  return etagOf(ticket.guid, ticket.version, ticketStatus(ticket, now));
}

export function eventEtag(event: Omit<EventRecord, 'id'>): string {
  return etagOf(event.guid, event.version);
}

export function ticketMessage(ticket: Omit<TicketRecord, 'id'>, now: Date): Ticket {
  const status = ticketStatus(ticket, now);
  const fields = toMessageFields(TICKET_FIELDS, { ...ticket, status, etag: etagOf(ticket.guid, ticket.version, status) });
  return Ticket.fromPartial(fields as Partial<Ticket>);
}

export function eventMessage(event: Omit<EventRecord, 'id'>): Event {
  return Event.fromPartial(toMessageFields(EVENT_FIELDS, { ...event, status: EVENT_STATUS, etag: eventEtag(event) }) as Partial<Event>);
}
