/**
 * Shared helpers for the events-and-tickets end-to-end suite. Everything here is written
 * from the contract (spec, PRODUCT.md, docs/ticket-api.md), not from the implementation.
 */
import { expect } from 'vitest';
import { GUID, request, type JsonResponse } from '../support/http.js';
import type { EventJson, TicketJson } from '../support/json-types.js';

/** Spec 2.1 rule 1: the only fields of a creation response. */
export const CREATION_FIELDS = [
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
] as const satisfies ReadonlyArray<keyof TicketJson>;

/** Spec 2.1 table: every field of a full ticket object, in table order. */
export const ALL_FIELDS = [
  'guid',
  'company_id',
  'event_id',
  'name',
  'description',
  'min_price',
  'vat_percentage',
  'late_personalization',
  'status_overrule',
  'barcode_type',
  'class',
  'available_stock',
  'sold_count',
  'scanned_count',
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
  'created_at',
  'updated_at',
  'deleted_at',
  'status',
  'seated',
  'include_service_cost_in_price',
  'reserved_count',
  'pending_count',
] as const satisfies ReadonlyArray<keyof TicketJson>;

/** PRODUCT.md 5: the event object. */
export const EVENT_FIELDS = ['guid', 'company_id', 'name', 'description', 'start', 'end', 'currency', 'status', 'created_at', 'updated_at', 'deleted_at'] as const satisfies ReadonlyArray<keyof EventJson>;

/** Spec 2.1 table: the initial values of a new ticket (every field that has one). */
export const TICKET_DEFAULTS: Record<string, unknown> = {
  description: null,
  min_price: null,
  late_personalization: false,
  status_overrule: 'auto',
  barcode_type: 'generate',
  class: null,
  available_stock: 0,
  sold_count: 0,
  scanned_count: 0,
  increment: 1,
  available_from: null,
  available_until: null,
  availability_margin: 0,
  min_orderable_amount_per_order: 1,
  max_orderable_amount_per_order: 20,
  percentage_service_costs_in_ticket: 0,
  seats_category_key: null,
  available_in_cashr: false,
  hide_without_coupon: false,
  combines_products: true,
  swappable: true,
  deleted_at: null,
  seated: false,
  include_service_cost_in_price: false,
  reserved_count: 0,
  pending_count: 0,
};

export { GUID };
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
export const STRONG_ETAG = /^"[^"]+"$/;
export const STATUSES = ['available', 'sold_out', 'not_yet_available', 'no_longer_available', 'unavailable'];

export const sorted = (keys: readonly string[]): string[] => [...keys].sort();
export const keysOf = (value: unknown): string[] => Object.keys(value as object).sort();

/** A GUID that names nothing. */
export const NIL_LIKE_GUID = '0b7e7c4e-1f7a-4c2e-9d7e-3a1b2c3d4e5f';

export function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** An ISO timestamp `days` days from now, second precision, UTC. */
export function daysFromNow(days: number): string {
  return iso(new Date(Math.floor(Date.now() / 1000) * 1000 + days * 86_400_000));
}

// --- checks ---------------------------------------------------------------------------

/** RFC 9457 problem: the content type, the four members, and status matching the HTTP status. */
export function expectProblem(res: JsonResponse, status: number): void {
  expect(res.status, res.text.slice(0, 500)).toBe(status);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
  const body = res.body as Record<string, unknown>;
  expect(typeof body).toBe('object');
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe('string');
  expectNoInternals(res);
}

/** No stack trace, SQL or driver message in a response. */
export function expectNoInternals(res: JsonResponse): void {
  expect(res.text).not.toMatch(/\bat \S+ \(|\.(ts|js):\d+:\d+|\bSELECT\b|\bINSERT INTO\b|\bUPDATE `|SQLITE_|\bER_[A-Z_]+/);
  expect(res.text).not.toMatch(/knex|"stack"|node_modules/i);
}

/** The `field` of every `errors[]` entry of a 422. */
export function errorFields(res: JsonResponse): string[] {
  const errors = (res.body as { errors?: Array<{ field: unknown; message: unknown }> }).errors;
  expect(Array.isArray(errors), `errors[] in ${res.text.slice(0, 300)}`).toBe(true);
  for (const e of errors!) {
    expect(typeof e.field).toBe('string');
    expect(typeof e.message).toBe('string');
  }
  return errors!.map((e) => e.field as string);
}

/** A 422 problem whose errors name exactly these fields (order free, each at least once, nothing else). */
export function expect422(res: JsonResponse, fields: string[]): void {
  expectProblem(res, 422);
  const named = errorFields(res);
  for (const field of fields) expect(named, `422 should name ${field}: ${res.text.slice(0, 500)}`).toContain(field);
  expect(new Set(named), `422 should name only ${fields.join(', ')}: ${res.text.slice(0, 500)}`).toEqual(new Set(fields));
}

export function expectFullTicket(ticket: unknown): void {
  expect(keysOf(ticket)).toEqual(sorted(ALL_FIELDS));
  const t = ticket as Record<string, unknown>;
  expect(t.guid).toMatch(GUID);
  expect(t.company_id).toMatch(GUID);
  expect(t.event_id).toMatch(GUID);
  expect(t.created_at).toMatch(TIMESTAMP);
  expect(t.updated_at).toMatch(TIMESTAMP);
  expect(STATUSES).toContain(t.status);
  expect(typeof t.vat_percentage).toBe('number');
  expect(typeof t.percentage_service_costs_in_ticket).toBe('number');
}

/** The URL of a `Link: <...>; rel="next"` header, resolved against baseUrl; undefined when none. */
export function nextLink(res: JsonResponse, baseUrl: string): string | undefined {
  const link = res.headers.get('link');
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (match && /rel="?([^";]*\s)?next(\s[^";]*)?"?/.test(match[2]!)) return new URL(match[1]!, baseUrl + '/').toString();
  }
  return undefined;
}

/** Follows rel="next" from `url` to the end; returns every page's items in order and the page count. */
export async function walkPages(url: string, headers: Record<string, string>, baseUrl: string): Promise<{ items: unknown[]; pages: number }> {
  const items: unknown[] = [];
  let pages = 0;
  let next: string | undefined = url;
  while (next) {
    const res: JsonResponse = await request(next, { headers });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    items.push(...(res.body as unknown[]));
    pages += 1;
    expect(pages).toBeLessThan(200);
    next = nextLink(res, baseUrl);
  }
  return { items, pages };
}

/** Runs the tasks with at most `width` in flight; results in task order. */
export async function pool<T>(tasks: Array<() => Promise<T>>, width = 8): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results;
}

export { addCompany, bearer, passwordToken, request, signUpAndLogin, twoCompanyAccount } from '../support/http.js';
export { createEvent, createTicket, getTicket, h, listTickets, putTicket, putTicketForm, readEvent, readTicket, updateTicket } from '../support/api.js';
export { startSuite } from '../support/suite.js';
export type { Account, JsonResponse, TwoCompanyAccount } from '../support/http.js';
export type { Who } from '../support/api.js';
export type { CreatedTicketJson, EventJson, TicketJson } from '../support/json-types.js';
export type { TestStack } from '../support/stack.js';
