import { status } from '@grpc/grpc-js';
import { isUniqueViolation, type Knex } from '../../lib/db.js';
import {
  ReserveTicketRequest,
  Reservation,
  type ConfirmReservationRequest,
  type ListReservationBarcodesRequest,
  type ListReservationBarcodesResponse,
  type ListReservationsRequest,
  type ListReservationsResponse,
  type MarkReservationPendingRequest,
  type ReleaseReservationRequest,
  type Scan,
  type ScanBarcodeRequest,
} from '../../lib/gen/ticketing/v1/reservation.js';
import { fromMessageField } from '../../lib/fields/messages.js';
import { isDue, MAX_UNITS_PER_ORDER, PENDING_FIELDS, RESERVATION_FIELDS, RESERVATION_STATES, RESERVE_FIELDS, SCAN_REQUEST_FIELDS, type ReservationState } from '../../lib/fields/reservation.js';
import { remainingStock, ticketStatus } from '../../lib/fields/ticket.js';
import { RpcError } from '../../lib/grpc/errors.js';
import { newGuid } from '../../lib/ids.js';
import { insufficientStock, stockConflict } from '../../lib/stock-conflicts.js';
import { formatTimestamp } from '../../lib/time.js';
import { notInEnum } from './domain/field-checks.js';
import type { AuthenticatedCaller } from './auth-check.js';
import { decodePageToken, encodePageToken, pageSize } from './domain/paging.js';
import type { ReservationRecord } from './domain/reservation-fields.js';
import { checkAmount, checkBarcodes, checkMoveField, generateBarcode } from './domain/reservation-rules.js';
import type { IdempotentCreation } from './idempotent-creation.js';
import { reservationMessage, scanMessage } from './reservation-messages.js';
import { findInCompanies, notFound } from './find-in-companies.js';
import { storedGuid } from './request-guid.js';
import { retryingDeadlocks } from './store/deadlocks.js';
import { newReservation, type ReservationStore, type StockTicket } from './store/reservation-store.js';
import { reservationChange, scanChange } from './change-events.js';
import { recordChange } from './store/outbox-store.js';

const reservationListKey = (ticketGuid: string, state: string) => `reservations:${ticketGuid}:${state}`;

/**
 * The most barcodes one page of a reservation list carries (each reservation counted at its
 * most): about 170 KB of generated codes, 660 KB of the longest predefined ones, far below
 * the 4 MiB a gRPC message may have (docs/stock-moves.md "Bounded messages").
 */
const BARCODES_PER_PAGE = 10 * MAX_UNITS_PER_ORDER;

/** How often a confirmation is retried when a generated barcode collides (about 2^-79 each). */
const BARCODE_ATTEMPTS = 3;

/** Only a ticket whose computed status is `available` can be reserved; a sold_out by the counters is a stock refusal. */
function refuseUnlessOnSale(ticket: StockTicket, now: Date): void {
  const computed = ticketStatus(ticket, now);
  if (computed === 'available') return;
  if (computed === 'sold_out' && ticket.status_overrule === 'auto') throw insufficientStock(remainingStock(ticket));
  throw stockConflict('not_on_sale');
}

function requireState(current: ReservationRecord, allowed: readonly ReservationState[], move: string): void {
  if (current.state === 'expired') throw stockConflict('reservation_expired');
  if (!allowed.includes(current.state)) throw stockConflict('invalid_transition', `A ${current.state} reservation cannot be ${move}.`);
}


/** The stock moves of PRODUCT.md 9, in the caller's effective company set. */
export class ReservationService {
  constructor(
    private readonly store: ReservationStore,
    private readonly creations: IdempotentCreation,
  ) {}

  /** Expires what is due on these tickets before they are read. */
  async settleDue(ticketGuids: readonly string[]): Promise<boolean> {
    const due = await this.store.ticketsWithDue(ticketGuids, new Date());
    for (const guid of due) await retryingDeadlocks(() => this.store.settle(guid));
    return due.length > 0;
  }

