import { EVENT_FIELDS } from '../../../lib/fields/event.js';
import { resourceJson } from '../../../lib/fields/json.js';
import { ORDER_FIELDS } from '../../../lib/fields/order.js';
import { RESERVATION_FIELDS } from '../../../lib/fields/reservation.js';
import { SCAN_FIELDS } from '../../../lib/fields/reservation.js';
import { TICKET_FIELDS } from '../../../lib/fields/ticket.js';
import type { WebhookEventType } from '../../../lib/fields/webhook.js';
import type { EventRecord } from '../catalogue/event-fields.js';
import type { ReservationRecord } from '../sales/reservation-fields.js';
import type { TicketRecord } from '../catalogue/ticket-fields.js';
import { eventMessage, ticketMessage } from '../catalogue/messages.js';
import { reservationMessage, scanMessage, type ScanValues } from '../sales/reservation-messages.js';
import { orderMessage } from '../sales/order-messages.js';
import type { OrderRecord } from '../store/order-store.js';
import type { Change } from '../store/outbox-store.js';
import { MOVES, type MoveName } from '../../../lib/stock-moves.js';

/**
 * The webhook event of a change: `data` is the object exactly as its REST read shows it,
 * derived the same way (record -> message -> JSON by the field table).
 */

export const eventChange = (type: WebhookEventType & `event.${string}`, event: Omit<EventRecord, 'id'>): Change => ({
  type,
  companyId: event.company_id,
  data: resourceJson(EVENT_FIELDS, eventMessage(event)),
});

export const ticketChange = (type: WebhookEventType & `ticket.${string}`, ticket: Omit<TicketRecord, 'id'>, now: Date): Change => ({
  type,
  companyId: ticket.company_id,
  data: resourceJson(TICKET_FIELDS, ticketMessage(ticket, now)),
});

/** The event of the move that brought a reservation where it is (lib/stock-moves.ts). */
export const reservationChange = (reservation: Omit<ReservationRecord, 'id'>, move: MoveName): Change => ({
  type: `reservation.${MOVES[move].event}`,
  companyId: reservation.company_id,
  data: resourceJson(RESERVATION_FIELDS, reservationMessage(reservation)),
});

/** The event of the move that brought an order where it is: one per order (its lines record none of their own). */
export const orderChange = (order: OrderRecord, move: MoveName): Change => orderEvent(`order.${MOVES[move].event}`, order);

/** A barcode's holder changed after the sale: the order with the new holder. */
export const holderChange = (order: OrderRecord): Change => orderEvent('barcode.holder_changed', order);

const orderEvent = (type: WebhookEventType, order: OrderRecord): Change => ({
  type,
  companyId: order.company_id,
  data: resourceJson(ORDER_FIELDS, orderMessage(order)),
});

export const scanChange = (companyId: string, scan: ScanValues): Change => ({
  type: 'ticket.scanned',
  companyId,
  data: resourceJson(SCAN_FIELDS, scanMessage(scan)),
});
