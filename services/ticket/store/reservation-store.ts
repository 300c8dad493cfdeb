import { fromDbTime, isMysql, type Knex } from '../../../lib/db.js';
import { storedFields } from '../../../lib/fields/kinds.js';
import { LIVE_STATES, MAX_UNITS_PER_ORDER, RESERVATION_FIELDS, type ReservationState } from '../../../lib/fields/reservation.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import { holdsStock } from '../../../lib/fields/ticket.js';
import type { Holder } from '../../../lib/fields/holder.js';
import type { ReservationRecord } from '../sales/reservation-fields.js';
import type { TicketRecord } from '../catalogue/ticket-fields.js';
import { toRecord as toStockTicket } from './ticket-store.js';
import { dbTime } from './sql.js';
import { orderChange, reservationChange } from '../webhooks/change-events.js';
import { readOrders } from './order-store.js';
import { counterDelta, MOVES, sumDeltas, type Counter, type CounterDelta } from '../../../lib/stock-moves.js';
import { recordChanges } from './outbox-store.js';

type Raw = Record<string, unknown>;

/** What a move needs of its ticket (the whole record), read under the ticket's row lock. */
export type StockTicket = TicketRecord;

export function toReservation(row: Raw, barcodes: string[] = []): ReservationRecord {
  return { ...valuesFromRow<Omit<ReservationRecord, 'id' | 'barcodes'>>(RESERVATION_FIELDS, row), barcodes, id: Number(row.id) };
}

/** The stored fields of a reservation as columns. */
export function reservationRow(values: Partial<ReservationRecord>): Raw {
  const stored = storedFields(RESERVATION_FIELDS).filter((field) => values[field] !== undefined);
  return rowFromValues(RESERVATION_FIELDS, Object.fromEntries(stored.map((field) => [field, values[field]])));
}

export interface NewReservation {
  guid: string;
  ticket: StockTicket;
  amount: number;
  /** How long it holds the stock. */
  ttlSeconds: number;
  now: Date;
}

const secondsFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/** A new reservation of the ticket's stock, as it will be stored (its message is the creation answer). */
export function newReservation({ guid, ticket, amount, ttlSeconds, now }: NewReservation): Omit<ReservationRecord, 'id'> {
  return {
    guid,
    company_id: ticket.company_id,
    event_id: ticket.event_id,
    ticket_id: ticket.guid,
    amount,
    state: 'reserved',
    expires_at: secondsFrom(now, ttlSeconds),
    barcodes: [],
    created_at: now,
    updated_at: now,
  };
}

/** Live reservations whose expiry has passed by `now` (the condition of every expiry). */
function due<Q extends Knex.QueryBuilder>(query: Q, now: Date): Q {
  return query.whereIn('state', [...LIVE_STATES]).where('expires_at', '<=', dbTime(now)) as Q;
}

/** The SET of an UPDATE of a ticket by a counter delta; every move bumps the version (its ETag changes with its counters). */
export function counterUpdate(trx: Knex, delta: CounterDelta): Record<string, Knex.Raw> {
  const set: Record<string, Knex.Raw> = { version: trx.raw('version + 1') };
  for (const [counter, by] of Object.entries(delta) as Array<[Counter, number]>) set[counter] = trx.raw(`${counter} + ?`, [by]);
  return set;
}

/** Barcodes per INSERT of a confirmation: small enough that one statement never holds the event loop long. */
const BARCODE_BATCH = 100;

/** The first MAX_UNITS_PER_ORDER barcodes of each reservation, in issue order (one reservation: a plain LIMIT; several: ranked per reservation). */
async function firstBarcodes(db: Knex, reservationGuids: string[]): Promise<Raw[]> {
  const columns = ['reservation_id', 'barcode', 'holder_name', 'holder_email'];
  if (reservationGuids.length === 1) {
    return (await db('barcodes').where('reservation_id', reservationGuids[0]!).orderBy('id').limit(MAX_UNITS_PER_ORDER).select(columns)) as Raw[];
  }
  const ranked = db('barcodes')
    .whereIn('reservation_id', reservationGuids)
    .select('id', ...columns, db.raw('row_number() over (partition by reservation_id order by id) as n'));
  return (await db.from(ranked.as('ranked')).where('n', '<=', MAX_UNITS_PER_ORDER).orderBy('id').select(columns)) as Raw[];
}

