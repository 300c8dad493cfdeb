import {
  ReserveTicketRequest,
  Reservation,
  Scan,
  type CancelReservationRequest,
  type ConfirmReservationRequest,
  type ListReservationBarcodesRequest,
  type ListReservationBarcodesResponse,
  type ListReservationsRequest,
  type ListReservationsResponse,
  type MarkReservationPendingRequest,
  type ReleaseReservationRequest,
  type ScanBarcodeRequest,
} from '../../../lib/gen/ticketing/v1/reservation.js';
import { systemClock, type Clock } from '../../../lib/clock.js';
import { isDue, MAX_UNITS_PER_ORDER, PENDING_FIELDS, RESERVE_FIELDS, SCAN_REQUEST_FIELDS } from '../../../lib/fields/reservation.js';
import { RpcError, type FieldViolation } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import { moveRpc, runsAlone, type SaleMove } from '../../../lib/stock-moves.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { decodePageToken, encodePageToken, pageSize } from '../common/paging.js';
import { checkAmount, checkBarcodes, checkMoveField, generateBarcode } from './reservation-rules.js';
import { moveRequest, type IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { reservationMessage, scanMessage } from '../stock/sale-messages.js';
import { findInCompanies, notFound } from '../access/find-in-companies.js';
import { storedGuid } from '../access/request-guid.js';
import { retryingDeadlocks } from '../store/deadlocks.js';
import type { ReservationStore } from '../store/reservation-store.js';
import type { StockEngine } from '../stock/stock-engine.js';
import type { IssuedCodes, StockDraft } from '../stock/stock-draft.js';
import { newLine, type LineRecord, type ReservationRecord, type ReservationSale, type StockTicket } from '../stock/sale.js';
import { cancelSale, checkCancelRequest } from './cancellation-rules.js';
import { refuseHidden } from './coupon-rules.js';
import { ReservationHomes, TicketHomes, type ReservationHome } from './reservation-homes.js';
import { refuseUnlessOnSale, retryingBarcodeCollisions, stateFilter } from './sale-rules.js';
import type { SaleMoves } from './sale-moves.js';

const reservationListKey = (ticketGuid: string, state: string) => `reservations:${ticketGuid}:${state}`;

/**
 * The most barcodes one page of a reservation or order list carries (each counted at its
 * most): about 170 KB of generated codes, 660 KB of the longest predefined ones, far below
 * the 4 MiB a gRPC message may have (docs/stock-moves.md "Bounded messages").
 */
export const BARCODES_PER_PAGE = 10 * MAX_UNITS_PER_ORDER;

/** The stock moves of PRODUCT.md 9, in the caller's effective company set. */
export class ReservationService {
  constructor(
    private readonly store: ReservationStore,
    private readonly creations: IdempotentCreation,
    private readonly engine: StockEngine,
    private readonly clock: Clock = systemClock,
  ) {}

  private readonly homes = new ReservationHomes();
  private readonly ticketHomes = new TicketHomes();

  /** The company of a ticket (deleted ones too), known without a read when this process saw it lately; undefined when there is none. */
  async companyOfTicket(ticketGuid: string): Promise<string | undefined> {
    const known = this.ticketHomes.company(ticketGuid);
    if (known) return known;
    const company = await this.store.companyOfTicket(ticketGuid);
    if (company) this.ticketHomes.remember(ticketGuid, company);
    return company;
  }

  /** The moves of a reservation by their rows in SALE_MOVES. */
  readonly moves: SaleMoves<Reservation> = {
    pending: (caller, request: MarkReservationPendingRequest) => this.markPending(caller, request),
    confirm: (caller, request: ConfirmReservationRequest) => this.confirm(caller, request),
    release: (caller, request: ReleaseReservationRequest) => this.release(caller, request),
    cancel: (caller, request: CancelReservationRequest) => this.cancel(caller, request),
  };

  /** Expires what is due on these tickets before they are read. */
  async settleDue(ticketGuids: readonly string[]): Promise<boolean> {
    const due = await this.store.ticketsWithDue(ticketGuids, this.clock.now());
    for (const guid of due) await retryingDeadlocks(() => this.engine.settle(guid));
    return due.length > 0;
  }

  private findTicket(caller: AuthenticatedCaller, guid: string): Promise<StockTicket> {
    return findInCompanies('Ticket', caller.companyIds, guid, (companyIds, id) => this.store.findTicket(companyIds, id));
  }

  private findReservation(caller: AuthenticatedCaller, guid: string): Promise<ReservationRecord> {
    return findInCompanies('Reservation', caller.companyIds, guid, (companyIds, id) => this.store.find(companyIds, id));
  }

  /** Where a reservation of the caller's companies lives (its ticket, its company): known without a read when this process made or moved it lately. */
  private async homeOf(caller: AuthenticatedCaller, guid: string): Promise<ReservationHome> {
    const known = this.homes.find(caller.companyIds, storedGuid(guid));
    if (known) return known;
    const found = await this.findReservation(caller, guid);
    this.homes.remember(found);
    return found;
  }

  /**
   * A reservation is checked under the ticket's lock, in its batch: before it queues only the
   * ticket's company is checked (known without a read once this process saw the ticket), so
   * another company's requests never wait in its queue. The checks keep their order: 404, then
   * 422 (amount and ttl together), then 409.
   */
  async reserve(caller: AuthenticatedCaller, request: ReserveTicketRequest): Promise<Reservation> {
    const prepare = async () => {
      const ticketGuid = storedGuid(request.ticket_id);
      const company = ticketGuid && (await this.companyOfTicket(ticketGuid));
      if (!ticketGuid || !company || !caller.companyIds.includes(company)) throw notFound('Ticket', request.ticket_id);
      const ttl = checkMoveField('ttl_seconds', RESERVE_FIELDS.ttl_seconds, request.ttl_seconds);
      const now = this.clock.now();
      const guid = newGuid();
      let record: LineRecord | undefined;
      const plan = (draft: StockDraft) => {
        const ticket = draft.ticket(ticketGuid, caller.companyIds);
        if (!ticket) throw notFound('Ticket', request.ticket_id);
        const violations = [...checkAmount(request.amount, ticket), ...ttl.violations];
        if (violations.length) throw RpcError.invalidArgument(violations);
        // A reservation carries no coupon: a ticket sold only with one is never reserved alone.
        refuseHidden(null, ticket);
        refuseUnlessOnSale(ticket, now);
        record = newLine(guid, ticket, request.amount, ttl.value, now, null);
        draft.create({ kind: 'reservation', line: record });
        this.homes.remember(record);
      };
      return {
        get result() {
          return reservationMessage(record!);
        },
        commit: (remembered?: () => Record<string, unknown>) =>
          this.engine.run({
            tickets: [ticketGuid],
            takesStock: true,
            plan: (draft) => {
              plan(draft);
              if (remembered) draft.remember(remembered());
            },
          }),
      };
    };
    const sameRequest = ReserveTicketRequest.encode({ ...request, ticket_id: storedGuid(request.ticket_id) ?? request.ticket_id, request_id: '' }).finish();
    return retryingDeadlocks(() =>
      this.creations.run({ caller, scope: 'ReserveTicket', requestId: request.request_id, request: [sameRequest], codec: Reservation }, prepare),
    );
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Reservation> {
    const found = await this.findReservation(caller, guid);
    if (isDue(found, this.clock.now()) && (await this.settleDue([found.ticket_id]))) {
      return reservationMessage(await this.findReservation(caller, guid));
    }
    return reservationMessage(found);
  }

  async list(caller: AuthenticatedCaller, request: ListReservationsRequest): Promise<ListReservationsResponse> {
    const ticket = await this.findTicket(caller, request.ticket_id);
    const state = stateFilter(request.state);
    const size = pageSize(request.page_size);
    const listKey = reservationListKey(ticket.guid, state ?? '');
    const after = decodePageToken(request.page_token, listKey);
    await this.settleDue([ticket.guid]);
    const { reservations, more } = await this.store.list(ticket.guid, state, after, size, BARCODES_PER_PAGE);
    return {
      reservations: reservations.map(reservationMessage),
      next_page_token: more ? encodePageToken(listKey, reservations[reservations.length - 1]!.id) : '',
    };
  }

  /** Every barcode of a reservation, page by page (its read carries at most MAX_UNITS_PER_ORDER). */
  async listBarcodes(caller: AuthenticatedCaller, request: ListReservationBarcodesRequest): Promise<ListReservationBarcodesResponse> {
    const reservation = await this.findReservation(caller, request.guid);
    const size = pageSize(request.page_size);
    const listKey = `barcodes:${reservation.guid}`;
    const rows = await this.store.barcodesOf(reservation.guid, decodePageToken(request.page_token, listKey), size + 1);
    const page = rows.slice(0, size);
    return { barcodes: page.map((row) => row.barcode), next_page_token: rows.length > size ? encodePageToken(listKey, page[page.length - 1]!.id) : '' };
  }

  /**
   * One move of an existing reservation (a row of MOVES) by the stock engine, in its ticket's
   * batch: under the ticket's lock, with its due reservations expired, the engine checks the
   * current state against the move's `from`; `issue` gives the barcodes a confirmation issues.
   */
  private async move(
    caller: AuthenticatedCaller,
    request: { guid: string; request_id?: string },
    move: SaleMove,
    options: {
      ttlSeconds?: number;
      violations?: FieldViolation[];
      issue?: (line: LineRecord, ticket: StockTicket) => IssuedCodes;
      /** Codes the move sends (their use within the event is read under the lock). */
      codes?: readonly string[];
      onTaken?: () => Error;
      /** A move the row alone does not say how to apply (a cancellation): how, instead of draft.move. */
      apply?: (draft: StockDraft, sale: ReservationSale) => ReservationSale;
    } = {},
  ): Promise<Reservation> {
    const { guid } = request;
    return this.creations.once(moveRequest(caller, moveRpc(move, 'Reservation'), request, Reservation), async (keep) => {
      const found = await this.homeOf(caller, guid);
      const scope = [found.company_id];
      const plan = (draft: StockDraft) => {
        const sale = draft.reservation(scope, found.guid);
        if (!sale || !draft.ticket(found.ticket_id, scope, { includeDeleted: true })) throw notFound('Reservation', guid);
        if (options.violations?.length) throw RpcError.invalidArgument(options.violations);
        const moved = options.apply ? options.apply(draft, sale) : draft.move(sale, move, { ttlSeconds: options.ttlSeconds, issue: options.issue });
        return draft.answer(reservationMessage(moved.line), keep);
      };
      return retryingDeadlocks(() =>
        this.engine.run({ tickets: [found.ticket_id], reads: { reservations: [found.guid], codes: options.codes }, plan, onTaken: options.onTaken, alone: runsAlone(move) }),
      );
    });
  }

  async markPending(caller: AuthenticatedCaller, request: MarkReservationPendingRequest): Promise<Reservation> {
    const ttl = checkMoveField('ttl_seconds', PENDING_FIELDS.ttl_seconds, request.ttl_seconds);
    return this.move(caller, request, 'pending', { ttlSeconds: ttl.value, violations: ttl.violations });
  }

  async confirm(caller: AuthenticatedCaller, request: ConfirmReservationRequest): Promise<Reservation> {
    return retryingBarcodeCollisions((generating) =>
      this.move(caller, request, 'confirm', {
        issue: (line, ticket) => {
          const violations = checkBarcodes(ticket.barcode_type, request.barcodes, line.amount);
          if (violations.length) throw RpcError.invalidArgument(violations);
          if (ticket.barcode_type === 'generate') generating();
          if (ticket.barcode_type === 'predefined') return { barcodes: request.barcodes, sent: true };
          return { barcodes: ticket.barcode_type === 'generate' ? Array.from({ length: line.amount }, generateBarcode) : [] };
        },
        codes: request.barcodes.slice(0, MAX_UNITS_PER_ORDER),
        // Taken meanwhile by a confirmation of another ticket of the event (not under this ticket's lock).
        onTaken: request.barcodes.length > 0 ? () => stockConflict('barcode_taken') : undefined,
      }),
    );
  }

  async release(caller: AuthenticatedCaller, request: ReleaseReservationRequest): Promise<Reservation> {
    return this.move(caller, request, 'release');
  }

  /** Cancels the reservation or some of its barcodes (docs/cancellations.md). */
  async cancel(caller: AuthenticatedCaller, request: CancelReservationRequest): Promise<Reservation> {
    const checked = checkCancelRequest(request);
    return this.move(caller, request, 'cancel', { violations: checked.violations, apply: (draft, sale) => cancelSale(draft, sale, checked.request) });
  }

  async scan(caller: AuthenticatedCaller, request: ScanBarcodeRequest): Promise<Scan> {
    const { violations } = checkMoveField('barcode', SCAN_REQUEST_FIELDS.barcode, request.barcode);
    if (violations.length) throw RpcError.invalidArgument(violations);
    const eventGuid = storedGuid(request.event_id);
    if (!eventGuid) throw notFound('Event', request.event_id);
    return this.creations.once(moveRequest(caller, 'ScanBarcode', request, Scan), async (keep) => {
      const found = await this.store.findBarcode(caller.companyIds, eventGuid, request.barcode);
      if (!found) throw notFound('Barcode', request.barcode);
      const plan = (draft: StockDraft) => {
        const ticket = draft.ticket(found.ticket_id, caller.companyIds, { includeDeleted: true });
        const barcode = draft.barcode(found.id);
        if (!ticket || !barcode) throw notFound('Barcode', request.barcode);
        return draft.answer(scanMessage(draft.scan(barcode, ticket.company_id)), keep);
      };
      return retryingDeadlocks(() => this.engine.run({ tickets: [found.ticket_id], reads: { barcodes: [found.id] }, plan }));
    });
  }
}
