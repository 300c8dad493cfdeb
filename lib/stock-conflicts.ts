import { status } from '@grpc/grpc-js';
import { RpcError } from './grpc/errors.js';

/**
 * The refusals of the stock moves (PRODUCT.md 9): each a 409 problem whose `code` member is
 * the key below, and over gRPC the status here with the key as google.rpc.ErrorInfo reason.
 * The one table both the ticket service and the gateway read.
 */
export const STOCK_CONFLICTS = {
  insufficient_stock: { grpc: status.FAILED_PRECONDITION, message: 'Not enough stock left for this amount.' },
  not_on_sale: { grpc: status.FAILED_PRECONDITION, message: 'The ticket is not on sale (closed by status_overrule or outside its sale window).' },
  invalid_transition: { grpc: status.FAILED_PRECONDITION, message: 'This move is not possible from the reservation\'s current state.' },
  reservation_expired: { grpc: status.FAILED_PRECONDITION, message: 'The reservation has expired; its stock was returned.' },
  barcode_taken: { grpc: status.ALREADY_EXISTS, message: 'A barcode is already in use within this event.' },
  already_scanned: { grpc: status.ALREADY_EXISTS, message: 'The barcode was already scanned.' },
  barcode_cancelled: { grpc: status.FAILED_PRECONDITION, message: 'The barcode was cancelled; it no longer opens the door.' },
  stock_held: { grpc: status.FAILED_PRECONDITION, message: 'Reserved or pending stock exists; release or confirm it first.' },
  not_personalizable: { grpc: status.FAILED_PRECONDITION, message: 'The barcode\'s holder cannot be set: a first holder needs the ticket\'s late_personalization, another one its swappable.' },
  price_changed: { grpc: status.FAILED_PRECONDITION, message: 'The order\'s total is not the expected_total sent; nothing was changed.' },
  currency_locked: { grpc: status.FAILED_PRECONDITION, message: 'The event\'s currency cannot change while it has a live or confirmed sale.' },
  coupon_code_taken: { grpc: status.ALREADY_EXISTS, message: 'A coupon code is already in use within this event (codes are compared ignoring case).' },
  coupon_not_valid: { grpc: status.FAILED_PRECONDITION, message: 'The coupon is not valid now (outside its valid_from..valid_until).' },
  coupon_exhausted: { grpc: status.FAILED_PRECONDITION, message: 'The coupon code has been used as often as it may be.' },
  coupon_required: { grpc: status.FAILED_PRECONDITION, message: 'The ticket is sold only with a coupon code that names it.' },
} as const;

export type StockConflictCode = keyof typeof STOCK_CONFLICTS;

export function isStockConflictCode(reason: string | undefined): reason is StockConflictCode {
  return reason !== undefined && Object.hasOwn(STOCK_CONFLICTS, reason);
}

/** ErrorInfo metadata that is a number (a count, an amount), a number member of the problem (metadata values are strings). */
export const NUMBER_MEMBERS: ReadonlySet<string> = new Set(['remaining', 'total']);

/** insufficient_stock with how many are left (`remaining`: what a smaller order could still get). */
export function insufficientStock(remaining: number): RpcError {
  return stockConflict('insufficient_stock', `${STOCK_CONFLICTS.insufficient_stock.message.replace(/\.$/, '')} (${remaining} left).`, { remaining: String(remaining) });
}

/** The error of a refused move; `metadata` travels in ErrorInfo and becomes members of the problem. */
export function stockConflict(code: StockConflictCode, message: string = STOCK_CONFLICTS[code].message, metadata?: Record<string, string>): RpcError {
  return new RpcError(STOCK_CONFLICTS[code].grpc, message, { reason: code, reasonMetadata: metadata });
}

/** ErrorInfo reason of a new reservation refused at once because its ticket has too many moves waiting (docs/stock-moves.md "Past the cliff"). */
export const TICKET_BUSY = 'ticket_busy';

/** That refusal: RESOURCE_EXHAUSTED over gRPC, 503 + Retry-After over REST (gateway/problem.ts); nothing was done. */
export function ticketBusy(retryAfterSeconds: number): RpcError {
  return new RpcError(status.RESOURCE_EXHAUSTED, 'Too many buyers are waiting for this ticket right now; nothing was reserved, try again shortly.', {
    reason: TICKET_BUSY,
    retryAfterSeconds,
  });
}

/**
 * `code` of a new reservation or order the gateway refuses at once because its own event loop
 * runs late (docs/scaling.md "Shedding load"): 503 + Retry-After, nothing was done.
 */
export const SERVER_BUSY = 'server_busy';

/** The refusals that mean "nothing was done; try again after the delay given". */
export const BUSY_CODES: ReadonlySet<string> = new Set([TICKET_BUSY, SERVER_BUSY]);