export interface BarcodeRow {
  id: number;
  barcode: string;
  ticket_id: string;
  reservation_id: string;
  /** The order that sold it, or the reservation's own guid when it was sold alone. */
  order_id: string;
  holder: Holder | null;
  scanned_at: Date | null;
}

/** A reservation or order line with the holders of its barcodes (null: none named), in the barcodes' order. */
export type LineRecord = ReservationRecord & { holders: Array<Holder | null> };

/** The holder of a barcode row: both columns set, or none. */
const holderOf = (row: Raw): Holder | null => (row.holder_name == null ? null : { name: row.holder_name as string, email: row.holder_email as string });

const holderColumns = (holder: Holder | null) => ({ holder_name: holder?.name ?? null, holder_email: holder?.email ?? null });

/** What a scan and a holder change read of a barcode: its reservation's order too. */
const BARCODE_COLUMNS = [
  'barcodes.id',
  'barcodes.barcode',
  'barcodes.ticket_id',
  'barcodes.reservation_id',
  'barcodes.scanned_at',
  'barcodes.holder_name',
  'barcodes.holder_email',
  'reservations.order_id',
];

function toBarcodeRow(row: Raw): BarcodeRow {
  return {
    id: Number(row.id),
    barcode: row.barcode as string,
    ticket_id: row.ticket_id as string,
    reservation_id: row.reservation_id as string,
    order_id: (row.order_id as string | null) ?? (row.reservation_id as string),
    holder: holderOf(row),
    scanned_at: fromDbTime(row.scanned_at as string | null) ?? null,
  };
}

/** The rows of barcodes issued to a reservation, the i-th with `holders[i]` (none when absent). */
export function barcodeRows(reservation: Omit<ReservationRecord, 'id'>, barcodes: readonly string[], now: Date, holders: ReadonlyArray<Holder | null> = []): Raw[] {
  return barcodes.map((barcode, i) => ({
    ...holderColumns(holders[i] ?? null),
    company_id: reservation.company_id,
    event_id: reservation.event_id,
    ticket_id: reservation.ticket_id,
    reservation_id: reservation.guid,
    barcode,
    scanned_at: null,
    created_at: dbTime(now),
  }));
}

/**
 * All SQL of the stock moves. Every move runs in one transaction that first locks the
 * ticket's row (SELECT ... FOR UPDATE on MySQL; SQLite serializes writers anyway), then
 * expires the ticket's due reservations, then changes the reservation and the ticket's
 * counters together. Lock order is always ticket, then reservations, then barcodes.
 */
export class ReservationStore {
  constructor(private readonly db: Knex) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The ticket (live only unless `includeDeleted`), locked for the rest of the transaction. */
  async lockTicket(trx: Knex, companyIds: readonly string[], guid: string, options: { includeDeleted?: boolean } = {}): Promise<StockTicket | undefined> {
    const query = trx('tickets').whereIn('company_id', [...companyIds]).where('guid', guid).first();
    if (!options.includeDeleted) query.whereNull('deleted_at');
    if (isMysql(trx)) query.forUpdate();
    const row = await query;
    return row ? toStockTicket(row as Raw) : undefined;
  }

  async findTicket(companyIds: readonly string[], guid: string): Promise<StockTicket | undefined> {
    const row = await this.db('tickets').whereIn('company_id', [...companyIds]).where('guid', guid).whereNull('deleted_at').first();
    return row ? toStockTicket(row as Raw) : undefined;
  }

