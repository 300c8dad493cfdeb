import type { handleUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import type { Clock } from '../../lib/clock.js';
import type { Knex } from '../../lib/db.js';
import type {
  AddCouponCodesRequest,
  CouponServiceServer,
  CreateCouponRequest,
  DeleteCouponCodeRequest,
  DeleteCouponRequest,
  GetCouponRequest,
  ListCouponCodesRequest,
  ListCouponsRequest,
  UpdateCouponRequest,
} from '../../lib/gen/ticketing/v1/coupon.js';
import type {
  CreateEventRequest,
  DeleteEventRequest,
  EventServiceServer,
  GetEventRequest,
  ListEventsRequest,
  UpdateEventRequest,
} from '../../lib/gen/ticketing/v1/event.js';
import type {
  CreateOrderRequest,
  GetOrderRequest,
  ListOrdersRequest,
  OrderServiceServer,
  SetBarcodeHolderRequest,
} from '../../lib/gen/ticketing/v1/order.js';
import type {
  GetReservationRequest,
  ListReservationBarcodesRequest,
  ListReservationsRequest,
  ReservationServiceServer,
  ReserveTicketRequest,
  ScanBarcodeRequest,
} from '../../lib/gen/ticketing/v1/reservation.js';
import type {
  CreateTicketRequest,
  DeleteTicketRequest,
  GetTicketRequest,
  ListTicketsRequest,
  TicketServiceServer,
  UpdateTicketRequest,
} from '../../lib/gen/ticketing/v1/ticket.js';
import type {
  CreateWebhookRequest,
  DeleteWebhookRequest,
  GetWebhookRequest,
  ListDeliveriesRequest,
  ListWebhooksRequest,
  SendTestEventRequest,
  UpdateWebhookRequest,
  WebhookServiceServer,
} from '../../lib/gen/ticketing/v1/webhook.js';
import { serverStream, unary } from '../../lib/grpc/server.js';
import { isValidateOnly } from '../../lib/grpc/validate-only.js';
import type { Logger } from '../../lib/logger.js';
import type { AuthCheck, AuthenticatedCaller } from './access/auth-check.js';
import { CouponService } from './catalogue/coupon-service.js';
import { EventService } from './catalogue/event-service.js';
import { IdempotentCreation } from './idempotency/idempotent-creation.js';
import { OrderService } from './sales/order-service.js';
import { ReservationService } from './sales/reservation-service.js';
import { TicketService } from './catalogue/ticket-service.js';
import { CouponStore } from './store/coupon-store.js';
import { EventStore } from './store/event-store.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { OrderStore } from './store/order-store.js';
import { ReservationStore } from './store/reservation-store.js';
import { SettlingTicketStore } from './store/settling-ticket-store.js';
import { WebhookStore } from './store/webhook-store.js';
import { WebhookService } from './webhooks/webhook-service.js';
import { StockEngine } from './stock/stock-engine.js';
import { withCallDeadline } from './access/call-deadline.js';
import { moveRpc, SALE_MOVES, type MoveMember, type SaleMove, type SaleNoun } from '../../lib/stock-moves.js';
import type { SaleMoves } from './sales/sale-moves.js';

/** gRPC face of the ticket service: authenticates every call, then hands it to the rules. */

/** The rules of this process, built once: every gRPC service of it calls the same instances (and shares what they keep, the stock engine among them). */
export function ticketServices(db: Knex, options: { allowPrivateTargets: boolean; moveQueueMax?: number; defaultCurrency?: string; clock?: Clock }) {
  const { clock } = options;
  const engine = new StockEngine(db, { queueMax: options.moveQueueMax, clock });
  const creations = new IdempotentCreation(db, new IdempotencyStore(db));
  const events = new EventService(new EventStore(db), creations, options.defaultCurrency, clock);
  const stock = new ReservationStore(db);
  const reservations = new ReservationService(stock, creations, engine, clock);
  const orders = new OrderService(new OrderStore(db), reservations, creations, engine, clock);
  const ticketStore = new SettlingTicketStore(db, (guids) => reservations.settleDue(guids));
  const tickets = new TicketService(ticketStore, events, creations);
  const webhooks = new WebhookService(new WebhookStore(db), creations, options.allowPrivateTargets);
  const coupons = new CouponService(new CouponStore(db), events, creations);
  return { engine, events, reservations, orders, tickets, webhooks, coupons };
}

export type TicketServices = ReturnType<typeof ticketServices>;

/** What a handler gets: the authenticated caller, the request, and whether only to validate (x-validate-only). */
type Handler<Req, Res> = (caller: AuthenticatedCaller, request: Req, validateOnly: boolean) => Promise<Res>;

/** The one wrapper of every handler of this service: authenticates the call first. */
function authenticated(auth: AuthCheck, logger: Logger) {
  return <Req, Res>(method: string, handle: Handler<Req, Res>) =>
    unary<Req, Res>(logger, method, (request, call) =>
      withCallDeadline(call.getDeadline(), async () => handle(await auth.caller(call.metadata), request, isValidateOnly(call.metadata))),
    );
}

export function ticketRpcHandlers({ tickets }: TicketServices, auth: AuthCheck, logger: Logger): TicketServiceServer {
  const handler = authenticated(auth, logger);
  return {
    getTicket: handler('GetTicket', (caller, req: GetTicketRequest) => tickets.get(caller, req.guid)),
    listTickets: handler('ListTickets', (caller, req: ListTicketsRequest) => tickets.list(caller, req)),
    streamTickets: serverStream(logger, 'StreamTickets', async (req, call) => {
      const caller = await auth.caller(call.metadata);
      for await (const ticket of tickets.stream(caller, req)) {
        if (call.cancelled) return;
        if (!call.write(ticket)) await drained(call);
      }
    }),
    streamTicketBatches: serverStream(logger, 'StreamTicketBatches', async (req, call) => {
      const caller = await auth.caller(call.metadata);
      for await (const batch of tickets.streamBatches(caller, req)) {
        if (call.cancelled) return;
        if (!call.write({ tickets: batch })) await drained(call);
      }
    }),
    createTicket: handler('CreateTicket', (caller, req: CreateTicketRequest, validateOnly) => tickets.create(caller, req, validateOnly)),
    updateTicket: handler('UpdateTicket', (caller, req: UpdateTicketRequest, validateOnly) => tickets.update(caller, req, validateOnly)),
    deleteTicket: handler('DeleteTicket', async (caller, req: DeleteTicketRequest) => {
      await tickets.delete(caller, req);
      return {};
    }),
  };
}

export function eventRpcHandlers({ events }: TicketServices, auth: AuthCheck, logger: Logger): EventServiceServer {
  const handler = authenticated(auth, logger);
  return {
    getEvent: handler('GetEvent', (caller, req: GetEventRequest) => events.get(caller, req.guid)),
    listEvents: handler('ListEvents', (caller, req: ListEventsRequest) => events.list(caller, req)),
    createEvent: handler('CreateEvent', (caller, req: CreateEventRequest, validateOnly) => events.create(caller, req, validateOnly)),
    updateEvent: handler('UpdateEvent', (caller, req: UpdateEventRequest, validateOnly) => events.update(caller, req, validateOnly)),
    deleteEvent: handler('DeleteEvent', async (caller, req: DeleteEventRequest) => {
      await events.delete(caller, req);
      return {};
    }),
  };
}

export function orderRpcHandlers({ orders }: TicketServices, auth: AuthCheck, logger: Logger): OrderServiceServer {
  const handler = authenticated(auth, logger);
  return {
    createOrder: handler('CreateOrder', (caller, req: CreateOrderRequest) => orders.create(caller, req)),
    getOrder: handler('GetOrder', (caller, req: GetOrderRequest) => orders.get(caller, req.guid)),
    listOrders: handler('ListOrders', (caller, req: ListOrdersRequest) => orders.list(caller, req)),
    ...saleMoveHandlers('Order', orders.moves, handler),
    setBarcodeHolder: handler('SetBarcodeHolder', (caller, req: SetBarcodeHolderRequest) => orders.setBarcodeHolder(caller, req)),
  };
}

export function reservationRpcHandlers({ reservations }: TicketServices, auth: AuthCheck, logger: Logger): ReservationServiceServer {
  const handler = authenticated(auth, logger);
  return {
    reserveTicket: handler('ReserveTicket', (caller, req: ReserveTicketRequest) => reservations.reserve(caller, req)),
    getReservation: handler('GetReservation', (caller, req: GetReservationRequest) => reservations.get(caller, req.guid)),
    listReservations: handler('ListReservations', (caller, req: ListReservationsRequest) => reservations.list(caller, req)),
    listReservationBarcodes: handler('ListReservationBarcodes', (caller, req: ListReservationBarcodesRequest) => reservations.listBarcodes(caller, req)),
    ...saleMoveHandlers('Reservation', reservations.moves, handler),
    scanBarcode: handler('ScanBarcode', (caller, req: ScanBarcodeRequest) => reservations.scan(caller, req)),
  };
}

/** The handlers of a sale's moves (lib/stock-moves.ts SALE_MOVES), named by each move's row: markReservationPending, confirmOrder, ... */
function saleMoveHandlers<M, N extends SaleNoun>(noun: N, moves: SaleMoves<M>, handler: ReturnType<typeof authenticated>) {
  const served = SALE_MOVES.map((move) => [moveRpc(move, noun, true), handler(moveRpc(move, noun), (caller, req: never) => moves[move](caller, req))]);
  return Object.fromEntries(served) as { [K in SaleMove as MoveMember<K, N>]: handleUnaryCall<unknown, M> };
}

export function webhookRpcHandlers({ webhooks }: TicketServices, auth: AuthCheck, logger: Logger): WebhookServiceServer {
  const handler = authenticated(auth, logger);
  return {
    createWebhook: handler('CreateWebhook', (caller, req: CreateWebhookRequest, validateOnly) => webhooks.create(caller, req, validateOnly)),
    getWebhook: handler('GetWebhook', (caller, req: GetWebhookRequest) => webhooks.get(caller, req.guid)),
    listWebhooks: handler('ListWebhooks', (caller, req: ListWebhooksRequest) => webhooks.list(caller, req)),
    updateWebhook: handler('UpdateWebhook', (caller, req: UpdateWebhookRequest, validateOnly) => webhooks.update(caller, req, validateOnly)),
    deleteWebhook: handler('DeleteWebhook', async (caller, req: DeleteWebhookRequest) => {
      await webhooks.delete(caller, req);
      return {};
    }),
    sendTestEvent: handler('SendTestEvent', (caller, req: SendTestEventRequest) => webhooks.sendTest(caller, req.guid)),
    listDeliveries: handler('ListDeliveries', (caller, req: ListDeliveriesRequest) => webhooks.deliveries(caller, req)),
  };
}

export function couponRpcHandlers({ coupons }: TicketServices, auth: AuthCheck, logger: Logger): CouponServiceServer {
  const handler = authenticated(auth, logger);
  return {
    createCoupon: handler('CreateCoupon', (caller, req: CreateCouponRequest, validateOnly) => coupons.create(caller, req, validateOnly)),
    getCoupon: handler('GetCoupon', (caller, req: GetCouponRequest) => coupons.get(caller, req.guid)),
    listCoupons: handler('ListCoupons', (caller, req: ListCouponsRequest) => coupons.list(caller, req)),
    updateCoupon: handler('UpdateCoupon', (caller, req: UpdateCouponRequest, validateOnly) => coupons.update(caller, req, validateOnly)),
    deleteCoupon: handler('DeleteCoupon', async (caller, req: DeleteCouponRequest) => {
      await coupons.delete(caller, req);
      return {};
    }),
    addCouponCodes: handler('AddCouponCodes', (caller, req: AddCouponCodesRequest) => coupons.addCodes(caller, req)),
    listCouponCodes: handler('ListCouponCodes', (caller, req: ListCouponCodesRequest) => coupons.listCodes(caller, req)),
    deleteCouponCode: handler('DeleteCouponCode', async (caller, req: DeleteCouponCodeRequest) => {
      await coupons.deleteCode(caller, req);
      return {};
    }),
  };
}

/** Backpressure: resolves when the stream wants more, or when the caller went away. */
function drained(call: ServerWritableStream<unknown, unknown>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      call.off('cancelled', done);
      call.off('close', done);
      resolve();
    };
    call.on('drain', done);
    call.on('cancelled', done);
    call.on('close', done);
  });
}
