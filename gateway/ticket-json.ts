import type { Ticket } from '../lib/gen/ticketing/v1/ticket.js';
import { formatTimestamp } from '../lib/time.js';

/** Decimals travel as exact strings and leave as JSON numbers ("21" -> 21, "9.99" -> 9.99). */
export const decimalJson = (value: string | undefined): number | null => (value === undefined ? null : Number(value));

/** A full ticket object: the 34 fields of spec 2.1, in the table's order. */
export function ticketJson(t: Ticket) {
  return {
    guid: t.guid,
    company_id: t.company_id,
    event_id: t.event_id,
    name: t.name ?? null,
    description: t.description ?? null,
    min_price: decimalJson(t.min_price),
    vat_percentage: decimalJson(t.vat_percentage),
    late_personalization: t.late_personalization ?? null,
    status_overrule: t.status_overrule ?? null,
    barcode_type: t.barcode_type ?? null,
    class: t.class ?? null,
    available_stock: t.available_stock ?? null,
    sold_count: t.sold_count ?? null,
    scanned_count: t.scanned_count ?? null,
    increment: t.increment ?? null,
    available_from: formatTimestamp(t.available_from),
    available_until: formatTimestamp(t.available_until),
    availability_margin: t.availability_margin ?? null,
    min_orderable_amount_per_order: t.min_orderable_amount_per_order ?? null,
    max_orderable_amount_per_order: t.max_orderable_amount_per_order ?? null,
    percentage_service_costs_in_ticket: decimalJson(t.percentage_service_costs_in_ticket),
    seats_category_key: t.seats_category_key ?? null,
    available_in_cashr: t.available_in_cashr ?? null,
    hide_without_coupon: t.hide_without_coupon ?? null,
    combines_products: t.combines_products ?? null,
    swappable: t.swappable ?? null,
    created_at: formatTimestamp(t.created_at),
    updated_at: formatTimestamp(t.updated_at),
    deleted_at: formatTimestamp(t.deleted_at),
    status: t.status || null,
    seated: t.seated ?? null,
    include_service_cost_in_price: t.include_service_cost_in_price ?? null,
    reserved_count: t.reserved_count ?? null,
    pending_count: t.pending_count ?? null,
  };
}

/** The creation response's fields: exactly the 18 of spec 2.1 rule 1, in its order. */
export const TICKET_CREATION_FIELDS = [
  'increment',
  'min_orderable_amount_per_order',
  'max_orderable_amount_per_order',
  'availability_margin',
  'percentage_service_costs_in_ticket',
  'swappable',
  'name',
  'vat_percentage',
  'event_id',
  'company_id',
  'guid',
  'updated_at',
  'created_at',
  'status',
  'seated',
  'include_service_cost_in_price',
  'reserved_count',
  'pending_count',
] as const satisfies ReadonlyArray<keyof ReturnType<typeof ticketJson>>;

/** The creation response: the creation fields of the full object; status is null there (spec section 3). */
export function ticketCreationJson(t: Ticket): Record<(typeof TICKET_CREATION_FIELDS)[number], unknown> {
  const full = ticketJson(t);
  const picked = Object.fromEntries(TICKET_CREATION_FIELDS.map((field) => [field, full[field]]));
  return { ...picked, status: null } as Record<(typeof TICKET_CREATION_FIELDS)[number], unknown>;
}
