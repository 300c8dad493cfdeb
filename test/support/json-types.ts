/**
 * The JSON objects of the API as a client sees them, written from the contract (spec 2.1,
 * PRODUCT.md 5, docs/auth.md), not from the implementation: what the shared helpers return.
 */

export type TicketStatus = 'available' | 'sold_out' | 'not_yet_available' | 'no_longer_available' | 'unavailable';

/** Suites also read fields by name, from their own tables of fields and values. */
type ByName = { readonly [field: string]: unknown };

/** A full ticket object (spec 2.1 table). Timestamps are `YYYY-MM-DDTHH:MM:SS+00:00`. */
export type TicketJson = ByName & {
  guid: string;
  company_id: string;
  event_id: string;
  name: string;
  description: string | null;
  min_price: number | null;
  vat_percentage: number;
  late_personalization: boolean;
  status_overrule: string;
  barcode_type: string;
  class: string | null;
  available_stock: number;
  sold_count: number;
  scanned_count: number;
  increment: number;
  available_from: string | null;
  available_until: string | null;
  availability_margin: number;
  min_orderable_amount_per_order: number;
  max_orderable_amount_per_order: number;
  percentage_service_costs_in_ticket: number;
  seats_category_key: string | null;
  available_in_cashr: boolean;
  hide_without_coupon: boolean;
  combines_products: boolean;
  swappable: boolean;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  status: TicketStatus;
  seated: boolean;
  include_service_cost_in_price: boolean;
  reserved_count: number;
  pending_count: number;
};

/** The 18 fields of a creation response (spec 2.1 rule 1). */
export type CreatedTicketJson = Pick<
  TicketJson,
  | 'increment'
  | 'min_orderable_amount_per_order'
  | 'max_orderable_amount_per_order'
  | 'availability_margin'
  | 'percentage_service_costs_in_ticket'
  | 'swappable'
  | 'name'
  | 'vat_percentage'
  | 'event_id'
  | 'company_id'
  | 'guid'
  | 'updated_at'
  | 'created_at'
  | 'status'
  | 'seated'
  | 'include_service_cost_in_price'
  | 'reserved_count'
  | 'pending_count'
>;

/** PRODUCT.md 5: the event object. */
export type EventJson = {
  guid: string;
  company_id: string;
  name: string;
  description: string | null;
  start: string | null;
  end: string | null;
  currency: string;
  status: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

/** `POST {auth_url}/users` and `GET {auth_url}/users/me`. */
export type UserJson = {
  guid: string;
  default_company_id: string;
  whitelabel_id: string;
  name: string;
  email: string;
  phone: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type CompanyJson = { guid: string; name: string };

/** A successful `POST {auth_url}/tokens` (RFC 6749 5.1 plus `info`). */
export type TokenJson = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  /** Not on client_credentials answers. */
  refresh_token?: string;
  refresh_token_expires_in?: number;
  info: { companies: CompanyJson[] };
};
