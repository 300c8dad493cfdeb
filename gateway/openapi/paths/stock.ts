import { EVENT } from '../../../lib/fields/event.js';
import { ORDER, ORDER_BODIES } from '../../../lib/fields/order.js';
import { MAX_UNITS_PER_ORDER, RESERVATION } from '../../../lib/fields/reservation.js';
import { TICKET } from '../../../lib/fields/ticket.js';
import { moveRpc, MOVES, SALE_MOVES, type SaleNoun } from '../../../lib/stock-moves.js';
import { EVENT_ERRORS, guidParameter, MOVE_ERRORS, type Paths } from '../operation.js';
import type { Schema } from '../schemas.js';

/**
 * The moves of an existing sale, one POST {path}/{guid}/<move> each, from the move table
 * (lib/stock-moves.ts): its gRPC method's name as operationId, its summary and text, its body
 * (an order's own where lib/fields/order.ts has one), answered with the sale moved.
 */
function saleMovePaths(noun: SaleNoun, guid: Schema): Paths {
  const path = noun === 'Order' ? '/order' : '/reservation';
  return Object.fromEntries(
    SALE_MOVES.map((move) => {
      const wire = MOVES[move].wire;
      const description = noun === 'Order' ? 'Every line moves, as a reservation of its ticket would, or none.' : wire.text;
      return [
        `${path}/{guid}/${move}`,
        {
          post: {
            tag: 'stock',
            operationId: moveRpc(move, noun, true),
            summary: noun === 'Order' ? `${wire.summary}, every line` : wire.summary,
            description: `${description} Refused with 409 invalid_transition from a state that does not allow it${(MOVES[move].refusals as readonly string[]).includes('reservation_expired') ? ', reservation_expired once expired' : ''}. With an Idempotency-Key a retry of a move that was done answers its first answer and moves nothing again.`,
            body: `${noun === 'Order' && Object.hasOwn(ORDER_BODIES, move) ? 'Order' : 'Reservation'}${wire.body}`,
            bodyOptional: true,
            ok: { status: 200, schema: noun },
            errors: MOVE_ERRORS,
            parameters: [guid, 'Company', 'Idempotency-Key'],
          },
        },
      ];
    }),
  );
}