  /**
   * Inside a transaction holding the ticket's lock: every reserved or pending reservation of
   * the ticket whose expires_at has passed becomes expired and its amount leaves the
   * counters. Updates `ticket` in place; returns how many expired.
   */
  async expireDue(trx: Knex, ticket: StockTicket, now: Date): Promise<number> {
    // The counters equal the sums of the live reservations: none held, none to expire.
    if (!holdsStock(ticket)) return 0;
    const due = (await this.dueOf(trx, ticket.guid, now).select()) as Raw[];
    if (due.length === 0) return 0;
    const to = MOVES.expire.to;
    const expiring = [...due, ...(await this.otherLinesOfOrders(trx, due, ticket.guid))];
    await trx('reservations')
      .whereIn('id', expiring.map((row) => Number(row.id)))
      .update(reservationRow({ state: to, updated_at: now }));
    const freed = (rows: Raw[]) => sumDeltas(rows.map((row) => counterDelta(row.state as ReservationState, to, Number(row.amount))));
    await this.moveCounters(trx, ticket, freed(due));
    const elsewhere = new Map<string, Raw[]>();
    for (const row of expiring.slice(due.length)) elsewhere.set(row.ticket_id as string, [...(elsewhere.get(row.ticket_id as string) ?? []), row]);
    for (const [ticketGuid, rows] of elsewhere) await trx('tickets').where('guid', ticketGuid).update(counterUpdate(trx, freed(rows)));
    // An order line is no reservation to the outside: its order records one order.expired for all its lines.
    const alone = expiring.filter((row) => row.order_id === null || row.order_id === undefined);
    const orderIds = [...new Set(expiring.map((row) => row.order_id).filter((id): id is string => typeof id === 'string'))];
    await recordChanges(trx, [
      ...alone.map((row) => reservationChange({ ...toReservation(row), state: to, updated_at: now }, 'expire')),
      ...(await readOrders(trx, this, orderIds)).map((order) => orderChange(order, 'expire')),
    ]);
    return expiring.length;
  }

  /**
   * The live lines on other tickets of the orders that `due` lines belong to: an order expires
   * whole (PRODUCT.md 12), so they expire with them, in the same transaction. (Its lines share
   * one expires_at, so they are due too; this only keeps a reader of the database from ever
   * seeing part of an order expired.) Their tickets' rows are locked by the counter update,
   * after this ticket's: a MySQL deadlock with a move on them is retried (store/deadlocks.ts).
   */
  private async otherLinesOfOrders(trx: Knex, due: readonly Raw[], ticketGuid: string): Promise<Raw[]> {
    const orderIds = [...new Set(due.map((row) => row.order_id).filter((id): id is string => typeof id === 'string'))];
    if (orderIds.length === 0) return [];
    return (await trx('reservations')
      .whereIn('order_id', orderIds)
      .whereNot('ticket_id', ticketGuid)
      .whereIn('state', [...LIVE_STATES])
      .select()) as Raw[];
  }

  private dueOf(db: Knex, ticketGuid: string, now: Date) {
    return due(db('reservations').where('ticket_id', ticketGuid), now);
  }

  /** Of these tickets, those with a due reservation (one indexed query). */
  async ticketsWithDue(ticketGuids: readonly string[], now: Date): Promise<string[]> {
    if (ticketGuids.length === 0) return [];
    const rows = (await due(this.db('reservations').whereIn('ticket_id', [...ticketGuids]), now).distinct('ticket_id')) as Raw[];
    return rows.map((row) => row.ticket_id as string);
  }

  /** Any tickets with a due reservation, for the sweeper. */
  async anyTicketsWithDue(now: Date, limit: number): Promise<string[]> {
    const rows = (await due(this.db('reservations'), now).distinct('ticket_id').limit(limit)) as Raw[];
    return rows.map((row) => row.ticket_id as string);
  }

  /** Expires the due reservations of one ticket in a transaction of its own; how many expired. */
  async settle(ticketGuid: string, now: Date = new Date()): Promise<number> {
    return this.db.transaction(async (trx) => {
      const query = trx('tickets').where('guid', ticketGuid).first();
      if (isMysql(trx)) query.forUpdate();
      const row = await query;
      return row ? this.expireDue(trx, toStockTicket(row as Raw), now) : 0;
    });
  }

  /**
   * Takes `amount` from the ticket's stock: one conditional UPDATE that cannot take stock
   * that is not there. False when there is not enough.
   */
  async take(trx: Knex, ticket: StockTicket, amount: number): Promise<boolean> {
    const count = await trx('tickets')
      .where('id', ticket.id)
      .whereRaw('available_stock - availability_margin - sold_count - reserved_count - pending_count >= ?', [amount])
      .update(counterUpdate(trx, counterDelta(null, MOVES.reserve.to, amount)));
    return count === 1;
  }

  /** Changes the ticket's counters by a move's delta (lib/stock-moves.ts), bumping its version. */
  async moveCounters(trx: Knex, ticket: StockTicket, delta: CounterDelta): Promise<void> {
    await trx('tickets').where('id', ticket.id).update(counterUpdate(trx, delta));
    for (const [counter, by] of Object.entries(delta) as Array<[Counter, number]>) ticket[counter] += by;
  }

