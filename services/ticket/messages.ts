import type { Event } from '../../lib/gen/ticketing/v1/event.js';
import type { Ticket } from '../../lib/gen/ticketing/v1/ticket.js';
import { etagOf } from './domain/etag.js';
import { EVENT_STATUS, type EventRecord } from './domain/event-fields.js';
import type { TicketRecord } from './domain/ticket-fields.js';
import { ticketStatus } from './domain/ticket-status.js';

/** Stored records as protobuf messages: null becomes unset, status and etag are derived. */

const unset = <T>(value: T | null): T | undefined => value ?? undefined;

export function ticketEtag(ticket: Omit<TicketRecord, 'id'>, now: Date): string {
  return etagOf(ticket.guid, ticket.version, ticketStatus(ticket, now));
}

export function eventEtag(event: Omit<EventRecord, 'id'>): string {
  return etagOf(event.guid, event.version);
}

export function ticketMessage(ticket: Omit<TicketRecord, 'id'>, now: Date): Ticket {
  const status = ticketStatus(ticket, now);
  return {
    guid: ticket.guid,
    company_id: ticket.company_id,
    event_id: ticket.event_id,
    name: ticket.name,
    description: unset(ticket.description),
    min_price: unset(ticket.min_price),
    vat_percentage: ticket.vat_percentage,
    late_personalization: ticket.late_personalization,
    status_overrule: ticket.status_overrule,
    barcode_type: ticket.barcode_type,
    class: unset(ticket.class),
    available_stock: ticket.available_stock,
    sold_count: ticket.sold_count,
    scanned_count: ticket.scanned_count,
    increment: ticket.increment,
    available_from: unset(ticket.available_from),
    available_until: unset(ticket.available_until),
    availability_margin: ticket.availability_margin,
    min_orderable_amount_per_order: ticket.min_orderable_amount_per_order,
    max_orderable_amount_per_order: ticket.max_orderable_amount_per_order,
    percentage_service_costs_in_ticket: ticket.percentage_service_costs_in_ticket,
    seats_category_key: unset(ticket.seats_category_key),
    available_in_cashr: ticket.available_in_cashr,
    hide_without_coupon: ticket.hide_without_coupon,
    combines_products: ticket.combines_products,
    swappable: ticket.swappable,
    created_at: ticket.created_at,
    updated_at: ticket.updated_at,
    deleted_at: unset(ticket.deleted_at),
    status,
    seated: ticket.seated,
    include_service_cost_in_price: ticket.include_service_cost_in_price,
    reserved_count: ticket.reserved_count,
    pending_count: ticket.pending_count,
    etag: etagOf(ticket.guid, ticket.version, status),
  };
}

export function eventMessage(event: Omit<EventRecord, 'id'>): Event {
  return {
    guid: event.guid,
    company_id: event.company_id,
    name: event.name,
    description: unset(event.description),
    start: unset(event.start),
    end: unset(event.end),
    status: EVENT_STATUS,
    created_at: event.created_at,
    updated_at: event.updated_at,
    deleted_at: unset(event.deleted_at),
    etag: eventEtag(event),
  };
}