  private findTicket(caller: AuthenticatedCaller, guid: string): Promise<StockTicket> {
    return findInCompanies('Ticket', caller.companyIds, guid, (companyIds, id) => this.store.findTicket(companyIds, id));
  }

  private findReservation(caller: AuthenticatedCaller, guid: string): Promise<ReservationRecord> {
    return findInCompanies('Reservation', caller.companyIds, guid, (companyIds, id) => this.store.find(companyIds, id));
  }

  async reserve(caller: AuthenticatedCaller, request: ReserveTicketRequest): Promise<Reservation> {
    const prepare = async () => {
      const ticket = await this.findTicket(caller, request.ticket_id);
      const ttl = checkMoveField('ttl_seconds', RESERVE_FIELDS.ttl_seconds, request.ttl_seconds);
      const violations = [...checkAmount(request.amount, ticket), ...ttl.violations];
      if (violations.length) throw RpcError.invalidArgument(violations);
      const now = new Date();
      const record = newReservation({ guid: newGuid(), ticket, amount: request.amount, ttlSeconds: ttl.value, now });
      const write = async (trx: Knex) => {
        const locked = await this.store.lockTicket(trx, caller.companyIds, ticket.guid);
        if (!locked) throw notFound('Ticket', request.ticket_id);
        await this.store.expireDue(trx, locked, now);
        refuseUnlessOnSale(locked, now);
        const amountViolations = checkAmount(request.amount, locked);
        if (amountViolations.length) throw RpcError.invalidArgument(amountViolations);
        if (!(await this.store.take(trx, locked, request.amount))) throw insufficientStock(remainingStock(locked));
        await this.store.insert(trx, record);
        await recordChange(trx, reservationChange(record, true));
      };
      return { result: reservationMessage(record), write };
    };
    const sameRequest = ReserveTicketRequest.encode({ ...request, ticket_id: storedGuid(request.ticket_id) ?? request.ticket_id, request_id: '' }).finish();
    return retryingDeadlocks(() =>
      this.creations.run({ caller, scope: 'ReserveTicket', requestId: request.request_id, request: [sameRequest], codec: Reservation }, prepare),
    );
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Reservation> {
    const found = await this.findReservation(caller, guid);
    if (isDue(found, new Date()) && (await this.settleDue([found.ticket_id]))) {
      return reservationMessage(await this.findReservation(caller, guid));
    }
    return reservationMessage(found);
  }

  async list(caller: AuthenticatedCaller, request: ListReservationsRequest): Promise<ListReservationsResponse> {
    const ticket = await this.findTicket(caller, request.ticket_id);
    // Unset: every state; a number the enum lacks (UNSPECIFIED among them) is refused.
    const state = request.state === undefined ? undefined : (fromMessageField(RESERVATION_FIELDS.state, request.state) as ReservationState | null);
    if (state === null) throw RpcError.invalidArgument([{ field: 'state', description: notInEnum(RESERVATION_STATES) }]);
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
   * One move of an existing reservation: in one transaction, the ticket is locked, its due
   * reservations expire, and `apply` checks the reservation's current state and moves it.
   */
  private async move(
    caller: AuthenticatedCaller,
    guid: string,
    apply: (trx: Knex, ticket: StockTicket, current: ReservationRecord, now: Date) => Promise<void>,
  ): Promise<Reservation> {
    const found = await this.findReservation(caller, guid);
    const scope = [found.company_id];
    return retryingDeadlocks(() =>
      this.store.transaction(async (trx) => {
        const now = new Date();
        const ticket = await this.store.lockTicket(trx, scope, found.ticket_id, { includeDeleted: true });
        if (!ticket) throw notFound('Reservation', guid);
        await this.store.expireDue(trx, ticket, now);
        await apply(trx, ticket, (await this.store.find(scope, found.guid, trx))!, now);
        const moved = (await this.store.find(scope, found.guid, trx))!;
        await recordChange(trx, reservationChange(moved));
        return reservationMessage(moved);
      }),
    );
  }

  private async changeState(trx: Knex, ticket: StockTicket, current: ReservationRecord, to: ReservationState, ttlSeconds: number | null, now: Date): Promise<void> {
    if (!(await this.store.changeState(trx, current.guid, current.state, to, ttlSeconds, now))) {
      throw new RpcError(status.ABORTED, 'The reservation changed meanwhile; try again.');
    }
    await this.store.moveCounters(trx, ticket, current.amount, current.state, to);
  }

  async markPending(caller: AuthenticatedCaller, request: MarkReservationPendingRequest): Promise<Reservation> {
    const ttl = checkMoveField('ttl_seconds', PENDING_FIELDS.ttl_seconds, request.ttl_seconds);
    return this.move(caller, request.guid, async (trx, ticket, current, now) => {
      if (ttl.violations.length) throw RpcError.invalidArgument(ttl.violations);
      requireState(current, ['reserved'], 'marked pending');
      await this.changeState(trx, ticket, current, 'pending', ttl.value, now);
    });
  }

  async confirm(caller: AuthenticatedCaller, request: ConfirmReservationRequest): Promise<Reservation> {
    for (let attempt = 1; ; attempt++) {
      let generated = false;
      try {
        return await this.move(caller, request.guid, async (trx, ticket, current, now) => {
          requireState(current, ['reserved', 'pending'], 'confirmed');
          const violations = checkBarcodes(ticket.barcode_type, request.barcodes, current.amount);
          if (violations.length) throw RpcError.invalidArgument(violations);
          generated = ticket.barcode_type === 'generate';
          const barcodes = generated ? Array.from({ length: current.amount }, generateBarcode) : ticket.barcode_type === 'predefined' ? request.barcodes : [];
          await this.changeState(trx, ticket, current, 'confirmed', null, now);
          await this.store.insertBarcodes(trx, current, barcodes, now);
        });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (!generated) throw stockConflict('barcode_taken', 'A barcode is already in use within this event.');
        if (attempt >= BARCODE_ATTEMPTS) throw err;
      }
    }
  }

  async release(caller: AuthenticatedCaller, request: ReleaseReservationRequest): Promise<Reservation> {
    return this.move(caller, request.guid, async (trx, ticket, current, now) => {
      requireState(current, ['reserved', 'pending'], 'released');
      await this.changeState(trx, ticket, current, 'released', null, now);
    });
  }

  async scan(caller: AuthenticatedCaller, request: ScanBarcodeRequest): Promise<Scan> {
    const { violations } = checkMoveField('barcode', SCAN_REQUEST_FIELDS.barcode, request.barcode);
    if (violations.length) throw RpcError.invalidArgument(violations);
    const eventGuid = storedGuid(request.event_id);
    if (!eventGuid) throw notFound('Event', request.event_id);
    const found = await this.store.findBarcode(caller.companyIds, eventGuid, request.barcode);
    if (!found) throw notFound('Barcode', request.barcode);
    return retryingDeadlocks(() =>
      this.store.transaction(async (trx) => {
        const now = new Date();
        const ticket = await this.store.lockTicket(trx, caller.companyIds, found.ticket_id, { includeDeleted: true });
        if (!ticket) throw notFound('Barcode', request.barcode);
        if (!(await this.store.scan(trx, found, ticket, now))) {
          const first = await this.store.findBarcode(caller.companyIds, eventGuid, request.barcode, trx);
          const scannedAt = formatTimestamp(first?.scanned_at) ?? '';
          throw stockConflict('already_scanned', `The barcode was already scanned at ${scannedAt}.`, { scanned_at: scannedAt });
        }
        const scan = { ...found, scanned_at: now };
        await recordChange(trx, scanChange(ticket.company_id, scan));
        return scanMessage(scan);
      }),
    );
  }
}
