import { ORDER_CHANNELS } from '../../../lib/fields/order.js';
import { Order } from '../../../lib/gen/ticketing/v1/order.js';
import { reservationMessage } from './reservation-messages.js';
import type { OrderRecord } from '../store/order-store.js';

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
