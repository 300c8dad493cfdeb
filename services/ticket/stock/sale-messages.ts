import { Order } from '../../../lib/gen/ticketing/v1/order.js';
import { Reservation, Scan } from '../../../lib/gen/ticketing/v1/reservation.js';
import { toMessageFields } from '../../../lib/fields/messages.js';
import type { ValuesOf } from '../../../lib/fields/kinds.js';
import { ORDER_CHANNELS } from '../../../lib/fields/order.js';
import { RESERVATION_FIELDS, SCAN_FIELDS } from '../../../lib/fields/reservation.js';
import type { OrderRecord, ReservationRecord } from './sale.js';

/** A stored reservation as its protobuf message, by the field table (lib/fields/messages.ts). */
export function reservationMessage(record: Omit<ReservationRecord, 'id'>): Reservation {
  return Reservation.fromPartial(toMessageFields(RESERVATION_FIELDS, record) as Partial<Reservation>);
}

/** The order as its message: state and expiry are its lines' (they always move together). */
export function orderMessage(order: OrderRecord): Order {
  const lines = order.lines.map(reservationMessage);
  const holders = order.lines.map((l) => l.holders);
  const updated = Math.max(order.created_at.getTime(), ...order.lines.map((l) => l.updated_at.getTime()));
  return Order.fromPartial({
    guid: order.guid,
    company_id: order.company_id,
    event_id: order.event_id,
    channel: ORDER_CHANNELS.indexOf(order.channel) + 1,
    state: lines[0]?.state,
    expires_at: lines[0]?.expires_at,
    lines: lines.map((l, i) => ({ ticket_id: l.ticket_id, amount: l.amount, barcodes: l.barcodes.map((code, j) => ({ code, holder: holders[i]![j] ?? undefined })) })),
    created_at: order.created_at,
    updated_at: new Date(updated),
  });
}

export type ScanValues = ValuesOf<typeof SCAN_FIELDS, 'server-managed'>;

export function scanMessage(scan: ScanValues): Scan {
  return Scan.fromPartial(toMessageFields(SCAN_FIELDS, scan) as Partial<Scan>);
}
