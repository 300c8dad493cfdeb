/**
 * Calls of the events-and-tickets API for any suite: who calls (stack, token, extra headers)
 * and one function a route. The `create*`/`read*`/`update*` ones must succeed and return the
 * object, typed; the others return the response for the test to judge (a ticket, a list or
 * a problem, so its body is untyped).
 */
import { expect } from 'vitest';
import { bearer, request, type JsonResponse } from './http.js';
import type { CreatedTicketJson, EventJson, TicketJson } from './json-types.js';
import type { TestStack } from './stack.js';

export interface Who {
  stack: TestStack;
  token: string;
  /** Extra headers on every call (e.g. Company). */
  headers?: Record<string, string>;
}

export function h(who: Who, extra: Record<string, string> = {}): Record<string, string> {
  return bearer(who.token, { ...(who.headers ?? {}), ...extra });
}

export async function createEvent(who: Who, body: Record<string, unknown> = { name: 'Event' }, extra: Record<string, string> = {}): Promise<EventJson> {
  const res = await request<EventJson>(`${who.stack.baseUrl}/event`, { method: 'POST', headers: h(who, extra), json: body });
  expect(res.status, `POST /event: ${res.text}`).toBe(201);
  return res.body;
}

/** GET /event/:guid that must succeed; returns the event. */
export async function readEvent(who: Who, guid: string): Promise<EventJson> {
  const res = await request<EventJson>(`${who.stack.baseUrl}/event/${guid}`, { headers: h(who) });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function createTicket(
  who: Who,
  eventGuid: string,
  body: Record<string, unknown> = { name: 'Ticket', vat_percentage: 21 },
  extra: Record<string, string> = {},
): Promise<CreatedTicketJson> {
  const res = await request<CreatedTicketJson>(`${who.stack.baseUrl}/event/${eventGuid}/ticket`, { method: 'POST', headers: h(who, extra), json: body });
  expect(res.status, `POST /event/${eventGuid}/ticket: ${res.text}`).toBe(201);
  return res.body;
}

/** GET /event/:guid/ticket (the whole list). */
export function listTickets(who: Who, eventGuid: string): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/event/${eventGuid}/ticket`, { headers: h(who) });
}

export function getTicket(who: Who, guid: string, extra: Record<string, string> = {}): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/ticket/${guid}`, { headers: h(who, extra) });
}

/** GET /ticket/:guid that must succeed; returns the ticket. */
export async function readTicket(who: Who, guid: string): Promise<TicketJson> {
  const res = await getTicket(who, guid);
  expect(res.status, `GET /ticket/${guid}: ${res.text}`).toBe(200);
  return res.body as TicketJson;
}

export function putTicket(who: Who, guid: string, json: unknown, extra: Record<string, string> = {}): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/ticket/${guid}`, { method: 'PUT', headers: h(who, extra), json });
}

/** PUT /ticket/:guid that must succeed; returns the ticket. */
export async function updateTicket(who: Who, guid: string, json: Record<string, unknown>): Promise<TicketJson> {
  const res = await putTicket(who, guid, json);
  expect(res.status, `PUT /ticket/${guid} ${JSON.stringify(json).slice(0, 200)}: ${res.text.slice(0, 500)}`).toBe(200);
  return res.body as TicketJson;
}

export function putTicketForm(who: Who, guid: string, body: URLSearchParams | FormData): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/ticket/${guid}`, { method: 'PUT', headers: h(who), body });
}
