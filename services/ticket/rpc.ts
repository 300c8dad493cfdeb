// PLACEHOLDER: being implemented (issue 3). Every method answers UNIMPLEMENTED until then.
import { status } from '@grpc/grpc-js';
import type { Knex } from '../../lib/db.js';
import type { EventServiceServer } from '../../lib/gen/ticketing/v1/event.js';
import type { TicketServiceServer } from '../../lib/gen/ticketing/v1/ticket.js';
import { RpcError } from '../../lib/grpc/errors.js';
import { serverStream, unary } from '../../lib/grpc/server.js';
import type { Logger } from '../../lib/logger.js';
import type { AuthCheck } from './auth-check.js';

const notYet = () => Promise.reject(new RpcError(status.UNIMPLEMENTED, 'Not implemented yet.'));

export function ticketRpcHandlers(_db: Knex, _auth: AuthCheck, logger: Logger): TicketServiceServer {
  return {
    getTicket: unary(logger, 'GetTicket', notYet),
    listTickets: unary(logger, 'ListTickets', notYet),
    streamTickets: serverStream(logger, 'StreamTickets', notYet),
    createTicket: unary(logger, 'CreateTicket', notYet),
    updateTicket: unary(logger, 'UpdateTicket', notYet),
    deleteTicket: unary(logger, 'DeleteTicket', notYet),
  };
}

export function eventRpcHandlers(_db: Knex, _auth: AuthCheck, logger: Logger): EventServiceServer {
  return {
    getEvent: unary(logger, 'GetEvent', notYet),
    listEvents: unary(logger, 'ListEvents', notYet),
    createEvent: unary(logger, 'CreateEvent', notYet),
    updateEvent: unary(logger, 'UpdateEvent', notYet),
    deleteEvent: unary(logger, 'DeleteEvent', notYet),
  };
}
