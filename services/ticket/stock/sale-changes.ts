import { resourceJson } from '../../../lib/fields/json.js';
import { ORDER_FIELDS } from '../../../lib/fields/order.js';
import { RESERVATION_FIELDS, SCAN_FIELDS } from '../../../lib/fields/reservation.js';
import type { WebhookEventType } from '../../../lib/webhooks/event-types.js';
import { MOVES, type MoveName } from '../../../lib/stock-moves.js';
import type { Change } from '../store/outbox-store.js';
import { orderMessage, reservationMessage, scanMessage, type ScanValues } from './sale-messages.js';
import type { OrderRecord, ReservationRecord, Sale } from './sale.js';

/**
 * The webhook events the stock engine records with its moves: `data` is the object exactly as
 * its REST read shows it, derived the same way (record -> message -> JSON by the field table).
 */

/** The event of the move that brought a reservation where it is (lib/stock-moves.ts). */
export const reservationChange = (reservation: Omit<ReservationRecord, 'id'>, move: MoveName): Change => ({
  type: `reservation.${MOVES[move].event}`,
  companyId: reservation.company_id,
  data: resourceJson(RESERVATION_FIELDS, reservationMessage(reservation)),
});

/** The event of the move that brought an order where it is: one per order (its lines record none of their own). */
export const orderChange = (order: OrderRecord, move: MoveName): Change => orderEvent(`order.${MOVES[move].event}`, order);

/** The event of a move of a sale: the reservation's or the order's. */
export const saleChange = (sale: Sale, move: MoveName): Change => (sale.kind === 'order' ? orderChange(sale.order, move) : reservationChange(sale.line, move));

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
