import { Ticket } from '../lib/gen/ticketing/v1/ticket.js';
import type { FieldViolation } from '../lib/grpc/errors.js';
import type { BodyKind } from './body.js';
import { messageFields, translateBody } from './body-input.js';
import type { FieldType } from './field-input.js';

/** Every ticket field of spec 2.1 and the type its protobuf field carries. */
export const TICKET_FIELDS: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
  ['guid', 'text'],
  ['company_id', 'text'],
  ['event_id', 'text'],
  ['name', 'text'],
  ['description', 'nullable-text'],
  ['min_price', 'nullable-decimal'],
  ['vat_percentage', 'decimal'],
  ['late_personalization', 'boolean'],
  ['status_overrule', 'text'],
  ['barcode_type', 'text'],
  ['class', 'nullable-text'],
  ['available_stock', 'integer'],
  ['sold_count', 'integer'],
  ['scanned_count', 'integer'],
  ['increment', 'integer'],
  ['available_from', 'nullable-timestamp'],
  ['available_until', 'nullable-timestamp'],
  ['availability_margin', 'integer'],
  ['min_orderable_amount_per_order', 'integer'],
  ['max_orderable_amount_per_order', 'integer'],
  ['percentage_service_costs_in_ticket', 'decimal'],
  ['seats_category_key', 'nullable-text'],
  ['available_in_cashr', 'boolean'],
  ['hide_without_coupon', 'boolean'],
  ['combines_products', 'boolean'],
  ['swappable', 'boolean'],
  ['created_at', 'timestamp'],
  ['updated_at', 'ignored'],
  ['deleted_at', 'nullable-timestamp'],
  ['status', 'ignored'],
  ['seated', 'boolean'],
  ['include_service_cost_in_price', 'boolean'],
  ['reserved_count', 'integer'],
  ['pending_count', 'integer'],
]);

export interface TicketInput {
  ticket: Ticket;
  updateMask: string[];
  /** Type errors, found before the service is asked. */
  violations: FieldViolation[];
}

/** POST /event/:eventGUID/ticket body -> CreateTicketRequest.ticket. */
export function newTicketInput(body: Record<string, unknown>, kind: BodyKind): TicketInput {
  const translated = translateBody(body, kind, TICKET_FIELDS, { unknownKeys: 'refuse', noun: 'ticket' });
  return { ticket: Ticket.fromPartial(messageFields<Ticket>(translated.values)), updateMask: [], violations: translated.violations };
}

/**
 * PUT /ticket/:guid body -> UpdateTicketRequest.ticket and its mask (the keys sent). The
 * path names the ticket; a `guid` in the body may only repeat it.
 */
export function ticketChangesInput(guid: string, body: Record<string, unknown>, kind: BodyKind): TicketInput {
  const translated = translateBody(body, kind, TICKET_FIELDS, { unknownKeys: 'mask', noun: 'ticket' });
  const sentGuid = translated.values.get('guid');
  if (typeof sentGuid === 'string' && sentGuid.toLowerCase() !== guid.toLowerCase()) {
    translated.violations.push({ field: 'guid', description: 'is managed by the service and cannot be changed' });
    translated.mask = translated.mask.filter((path) => path !== 'guid');
  }
  const ticket = Ticket.fromPartial({ ...messageFields<Ticket>(translated.values), guid });
  return { ticket, updateMask: translated.mask, violations: translated.violations };
}
