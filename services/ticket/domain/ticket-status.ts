import type { TICKET_STATUSES } from '../../../lib/fields/ticket.js';
import type { TicketRecord } from './ticket-fields.js';

export type TicketStatus = (typeof TICKET_STATUSES)[number];

/**
 * The computed status of a ticket (docs/ticket-api.md "Responses"): the override when
 * status_overrule is not auto; else the sale window [available_from, available_until);
 * else sold out when sold + reserved + pending + margin reach the stock; else available.
 */
export type StatusInputs = Pick<
  TicketRecord,
  'status_overrule' | 'available_from' | 'available_until' | 'sold_count' | 'reserved_count' | 'pending_count' | 'availability_margin' | 'available_stock'
>;

export function ticketStatus(ticket: StatusInputs, now: Date): TicketStatus {
  if (ticket.status_overrule !== 'auto') return ticket.status_overrule as TicketStatus;
  if (ticket.available_from && now.getTime() < ticket.available_from.getTime()) return 'not_yet_available';
  if (ticket.available_until && now.getTime() >= ticket.available_until.getTime()) return 'no_longer_available';
  const taken = ticket.sold_count + ticket.reserved_count + ticket.pending_count + ticket.availability_margin;
  return taken >= ticket.available_stock ? 'sold_out' : 'available';
}
