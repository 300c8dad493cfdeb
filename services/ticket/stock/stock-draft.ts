import type { Holder } from '../../../lib/fields/holder.js';
import { MAX_UNITS_PER_ORDER, type ReservationState } from '../../../lib/fields/reservation.js';
import { remainingStock } from '../../../lib/fields/ticket.js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { insufficientStock, stockConflict } from '../../../lib/stock-conflicts.js';
import { counterDelta, HELD_IN, MOVES, refusalFrom, type CounterDelta, type MoveName } from '../../../lib/stock-moves.js';
import { formatTimestamp } from '../../../lib/time.js';
import type { Change } from '../store/outbox-store.js';
import type { BarcodeRow } from '../store/stock-store.js';
import { holderChange, saleChange, scanChange } from './sale-changes.js';
import type { ScanValues } from './sale-messages.js';
import { linesOf, withLines, type CancellationRecord, type CouponCodeRecord, type LineRecord, type OrderRecord, type OrderSale, type ReservationSale, type Sale, type StockTicket } from './sale.js';

type Row = Record<string, unknown>;

/** What a draft reads: the engine's view of the locked tickets and of what its moves named, as the moves accepted before left it. */
export interface StockState {
  readonly now: Date;
  /** Due reservations and orders that expired when the view was opened. */
  readonly expired: number;
  ticket(guid: string): StockTicket | undefined;
  line(guid: string): LineRecord | undefined;
  order(guid: string): OrderRecord | undefined;
  barcode(id: number): BarcodeRow | undefined;
  /** The currency of a locked ticket's event. */
  currency(eventGuid: string): string | undefined;
  /** Whether a code is in use within the event (read for the codes the moves sent, and those issued since). */
  codeTaken(eventGuid: string, code: string): boolean;
  /** A coupon code of an event by its key, as read after the locks (undefined: none). */
  couponCode(eventGuid: string, codeKey: string): CouponCodeRecord | undefined;
  /** Uses of a coupon code the moves accepted before took (or gave back) since it was read. */
  couponUsesMoved(codeId: number): number;
}

/** A line's change of state (expires_at: undefined leaves it as it is). */
export interface StateChange {
  guid: string;
  /** The state the row must still be in when the engine writes (its state when the view read it). */
  from: ReservationState;
  to: ReservationState;
  expiresAt: Date | null | undefined;
}

/** A row a move adds, as the engine knows it (the store makes the columns). */
export type NewRow =
  | { table: 'orders'; order: OrderRecord }
  | { table: 'reservations'; line: LineRecord }
  | { table: 'barcodes'; line: LineRecord; barcodes: readonly string[]; holders: ReadonlyArray<Holder | null> }
  | { table: 'cancellations'; cancellation: CancellationRecord }
  | { table: 'idempotency_keys'; row: Row };

/** What a cancellation takes of one line: the indexes of the barcodes it cancels, and its units (their count; for barcode_type none, a count alone). */
export interface CancelledUnits {
  line: number;
  barcodes: readonly number[];
  units: number;
}

/** A line's barcodes a cancellation cancels, as the engine writes them. */
export interface CancelledCodes {
  reservationGuid: string;
  barcodes: readonly string[];
  units: number;
  cancellationGuid: string;
}

export interface IssuedCodes {
  barcodes: readonly string[];
  /** The codes were sent by the client (predefined): one in use within the event refuses the move, barcode_taken. */
  sent?: boolean;
  holders?: ReadonlyArray<Holder | null>;
}

/** A refusal of one line of an order names its ticket (`ticket_id` member, ErrorInfo metadata); a reservation's is its own. */
export function lineRefusal(sale: Sale, index: number, err: unknown): unknown {
  if (sale.kind !== 'order' || !(err instanceof RpcError) || !err.details.reason) return err;
  const ticketGuid = sale.order.lines[index]!.ticket_id;
  return new RpcError(err.code, err.message, { ...err.details, reasonMetadata: { ...err.details.reasonMetadata, ticket_id: ticketGuid } });
}

/** A cancelled barcode, refused with the time it was cancelled (the door must know why). */
export function barcodeCancelled(code: string, cancelledAt: Date): RpcError {
  const when = formatTimestamp(cancelledAt) ?? '';
  return stockConflict('barcode_cancelled', `The barcode was cancelled at ${when}; it no longer opens the door.`, { barcode: code, cancelled_at: when });
}

