import type { Request } from 'express';
import type { AuthServiceClient } from '../lib/gen/auth/v1/auth.js';
import { Coupon, type CouponServiceClient } from '../lib/gen/ticketing/v1/coupon.js';
import { Event, type EventServiceClient } from '../lib/gen/ticketing/v1/event.js';
import type { Order, OrderServiceClient } from '../lib/gen/ticketing/v1/order.js';
import type { Reservation, ReservationServiceClient } from '../lib/gen/ticketing/v1/reservation.js';
import { Ticket, type TicketServiceClient } from '../lib/gen/ticketing/v1/ticket.js';
import { Webhook, type WebhookServiceClient } from '../lib/gen/ticketing/v1/webhook.js';
import type { UnaryMethod } from '../lib/grpc/client.js';
import { validateOnly } from '../lib/grpc/validate-only.js';
import { moveRpc, SALE_MOVES, type SaleMove, type SaleNoun } from '../lib/stock-moves.js';
import type { Caller } from './request-context.js';
import type { NewResource, ResourceBackend, ResourceChange, ResourceMessage } from './resource-routes.js';

/**
 * Typed facades over the backend clients: each method takes the incoming request (whose
 * caller, company and request id travel as metadata, with the deadline, through `call`)
 * and the message; `checkOnly` runs a Create/Update as validate-only.
 */
export type Unary<Req, Res> = (req: Request, request: Req, checkOnly?: boolean) => Promise<Res>;

function unary<Req, Res>(call: Caller, method: UnaryMethod<Req, Res>): Unary<Req, Res> {
  return (req, request, checkOnly = false) => call(checkOnly ? validateOnly(method) : method, request, req);
}

interface ItemMethods<M, Create, Update> {
  get: UnaryMethod<{ guid: string }, M>;
  create: UnaryMethod<Create, M>;
  update: UnaryMethod<Update, M>;
  delete: UnaryMethod<{ guid: string; etag: string }, unknown>;
}

/** The get/create/update/delete of one resource; `requests` builds its Create and Update messages. */
function itemBackend<M extends ResourceMessage, Create, Update>(
  call: Caller,
  methods: ItemMethods<M, Create, Update>,
  requests: { create(resource: NewResource): Create; update(change: ResourceChange): Update },
): ResourceBackend<M> {
  const [get, create, update, remove] = [unary(call, methods.get), unary(call, methods.create), unary(call, methods.update), unary(call, methods.delete)];
  return {
    get: (req, guid) => get(req, { guid }),
    create: (req, resource, checkOnly) => create(req, requests.create(resource), checkOnly),
    update: (req, change, checkOnly) => update(req, requests.update(change), checkOnly),
    delete: (req, guid, ifMatch) => remove(req, { guid, etag: ifMatch }),
  };
}

export function eventBackend(client: EventServiceClient, call: Caller) {
  const methods = { get: client.getEvent, create: client.createEvent, update: client.updateEvent, delete: client.deleteEvent };
  const event = (fields: Record<string, unknown>) => Event.fromPartial(fields as Partial<Event>);
  const item = itemBackend(call, bound(client, methods), {
    create: (resource) => ({ event: event(resource.fields), request_id: resource.requestId }),
    update: (change) => ({ guid: change.guid, event: event(change.fields), update_mask: change.updateMask, etag: change.ifMatch }),
  });
  return { item, list: unary(call, client.listEvents.bind(client)) };
}

export function ticketBackend(client: TicketServiceClient, call: Caller) {
  const methods = { get: client.getTicket, create: client.createTicket, update: client.updateTicket, delete: client.deleteTicket };
  const ticket = (fields: Record<string, unknown>) => Ticket.fromPartial(fields as Partial<Ticket>);
  const item = itemBackend(call, bound(client, methods), {
    create: (resource) => ({ event_id: resource.parentGuid, ticket: ticket(resource.fields), request_id: resource.requestId }),
    update: (change) => ({ guid: change.guid, ticket: ticket(change.fields), update_mask: change.updateMask, etag: change.ifMatch }),
  });
  return { item, list: unary(call, client.listTickets.bind(client)), stream: client.streamTicketBatches.bind(client) };
}

