import type { Holder } from '../../../lib/fields/holder.js';
import type { ValuesOf } from '../../../lib/fields/kinds.js';
import type { OrderChannel } from '../../../lib/fields/order.js';
import type { RESERVATION_FIELDS } from '../../../lib/fields/reservation.js';
import type { Discount, UnitPrice } from '../../../lib/money.js';
import type { TicketRecord } from '../catalogue/ticket-fields.js';

/**
 * What the stock engine sells: a sale of lines, each holding the stock of one ticket. A
 * reservation is the sale of one line that is its own guid; an order is a sale of 1..20 lines
 * of one event with a guid of its own (docs/stock-moves.md "One engine").
 */

/** A stored reservation (a line) with its barcodes, plus the row id (creation order, the paging key); derived from its field table. */
export type ReservationRecord = ValuesOf<typeof RESERVATION_FIELDS, 'server-managed' | 'computed'> & { id: number };

/** Where one barcode stands: admitted at the door, cancelled, or neither (at most one of the two is set). */
export interface BarcodeState {
  scanned_at: Date | null;
  cancelled_at: Date | null;
}

/**
 * A line as the engine reads it: a reservation with the holders and states of its barcodes
 * (`holders[i]` and `barcode_states[i]` are those of `barcodes[i]`; a null holder: none named),
 * the units of it cancelled, the order it belongs to (null: sold alone) and its unit price,
 * fixed when the order was made (null: a reservation alone carries no money).
 */
export type LineRecord = ReservationRecord & {
  holders: Array<Holder | null>;
  barcode_states: BarcodeState[];
  cancelled_amount: number;
  order_id: string | null;
  price: UnitPrice | null;
};

/** One cancellation of (part of) a sale, as stored (docs/cancellations.md); amounts in minor units of the order's currency. */
export interface CancellationRecord {
  guid: string;
  /** The order, or the reservation sold alone. */
  sale_id: string;
  company_id: string;
  barcodes: string[];
  reason: string | null;
  cancellation_fee: bigint;
  refund_amount: bigint;
  stock_returned: boolean;
  created_at: Date;
}

/** An order's own row. */
export interface OrderRow {
  guid: string;
  company_id: string;
  event_id: string;
  channel: OrderChannel;
  created_at: Date;
  /** The event's currency when the order was made. */
  currency: string;
  coupon_code: string | null;
  /** The code row the order took a use of (null: none), given back when it is released, expires or is cancelled whole. */
  coupon_code_id: number | null;
}

/** A coupon code as an order reads it under its tickets' locks, with its coupon (docs/coupons.md). */
export interface CouponCodeRecord {
  id: number;
  code: string;
  /** Null: no limit. */
  usage_count: number | null;
  /** Units of one order it discounts; null: all. */
  applies_to_count: number | null;
  used_count: number;
  coupon: {
    guid: string;
    company_id: string;
    event_id: string;
    deleted: boolean;
    discount: Discount;
    /** Null: every ticket of the event but those hidden without a coupon. */
    ticket_ids: string[] | null;
    valid_from: Date | null;
    valid_until: Date | null;
  };
}

/** An order with its lines, in the order given, and its cancellations, oldest first. */
export interface OrderRecord extends OrderRow {
  lines: LineRecord[];
  cancellations: CancellationRecord[];
}

export type ReservationSale = { kind: 'reservation'; line: LineRecord };
export type OrderSale = { kind: 'order'; order: OrderRecord };
export type Sale = ReservationSale | OrderSale;

/** What a move needs of its ticket (the whole record), read under the ticket's row lock. */
export type StockTicket = TicketRecord;

export const linesOf = (sale: Sale): LineRecord[] => (sale.kind === 'order' ? sale.order.lines : [sale.line]);

export const saleGuid = (sale: Sale): string => (sale.kind === 'order' ? sale.order.guid : sale.line.guid);

export const saleCompany = (sale: Sale): string => (sale.kind === 'order' ? sale.order.company_id : sale.line.company_id);

/** The sale with its lines replaced (same count, same order). */
export const withLines = <S extends Sale>(sale: S, lines: LineRecord[]): S =>
  (sale.kind === 'order' ? { kind: 'order', order: { ...sale.order, lines } } : { kind: 'reservation', line: lines[0]! }) as S;

const secondsFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/** A new line of `ticket`, reserved for `ttlSeconds` from `now`. */
export function newLine(guid: string, ticket: StockTicket, amount: number, ttlSeconds: number, now: Date, orderId: string | null, price: UnitPrice | null = null): LineRecord {
  return {
    id: 0,
    guid,
    company_id: ticket.company_id,
    event_id: ticket.event_id,
    ticket_id: ticket.guid,
    amount,
    state: 'reserved',
    expires_at: secondsFrom(now, ttlSeconds),
    barcodes: [],
    holders: [],
    barcode_states: [],
    cancelled_amount: 0,
    created_at: now,
    updated_at: now,
    order_id: orderId,
    price,
  };
}