/** Reservations and their moves, and the scan at the door (docs/stock-moves.md). */
function reservationPaths(): Paths {
  const ticketGuid = guidParameter('guid', TICKET);
  const reservationGuid = guidParameter('guid', RESERVATION);
  return {
    '/ticket/{guid}/reservations': {
      post: {
        tag: 'stock',
        operationId: 'reserveTicket',
        summary: 'Reserve stock of a ticket (409 insufficient_stock or not_on_sale)',
        description: 'Holds `amount` of the ticket\'s stock for `ttl_seconds`; never more than is left. The reserved_count rises at once. In an on-sale rush, when more moves of the ticket wait than the service queues (STOCK_MOVE_QUEUE_MAX, `code` ticket_busy), or while the gateway itself is overloaded (`code` server_busy), it is refused at once with 503 and Retry-After, nothing reserved.',
        body: 'ReservationCreate',
        ok: { status: 201, schema: 'Reservation', headers: ['Location'] },
        errors: MOVE_ERRORS,
        parameters: [ticketGuid, 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'stock',
        operationId: 'listReservations',
        summary: 'List the reservations of a ticket in creation order',
        description: 'Page by page with limit and cursor (the Link keeps ?state=), or the whole list without them.',
        ok: { status: 200, schema: 'Reservation', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [ticketGuid, 'Company', 'state', 'limit', 'cursor'],
      },
    },
    '/reservation/{guid}': {
      get: {
        tag: 'stock',
        operationId: 'getReservation',
        summary: 'Get a reservation',
        description: 'The reservation as it is now: one whose time is up reads as expired.',
        ok: { status: 200, schema: 'Reservation' },
        errors: EVENT_ERRORS,
        parameters: [reservationGuid, 'Company'],
      },
    },
    '/reservation/{guid}/barcodes': {
      get: {
        tag: 'stock',
        operationId: 'listReservationBarcodes',
        summary: 'Every barcode of a reservation, in issue order',
        description: `Page by page with limit and cursor, or the whole list without them. The reservation object carries at most its first ${MAX_UNITS_PER_ORDER}; only one sold before that limit holds more.`,
        ok: { status: 200, schema: 'Barcode', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [reservationGuid, 'Company', 'limit', 'cursor'],
      },
    },
    ...saleMovePaths('Reservation', reservationGuid),
    '/event/{guid}/scans': {
      post: {
        tag: 'stock',
        operationId: 'scanBarcode',
        summary: 'Admit a barcode of the event, once (409 already_scanned names the first scan)',
        description: 'The ticket\'s scanned_count rises by one; a barcode unknown to the event, or of another company, is 404. With an Idempotency-Key a retry of a scan that admitted the barcode answers that admission again.',
        body: 'ScanCreate',
        ok: { status: 201, schema: 'Scan' },
        errors: MOVE_ERRORS,
        parameters: [guidParameter('guid', EVENT), 'Company', 'Idempotency-Key'],
      },
    },
  };
}

/** Orders (docs/orders.md): the moves of a reservation for all lines at once. */
function orderPaths(): Paths {
  const orderGuid = guidParameter('guid', ORDER);
  return {
    '/event/{guid}/orders': {
      post: {
        tag: 'stock',
        operationId: 'createOrder',
        summary: 'Sell a cart: reserve every line\'s stock, or none (422 or 409 names the line)',
        description: 'Each line names a live ticket of this event, each ticket at most once, at most 1,000 units in all, and a ticket sold alone (combines_products false) only on its own; each line passes the checks of a reservation of its ticket. When one fails nothing is taken: 422 naming lines[i].field, or 409 with its code and ticket_id. An order of one ticket is refused at once with 503 and Retry-After, nothing reserved, when more moves of that ticket wait than the service queues (`code` ticket_busy); any order is, while the gateway itself is overloaded (`code` server_busy).',
        body: 'OrderCreate',
        ok: { status: 201, schema: 'Order', headers: ['Location'] },
        errors: MOVE_ERRORS,
        parameters: [guidParameter('guid', EVENT), 'Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'stock',
        operationId: 'listOrders',
        summary: 'List the orders of an event in creation order',
        description: 'Page by page with limit and cursor (the Link keeps ?state=), or the whole list without them. A page may stop early when its orders carry many barcodes; its Link leads on.',
        ok: { status: 200, schema: 'Order', array: true, headers: ['Link'] },
        errors: [400, 401, 404, 422, 503, 504],
        parameters: [guidParameter('guid', EVENT), 'Company', 'state', 'limit', 'cursor'],
      },
    },
    '/order/{guid}': {
      get: {
        tag: 'stock',
        operationId: 'getOrder',
        summary: 'Get an order',
        description: 'The order as it is now: one whose time is up reads as expired.',
        ok: { status: 200, schema: 'Order' },
        errors: EVENT_ERRORS,
        parameters: [orderGuid, 'Company'],
      },
    },
    ...saleMovePaths('Order', orderGuid),
    '/order/{guid}/barcodes/{code}': {
      put: {
        tag: 'stock',
        operationId: 'setBarcodeHolder',
        summary: 'Name, change or clear who may enter with a barcode of the order (409 not_personalizable)',
        description:
          'Only a barcode of one of the order\'s lines (an order has barcodes once confirmed; any other code is 404). A first holder needs the ticket\'s late_personalization; a different holder, or null, its swappable; otherwise 409 not_personalizable. The same holder again is 200 with no change. Answers the order.',
        body: 'BarcodeHolderUpdate',
        ok: { status: 200, schema: 'Order' },
        errors: MOVE_ERRORS,
        parameters: [orderGuid, { name: 'code', in: 'path', required: true, schema: { type: 'string', maxLength: 64 }, description: 'The barcode.' }, 'Company'],
      },
    },
  };
}

/** The stock tag: reservations, scans, orders. */
export function stockPaths(): Paths {
  return { ...reservationPaths(), ...orderPaths() };
}
