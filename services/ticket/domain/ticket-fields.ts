/** The ticket's fields (spec 2.1) and their roles on create and update (docs/ticket-api.md). */

export const STATUS_OVERRULES = ['auto', 'available', 'sold_out', 'unavailable'] as const;
export const BARCODE_TYPES = ['generate', 'predefined', 'none'] as const;

/** The fields a client may set, at creation and with PUT. */
export interface TicketValues {
  name: string;
  description: string | null;
  min_price: string | null;
  vat_percentage: string;
  late_personalization: boolean;
  status_overrule: string;
  barcode_type: string;
  class: string | null;
  available_stock: number;
  increment: number;
  available_from: Date | null;
  available_until: Date | null;
  availability_margin: number;
  min_orderable_amount_per_order: number;
  max_orderable_amount_per_order: number;
  percentage_service_costs_in_ticket: string;
  seats_category_key: string | null;
  available_in_cashr: boolean;
  hide_without_coupon: boolean;
  combines_products: boolean;
  swappable: boolean;
  seated: boolean;
  include_service_cost_in_price: boolean;
}

export type WritableTicketField = keyof TicketValues;

/** A stored ticket: the writable values plus what the service manages. */
export interface TicketRecord extends TicketValues {
  /** Creation order; the key of keyset paging. Never leaves the service. */
  id: number;
  guid: string;
  company_id: string;
  event_id: string;
  sold_count: number;
  scanned_count: number;
  reserved_count: number;
  pending_count: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** Bumped by every change; the etag is derived from it. */
  version: number;
}

export const WRITABLE_TICKET_FIELDS: readonly WritableTicketField[] = [
  'name',
  'description',
  'min_price',
  'vat_percentage',
  'late_personalization',
  'status_overrule',
  'barcode_type',
  'class',
  'available_stock',
  'increment',
  'available_from',
  'available_until',
  'availability_margin',
  'min_orderable_amount_per_order',
  'max_orderable_amount_per_order',
  'percentage_service_costs_in_ticket',
  'seats_category_key',
  'available_in_cashr',
  'hide_without_coupon',
  'combines_products',
  'swappable',
  'seated',
  'include_service_cost_in_price',
];

/** May be sent back unchanged; a different value is refused. */
export const SERVER_MANAGED_TICKET_FIELDS = [
  'guid',
  'company_id',
  'event_id',
  'created_at',
  'deleted_at',
  'sold_count',
  'scanned_count',
  'reserved_count',
  'pending_count',
] as const;

export type ServerManagedTicketField = (typeof SERVER_MANAGED_TICKET_FIELDS)[number];

/** Output only: ignored when sent. */
export const IGNORED_TICKET_FIELDS = ['status', 'updated_at'] as const;

/** Spec 2.1: the initial value of every writable field except the two required ones. */
export const TICKET_DEFAULTS: Omit<TicketValues, 'name' | 'vat_percentage'> = {
  description: null,
  min_price: null,
  late_personalization: false,
  status_overrule: 'auto',
  barcode_type: 'generate',
  class: null,
  available_stock: 0,
  increment: 1,
  available_from: null,
  available_until: null,
  availability_margin: 0,
  min_orderable_amount_per_order: 1,
  max_orderable_amount_per_order: 20,
  percentage_service_costs_in_ticket: '0',
  seats_category_key: null,
  available_in_cashr: false,
  hide_without_coupon: false,
  combines_products: true,
  swappable: true,
  seated: false,
  include_service_cost_in_price: false,
};

export const REQUIRED_TICKET_FIELDS: readonly WritableTicketField[] = ['name', 'vat_percentage'];