/** A move from the lines' current state, or its refusal (lib/stock-moves.ts). */
function requireState(current: LineRecord, move: MoveName): void {
  const refusal = refusalFrom(move, current.state);
  if (refusal === 'invalid_transition') throw stockConflict(refusal, `A ${current.state} reservation cannot be ${MOVES[move].done}.`);
  if (refusal) throw stockConflict(refusal);
}

/** The refusal of a move from the sale's state (its lines are always in one), if any. */
export function refuseMove(sale: Sale, move: MoveName): void {
  for (const line of linesOf(sale)) requireState(line, move);
}

/**
 * One move's changes while it is checked (docs/stock-moves.md "One engine"): every change of
 * stock goes through here, so state, counters and the webhook event always change together.
 * Its writes are kept apart until the engine accepts it, so a refused move leaves nothing.
 */
export class StockDraft {
  readonly counters: Array<{ ticket: string; delta: CounterDelta }> = [];
  readonly states: StateChange[] = [];
  readonly inserts: NewRow[] = [];
  readonly scans: BarcodeRow[] = [];
  readonly holders: Array<{ reservationGuid: string; barcode: string; holder: Holder | null }> = [];
  readonly cancelled: CancelledCodes[] = [];
  /** Places gone with a cancellation without return_stock, per ticket. */
  readonly placesGone: Array<{ ticket: string; units: number }> = [];
  /** Uses of coupon codes taken (+1) or given back (-1). */
  readonly couponUses: Array<{ codeId: number; by: number }> = [];
  readonly touched: string[] = [];
  readonly sales: Sale[] = [];
  readonly changes: Change[] = [];

  constructor(private readonly state: StockState) {}

  get now(): Date {
    return this.state.now;
  }

  /** Due reservations and orders that expired before this move (when the engine locked the tickets). */
  get expired(): number {
    return this.state.expired;
  }

  /** A locked ticket as this move sees it, if of one of `companyIds`; a deleted one only with `includeDeleted`. */
  ticket(guid: string, companyIds: readonly string[], options: { includeDeleted?: boolean } = {}): StockTicket | undefined {
    const ticket = this.state.ticket(guid);
    if (!ticket || !companyIds.includes(ticket.company_id)) return undefined;
    if (ticket.deleted_at && !options.includeDeleted) return undefined;
    return ticket;
  }

  /** A reservation sold alone (an order's line is no reservation to move), of one of `companyIds`. */
  reservation(companyIds: readonly string[], guid: string): ReservationSale | undefined {
    const line = this.state.line(guid);
    return line && line.order_id === null && companyIds.includes(line.company_id) ? { kind: 'reservation', line } : undefined;
  }

  order(companyIds: readonly string[], guid: string): OrderSale | undefined {
    const order = this.state.order(guid);
    return order && companyIds.includes(order.company_id) ? { kind: 'order', order } : undefined;
  }

  barcode(id: number): BarcodeRow | undefined {
    return this.state.barcode(id);
  }

  /** The currency of a locked ticket's event, read under the lock. */
  currency(ticket: StockTicket): string {
    const currency = this.state.currency(ticket.event_id);
    if (!currency) throw new Error(`the event of ticket ${ticket.guid} was not read`);
    return currency;
  }

  /** The stock left of a locked ticket for this move (after what it took already). */
  remaining(ticket: StockTicket): number {
    const taken = this.counters.filter((c) => c.ticket === ticket.guid).reduce((sum, c) => sum + Object.values(c.delta).reduce((s, by) => s + (by ?? 0), 0), 0);
    return remainingStock(ticket) - taken;
  }

  /** A new sale of new lines (state reserved): each takes its amount from its ticket's stock, or the whole sale is refused. */
  create<S extends Sale>(sale: S): S {
    if (sale.kind === 'order') this.inserts.push({ table: 'orders', order: sale.order });
    for (const [i, line] of linesOf(sale).entries()) {
      const ticket = this.state.ticket(line.ticket_id);
      if (!ticket) throw new Error(`ticket ${line.ticket_id} is not locked by this move`);
      const remaining = this.remaining(ticket);
      if (remaining < line.amount) throw lineRefusal(sale, i, insufficientStock(remaining));
      this.counters.push({ ticket: ticket.guid, delta: counterDelta(null, MOVES.reserve.to, line.amount) });
      this.inserts.push({ table: 'reservations', line });
    }
    this.changes.push(saleChange(sale, 'reserve'));
    this.sales.push(sale);
    return sale;
  }