  /** A new reservation; `orderId` when it is a line of an order. */
  async insert(trx: Knex, record: Omit<ReservationRecord, 'id'>, orderId: string | null = null): Promise<void> {
    await trx('reservations').insert({ ...reservationRow(record), order_id: orderId });
  }

  /** The lines of an order in the order they were given, with their barcodes and holders. */
  async linesOf(orderGuid: string, db: Knex = this.db): Promise<LineRecord[]> {
    return (await this.linesOfOrders([orderGuid], db)).get(orderGuid) ?? [];
  }

  /** The lines of several orders in one read, by order guid, each in the order given. */
  async linesOfOrders(orderGuids: readonly string[], db: Knex = this.db): Promise<Map<string, LineRecord[]>> {
    const byOrder = new Map<string, LineRecord[]>();
    if (!orderGuids.length) return byOrder;
    const rows = (await db('reservations').whereIn('order_id', [...orderGuids]).orderBy('id')) as Raw[];
    for (const [i, line] of (await this.withBarcodes(rows, db)).entries()) {
      const order = rows[i]!.order_id as string;
      byOrder.set(order, [...(byOrder.get(order) ?? []), line]);
    }
    return byOrder;
  }

  /** One reservation with its barcodes; `trx` to read it inside a move. */
  async find(companyIds: readonly string[], guid: string, db: Knex = this.db): Promise<ReservationRecord | undefined> {
    const row = (await db('reservations').whereIn('company_id', [...companyIds]).where('guid', guid).first()) as Raw | undefined;
    if (!row) return undefined;
    return (await this.withBarcodes([row], db))[0];
  }

  /**
   * The next reservations of a ticket after id `afterId`, in creation order: at most `limit`,
   * and no more than fit in `barcodeBudget` barcodes (each reservation counted at its most,
   * min(amount, MAX_UNITS_PER_ORDER), which its read carries), but always at least one.
   * `more`: the list goes on after the last one.
   */
  async list(
    ticketGuid: string,
    state: ReservationState | undefined,
    afterId: number,
    limit: number,
    barcodeBudget: number,
  ): Promise<{ reservations: ReservationRecord[]; more: boolean }> {
    const query = this.db('reservations').where('ticket_id', ticketGuid).where('id', '>', afterId);
    if (state) query.where('state', state);
    const rows = (await query.orderBy('id').limit(limit + 1)) as Raw[];
    let carried = 0;
    let fit = 0;
    for (const row of rows.slice(0, limit)) {
      carried += row.state === 'confirmed' ? Math.min(Number(row.amount), MAX_UNITS_PER_ORDER) : 0;
      if (fit > 0 && carried > barcodeBudget) break;
      fit++;
    }
    return { reservations: await this.withBarcodes(rows.slice(0, fit), this.db), more: rows.length > fit };
  }

  /** The barcodes of a reservation after id `afterId`, in issue order, at most `limit`. */
  async barcodesOf(reservationGuid: string, afterId: number, limit: number): Promise<Array<{ id: number; barcode: string }>> {
    const rows = (await this.db('barcodes').where('reservation_id', reservationGuid).where('id', '>', afterId).orderBy('id').limit(limit).select('id', 'barcode')) as Raw[];
    return rows.map((row) => ({ id: Number(row.id), barcode: row.barcode as string }));
  }

  /** The rows with their barcodes, at most MAX_UNITS_PER_ORDER each (a reservation of before the limit may hold more: docs/stock-moves.md). */
  private async withBarcodes(rows: Raw[], db: Knex): Promise<LineRecord[]> {
    const confirmed = rows.filter((row) => row.state === 'confirmed').map((row) => row.guid as string);
    const issued = new Map<string, Raw[]>();
    if (confirmed.length) {
      for (const row of await firstBarcodes(db, confirmed)) issued.set(row.reservation_id as string, [...(issued.get(row.reservation_id as string) ?? []), row]);
    }
    return rows.map((row) => {
      const barcodes = issued.get(row.guid as string) ?? [];
      return { ...toReservation(row, barcodes.map((b) => b.barcode as string)), holders: barcodes.map(holderOf) };
    });
  }

