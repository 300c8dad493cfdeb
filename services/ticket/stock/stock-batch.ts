import { isMysql, type Knex } from '../../../lib/db.js';
import { MAX_UNITS_PER_ORDER } from '../../../lib/fields/reservation.js';
import type { Holder } from '../../../lib/fields/holder.js';
import { sumDeltas, type Counter, type CounterDelta } from '../../../lib/stock-moves.js';
import type { ReservationRecord } from '../sales/reservation-fields.js';
import type { ReservationState } from '../../../lib/fields/reservation.js';
import { outboxRows, type Change } from '../store/outbox-store.js';
import { barcodeRows, counterUpdate, reservationRow, toReservation, type ReservationStore, type StockTicket } from '../store/reservation-store.js';
import { toRecord as toStockTicket } from '../store/ticket-store.js';
import { changedMeanwhile } from '../common/write-conflicts.js';

type Row = Record<string, unknown>;

/** Tables a batch inserts into, in the order it writes them (a barcode's reservation first). */
const INSERT_ORDER = ['reservations', 'barcodes', 'webhook_events', 'idempotency_keys'] as const;
export type BatchTable = (typeof INSERT_ORDER)[number];

/** Rows per multi-row INSERT (MySQL's packet and SQLite's bound-variable limits stay far off). */
const ROWS_PER_INSERT = 200;

interface StateChange {
  guid: string;
  /** The state the row must still be in when the batch writes (its state when the batch read it). */
  from: ReservationState;
  to: ReservationState;
  expiresAt: Date | null;
}

/**
 * One move's writes while it is checked: kept apart until the move is accepted, so a refused
 * move leaves nothing in the batch (what a savepoint did for a move run statement by statement).
 */
export class MoveDraft {
  readonly counters: CounterDelta[] = [];
  readonly inserts: Array<{ table: BatchTable; row: Row }> = [];
  readonly states: StateChange[] = [];
  readonly moved: ReservationRecord[] = [];
  readonly changes: Change[] = [];

  constructor(private readonly batch: StockBatch) {}

  get now(): Date {
    return this.batch.now;
  }

  /** The batch's ticket as this move sees it (after the moves accepted before it), if visible to `companyIds`; a deleted one only with `includeDeleted`. */
  ticket(companyIds: readonly string[], options: { includeDeleted?: boolean } = {}): StockTicket | undefined {
    const ticket = this.batch.ticket;
    if (!ticket || !companyIds.includes(ticket.company_id)) return undefined;
    if (ticket.deleted_at && !options.includeDeleted) return undefined;
    return ticket;
  }

  /** A reservation the batch read (as the moves before this one left it), within `companyIds`. */
  reservation(companyIds: readonly string[], guid: string): ReservationRecord | undefined {
    const found = this.batch.reservations.get(guid);
    return found && companyIds.includes(found.company_id) ? found : undefined;
  }

  moveCounters(delta: CounterDelta): void {
    this.counters.push(delta);
  }

  insert(table: BatchTable, row: Row): void {
    this.inserts.push({ table, row });
  }

  insertReservation(record: Omit<ReservationRecord, 'id'>, orderId: string | null = null): void {
    this.insert('reservations', { ...reservationRow(record), order_id: orderId });
  }

  /** Moves a reservation to `to` (a live state holds the stock for `ttlSeconds` from now); the record as it now is. */
  changeState(current: ReservationRecord, to: ReservationState, ttlSeconds: number | null): ReservationRecord {
    const expiresAt = ttlSeconds === null ? null : new Date(this.now.getTime() + ttlSeconds * 1000);
    this.states.push({ guid: current.guid, from: current.state, to, expiresAt });
    const moved = { ...current, state: to, expires_at: expiresAt, updated_at: this.now };
    this.moved.push(moved);
    return moved;
  }

  /** Issues barcodes to a reservation (the i-th with `holders[i]`); the record with them, as a read shows it. */
  insertBarcodes(reservation: ReservationRecord, barcodes: readonly string[], holders: ReadonlyArray<Holder | null> = []): ReservationRecord {
    for (const row of barcodeRows(reservation, barcodes, this.now, holders)) this.insert('barcodes', row);
    const issued = { ...reservation, barcodes: [...reservation.barcodes, ...barcodes].slice(0, MAX_UNITS_PER_ORDER) };
    this.moved.push(issued);
    return issued;
  }

  /** The move's webhook event (the outbox row is written with the batch, its created_at taken then). */
  record(change: Change): void {
    this.changes.push(change);
  }
}

