import { ORDER_CANCEL_FIELDS } from '../../../lib/fields/order.js';
import { CANCEL_FIELDS } from '../../../lib/fields/reservation.js';
import { RpcError, type FieldViolation } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import { currencyDigits, fromMinor, toMinor } from '../../../lib/money.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import { linesOf, saleCompany, saleGuid, type Sale } from '../stock/sale.js';
import { refuseMove, type CancelledUnits, type StockDraft } from '../stock/stock-draft.js';
import { checkMoveField } from './reservation-rules.js';

/**
 * Cancelling a sale (docs/cancellations.md): the request's values, which units it takes, and
 * what is owed. Reservations and orders share every rule; only an order carries money, so
 * only an order takes a cancellation_fee.
 */

/** A cancellation as asked: the codes named (empty: every unit not yet cancelled), the reason, the fee's text (orders) and whether the stock returns. */
export interface CancelRequest {
  barcodes: readonly string[];
  reason: string | null;
  returnStock: boolean;
  fee?: string;
}

/**
 * The values of a cancellation that need no sale (422): the codes' count and each named once,
 * the reason's length. Checked before the engine runs, as a reservation's ttl is.
 */
export function checkCancelRequest(request: { barcodes: readonly string[]; reason?: string; return_stock?: boolean }): { request: CancelRequest; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const max = CANCEL_FIELDS.barcodes.kind.maxItems;
  if (request.barcodes.length > max) violations.push({ field: 'barcodes', description: `must hold at most ${max} items` });
  else {
    const seen = new Set<string>();
    for (const [i, code] of request.barcodes.entries()) {
      if (seen.has(code)) violations.push({ field: `barcodes[${i}]`, description: 'must not repeat a barcode named before' });
      seen.add(code);
    }
  }
  const reason = checkMoveField('reason', CANCEL_FIELDS.reason, request.reason);
  violations.push(...reason.violations);
  return { request: { barcodes: request.barcodes, reason: request.reason ?? null, returnStock: request.return_stock ?? CANCEL_FIELDS.return_stock.default }, violations };
}

/** The units a cancellation takes: the codes named, each of this sale (else 422 naming `barcodes[i]`), or every unit not yet cancelled. */
function unitsTaken(sale: Sale, codes: readonly string[]): CancelledUnits[] {
  const lines = linesOf(sale);
  if (codes.length === 0) {
    return lines.flatMap((line, index): CancelledUnits[] => {
      // barcode_type none: the units themselves; otherwise each barcode not yet cancelled.
      if (line.barcodes.length === 0) {
        const units = line.amount - line.cancelled_amount;
        return units > 0 ? [{ line: index, barcodes: [], units }] : [];
      }
      const open = line.barcode_states.flatMap((state, i) => (state.cancelled_at ? [] : [i]));
      return open.length > 0 ? [{ line: index, barcodes: open, units: open.length }] : [];
    });
  }
  const where = new Map<string, { line: number; barcode: number }>();
  lines.forEach((line, index) => line.barcodes.forEach((code, barcode) => where.set(code, { line: index, barcode })));
  const violations: FieldViolation[] = [];
  const byLine = new Map<number, number[]>();
  for (const [i, code] of codes.entries()) {
    const found = where.get(code);
    if (!found) violations.push({ field: `barcodes[${i}]`, description: 'is not a barcode of this sale' });
    else byLine.set(found.line, [...(byLine.get(found.line) ?? []), found.barcode]);
  }
  if (violations.length) throw RpcError.invalidArgument(violations);
  return [...byLine].sort(([a], [b]) => a - b).map(([line, barcodes]) => ({ line, barcodes, units: barcodes.length }));
}

/** What the cancelled units cost (their unit_total summed), in minor units; a reservation's are free. */
function refundable(sale: Sale, taken: readonly CancelledUnits[]): bigint {
  const lines = linesOf(sale);
  return taken.reduce((sum, { line, units }) => sum + BigInt(units) * (lines[line]!.price?.unit_total ?? 0n), 0n);
}

/** The fee in minor units: an amount of the order's currency, at least 0 and at most what it reduces (else 422 naming cancellation_fee). */
function feeOf(text: string | undefined, currency: string, refund: bigint): bigint {
  if (text === undefined) return 0n;
  const fee = toMinor(text, currency);
  const field = 'cancellation_fee';
  if (fee === undefined) throw RpcError.invalidArgument([{ field, description: `must be an amount of ${currency} with at most ${currencyDigits(currency)} decimals` }]);
  if (fee < 0n) throw RpcError.invalidArgument([{ field, description: `must be at least ${ORDER_CANCEL_FIELDS.cancellation_fee.kind.min}` }]);
  if (fee > refund) throw RpcError.invalidArgument([{ field, description: `must be at most ${fromMinor(refund, currency)} ${currency}, the unit_total of the units cancelled` }]);
  return fee;
}

/**
 * Cancels what the request names of a sale the engine locked, in this order: the sale must be
 * confirmed (409 invalid_transition), the codes of this sale (422 `barcodes[i]`), the fee
 * within its bounds (422), then each code neither scanned nor cancelled (409, naming it).
 */
export function cancelSale<S extends Sale>(draft: StockDraft, sale: S, request: CancelRequest): S {
  refuseMove(sale, 'cancel');
  const taken = unitsTaken(sale, request.barcodes);
  if (taken.length === 0) throw stockConflict('invalid_transition', 'Every unit of the sale is cancelled already.');
  const owed = refundable(sale, taken);
  const fee = sale.kind === 'order' ? feeOf(request.fee, sale.order.currency, owed) : 0n;
  return draft.cancel(sale, taken, {
    guid: newGuid(),
    sale_id: saleGuid(sale),
    company_id: saleCompany(sale),
    barcodes: [],
    reason: request.reason,
    cancellation_fee: fee,
    refund_amount: owed - fee,
    stock_returned: request.returnStock,
    created_at: draft.now,
  });
}
