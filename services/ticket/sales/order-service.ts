import { systemClock, type Clock } from '../../../lib/clock.js';
import { ORDER_CREATE_FIELDS, ORDER_LINES, MAX_UNITS, NEW_LINE_FIELDS, type OrderChannel } from '../../../lib/fields/order.js';
import { isDue, PENDING_FIELDS } from '../../../lib/fields/reservation.js';
import { fromMessageField } from '../../../lib/fields/messages.js';
import {
  CreateOrderRequest,
  Order,
  type CancelOrderRequest,
  type ConfirmOrderRequest,
  type ListOrdersRequest,
  type ListOrdersResponse,
  type MarkOrderPendingRequest,
  type ReleaseOrderRequest,
  type SetBarcodeHolderRequest,
} from '../../../lib/gen/ticketing/v1/order.js';
import { RpcError, type FieldViolation } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import { moveRpc, runsAlone, type SaleMove } from '../../../lib/stock-moves.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { findInCompanies, notFound } from '../access/find-in-companies.js';
import { storedGuid } from '../access/request-guid.js';
import { notInEnum } from '../common/field-checks.js';
import { decodePageToken, encodePageToken, pageSize } from '../common/paging.js';
import { moveRequest, type IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { currencyDigits, discountedUnitPrice, fromMinor, toMinor } from '../../../lib/money.js';
import { orderMessage, orderTotal } from '../stock/sale-messages.js';
import { newLine, type LineRecord, type OrderRecord, type OrderSale, type StockTicket } from '../stock/sale.js';
import { barcodeCancelled, lineRefusal, type IssuedCodes, type StockDraft } from '../stock/stock-draft.js';
import type { StockEngine } from '../stock/stock-engine.js';
import { retryingDeadlocks } from '../store/deadlocks.js';
import type { OrderStore } from '../store/order-store.js';
import type { SaleMoves } from './sale-moves.js';
import { cancelSale, checkCancelRequest } from './cancellation-rules.js';
import { couponCodeKey, couponDiscounts, refuseHidden, refuseOutsideWindow } from './coupon-rules.js';
import { checkHolder, checkHolders, holderChangeRefusal, sameHolder } from './holder-rules.js';
import type { ReservationService } from './reservation-service.js';
import { refuseUnlessOnSale, retryingBarcodeCollisions, stateFilter } from './sale-rules.js';
import { checkAmount, checkBarcodes, checkMoveField, generateBarcode } from './reservation-rules.js';

const line = (i: number, field: string) => `lines[${i}].${field}`;

/**
 * The most bytes one page of an order list carries, by what its orders really hold (holders
 * included): a quarter of the 4 MiB a gRPC message may have, whatever the data.
 */
const ORDER_PAGE_BYTES = 1024 * 1024;


/**
 * The expected_total a client sent against the order's total: not an amount of the order's
 * currency is 422 naming it; another amount is 409 price_changed with the actual `total`.
 */
function refuseUnexpectedTotal(expected: string | undefined, order: OrderRecord): void {
  if (expected === undefined) return;
  const sent = toMinor(expected, order.currency);
  if (sent === undefined) {
    const digits = currencyDigits(order.currency);
    throw RpcError.invalidArgument([{ field: 'expected_total', description: `must be an amount of ${order.currency} with at most ${digits} decimals` }]);
  }
  const total = orderTotal(order);
  if (sent !== total) {
    const actual = fromMinor(total, order.currency);
    throw stockConflict('price_changed', `The order's total is ${actual} ${order.currency}, not the expected_total sent; nothing was changed.`, { total: actual, currency: order.currency });
  }
}

/** The lines of a confirmation that name a ticket the order does not hold, or one another line named. */
function unmatchedLines(request: ConfirmOrderRequest, order: OrderRecord): FieldViolation[] {
  if (request.lines.length > ORDER_LINES.max) return [{ field: 'lines', description: `must hold at most ${ORDER_LINES.max} lines` }];
  const held = new Set(order.lines.map((l) => l.ticket_id));
  const seen = new Set<string>();
  return request.lines.flatMap((sent, i) => {
    const guid = storedGuid(sent.ticket_id) ?? sent.ticket_id;
    const refusal = !held.has(guid) ? 'must name a ticket of one of the order\'s lines' : seen.has(guid) ? 'must not repeat a ticket of another line' : undefined;
    seen.add(guid);
    return refusal ? [{ field: line(i, 'ticket_id'), description: refusal }] : [];
  });
}

/**
 * Orders (docs/orders.md): a cart of tickets of one event, all or nothing. Each line holds the
 * stock of its ticket and every move is the stock engine's (services/ticket/stock): an order of
 * one ticket is batched with that ticket's other moves, an order of several runs alone, its
 * tickets locked in the order of their guids, so two orders that share tickets wait for each
 * other instead of deadlocking.
 */
export class OrderService {
  constructor(
    private readonly orders: OrderStore,
    private readonly reservations: ReservationService,
    private readonly creations: IdempotentCreation,
    private readonly engine: StockEngine,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The moves of an order by their rows in SALE_MOVES. */
  readonly moves: SaleMoves<Order> = {
    pending: (caller, request: MarkOrderPendingRequest) => this.markPending(caller, request),
    confirm: (caller, request: ConfirmOrderRequest) => this.confirm(caller, request),
    release: (caller, request: ReleaseOrderRequest) => this.release(caller, request),
    cancel: (caller, request: CancelOrderRequest) => this.cancel(caller, request),
  };

  private findEvent(caller: AuthenticatedCaller, guid: string) {
    return findInCompanies('Event', caller.companyIds, guid, (companyIds, id) => this.orders.findEvent(companyIds, id));
  }

  private findOrder(caller: AuthenticatedCaller, guid: string): Promise<OrderRecord> {
    // NOT_FOUND names the order as a reservation would name itself: ResourceInfo of ticketing.v1.Order.
    return findInCompanies('Order', caller.companyIds, guid, (companyIds, id) => this.orders.find(companyIds, id));
  }

  /**
   * The values of a new order that need no ticket read, by the order's field tables: the line
   * count first (a list past its limit is not walked), then each ticket once, each amount, the
   * units in all, ttl and channel.
   */
  private checkRequest(request: CreateOrderRequest): { ttl: number; channel: OrderChannel; ticketGuids: string[] } {
    const lines = request.lines;
    if (lines.length < ORDER_LINES.min || lines.length > ORDER_LINES.max) {
      throw RpcError.invalidArgument([{ field: 'lines', description: `must hold ${ORDER_LINES.min} to ${ORDER_LINES.max} lines` }]);
    }
    const ttl = checkMoveField('ttl_seconds', ORDER_CREATE_FIELDS.ttl_seconds, request.ttl_seconds);
    const violations: FieldViolation[] = [...ttl.violations, ...checkMoveField('coupon_code', ORDER_CREATE_FIELDS.coupon_code, request.coupon_code).violations];
    const channel = request.channel === undefined ? ORDER_CREATE_FIELDS.channel.default : (fromMessageField(ORDER_CREATE_FIELDS.channel, request.channel) as OrderChannel | null);
    if (!channel) violations.push({ field: 'channel', description: notInEnum(ORDER_CREATE_FIELDS.channel.kind.values) });
    const seen = new Set<string>();
    const ticketGuids = lines.map((l, i) => {
      const guid = storedGuid(l.ticket_id) ?? '';
      if (guid && seen.has(guid)) violations.push({ field: line(i, 'ticket_id'), description: 'must not repeat a ticket of another line' });
      seen.add(guid);
      violations.push(...checkMoveField(line(i, 'amount'), NEW_LINE_FIELDS.amount, l.amount).violations);
      return guid;
    });
    const units = lines.reduce((sum, l) => sum + (Number.isInteger(l.amount) ? l.amount : 0), 0);
    if (units > MAX_UNITS) violations.push({ field: 'lines', description: `must hold at most ${MAX_UNITS} units in all` });
    if (violations.length) throw RpcError.invalidArgument(violations);
    return { ttl: ttl.value, channel: channel!, ticketGuids };
  }

  async create(caller: AuthenticatedCaller, request: CreateOrderRequest): Promise<Order> {
    const prepare = async () => {
      const event = await this.findEvent(caller, request.event_id);
      const { ttl, channel, ticketGuids } = this.checkRequest(request);
      // Another company's ticket never queues: refused before, as under the lock.
      for (const [i, ticketGuid] of ticketGuids.entries()) {
        if ((await this.reservations.companyOfTicket(ticketGuid)) !== event.company_id) {
          throw RpcError.invalidArgument([{ field: line(i, 'ticket_id'), description: 'is not a live ticket of this event' }]);
        }
      }
      const now = this.clock.now();
      const guid = newGuid();
      const couponKey = request.coupon_code === undefined ? undefined : couponCodeKey(request.coupon_code);
      let order: OrderRecord | undefined;
      const plan = (draft: StockDraft) => {
        const lineTickets = ticketGuids.map((ticketGuid, i) => {
          const ticket = ticketGuid ? draft.ticket(ticketGuid, [event.company_id]) : undefined;
          if (!ticket || ticket.event_id !== event.guid) {
            throw RpcError.invalidArgument([{ field: line(i, 'ticket_id'), description: 'is not a live ticket of this event' }]);
          }
          return ticket;
        });
        // The values of every line first (422), then on sale and stock (409), as for a reservation.
        const alone = lineTickets.find((ticket) => !ticket.combines_products);
        if (alone && lineTickets.length > 1) {
          throw RpcError.invalidArgument([{ field: 'lines', description: `must hold only the ticket ${alone.guid}: it is sold alone (combines_products is false)` }]);
        }
        const amounts = request.lines.map((l) => l.amount);
        const violations = lineTickets.flatMap((ticket, i) => checkAmount(amounts[i]!, ticket).map((v) => ({ ...v, field: line(i, v.field) })));
        if (violations.length) throw RpcError.invalidArgument(violations);
        const code = couponKey === undefined ? null : (draft.couponCode(event.guid, couponKey) ?? null);
        const discounts = couponKey === undefined ? lineTickets.map(() => null) : couponDiscounts(code ?? undefined, event, lineTickets, amounts);
        // The money is fixed now, from the tickets, the coupon and the event's currency as the locks found them.
        const currency = draft.currency(lineTickets[0]!);
        const lines = lineTickets.map((ticket, i) => newLine(newGuid(), ticket, amounts[i]!, ttl, now, guid, discountedUnitPrice(ticket, currency, discounts[i]!)));
        const coupon = { coupon_code: code?.code ?? null, coupon_code_id: code?.id ?? null };
        const sale: OrderSale = { kind: 'order', order: { guid, company_id: event.company_id, event_id: event.guid, channel, created_at: now, currency, ...coupon, lines, cancellations: [] } };
        refuseUnexpectedTotal(request.expected_total, sale.order);
        for (const [i, ticket] of lineTickets.entries()) {
          try {
            refuseHidden(code, ticket);
            refuseUnlessOnSale(ticket, now);
            if (channel === 'box_office' && !ticket.available_in_cashr) throw stockConflict('not_on_sale', 'The ticket is not sold at the box office (available_in_cashr is false).');
          } catch (err) {
            throw lineRefusal(sale, i, err);
          }
        }
        if (code) {
          refuseOutsideWindow(code, now);
          draft.takeCouponUse(code);
        }
        draft.create(sale);
        order = sale.order;
      };
      return {
        get result() {
          return orderMessage(order!);
        },
        commit: (remembered?: () => Record<string, unknown>) =>
          this.engine.run({
            tickets: ticketGuids,
            reads: { currencies: true, coupons: couponKey === undefined ? [] : [{ event: event.guid, key: couponKey }] },
            takesStock: true,
            plan: (draft) => {
              plan(draft);
              if (remembered) draft.remember(remembered());
            },
          }),
      };
    };
    const sameRequest = CreateOrderRequest.encode({ ...request, event_id: storedGuid(request.event_id) ?? request.event_id, request_id: '' }).finish();
    return retryingDeadlocks(() => this.creations.run({ caller, scope: 'CreateOrder', requestId: request.request_id, request: [sameRequest], codec: Order }, prepare));
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Order> {
    const found = await this.findOrder(caller, guid);
    const now = this.clock.now();
    if (found.lines.some((l) => isDue(l, now)) && (await this.reservations.settleDue(found.lines.map((l) => l.ticket_id)))) {
      return orderMessage(await this.findOrder(caller, guid));
    }
    return orderMessage(found);
  }

  /** The orders of an event, page by page; what is due expires first, so a filter by state sees it expired. */
  async list(caller: AuthenticatedCaller, request: ListOrdersRequest): Promise<ListOrdersResponse> {
    const event = await this.findEvent(caller, request.event_id);
    const state = stateFilter(request.state);
    const size = pageSize(request.page_size);
    const listKey = `orders:${event.guid}:${state ?? ''}`;
    const after = decodePageToken(request.page_token, listKey);
    await this.reservations.settleDue(await this.orders.ticketsOf(event.guid));
    const { orders, more } = await this.orders.list(event.guid, state, after, size, ORDER_PAGE_BYTES);
    return { orders: orders.map(orderMessage), next_page_token: more ? encodePageToken(listKey, orders[orders.length - 1]!.id) : '' };
  }

  /**
   * One move of every line of an order by the stock engine: the lines' tickets locked in guid
   * order, their due reservations expired, every line must allow the move (they are always in
   * the same state), then every line moves and `issue` gives each the barcodes it gets.
   */
  private async move(
    caller: AuthenticatedCaller,
    request: { guid: string; request_id?: string },
    move: SaleMove,
    options: {
      ttlSeconds?: number;
      /** The request's values against the order as the lock found it (422). */
      check?: (order: OrderRecord) => FieldViolation[];
      issue?: (line: LineRecord, ticket: StockTicket, index: number) => IssuedCodes;
      /** Codes the move sends (their use within the event is read under the lock). */
      codes?: readonly string[];
      onTaken?: () => Error;
      /** A move the row alone does not say how to apply (a cancellation): how, instead of draft.move. */
      apply?: (draft: StockDraft, sale: OrderSale) => OrderSale;
    } = {},
  ): Promise<Order> {
    const { guid } = request;
    return this.creations.once(moveRequest(caller, moveRpc(move, 'Order'), request, Order), async (keep) => {
      const found = await this.findOrder(caller, guid);
      const scope = [found.company_id];
      const plan = (draft: StockDraft) => {
        const sale = draft.order(scope, found.guid);
        if (!sale) throw notFound('Order', guid);
        const violations = options.check?.(sale.order) ?? [];
        if (violations.length) throw RpcError.invalidArgument(violations);
        const moved = options.apply ? options.apply(draft, sale) : draft.move(sale, move, { ttlSeconds: options.ttlSeconds, issue: options.issue });
        return draft.answer(orderMessage(moved.order), keep);
      };
      const tickets = found.lines.map((l) => l.ticket_id);
      return retryingDeadlocks(() => this.engine.run({ tickets, reads: { orders: [found.guid], codes: options.codes }, plan, onTaken: options.onTaken, alone: runsAlone(move) }));
    });
  }

  async markPending(caller: AuthenticatedCaller, request: MarkOrderPendingRequest): Promise<Order> {
    const ttl = checkMoveField('ttl_seconds', PENDING_FIELDS.ttl_seconds, request.ttl_seconds);
    return this.move(caller, request, 'pending', { ttlSeconds: ttl.value, check: () => ttl.violations });
  }

  /**
   * Confirms every line: each sent line names a ticket of the order once (422 naming
   * `lines[i].ticket_id` otherwise, nothing moved), and gives that line's barcodes and holders.
   */
  async confirm(caller: AuthenticatedCaller, request: ConfirmOrderRequest): Promise<Order> {
    const sentLines = new Map(request.lines.map((sent) => [storedGuid(sent.ticket_id) ?? '', sent]));
    return retryingBarcodeCollisions((generating) =>
      this.move(caller, request, 'confirm', {
        check: (order) => {
          refuseUnexpectedTotal(request.expected_total, order);
          return unmatchedLines(request, order);
        },
        issue: (current, ticket, i) => {
          const sentLine = sentLines.get(current.ticket_id);
          const sent = sentLine?.barcodes ?? [];
          const issues = ticket.barcode_type === 'none' ? 0 : current.amount;
          const named = checkHolders(sentLine?.holders ?? [], issues);
          const violations = [...checkBarcodes(ticket.barcode_type, sent, current.amount), ...named.violations].map((v) => ({ ...v, field: line(i, v.field) }));
          if (violations.length) throw RpcError.invalidArgument(violations);
          if (ticket.barcode_type === 'generate') generating();
          if (ticket.barcode_type === 'predefined') return { barcodes: sent, holders: named.holders, sent: true };
          return { barcodes: ticket.barcode_type === 'generate' ? Array.from({ length: current.amount }, generateBarcode) : [], holders: named.holders };
        },
        codes: request.lines.flatMap((l) => l.barcodes).slice(0, MAX_UNITS),
        // Taken meanwhile by a confirmation of another ticket of the event (not under these tickets' locks).
        onTaken: request.lines.some((l) => l.barcodes.length > 0) ? () => stockConflict('barcode_taken') : undefined,
      }),
    );
  }

  async release(caller: AuthenticatedCaller, request: ReleaseOrderRequest): Promise<Order> {
    return this.move(caller, request, 'release');
  }

  /** Cancels the order or some of its barcodes, recording what is owed (docs/cancellations.md). */
  async cancel(caller: AuthenticatedCaller, request: CancelOrderRequest): Promise<Order> {
    const checked = checkCancelRequest(request);
    const cancellation = { ...checked.request, fee: request.cancellation_fee };
    return this.move(caller, request, 'cancel', { check: () => checked.violations, apply: (draft, sale) => cancelSale(draft, sale, cancellation) });
  }

  /**
   * Names or clears (unset) the holder of a barcode of the order (docs/orders.md "Holders"),
   * by the stock engine under its ticket's lock (the order is read after the lock), so two
   * changes of one barcode are one after the other. The same holder again is no change (no
   * event); otherwise the ticket decides (holderChangeRefusal).
   */
  async setBarcodeHolder(caller: AuthenticatedCaller, request: SetBarcodeHolderRequest): Promise<Order> {
    const found = await this.findOrder(caller, request.guid);
    const sent = request.holder ? checkHolder('holder', request.holder) : { holder: null, violations: [] };
    if (sent.violations.length) throw RpcError.invalidArgument(sent.violations);
    const home = found.lines.find((l) => l.barcodes.includes(request.code));
    if (!home) throw notFound('Barcode', request.code);
    const scope = [found.company_id];
    const plan = (draft: StockDraft) => {
      const sale = draft.order(scope, found.guid);
      const lineIndex = sale?.order.lines.findIndex((l) => l.guid === home.guid) ?? -1;
      const current = sale?.order.lines[lineIndex];
      const index = current?.barcodes.indexOf(request.code) ?? -1;
      const ticket = current && draft.ticket(current.ticket_id, scope, { includeDeleted: true });
      if (!sale || !current || index < 0 || !ticket) throw notFound('Barcode', request.code);
      const cancelledAt = current.barcode_states[index]?.cancelled_at;
      if (cancelledAt) throw barcodeCancelled(request.code, cancelledAt);
      if (sameHolder(current.holders[index] ?? null, sent.holder)) return orderMessage(sale.order);
      const refusal = holderChangeRefusal(ticket, current.holders[index] ?? null);
      if (refusal) throw stockConflict('not_personalizable', refusal);
      return orderMessage(draft.setHolder(sale, lineIndex, index, sent.holder).order);
    };
    return retryingDeadlocks(() => this.engine.run({ tickets: [home.ticket_id], reads: { orders: [found.guid] }, plan }));
  }
}