/**
 * The stock moves of one ticket written together (docs/stock-moves.md "Hot tickets: batched
 * moves"): opened inside a transaction, it locks the ticket's row once, expires what is due
 * once, and reads every reservation the moves name in one query. Each move is then checked in
 * memory against what the moves before it left (a MoveDraft) and, when accepted, its writes join
 * the batch's; `flush` writes them all: one counter UPDATE, one UPDATE per kind of state change,
 * one multi-row INSERT per table. The row lock, held to the commit, keeps the view exact.
 */
export class StockBatch {
  ticket: StockTicket | undefined;
  readonly reservations = new Map<string, ReservationRecord>();
  private readonly counters: CounterDelta[] = [];
  private readonly inserts = new Map<BatchTable, Row[]>();
  private readonly states = new Map<string, StateChange>();
  private readonly changes: Change[] = [];
  /** Moves that changed the counters: the ticket's version moves once for each, as for moves one by one. */
  private versionBumps = 0;

  private constructor(
    private readonly trx: Knex,
    readonly now: Date,
  ) {}

  static async open(trx: Knex, store: ReservationStore, ticketGuid: string, reservationGuids: readonly string[], now: Date): Promise<StockBatch> {
    const batch = new StockBatch(trx, now);
    const query = trx('tickets').where('guid', ticketGuid).first();
    if (isMysql(trx)) query.forUpdate();
    const row = (await query) as Row | undefined;
    if (!row) return batch;
    batch.ticket = toStockTicket(row);
    await store.expireDue(trx, batch.ticket, now);
    const guids = [...new Set(reservationGuids)];
    if (guids.length > 0) {
      const rows = (await trx('reservations').where('ticket_id', ticketGuid).whereIn('guid', guids)) as Row[];
      for (const found of rows) batch.reservations.set(found.guid as string, toReservation(found));
    }
    return batch;
  }

  draft(): MoveDraft {
    return new MoveDraft(this);
  }

  /** The move passed its checks: its writes join the batch, and the next moves see its effect. */
  accept(draft: MoveDraft): void {
    const delta = sumDeltas(draft.counters);
    if (draft.counters.length > 0 && this.ticket) {
      for (const [counter, by] of Object.entries(delta) as Array<[Counter, number]>) this.ticket[counter] += by;
      this.ticket.version++;
      this.versionBumps++;
      this.counters.push(delta);
    }
    for (const { table, row } of draft.inserts) this.inserts.set(table, [...(this.inserts.get(table) ?? []), row]);
    for (const change of draft.states) {
      const earlier = this.states.get(change.guid);
      this.states.set(change.guid, { ...change, from: earlier?.from ?? change.from });
    }
    for (const record of draft.moved) this.reservations.set(record.guid, record);
    this.changes.push(...draft.changes);
  }

  /**
   * Writes what the accepted moves did. A state change is conditional on the state the batch
   * read: a row changed meanwhile (only an order expiring from another ticket can) fails the
   * batch, whose moves then run alone. A unique violation (a barcode or an idempotency key
   * taken) fails it too.
   */
  async flush(): Promise<void> {
    const trx = this.trx;
    if (this.ticket && this.versionBumps > 0) {
      await trx('tickets').where('id', this.ticket.id).update({ ...counterUpdate(trx, sumDeltas(this.counters)), version: trx.raw('version + ?', [this.versionBumps]) });
    }
    const groups = new Map<string, StateChange[]>();
    for (const change of this.states.values()) {
      const key = `${change.from}>${change.to}@${change.expiresAt?.getTime() ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), change]);
    }
    for (const changes of groups.values()) {
      const { from, to, expiresAt } = changes[0]!;
      const guids = changes.map((change) => change.guid);
      const count = await trx('reservations')
        .whereIn('guid', guids)
        .where('state', from)
        .update(reservationRow({ state: to, expires_at: expiresAt, updated_at: this.now }));
      if (count !== guids.length) throw changedMeanwhile('reservation');
    }
    const rows = new Map(this.inserts);
    if (this.changes.length > 0) rows.set('webhook_events', [...(rows.get('webhook_events') ?? []), ...outboxRows(this.changes, new Date())]);
    for (const table of INSERT_ORDER) {
      const all = rows.get(table) ?? [];
      for (let i = 0; i < all.length; i += ROWS_PER_INSERT) await trx(table).insert(all.slice(i, i + ROWS_PER_INSERT));
    }
  }
}