  /**
   * Moves every line of a sale by a row of MOVES: each must be in a state the move leaves
   * from; a live state holds the stock for `ttlSeconds` from now; `issue` gives the barcodes
   * (and holders) a line gets, or refuses the move.
   */
  move<S extends Sale>(sale: S, name: Exclude<MoveName, 'reserve'>, options: { ttlSeconds?: number; issue?: (line: LineRecord, ticket: StockTicket, index: number) => IssuedCodes } = {}): S {
    const lines = linesOf(sale);
    for (const line of lines) requireState(line, name);
    const to = MOVES[name].to;
    const expiresAt = name === 'expire' ? undefined : options.ttlSeconds === undefined ? null : new Date(this.now.getTime() + options.ttlSeconds * 1000);
    const moved = lines.map((line, i) => {
      this.counters.push({ ticket: line.ticket_id, delta: counterDelta(line.state, to, line.amount) });
      this.states.push({ guid: line.guid, from: line.state, to, expiresAt });
      const next: LineRecord = { ...line, state: to, expires_at: expiresAt === undefined ? line.expires_at : expiresAt, updated_at: this.now };
      if (!options.issue) return next;
      const ticket = this.state.ticket(line.ticket_id);
      if (!ticket) throw new Error(`ticket ${line.ticket_id} is not locked by this move`);
      let issued: IssuedCodes;
      try {
        issued = options.issue(next, ticket, i);
      } catch (err) {
        throw lineRefusal(sale, i, err);
      }
      if (issued.sent && issued.barcodes.some((code) => this.state.codeTaken(line.event_id, code))) throw lineRefusal(sale, i, stockConflict('barcode_taken'));
      const holders = issued.barcodes.map((_, j) => issued.holders?.[j] ?? null);
      this.inserts.push({ table: 'barcodes', line: next, barcodes: issued.barcodes, holders });
      return { ...next, barcodes: [...next.barcodes, ...issued.barcodes].slice(0, MAX_UNITS_PER_ORDER), holders: [...next.holders, ...holders].slice(0, MAX_UNITS_PER_ORDER) };
    });
    const after = withLines(sale, moved);
    this.giveCouponUseBack(sale, lines[0]!.state, to);
    this.changes.push(saleChange(after, name));
    this.sales.push(after);
    return after;
  }

  /** A coupon code of an event by the key the buyer's text has, read under the lock. */
  couponCode(eventGuid: string, codeKey: string): CouponCodeRecord | undefined {
    return this.state.couponCode(eventGuid, codeKey);
  }

  /** Takes one use of a coupon code for a new order: never more than its usage_count (409 coupon_exhausted). */
  takeCouponUse(code: CouponCodeRecord): void {
    const used = code.used_count + this.state.couponUsesMoved(code.id) + this.couponUses.filter((u) => u.codeId === code.id).reduce((sum, u) => sum + u.by, 0);
    if (code.usage_count !== null && used >= code.usage_count) throw stockConflict('coupon_exhausted');
    this.couponUses.push({ codeId: code.id, by: 1 });
  }

  /** An order holds its code's use while it holds stock or is sold (reserved, pending, confirmed): leaving those gives it back. */
  private giveCouponUseBack(sale: Sale, from: ReservationState, to: ReservationState): void {
    if (sale.kind !== 'order' || sale.order.coupon_code_id === null) return;
    if (HELD_IN[from] !== null && HELD_IN[to] === null) this.couponUses.push({ codeId: sale.order.coupon_code_id, by: -1 });
  }

