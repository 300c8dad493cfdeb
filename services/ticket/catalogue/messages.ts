import { Event } from '../../../lib/gen/ticketing/v1/event.js';
import { Ticket } from '../../../lib/gen/ticketing/v1/ticket.js';
import { EVENT_FIELDS, EVENT_STATUSES } from '../../../lib/fields/event.js';
import { fromMessageField, toMessageFields, toMessageValue } from '../../../lib/fields/messages.js';
import { rowToMessage } from '../../../lib/fields/row-messages.js';
import type { Row } from '../../../lib/fields/rows.js';
import { TICKET_FIELDS, ticketStatus } from '../../../lib/fields/ticket.js';
import { etagOf } from './etag.js';
import type { EventRecord } from './event-fields.js';
import type { TicketRecord } from './ticket-fields.js';

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

const ticketOfRow = rowToMessage(TICKET_FIELDS, () => Ticket.fromPartial({}));

/**
 * A tickets row straight to its message, for the lists: the same message as
 * ticketMessage(toRecord(row), now) (test/fields/row-messages.test.ts holds them equal), with
 * one object per ticket instead of four.
 */
export function ticketMessageOfRow(row: Row, now: Date): Ticket {
  const message = ticketOfRow(row);
  // The status rule reads the overrule by name; the message holds its enum number.
  const overrule = fromMessageField(TICKET_FIELDS.status_overrule, message.status_overrule);
  const status = ticketStatus({ ...message, status_overrule: overrule } as unknown as Parameters<typeof ticketStatus>[0], now);
  message.status = toMessageValue(TICKET_FIELDS.status, status) as Ticket['status'];
  message.etag = etagOf(message.guid, Number(row.version), status);
  return message;
}

export function eventMessage(event: Omit<EventRecord, 'id'>): Event {
  return Event.fromPartial(toMessageFields(EVENT_FIELDS, { ...event, status: EVENT_STATUS, etag: eventEtag(event) }) as Partial<Event>);
}
