import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Knex } from '../../lib/db.js';
import type { EventServiceServer } from '../../lib/gen/ticketing/v1/event.js';
import type { ReservationServiceServer } from '../../lib/gen/ticketing/v1/reservation.js';
import type { TicketServiceServer } from '../../lib/gen/ticketing/v1/ticket.js';
import { serverStream, unary } from '../../lib/grpc/server.js';
import { isValidateOnly } from '../../lib/grpc/validate-only.js';
import type { Logger } from '../../lib/logger.js';
import type { AuthCheck } from './auth-check.js';
import { EventService } from './event-service.js';
import { IdempotentCreation } from './idempotent-creation.js';
import { ReservationService } from './reservation-service.js';
import { TicketService } from './ticket-service.js';
import { EventStore } from './store/event-store.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { ReservationStore } from './store/reservation-store.js';
import { SettlingTicketStore } from './store/settling-ticket-store.js';

/** gRPC face of the ticket service: authenticates every call, then hands it to the rules. */

function services(db: Knex) {
  const creations = new IdempotentCreation(db, new IdempotencyStore(db));
  const events = new EventService(new EventStore(db), creations);
  const reservations = new ReservationService(new ReservationStore(db), creations);
  const ticketStore = new SettlingTicketStore(db, (guids) => reservations.settleDue(guids));
  return { events, reservations, tickets: new TicketService(ticketStore, events, creations) };
}

export function ticketRpcHandlers(db: Knex, auth: AuthCheck, logger: Logger): TicketServiceServer {
  const { tickets } = services(db);
  return {
    getTicket: unary(logger, 'GetTicket', async (req, call) => tickets.get(await auth.caller(call.metadata), req.guid)),
    listTickets: unary(logger, 'ListTickets', async (req, call) => tickets.list(await auth.caller(call.metadata), req)),
    streamTickets: serverStream(logger, 'StreamTickets', async (req, call) => {
      const caller = await auth.caller(call.metadata);
      for await (const ticket of tickets.stream(caller, req)) {
        if (call.cancelled) return;
        if (!call.write(ticket)) await drained(call);
      }
    }),
    createTicket: unary(logger, 'CreateTicket', async (req, call) => tickets.create(await auth.caller(call.metadata), req, isValidateOnly(call.metadata))),
    updateTicket: unary(logger, 'UpdateTicket', async (req, call) => tickets.update(await auth.caller(call.metadata), req, isValidateOnly(call.metadata))),
    deleteTicket: unary(logger, 'DeleteTicket', async (req, call) => {
      await tickets.delete(await auth.caller(call.metadata), req);
      return {};
    }),
  };
}

export function eventRpcHandlers(db: Knex, auth: AuthCheck, logger: Logger): EventServiceServer {
  const { events } = services(db);
  return {
    getEvent: unary(logger, 'GetEvent', async (req, call) => events.get(await auth.caller(call.metadata), req.guid)),
    listEvents: unary(logger, 'ListEvents', async (req, call) => events.list(await auth.caller(call.metadata), req)),
    createEvent: unary(logger, 'CreateEvent', async (req, call) => events.create(await auth.caller(call.metadata), req, isValidateOnly(call.metadata))),
    updateEvent: unary(logger, 'UpdateEvent', async (req, call) => events.update(await auth.caller(call.metadata), req, isValidateOnly(call.metadata))),
    deleteEvent: unary(logger, 'DeleteEvent', async (req, call) => {
      await events.delete(await auth.caller(call.metadata), req);
      return {};
    }),
  };
}

export function reservationRpcHandlers(db: Knex, auth: AuthCheck, logger: Logger): ReservationServiceServer {
  const { reservations } = services(db);
  return {
    reserveTicket: unary(logger, 'ReserveTicket', async (req, call) => reservations.reserve(await auth.caller(call.metadata), req)),
    getReservation: unary(logger, 'GetReservation', async (req, call) => reservations.get(await auth.caller(call.metadata), req.guid)),
    listReservations: unary(logger, 'ListReservations', async (req, call) => reservations.list(await auth.caller(call.metadata), req)),
    markReservationPending: unary(logger, 'MarkReservationPending', async (req, call) => reservations.markPending(await auth.caller(call.metadata), req)),
    confirmReservation: unary(logger, 'ConfirmReservation', async (req, call) => reservations.confirm(await auth.caller(call.metadata), req)),
    releaseReservation: unary(logger, 'ReleaseReservation', async (req, call) => reservations.release(await auth.caller(call.metadata), req)),
    scanBarcode: unary(logger, 'ScanBarcode', async (req, call) => reservations.scan(await auth.caller(call.metadata), req)),
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
