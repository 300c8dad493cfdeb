import { RpcError } from '../../../lib/grpc/errors.js';
import type { Discount } from '../../../lib/money.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import type { CouponCodeRecord, StockTicket } from '../stock/sale.js';

/**
 * Selling with a coupon code (docs/coupons.md "Use"): which code a buyer's text is, what it
 * discounts on which lines of an order, and which hidden tickets it unlocks. Every check runs
 * under the order's tickets' locks, on the code as read there.
 */

/** The key a code is found by: codes are matched ignoring case (printable ASCII only). */
export const couponCodeKey = (code: string): string => code.toLowerCase();

/** Unknown, another event's, deleted, or applying to no line: one answer for all (no oracle). */
const NO_SUCH_CODE = 'is not a coupon code of this event for these tickets';
const noSuchCode = () => RpcError.invalidArgument([{ field: 'coupon_code', description: NO_SUCH_CODE }]);

/** Whether the coupon applies to a ticket: the tickets it names, or (none named) every ticket not hidden without a coupon. */
function appliesTo(code: CouponCodeRecord, ticket: StockTicket): boolean {
  const named = code.coupon.ticket_ids;
  return named === null ? !ticket.hide_without_coupon : named.includes(ticket.guid);
}

/** Whether a hidden ticket may be sold with this code (null: none): only a coupon that names it unlocks it. */
export function unlocks(code: CouponCodeRecord | null, ticket: StockTicket): boolean {
  return !ticket.hide_without_coupon || (code !== null && (code.coupon.ticket_ids ?? []).includes(ticket.guid));
}

/** A hidden ticket sold without the code that unlocks it: 409 coupon_required. */
export function refuseHidden(code: CouponCodeRecord | null, ticket: StockTicket): void {
  if (!unlocks(code, ticket)) throw stockConflict('coupon_required');
}

/**
 * The discount of each line of an order (null: none) by the code the buyer typed, read under the
 * lock (undefined: none of this event). The code must be live, of this event and company, and
 * apply to a line (else 422 naming coupon_code, alike for every reason). It discounts at most
 * `applies_to_count` units of the order, whole lines in line order: a line it would discount
 * only in part is refused (422 naming its amount), since every unit of a line costs the same.
 */
export function couponDiscounts(code: CouponCodeRecord | undefined, event: { guid: string; company_id: string }, tickets: readonly StockTicket[], amounts: readonly number[]): Array<Discount | null> {
  if (!code || code.coupon.deleted || code.coupon.event_id !== event.guid || code.coupon.company_id !== event.company_id) throw noSuchCode();
  if (!tickets.some((ticket) => appliesTo(code, ticket))) throw noSuchCode();
  let left = code.applies_to_count ?? Number.POSITIVE_INFINITY;
  return tickets.map((ticket, i) => {
    if (!appliesTo(code, ticket) || left === 0) return null;
    const amount = amounts[i]!;
    if (amount > left) {
      throw RpcError.invalidArgument([
        { field: `lines[${i}].amount`, description: `must be at most ${left}: the coupon code discounts ${left} more unit(s) of this order, and every unit of a line costs the same (order the rest on its own)` },
      ]);
    }
    left -= amount;
    return code.coupon.discount;
  });
}

/** The code's validity window against `now`: 409 coupon_not_valid outside valid_from..valid_until. */
export function refuseOutsideWindow(code: CouponCodeRecord, now: Date): void {
  const { valid_from: from, valid_until: until } = code.coupon;
  if ((from && now.getTime() < from.getTime()) || (until && now.getTime() >= until.getTime())) throw stockConflict('coupon_not_valid');
}
