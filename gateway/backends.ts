import type { Request } from 'express';
import { Event, type EventServiceClient } from '../lib/gen/ticketing/v1/event.js';
import { Ticket, type TicketServiceClient } from '../lib/gen/ticketing/v1/ticket.js';
import type { UnaryMethod } from '../lib/grpc/client.js';
import { validateOnly } from '../lib/grpc/validate-only.js';
import type { Caller } from './request-context.js';
import type { ResourceBackend } from './resource-routes.js';

/**
 * Typed facades over the backend clients: each method takes the incoming request (whose
 * caller, company and request id travel as metadata, with the deadline, through `call`)
 * and the message; `checkOnly` runs a Create/Update as validate-only.
 */
export type Unary<Req, Res> = (req: Request, request: Req, checkOnly?: boolean) => Promise<Res>;

function unary<Req, Res>(call: Caller, method: UnaryMethod<Req, Res>): Unary<Req, Res> {
  return (req, request, checkOnly = false) => call(checkOnly ? validateOnly(method) : method, request, req);
}

export function eventBackend(client: EventServiceClient, call: Caller) {
  const create = unary(call, client.createEvent.bind(client));
  const update = unary(call, client.updateEvent.bind(client));
  const remove = unary(call, client.deleteEvent.bind(client));
  const get = unary(call, client.getEvent.bind(client));
  const item: ResourceBackend<Event> = {
    get: (req, guid) => get(req, { guid }),
    create: (req, change, checkOnly) => create(req, { event: Event.fromPartial(change.fields as Partial<Event>), request_id: change.requestId }, checkOnly),
    update: (req, change, checkOnly) =>
      update(req, { guid: change.guid, event: Event.fromPartial(change.fields as Partial<Event>), update_mask: change.updateMask, etag: change.ifMatch }, checkOnly),
    delete: (req, guid, ifMatch) => remove(req, { guid, etag: ifMatch }),
  };
  return { item, list: unary(call, client.listEvents.bind(client)) };
}

export function ticketBackend(client: TicketServiceClient, call: Caller) {
  const create = unary(call, client.createTicket.bind(client));
  const update = unary(call, client.updateTicket.bind(client));
  const remove = unary(call, client.deleteTicket.bind(client));
  const get = unary(call, client.getTicket.bind(client));
  const item: ResourceBackend<Ticket> = {
    get: (req, guid) => get(req, { guid }),
    create: (req, change, checkOnly) =>
      create(req, { event_id: change.parentGuid, ticket: Ticket.fromPartial(change.fields as Partial<Ticket>), request_id: change.requestId }, checkOnly),
    update: (req, change, checkOnly) =>
      update(req, { guid: change.guid, ticket: Ticket.fromPartial(change.fields as Partial<Ticket>), update_mask: change.updateMask, etag: change.ifMatch }, checkOnly),
    delete: (req, guid, ifMatch) => remove(req, { guid, etag: ifMatch }),
  };
  return { item, list: unary(call, client.listTickets.bind(client)), stream: client.streamTickets.bind(client) };
}