export function webhookBackend(client: WebhookServiceClient, call: Caller) {
  const methods = { get: client.getWebhook, create: client.createWebhook, update: client.updateWebhook, delete: client.deleteWebhook };
  const webhook = (fields: Record<string, unknown>) => Webhook.fromPartial(fields as Partial<Webhook>);
  const item = itemBackend(call, bound(client, methods), {
    create: (resource) => ({ webhook: webhook(resource.fields), request_id: resource.requestId }),
    update: (change) => ({ guid: change.guid, webhook: webhook(change.fields), update_mask: change.updateMask, etag: change.ifMatch }),
  });
  return {
    item,
    list: unary(call, client.listWebhooks.bind(client)),
    sendTest: unary(call, client.sendTestEvent.bind(client)),
    deliveries: unary(call, client.listDeliveries.bind(client)),
  };
}

export function couponBackend(client: CouponServiceClient, call: Caller) {
  const methods = { get: client.getCoupon, create: client.createCoupon, update: client.updateCoupon, delete: client.deleteCoupon };
  const coupon = (fields: Record<string, unknown>) => Coupon.fromPartial(fields as Partial<Coupon>);
  const item = itemBackend(call, bound(client, methods), {
    create: (resource) => ({ event_id: resource.parentGuid, coupon: coupon(resource.fields), request_id: resource.requestId }),
    update: (change) => ({ guid: change.guid, coupon: coupon(change.fields), update_mask: change.updateMask, etag: change.ifMatch }),
  });
  return {
    item,
    list: unary(call, client.listCoupons.bind(client)),
    addCodes: unary(call, client.addCouponCodes.bind(client)),
    listCodes: unary(call, client.listCouponCodes.bind(client)),
    deleteCode: unary(call, client.deleteCouponCode.bind(client)),
  };
}

/** One move of a sale as a call: the request fields of its body (with the sale's guid), answered with the sale. */
export type SaleMoveCall<M> = (req: Request, request: { guid: string } & Record<string, unknown>) => Promise<M>;

/**
 * The moves of an existing sale (lib/stock-moves.ts SALE_MOVES) as calls of its service, by
 * the method each move's row names (MarkReservationPending, ConfirmOrder, ...).
 */
function saleMoves<M>(client: object, noun: SaleNoun, call: Caller): Record<SaleMove, SaleMoveCall<M>> {
  const method = (move: SaleMove) => (client as Record<string, UnaryMethod<{ guid: string }, M>>)[moveRpc(move, noun, true)]!.bind(client);
  return Object.fromEntries(SALE_MOVES.map((move) => [move, unary(call, method(move))])) as Record<SaleMove, SaleMoveCall<M>>;
}

/** The stock moves made for a REST request. */
export function reservationBackend(client: ReservationServiceClient, call: Caller) {
  const methods = bound(client, {
    reserve: client.reserveTicket,
    get: client.getReservation,
    list: client.listReservations,
    barcodes: client.listReservationBarcodes,
    scan: client.scanBarcode,
  });
  return {
    reserve: unary(call, methods.reserve),
    get: unary(call, methods.get),
    list: unary(call, methods.list),
    barcodes: unary(call, methods.barcodes),
    scan: unary(call, methods.scan),
    moves: saleMoves<Reservation>(client, 'Reservation', call),
  };
}

/** The order moves made for a REST request. */
export function orderBackend(client: OrderServiceClient, call: Caller) {
  const methods = bound(client, {
    create: client.createOrder,
    get: client.getOrder,
    list: client.listOrders,
    setHolder: client.setBarcodeHolder,
  });
  return {
    create: unary(call, methods.create),
    get: unary(call, methods.get),
    list: unary(call, methods.list),
    setHolder: unary(call, methods.setHolder),
    moves: saleMoves<Order>(client, 'Order', call),
  };
}

/** The auth service's calls made for a REST request. */
export function authBackend(client: AuthServiceClient, call: Caller) {
  return {
    signUp: unary(call, client.signUp.bind(client)),
    issueToken: unary(call, client.issueToken.bind(client)),
    revokeToken: unary(call, client.revokeToken.bind(client)),
    getCurrentUser: unary(call, client.getCurrentUser.bind(client)),
    listCompanies: unary(call, client.listCompanies.bind(client)),
    createCompany: unary(call, client.createCompany.bind(client)),
    createApiClient: unary(call, client.createApiClient.bind(client)),
    listApiClients: unary(call, client.listApiClients.bind(client)),
    deleteApiClient: unary(call, client.deleteApiClient.bind(client)),
    getSigningKeys: unary(call, client.getSigningKeys.bind(client)),
  };
}

/** The client's methods, bound to it once. */
function bound<T extends Record<string, (...args: never[]) => unknown>>(client: object, methods: T): T {
  return Object.fromEntries(Object.entries(methods).map(([name, method]) => [name, method.bind(client)])) as T;
}