  /**
   * Cancels units of a confirmed sale (docs/cancellations.md): each barcode named must be
   * neither scanned (already_scanned) nor cancelled (barcode_cancelled), each naming it. Its
   * ticket's sold_count falls by the units, and without `stock_returned` the places go too.
   * Once every unit of the sale is cancelled its lines move to cancelled; until then they stay
   * confirmed. The cancellation is recorded (an order lists it) with the sale's event.
   */
  cancel<S extends Sale>(sale: S, taken: readonly CancelledUnits[], cancellation: CancellationRecord): S {
    refuseMove(sale, 'cancel');
    const lines = linesOf(sale);
    const codes: string[] = [];
    const after = lines.map((line) => ({ ...line, barcode_states: [...line.barcode_states] }));
    for (const { line: index, barcodes, units } of taken) {
      const line = after[index]!;
      for (const i of barcodes) {
        const code = line.barcodes[i]!;
        const state = line.barcode_states[i]!;
        if (state.scanned_at) throw stockConflict('already_scanned', `A barcode named (the \`barcode\` member) was scanned at ${formatTimestamp(state.scanned_at)}; nothing was cancelled.`, { barcode: code, scanned_at: formatTimestamp(state.scanned_at) ?? '' });
        if (state.cancelled_at) throw barcodeCancelled(code, state.cancelled_at);
        line.barcode_states[i] = { scanned_at: null, cancelled_at: this.now };
      }
      if (units <= 0 || line.cancelled_amount + units > line.amount) throw new Error(`a cancellation of ${units} units does not fit line ${line.guid}`);
      line.cancelled_amount += units;
      line.updated_at = this.now;
      const cancelledCodes = barcodes.map((i) => line.barcodes[i]!);
      codes.push(...cancelledCodes);
      this.counters.push({ ticket: line.ticket_id, delta: { sold_count: -units } });
      if (!cancellation.stock_returned) this.placesGone.push({ ticket: line.ticket_id, units });
      this.cancelled.push({ reservationGuid: line.guid, barcodes: cancelledCodes, units, cancellationGuid: cancellation.guid });
      this.touched.push(line.guid);
    }
    const whole = after.every((line) => line.cancelled_amount === line.amount);
    if (whole) this.giveCouponUseBack(sale, lines[0]!.state, MOVES.cancel.to);
    const moved = after.map((line) => {
      if (!whole) return line;
      this.states.push({ guid: line.guid, from: line.state, to: MOVES.cancel.to, expiresAt: undefined });
      return { ...line, state: MOVES.cancel.to };
    });
    const record = { ...cancellation, barcodes: codes };
    this.inserts.push({ table: 'cancellations', cancellation: record });
    const result = withLines(sale, moved);
    const recorded = (result.kind === 'order' ? { kind: 'order', order: { ...result.order, cancellations: [...result.order.cancellations, record] } } : result) as S;
    this.changes.push(saleChange(recorded, 'cancel'));
    this.sales.push(recorded);
    return recorded;
  }

  /** Admits a barcode at the door once (already_scanned, with when, after that); a cancelled one never (barcode_cancelled, with when). */
  scan(barcode: BarcodeRow, companyId: string): ScanValues {
    if (barcode.cancelled_at) throw barcodeCancelled(barcode.barcode, barcode.cancelled_at);
    if (barcode.scanned_at) {
      const scannedAt = formatTimestamp(barcode.scanned_at) ?? '';
      throw stockConflict('already_scanned', `The barcode was already scanned at ${scannedAt}.`, { scanned_at: scannedAt });
    }
    const scan = { ...barcode, scanned_at: this.now };
    this.scans.push(scan);
    this.changes.push(scanChange(companyId, scan));
    return scan;
  }

  /** Names (or clears) the holder of the `index`-th barcode of an order's line `lineIndex`. */
  setHolder(sale: OrderSale, lineIndex: number, index: number, holder: Holder | null): OrderSale {
    const line = sale.order.lines[lineIndex]!;
    this.holders.push({ reservationGuid: line.guid, barcode: line.barcodes[index]!, holder });
    this.touched.push(line.guid);
    const holders = line.holders.map((h, j) => (j === index ? holder : h));
    const lines = sale.order.lines.map((l, i) => (i === lineIndex ? { ...l, holders, updated_at: this.now } : l));
    const after = { kind: 'order' as const, order: { ...sale.order, lines } };
    this.changes.push(holderChange(after.order));
    this.sales.push(after);
    return after;
  }

  /** A row written with the move (the idempotency key of a creation). */
  remember(row: Row): void {
    this.inserts.push({ table: 'idempotency_keys', row });
  }

  /** The move's answer, handed to `keep` (IdempotentCreation.once), whose row (when it gives one) is written with the move. */
  answer<T>(answer: T, keep: (answer: T) => Row | undefined): T {
    const row = keep(answer);
    if (row) this.remember(row);
    return answer;
  }
}
