import { Order } from '../../../lib/gen/ticketing/v1/order.js';
import { Reservation, Scan } from '../../../lib/gen/ticketing/v1/reservation.js';
import { toMessageFields } from '../../../lib/fields/messages.js';
import type { ValuesOf } from '../../../lib/fields/kinds.js';
import { ORDER_CHANNELS } from '../../../lib/fields/order.js';
import { RESERVATION_FIELDS, SCAN_FIELDS } from '../../../lib/fields/reservation.js';
import { fromMinor, linePrice, orderTotals, type LinePrice, type UnitPrice } from '../../../lib/money.js';
import type { OrderRecord, ReservationRecord } from './sale.js';

/** A stored reservation as its protobuf message, by the field table (lib/fields/messages.ts). */
export function reservationMessage(record: Omit<ReservationRecord, 'id'>): Reservation {
  return Reservation.fromPartial(toMessageFields(RESERVATION_FIELDS, record) as Partial<Reservation>);
}

/** The money of each line of an order, fixed when it was made (a line of before money: all zero). */
function pricedLines(order: OrderRecord): Array<{ price: LinePrice; amount: number }> {
  return order.lines.map((line) => ({ price: linePrice(line.price ?? FREE, line.amount), amount: line.amount }));
}

const FREE: UnitPrice = { unit_price: 0n, unit_discount: 0n, unit_service_costs: 0n, unit_total: 0n, vat_percentage: '0', unit_vat: 0n };

/** What the order costs, in minor units of its currency. */
export const orderTotal = (order: OrderRecord): bigint => orderTotals(pricedLines(order)).total;

/** The order as its message: state and expiry are its lines' (they always move together); its money as decimal strings of its currency. */
export function orderMessage(order: OrderRecord): Order {
  const lines = order.lines.map(reservationMessage);
  const holders = order.lines.map((l) => l.holders);
  const updated = Math.max(order.created_at.getTime(), ...order.lines.map((l) => l.updated_at.getTime()));
  const priced = pricedLines(order);
  const amount = (minor: bigint) => fromMinor(minor, order.currency);
  const totals = orderTotals(priced);
  return Order.fromPartial({
    guid: order.guid,
    company_id: order.company_id,
    event_id: order.event_id,
    channel: ORDER_CHANNELS.indexOf(order.channel) + 1,
    state: lines[0]?.state,
    expires_at: lines[0]?.expires_at,
    lines: lines.map((l, i) => {
      const { price } = priced[i]!;
      return {
        ticket_id: l.ticket_id,
        amount: l.amount,
        barcodes: l.barcodes.map((code, j) => ({ code, holder: holders[i]![j] ?? undefined, cancelled_at: order.lines[i]!.barcode_states[j]?.cancelled_at ?? undefined })),
        price: {
          unit_price: amount(price.unit_price),
          unit_discount: amount(price.unit_discount),
          unit_service_costs: amount(price.unit_service_costs),
          unit_total: amount(price.unit_total),
          vat_percentage: price.vat_percentage,
          unit_vat: amount(price.unit_vat),
          discount: amount(price.discount),
          service_costs: amount(price.service_costs),
          vat: amount(price.vat),
          total: amount(price.total),
        },
      };
    }),
    created_at: order.created_at,
    updated_at: new Date(updated),
    currency: order.currency,
    coupon_code: order.coupon_code ?? undefined,
    totals: {
      subtotal: amount(totals.subtotal),
      discount: amount(totals.discount),
      service_costs: amount(totals.service_costs),
      vat: amount(totals.vat),
      total: amount(totals.total),
      vat_breakdown: totals.vat_breakdown.map((share) => ({ vat_percentage: share.vat_percentage, total: amount(share.total), vat: amount(share.vat), net: amount(share.net) })),
    },
    cancellations: order.cancellations.map((c) => ({
      guid: c.guid,
      barcodes: c.barcodes,
      reason: c.reason ?? undefined,
      cancellation_fee: amount(c.cancellation_fee),
      refund_amount: amount(c.refund_amount),
      stock_returned: c.stock_returned,
      created_at: c.created_at,
    })),
    refunded_total: amount(order.cancellations.reduce((sum, c) => sum + c.refund_amount, 0n)),
  });
}

export type ScanValues = ValuesOf<typeof SCAN_FIELDS, 'server-managed'>;

export function scanMessage(scan: ScanValues): Scan {
  return Scan.fromPartial(toMessageFields(SCAN_FIELDS, scan) as Partial<Scan>);
}
