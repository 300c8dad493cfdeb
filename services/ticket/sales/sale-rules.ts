import { isUniqueViolation } from '../../../lib/db.js';
import { fromMessageField } from '../../../lib/fields/messages.js';
import { RESERVATION_FIELDS, RESERVATION_STATES, type ReservationState } from '../../../lib/fields/reservation.js';
import { remainingStock, ticketStatus } from '../../../lib/fields/ticket.js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { insufficientStock, stockConflict } from '../../../lib/stock-conflicts.js';
import { notInEnum } from '../common/field-checks.js';
import type { StockTicket } from '../stock/sale.js';

/** The rules reservations and orders share: the state filter of their lists, on sale, and barcode collisions. */

/** A list's state filter: unset is every state; a number the enum lacks (UNSPECIFIED among them) is refused. */
export function stateFilter(state: number | undefined): ReservationState | undefined {
  if (state === undefined) return undefined;
  const name = fromMessageField(RESERVATION_FIELDS.state, state) as ReservationState | null;
  if (name === null) throw RpcError.invalidArgument([{ field: 'state', description: notInEnum(RESERVATION_STATES) }]);
  return name;
}

/** How often a confirmation is retried when a generated barcode collides (about 2^-79 each). */
const BARCODE_ATTEMPTS = 3;

/** Only a ticket whose computed status is `available` can be reserved; a sold_out by the counters is a stock refusal. */
export function refuseUnlessOnSale(ticket: StockTicket, now: Date): void {
  const computed = ticketStatus(ticket, now);
  if (computed === 'available') return;
  if (computed === 'sold_out' && ticket.status_overrule === 'auto') throw insufficientStock(remainingStock(ticket));
  throw stockConflict('not_on_sale');
}

/**
 * Runs a confirmation (`confirm` calls `generating()` when it makes codes) and runs it again
 * when a generated code collided within the event (about 2^-79 each); a code that was sent
 * and is taken is barcode_taken, and nothing of the confirmation is kept either way.
 */
export async function retryingBarcodeCollisions<T>(confirm: (generating: () => void) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let generated = false;
    try {
      return await confirm(() => {
        generated = true;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (!generated || attempt >= BARCODE_ATTEMPTS) throw stockConflict('barcode_taken');
    }
  }
}
