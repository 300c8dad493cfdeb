import { EVENT } from '../../../lib/fields/event.js';
import { TICKET } from '../../../lib/fields/ticket.js';
import { EVENT_ERRORS, guidParameter, itemOperations, type Paths } from '../operation.js';

/** The event of a ticket path. */
const EVENT_GUID = guidParameter('eventGuid', EVENT);

/** Tickets of events (the ticket service). */
export function ticketPaths(): Paths {
  return {
    '/event/{eventGuid}/ticket': {
      post: {
        tag: 'tickets',
        operationId: 'createTicket',
        summary: 'Create a ticket for an event',
        description: 'Only name and vat_percentage are required; the other writable fields take their defaults. The answer has the 18 creation fields (status null). A new ticket has available_stock 0 and reads sold_out until its stock is set. An Idempotency-Key makes a retry return the first response.',
        body: 'TicketCreate',
        ok: { status: 201, schema: 'TicketCreated', headers: ['Location', 'ETag'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: [EVENT_GUID, 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'tickets',
        operationId: 'listEventTickets',
        summary: 'List the tickets of an event in creation order',
        description: 'Without limit every ticket of the event comes back in one streamed array; with limit a page, and a Link header with rel="next" while more follow. 404 when the event is not in the request\'s companies.',
        ok: { status: 200, schema: 'Ticket', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [EVENT_GUID, 'Company', 'limit', 'cursor'],
      },
    },
    '/ticket': {
      get: {
        tag: 'tickets',
        operationId: 'listAllTickets',
        summary: 'List every ticket in scope (deprecated: use the per-event list)',
        description: 'Every ticket of the request\'s companies, streamed. Deprecated (Deprecation header, RFC 9745); the Link header names the per-event list as its successor.',
        deprecated: true,
        ok: { status: 200, schema: 'Ticket', array: true, headers: ['Deprecation', 'Link'] },
        errors: [400, 401, 503, 504],
        parameters: ['Company'],
      },
    },
    '/ticket/{guid}': itemOperations('tickets', 'Ticket', TICKET, {
      get: { summary: 'Get a ticket', description: 'All fields of the ticket, with its computed status, when it belongs to one of the request\'s companies (else 404).' },
      put: { summary: 'Update a ticket (partial: only the fields sent change)', description: 'Changes the fields sent, each checked by its rule (422 lists every invalid field).' },
      delete: { summary: 'Delete a ticket (soft)', description: 'Marks the ticket deleted.' },
    }),
  };
}
