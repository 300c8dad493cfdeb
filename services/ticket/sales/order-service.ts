import { changedMeanwhile } from '../common/write-conflicts.js';
import type { Knex } from '../../../lib/db.js';
import { ORDER_CHANNELS, ORDER_LINES, MAX_UNITS, type OrderChannel } from '../../../lib/fields/order.js';
import { isDue, PENDING_FIELDS, RESERVE_FIELDS } from '../../../lib/fields/reservation.js';
import {
  CreateOrderRequest,
  Order,
  type ConfirmOrderRequest,
  type ListOrdersRequest,
  type ListOrdersResponse,
  type MarkOrderPendingRequest,
  type ReleaseOrderRequest,
  type SetBarcodeHolderRequest,
} from '../../../lib/gen/ticketing/v1/order.js';
import { RpcError, type FieldViolation } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import { insufficientStock, stockConflict } from '../../../lib/stock-conflicts.js';
import { remainingStock } from '../../../lib/fields/ticket.js';
import { counterDelta, MOVES, type MoveName } from '../../../lib/stock-moves.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { refusingTakenCodes } from './taken-codes.js';
import type { ReservationRecord } from './reservation-fields.js';
import { checkHolder, checkHolders, holderChangeRefusal, sameHolder } from './holder-rules.js';
import { checkAmount, checkBarcodes, checkMoveField, generateBarcode } from './reservation-rules.js';
import { findInCompanies, notFound } from '../access/find-in-companies.js';
import type { IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { holderChange, orderChange } from '../webhooks/change-events.js';
import { orderMessage } from './order-messages.js';
import { recordChange } from '../store/outbox-store.js';
import { BARCODES_PER_PAGE, refuseUnlessOnSale, requireState, retryingBarcodeCollisions, stateFilter, type ReservationService } from './reservation-service.js';
import { decodePageToken, encodePageToken, pageSize } from '../common/paging.js';
import { storedGuid } from '../access/request-guid.js';
import { retryingDeadlocks } from '../store/deadlocks.js';
import type { OrderRecord, OrderStore } from '../store/order-store.js';
import { newReservation, type LineRecord, type ReservationStore, type StockTicket } from '../store/reservation-store.js';
import type { TicketBatcher } from '../stock/ticket-batcher.js';

/** The ticket an order's move is batched by: its only ticket; an order of several tickets runs alone. */
const onlyTicket = (ticketGuids: readonly string[]): string | undefined => (new Set(ticketGuids).size === 1 ? ticketGuids[0] || undefined : undefined);

const line = (i: number, field: string) => `lines[${i}].${field}`;

/** A refusal of one line: the 409 of its ticket names it (`ticket_id` member, ErrorInfo metadata). */
function lineConflict(err: unknown, ticketGuid: string): unknown {
  if (!(err instanceof RpcError) || !err.details.reason) return err;
  return new RpcError(err.code, err.message, { ...err.details, reasonMetadata: { ...err.details.reasonMetadata, ticket_id: ticketGuid } });
}

/**
 * Orders (PRODUCT.md 12): a cart of tickets of one event, all or nothing. Each line is a
 * reservation of its ticket and moves by the same table (lib/stock-moves.ts); a move of the
 * order locks every line's ticket, always in the order of their guids, so two orders that
 * share tickets wait for each other instead of deadlocking.
 */
export class OrderService {
  constructor(
    private readonly orders: OrderStore,
    private readonly stock: ReservationStore,
    private readonly reservations: ReservationService,
    private readonly creations: IdempotentCreation,
    private readonly batcher: TicketBatcher,
  ) {}

  private findEvent(caller: AuthenticatedCaller, guid: string) {
    return findInCompanies('Event', caller.companyIds, guid, (companyIds, id) => this.orders.findEvent(companyIds, id));
  }

  private findOrder(caller: AuthenticatedCaller, guid: string): Promise<OrderRecord> {
    // NOT_FOUND names the order as a reservation would name itself: ResourceInfo of ticketing.v1.Order.
    return findInCompanies('Order', caller.companyIds, guid, (companyIds, id) => this.orders.find(companyIds, id));
  }

  /** The values of a new order that need no ticket read: line count, each ticket once, units in all, ttl, channel. */
  private checkRequest(request: CreateOrderRequest): { ttl: number; channel: OrderChannel; ticketGuids: string[] } {
    const violations: FieldViolation[] = [];
    const ttl = checkMoveField('ttl_seconds', RESERVE_FIELDS.ttl_seconds, request.ttl_seconds);
    violations.push(...ttl.violations);
    const channel = request.channel === undefined ? 'online' : ORDER_CHANNELS[request.channel - 1];
    if (!channel) violations.push({ field: 'channel', description: `must be one of ${ORDER_CHANNELS.join(', ')}` });
    const lines = request.lines;
    if (lines.length < ORDER_LINES.min || lines.length > ORDER_LINES.max) {
      violations.push({ field: 'lines', description: `must hold ${ORDER_LINES.min} to ${ORDER_LINES.max} lines` });
    }
    const ticketGuids: string[] = [];
    lines.forEach((l, i) => {
      const guid = storedGuid(l.ticket_id) ?? '';
      if (ticketGuids.includes(guid) && guid) violations.push({ field: line(i, 'ticket_id'), description: 'must not repeat a ticket of another line' });
      ticketGuids.push(guid);
      if (!Number.isInteger(l.amount) || l.amount < 1) violations.push({ field: line(i, 'amount'), description: 'must be a whole number of at least 1' });
    });
    const units = lines.reduce((sum, l) => sum + (Number.isInteger(l.amount) ? l.amount : 0), 0);
    if (units > MAX_UNITS) violations.push({ field: 'lines', description: `must hold at most ${MAX_UNITS} units in all` });
    if (violations.length) throw RpcError.invalidArgument(violations);
    return { ttl: ttl.value, channel: channel!, ticketGuids };
  }

  /**
   * Locks the tickets in the order of their guids (one global order: no deadlock between two
   * orders), expires what is due on each, and gives them by guid.
   */
  private async lockTickets(trx: Knex, companyIds: readonly string[], guids: readonly string[], now: Date, includeDeleted: boolean): Promise<Map<string, StockTicket>> {
    const locked = new Map<string, StockTicket>();
    for (const guid of [...new Set(guids)].sort()) {
      const ticket = guid ? await this.stock.lockTicket(trx, companyIds, guid, { includeDeleted }) : undefined;
      if (!ticket) continue;
      await this.stock.expireDue(trx, ticket, now);
      locked.set(guid, ticket);
    }
    return locked;
  }

  async create(caller: AuthenticatedCaller, request: CreateOrderRequest): Promise<Order> {
    const prepare = async () => {
      const event = await this.findEvent(caller, request.event_id);
      const { ttl, channel, ticketGuids } = this.checkRequest(request);
      const now = new Date();
      const guid = newGuid();
      let order: OrderRecord | undefined;
      const write = async (trx: Knex) => {
        const tickets = await this.lockTickets(trx, [event.company_id], ticketGuids, now, false);
        const lineTickets = ticketGuids.map((ticketGuid, i) => {
          const ticket = tickets.get(ticketGuid);
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
        const violations = lineTickets.flatMap((ticket, i) => checkAmount(request.lines[i]!.amount, ticket).map((v) => ({ ...v, field: line(i, v.field) })));
        if (violations.length) throw RpcError.invalidArgument(violations);
        const lines: LineRecord[] = [];
        for (const [i, ticket] of lineTickets.entries()) {
          const amount = request.lines[i]!.amount;
          try {
            refuseUnlessOnSale(ticket, now);
            if (channel === 'box_office' && !ticket.available_in_cashr) throw stockConflict('not_on_sale', 'The ticket is not sold at the box office (available_in_cashr is false).');
            if (!(await this.stock.take(trx, ticket, amount))) throw insufficientStock(remainingStock(ticket));
          } catch (err) {
            throw lineConflict(err, ticket.guid);
          }
          lines.push({ ...newReservation({ guid: newGuid(), ticket, amount, ttlSeconds: ttl, now }), id: 0, holders: [] });
        }
        const row = { guid, company_id: event.company_id, event_id: event.guid, channel, created_at: now };
        await this.orders.insert(trx, row);
        for (const record of lines) await this.stock.insert(trx, record, guid);
        order = { ...row, lines };
        await recordChange(trx, orderChange(order, 'reserve'));
      };
      return {
        get result() {
          return orderMessage(order!);
        },
        write,
        ticketGuid: onlyTicket(ticketGuids),
      };
    };
    const sameRequest = CreateOrderRequest.encode({ ...request, event_id: storedGuid(request.event_id) ?? request.event_id, request_id: '' }).finish();
    return retryingDeadlocks(() => this.creations.run({ caller, scope: 'CreateOrder', requestId: request.request_id, request: [sameRequest], codec: Order }, prepare));
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Order> {
    const found = await this.findOrder(caller, guid);
    const now = new Date();
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
    const { orders, more } = await this.orders.list(event.guid, state, after, size, BARCODES_PER_PAGE);
    return { orders: orders.map(orderMessage), next_page_token: more ? encodePageToken(listKey, orders[orders.length - 1]!.id) : '' };
  }

  /**
   * One move of every line of an order, in one transaction: the lines' tickets are locked in
   * guid order and their due reservations expire, every line must allow the move (they are
   * always in the same state), then each line moves and `apply` adds what the move does besides.
   */
  private async move(
    caller: AuthenticatedCaller,
    guid: string,
    move: Exclude<MoveName, 'reserve' | 'expire'>,
    options: { ttlSeconds?: number; violations?: FieldViolation[]; apply?: (trx: Knex, ticket: StockTicket, current: ReservationRecord, index: number, now: Date) => Promise<void> } = {},
  ): Promise<Order> {
    const found = await this.findOrder(caller, guid);
    const scope = [found.company_id];
    return retryingDeadlocks(() =>
      this.batcher.transaction(onlyTicket(found.lines.map((l) => l.ticket_id)), async (trx) => {
        const now = new Date();
        const tickets = await this.lockTickets(trx, scope, found.lines.map((l) => l.ticket_id), now, true);
        const current = (await this.orders.find(scope, found.guid, trx))!;
        if (options.violations?.length) throw RpcError.invalidArgument(options.violations);
        for (const l of current.lines) requireState(l, move);
        const to = MOVES[move].to;
        for (const [i, l] of current.lines.entries()) {
          const ticket = tickets.get(l.ticket_id);
          if (!ticket) throw notFound('Order', guid);
          if (!(await this.stock.changeState(trx, l.guid, l.state, to, options.ttlSeconds ?? null, now))) {
            throw changedMeanwhile('order');
          }
          await this.stock.moveCounters(trx, ticket, counterDelta(l.state, to, l.amount));
          try {
            await options.apply?.(trx, ticket, l, i, now);
          } catch (err) {
            throw lineConflict(err, l.ticket_id);
          }
        }
        const moved = (await this.orders.find(scope, found.guid, trx))!;
        await recordChange(trx, orderChange(moved, move));
        return orderMessage(moved);
      }),
    );
  }

  async markPending(caller: AuthenticatedCaller, request: MarkOrderPendingRequest): Promise<Order> {
    const ttl = checkMoveField('ttl_seconds', PENDING_FIELDS.ttl_seconds, request.ttl_seconds);
    return this.move(caller, request.guid, 'pending', { ttlSeconds: ttl.value, violations: ttl.violations });
  }

  async confirm(caller: AuthenticatedCaller, request: ConfirmOrderRequest): Promise<Order> {
    return retryingBarcodeCollisions((generating) =>
      this.move(caller, request.guid, 'confirm', {
        apply: async (trx, ticket, current, i, now) => {
          const sentLine = request.lines.find((l) => storedGuid(l.ticket_id) === current.ticket_id);
          const sent = sentLine?.barcodes ?? [];
          const issues = ticket.barcode_type === 'none' ? 0 : current.amount;
          const named = checkHolders(sentLine?.holders ?? [], issues);
          const violations = [...checkBarcodes(ticket.barcode_type, sent, current.amount), ...named.violations].map((v) => ({ ...v, field: line(i, v.field) }));
          if (violations.length) throw RpcError.invalidArgument(violations);
          if (ticket.barcode_type === 'generate') generating();
          const barcodes = ticket.barcode_type === 'generate' ? Array.from({ length: current.amount }, generateBarcode) : ticket.barcode_type === 'predefined' ? sent : [];
          await refusingTakenCodes(ticket.barcode_type === 'predefined', () => this.stock.insertBarcodes(trx, current, barcodes, now, named.holders));
        },
      }),
    );
  }

  async release(caller: AuthenticatedCaller, request: ReleaseOrderRequest): Promise<Order> {
    return this.move(caller, request.guid, 'release');
  }

  /**
   * Names or clears (unset) the holder of a barcode of the order (docs/orders.md "Holders"),
   * under its ticket's lock so two changes of one barcode are one after the other. The same
   * holder again is no change (no event); otherwise the ticket decides (holderChangeRefusal).
   */
  async setBarcodeHolder(caller: AuthenticatedCaller, request: SetBarcodeHolderRequest): Promise<Order> {
    const found = await this.findOrder(caller, request.guid);
    const sent = request.holder ? checkHolder('holder', request.holder) : { holder: null, violations: [] };
    if (sent.violations.length) throw RpcError.invalidArgument(sent.violations);
    const scope = [found.company_id];
    return retryingDeadlocks(() =>
      this.stock.transaction(async (trx) => {
        const barcode = await this.stock.findOrderBarcode(trx, found.guid, request.code);
        const ticket = barcode && (await this.stock.lockTicket(trx, scope, barcode.ticket_id, { includeDeleted: true }));
        if (!ticket) throw notFound('Barcode', request.code);
        const current = (await this.stock.findOrderBarcode(trx, found.guid, request.code))!;
        const changed = !sameHolder(current.holder, sent.holder);
        if (changed) {
          const refusal = holderChangeRefusal(ticket, current.holder);
          if (refusal) throw stockConflict('not_personalizable', refusal);
          await this.stock.setHolder(trx, current, sent.holder, new Date());
        }
        const order = (await this.orders.find(scope, found.guid, trx))!;
        if (changed) await recordChange(trx, holderChange(order));
        return orderMessage(order);
      }),
    );
  }
}