  /**
   * Moves a reservation still in state `from` to `to`: a live state holds the stock for
   * `ttlSeconds` from now, any other holds nothing. False when it is no longer in `from`.
   */
  async changeState(trx: Knex, guid: string, from: ReservationState, to: ReservationState, ttlSeconds: number | null, now: Date): Promise<boolean> {
    const expiresAt = ttlSeconds === null ? null : secondsFrom(now, ttlSeconds);
    const count = await trx('reservations')
      .where('guid', guid)
      .where('state', from)
      .update(reservationRow({ state: to, expires_at: expiresAt, updated_at: now }));
    return count === 1;
  }

  /** Issues barcodes, the i-th with `holders[i]` (none when absent); a unique violation (a code taken within the event) aborts the transaction. */
  async insertBarcodes(trx: Knex, reservation: ReservationRecord, barcodes: readonly string[], now: Date, holders: ReadonlyArray<Holder | null> = []): Promise<void> {
    const rows = barcodeRows(reservation, barcodes, now, holders);
    for (let i = 0; i < rows.length; i += BARCODE_BATCH) {
      // SQLite runs each statement on the event loop: a turn between batches lets other requests through.
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      await trx('barcodes').insert(rows.slice(i, i + BARCODE_BATCH));
    }
  }

  /** A barcode of a live event in the caller's companies. */
  async findBarcode(companyIds: readonly string[], eventGuid: string, barcode: string, db: Knex = this.db): Promise<BarcodeRow | undefined> {
    const row = (await db('barcodes')
      .join('events', 'events.guid', 'barcodes.event_id')
      .join('reservations', 'reservations.guid', 'barcodes.reservation_id')
      .whereIn('barcodes.company_id', [...companyIds])
      .where('barcodes.event_id', eventGuid)
      .where('barcodes.barcode', barcode)
      .whereNull('events.deleted_at')
      .first(...BARCODE_COLUMNS)) as Raw | undefined;
    return row && toBarcodeRow(row);
  }

  /** A barcode of an order's lines (none before it is confirmed); `trx` to read it inside a change. */
  async findOrderBarcode(db: Knex, orderGuid: string, barcode: string): Promise<BarcodeRow | undefined> {
    const row = (await db('barcodes')
      .join('reservations', 'reservations.guid', 'barcodes.reservation_id')
      .where('reservations.order_id', orderGuid)
      .where('barcodes.barcode', barcode)
      .first(...BARCODE_COLUMNS)) as Raw | undefined;
    return row && toBarcodeRow(row);
  }

  /** Names (or clears, null) the holder of a barcode; its line's updated_at (the order's) becomes `now`. */
  async setHolder(trx: Knex, barcode: BarcodeRow, holder: Holder | null, now: Date): Promise<void> {
    await trx('barcodes').where('id', barcode.id).update(holderColumns(holder));
    await trx('reservations').where('guid', barcode.reservation_id).update(reservationRow({ updated_at: now }));
  }

  /**
   * Admits a barcode once: the barcode's scanned_at is set only while it is unset, and the
   * ticket's scanned_count only rises while it is below sold_count. False when already scanned.
   */
  async scan(trx: Knex, barcode: BarcodeRow, ticket: StockTicket, now: Date): Promise<boolean> {
    const marked = await trx('barcodes').where('id', barcode.id).whereNull('scanned_at').update({ scanned_at: dbTime(now) });
    if (marked !== 1) return false;
    const counted = await trx('tickets')
      .where('id', ticket.id)
      .whereRaw('scanned_count < sold_count')
      .update({ scanned_count: trx.raw('scanned_count + 1'), version: trx.raw('version + 1') });
    if (counted !== 1) throw new Error('scanned_count would exceed sold_count');
    return true;
  }

  /**
   * Inside the transaction deleting an event: locks the event's live tickets, expires their
   * due reservations, and says whether any still holds reserved or pending stock.
   */
  async eventHoldsStock(trx: Knex, eventGuid: string, now: Date): Promise<boolean> {
    const query = trx('tickets').where('event_id', eventGuid).whereNull('deleted_at').select();
    if (isMysql(trx)) query.forUpdate();
    let held = false;
    for (const row of (await query) as Raw[]) {
      const ticket = toStockTicket(row);
      if (!holdsStock(ticket)) continue;
      await this.expireDue(trx, ticket, now);
      if (holdsStock(ticket)) held = true;
    }
    return held;
  }
}
