import { fromDbTime, isMysql, type Knex } from '../../../lib/db.js';
import { storedFields } from '../../../lib/fields/kinds.js';
import type { Holder } from '../../../lib/fields/holder.js';
import type { OrderChannel } from '../../../lib/fields/order.js';
import { LIVE_STATES, MAX_UNITS_PER_ORDER, RESERVATION_FIELDS, type ReservationState } from '../../../lib/fields/reservation.js';
import { rowFromValues, valuesFromRow } from '../../../lib/fields/rows.js';
import { canonicalDecimal } from '../../../lib/fields/decimal.js';
import type { UnitPrice } from '../../../lib/money.js';
import type { Counter, CounterDelta } from '../../../lib/stock-moves.js';
import type { BarcodeState, CancellationRecord, CouponCodeRecord, LineRecord, OrderRecord, OrderRow, ReservationRecord, StockTicket } from '../stock/sale.js';
import { dbTime } from './sql.js';
import { toRecord as toStockTicket } from './ticket-store.js';

/**
 * The SQL of the stock engine (services/ticket/stock): the ticket's row lock, the reads of what
 * its moves name, and the bulk writes of a batch. It persists what the engine decided; it
 * decides nothing (no rule, no webhook event).
 */

type Raw = Record<string, unknown>;

export function toReservation(row: Raw, barcodes: string[] = []): ReservationRecord {
  return { ...valuesFromRow<Omit<ReservationRecord, 'id' | 'barcodes'>>(RESERVATION_FIELDS, row), barcodes, id: Number(row.id) };
}

/** The stored fields of a reservation as columns. */
export function reservationRow(values: Partial<ReservationRecord>): Raw {
  const stored = storedFields(RESERVATION_FIELDS).filter((field) => values[field] !== undefined);
  return rowFromValues(RESERVATION_FIELDS, Object.fromEntries(stored.map((field) => [field, values[field]])));
}

/** The columns of a line's unit price (null for a reservation alone). */
function priceColumns(price: UnitPrice | null): Raw {
  const minor = (value: bigint | undefined) => (value === undefined ? null : String(value));
  return {
    price_unit: minor(price?.unit_price),
    price_unit_discount: minor(price?.unit_discount),
    price_unit_service_costs: minor(price?.unit_service_costs),
    price_unit_total: minor(price?.unit_total),
    price_unit_vat: minor(price?.unit_vat),
    price_vat_percentage: price?.vat_percentage ?? null,
  };
}

/** A line's unit price from its columns. */
function priceOf(row: Raw): UnitPrice | null {
  if (row.price_unit == null) return null;
  const minor = (value: unknown) => BigInt(String(value));
  return {
    unit_price: minor(row.price_unit),
    unit_discount: minor(row.price_unit_discount),
    unit_service_costs: minor(row.price_unit_service_costs),
    unit_total: minor(row.price_unit_total),
    vat_percentage: canonicalDecimal(row.price_vat_percentage as string | number),
    unit_vat: minor(row.price_unit_vat),
  };
}

/** The row of a new line (`order_id`: its order, null when sold alone). */
export const lineRow = (line: LineRecord): Raw => ({ ...reservationRow(line), order_id: line.order_id, ...priceColumns(line.price) });

export const orderRow = (order: OrderRow): Raw => ({
  guid: order.guid,
  company_id: order.company_id,
  event_id: order.event_id,
  channel: order.channel,
  created_at: dbTime(order.created_at),
  currency: order.currency,
  coupon_code: order.coupon_code,
  coupon_code_id: order.coupon_code_id,
});

export function toOrder(row: Raw, lines: LineRecord[], cancellations: CancellationRecord[] = []): OrderRecord {
  return {
    guid: row.guid as string,
    company_id: row.company_id as string,
    event_id: row.event_id as string,
    channel: row.channel as OrderChannel,
    created_at: fromDbTime(row.created_at as string)!,
    currency: row.currency as string,
    coupon_code: (row.coupon_code as string | null | undefined) ?? null,
    coupon_code_id: row.coupon_code_id == null ? null : Number(row.coupon_code_id),
    lines,
    cancellations,
  };
}

/** The row of a new cancellation. */
export const cancellationRow = (cancellation: CancellationRecord): Raw => ({
  guid: cancellation.guid,
  company_id: cancellation.company_id,
  sale_id: cancellation.sale_id,
  reason: cancellation.reason,
  cancellation_fee: String(cancellation.cancellation_fee),
  refund_amount: String(cancellation.refund_amount),
  stock_returned: cancellation.stock_returned,
  created_at: dbTime(cancellation.created_at),
});

/** The cancellations of these sales (orders or reservations) with the barcodes each cancelled, oldest first, by sale guid. */
export async function cancellationsOf(db: Knex, saleGuids: readonly string[]): Promise<Map<string, CancellationRecord[]>> {
  const bySale = new Map<string, CancellationRecord[]>();
  if (saleGuids.length === 0) return bySale;
  const rows = (await db('cancellations').whereIn('sale_id', [...saleGuids]).orderBy('id')) as Raw[];
  if (rows.length === 0) return bySale;
  const codes = new Map<string, string[]>();
  const barcodes = (await db('barcodes').whereIn('cancellation_id', rows.map((row) => row.guid as string)).orderBy('id').select('cancellation_id', 'barcode')) as Raw[];
  for (const row of barcodes) codes.set(row.cancellation_id as string, [...(codes.get(row.cancellation_id as string) ?? []), row.barcode as string]);
  for (const row of rows) {
    const cancellation: CancellationRecord = {
      guid: row.guid as string,
      sale_id: row.sale_id as string,
      company_id: row.company_id as string,
      barcodes: codes.get(row.guid as string) ?? [],
      reason: (row.reason as string | null) ?? null,
      cancellation_fee: BigInt(String(row.cancellation_fee)),
      refund_amount: BigInt(String(row.refund_amount)),
      stock_returned: Boolean(Number(row.stock_returned)),
      created_at: fromDbTime(row.created_at as string)!,
    };
    bySale.set(cancellation.sale_id, [...(bySale.get(cancellation.sale_id) ?? []), cancellation]);
  }
  return bySale;
}

/** The holder of a barcode row: both columns set, or none. */
const holderOf = (row: Raw): Holder | null => (row.holder_name == null ? null : { name: row.holder_name as string, email: row.holder_email as string });

export const holderColumns = (holder: Holder | null) => ({ holder_name: holder?.name ?? null, holder_email: holder?.email ?? null });

/** The rows of barcodes issued to a line, the i-th with `holders[i]` (none when absent). */
export function barcodeRows(line: Omit<ReservationRecord, 'id'>, barcodes: readonly string[], now: Date, holders: ReadonlyArray<Holder | null> = []): Raw[] {
  return barcodes.map((barcode, i) => ({
    ...holderColumns(holders[i] ?? null),
    company_id: line.company_id,
    event_id: line.event_id,
    ticket_id: line.ticket_id,
    reservation_id: line.guid,
    barcode,
    scanned_at: null,
    cancelled_at: null,
    created_at: dbTime(now),
  }));
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
  cancelled_at: Date | null;
}

/** What a scan reads of a barcode: its reservation's order too. */
export const BARCODE_COLUMNS = [
  'barcodes.id',
  'barcodes.barcode',
  'barcodes.ticket_id',
  'barcodes.reservation_id',
  'barcodes.scanned_at',
  'barcodes.cancelled_at',
  'barcodes.holder_name',
  'barcodes.holder_email',
  'reservations.order_id',
];

export function toBarcodeRow(row: Raw): BarcodeRow {
  return {
    id: Number(row.id),
    barcode: row.barcode as string,
    ticket_id: row.ticket_id as string,
    reservation_id: row.reservation_id as string,
    order_id: (row.order_id as string | null) ?? (row.reservation_id as string),
    holder: holderOf(row),
    scanned_at: fromDbTime(row.scanned_at as string | null) ?? null,
    cancelled_at: fromDbTime(row.cancelled_at as string | null) ?? null,
  };
}

const barcodeState = (row: Raw): BarcodeState => ({
  scanned_at: fromDbTime(row.scanned_at as string | null) ?? null,
  cancelled_at: fromDbTime(row.cancelled_at as string | null) ?? null,
});

/** The first MAX_UNITS_PER_ORDER barcodes of each reservation, in issue order (one reservation: a plain LIMIT; several: ranked per reservation). */
async function firstBarcodes(db: Knex, reservationGuids: string[]): Promise<Raw[]> {
  const columns = ['reservation_id', 'barcode', 'holder_name', 'holder_email', 'scanned_at', 'cancelled_at'];
  if (reservationGuids.length === 1) {
    return (await db('barcodes').where('reservation_id', reservationGuids[0]!).orderBy('id').limit(MAX_UNITS_PER_ORDER).select(columns)) as Raw[];
  }
  const ranked = db('barcodes')
    .whereIn('reservation_id', reservationGuids)
    .select('id', ...columns, db.raw('row_number() over (partition by reservation_id order by id) as n'));
  return (await db.from(ranked.as('ranked')).where('n', '<=', MAX_UNITS_PER_ORDER).orderBy('id').select(columns)) as Raw[];
}

/** Reservation rows as lines with their barcodes, at most MAX_UNITS_PER_ORDER each (a reservation of before the limit may hold more: docs/stock-moves.md). */
export async function withBarcodes(rows: Raw[], db: Knex): Promise<LineRecord[]> {
  // Only a sold line holds barcodes (a cancelled one keeps them, cancelled).
  const confirmed = rows.filter((row) => row.state === 'confirmed' || row.state === 'cancelled').map((row) => row.guid as string);
  const issued = new Map<string, Raw[]>();
  if (confirmed.length) {
    for (const row of await firstBarcodes(db, confirmed)) issued.set(row.reservation_id as string, [...(issued.get(row.reservation_id as string) ?? []), row]);
  }
  return rows.map((row) => {
    const barcodes = issued.get(row.guid as string) ?? [];
    return {
      ...toReservation(row, barcodes.map((b) => b.barcode as string)),
      holders: barcodes.map(holderOf),
      barcode_states: barcodes.map(barcodeState),
      cancelled_amount: Number(row.cancelled_amount ?? 0),
      order_id: (row.order_id as string | null | undefined) ?? null,
      price: priceOf(row),
    };
  });
}

/** The lines of several orders in one read, by order guid, each in the order given. */
export async function linesOfOrders(db: Knex, orderGuids: readonly string[]): Promise<Map<string, LineRecord[]>> {
  const byOrder = new Map<string, LineRecord[]>();
  if (!orderGuids.length) return byOrder;
  const rows = (await db('reservations').whereIn('order_id', [...orderGuids]).orderBy('id')) as Raw[];
  for (const line of await withBarcodes(rows, db)) byOrder.set(line.order_id!, [...(byOrder.get(line.order_id!) ?? []), line]);
  return byOrder;
}

/** Orders by guid with their lines, in the order of their creation. */
export async function readOrders(db: Knex, guids: readonly string[]): Promise<OrderRecord[]> {
  if (guids.length === 0) return [];
  const rows = (await db('orders').whereIn('guid', [...guids]).orderBy('id')) as Raw[];
  const orderGuids = rows.map((row) => row.guid as string);
  const lines = await linesOfOrders(db, orderGuids);
  const cancellations = await cancellationsOf(db, orderGuids);
  return rows.map((row) => toOrder(row, lines.get(row.guid as string) ?? [], cancellations.get(row.guid as string)));
}

/** Lines by guid with their barcodes. */
export async function readLines(db: Knex, guids: readonly string[]): Promise<LineRecord[]> {
  if (guids.length === 0) return [];
  return withBarcodes((await db('reservations').whereIn('guid', [...guids]).orderBy('id')) as Raw[], db);
}

/** Barcodes by id, with their order. */
export async function readBarcodes(db: Knex, ids: readonly number[]): Promise<BarcodeRow[]> {
  if (ids.length === 0) return [];
  const rows = (await db('barcodes').join('reservations', 'reservations.guid', 'barcodes.reservation_id').whereIn('barcodes.id', [...ids]).select(...BARCODE_COLUMNS)) as Raw[];
  return rows.map(toBarcodeRow);
}

/** The currency of each of these events. */
export async function currenciesOf(db: Knex, eventGuids: readonly string[]): Promise<Map<string, string>> {
  if (eventGuids.length === 0) return new Map();
  const rows = (await db('events').whereIn('guid', [...eventGuids]).select('guid', 'currency')) as Array<{ guid: string; currency: string }>;
  return new Map(rows.map((row) => [row.guid, row.currency]));
}

/** A coupon code of an event by its key (the code in lower case), with its coupon; undefined when there is none. */
export async function readCouponCode(db: Knex, eventGuid: string, codeKey: string): Promise<CouponCodeRecord | undefined> {
  const row = (await db('coupon_codes')
    .join('coupons', 'coupons.guid', 'coupon_codes.coupon_id')
    .where('coupon_codes.event_id', eventGuid)
    .where('coupon_codes.code_key', codeKey)
    .first(
      'coupon_codes.id',
      'coupon_codes.code',
      'coupon_codes.usage_count',
      'coupon_codes.applies_to_count',
      'coupon_codes.used_count',
      'coupons.guid as coupon_guid',
      'coupons.company_id',
      'coupons.event_id',
      'coupons.deleted_at',
      'coupons.discount_type',
      'coupons.value',
      'coupons.ticket_ids',
      'coupons.valid_from',
      'coupons.valid_until',
    )) as Raw | undefined;
  if (!row) return undefined;
  const count = (value: unknown) => (value == null ? null : Number(value));
  return {
    id: Number(row.id),
    code: row.code as string,
    usage_count: count(row.usage_count),
    applies_to_count: count(row.applies_to_count),
    used_count: Number(row.used_count),
    coupon: {
      guid: row.coupon_guid as string,
      company_id: row.company_id as string,
      event_id: row.event_id as string,
      deleted: row.deleted_at != null,
      discount: { type: row.discount_type as CouponCodeRecord['coupon']['discount']['type'], value: row.value == null ? null : canonicalDecimal(row.value as string | number) },
      ticket_ids: row.ticket_ids == null ? null : (JSON.parse(row.ticket_ids as string) as string[]),
      valid_from: fromDbTime(row.valid_from as string | null) ?? null,
      valid_until: fromDbTime(row.valid_until as string | null) ?? null,
    },
  };
}

/**
 * Takes (`by` > 0) or gives back (`by` < 0) uses of a coupon code, guarded by the database:
 * never more than its usage_count, never below 0. Whether it was taken (a give-back always is).
 */
export async function moveCouponUses(trx: Knex, codeId: number, by: number): Promise<boolean> {
  if (by < 0) {
    await trx('coupon_codes').where('id', codeId).update({ used_count: trx.raw('CASE WHEN used_count > ? THEN used_count - ? ELSE 0 END', [-by, -by]) });
    return true;
  }
  const taken = await trx('coupon_codes')
    .where('id', codeId)
    .where((q) => q.whereNull('usage_count').orWhereRaw('used_count + ? <= usage_count', [by]))
    .update({ used_count: trx.raw('used_count + ?', [by]) });
  return taken === 1;
}

/** Of these codes, those in use within these events. */
export async function codesInUse(db: Knex, eventGuids: readonly string[], codes: readonly string[]): Promise<Array<{ event_id: string; barcode: string }>> {
  if (eventGuids.length === 0 || codes.length === 0) return [];
  return (await db('barcodes').whereIn('event_id', [...eventGuids]).whereIn('barcode', [...codes]).select('event_id', 'barcode')) as Array<{ event_id: string; barcode: string }>;
}

/** Live reservations whose expiry has passed by `now` (the condition of every expiry). */
export function due<Q extends Knex.QueryBuilder>(query: Q, now: Date): Q {
  return query.whereIn('state', [...LIVE_STATES]).where('expires_at', '<=', dbTime(now)) as Q;
}

/** The ticket by guid (deleted ones too), locked for the rest of the transaction (SELECT ... FOR UPDATE on MySQL; SQLite serializes writers anyway). */
export async function lockTicket(trx: Knex, guid: string): Promise<StockTicket | undefined> {
  const query = trx('tickets').where('guid', guid).first();
  if (isMysql(trx)) query.forUpdate();
  const row = (await query) as Raw | undefined;
  return row ? toStockTicket(row) : undefined;
}

/** The guids of the lines of a ticket that are due, and the orders they belong to. */
export async function dueOf(trx: Knex, ticketGuid: string, now: Date): Promise<{ alone: string[]; orders: string[] }> {
  const rows = (await due(trx('reservations').where('ticket_id', ticketGuid), now).select('guid', 'order_id')) as Raw[];
  const alone = rows.filter((row) => row.order_id == null).map((row) => row.guid as string);
  const orders = [...new Set(rows.filter((row) => row.order_id != null).map((row) => row.order_id as string))];
  return { alone, orders };
}

/** A batch's change of one ticket's row: its counters, scans, and how often its version moves. */
export interface TicketWrite {
  delta: CounterDelta;
  scans: number;
  versionBumps: number;
  /** Places gone (a cancellation without return_stock): available_stock falls by this much, never below 0. */
  placesGone?: number;
}

/**
 * Writes a ticket's counters, guarded by the database itself (the second guard behind the
 * engine's check in memory): a write that holds more stock than the ticket has left, or counts
 * more scans than sales, changes nothing and answers false.
 */
export async function writeTicket(trx: Knex, ticketGuid: string, write: TicketWrite): Promise<boolean> {
  const set: Record<string, Knex.Raw> = { version: trx.raw('version + ?', [write.versionBumps]) };
  for (const [counter, by] of Object.entries(write.delta) as Array<[Counter, number]>) set[counter] = trx.raw(`${counter} + ?`, [by]);
  if (write.placesGone) set.available_stock = trx.raw('CASE WHEN available_stock > ? THEN available_stock - ? ELSE 0 END', [write.placesGone, write.placesGone]);
  const query = trx('tickets').where('guid', ticketGuid);
  const taken = Object.values(write.delta).reduce((sum, by) => sum + (by ?? 0), 0);
  if (taken > 0) query.whereRaw('available_stock - availability_margin - sold_count - reserved_count - pending_count >= ?', [taken]);
  if (write.scans > 0) {
    set.scanned_count = trx.raw('scanned_count + ?', [write.scans]);
    query.whereRaw('scanned_count + ? <= sold_count + ?', [write.scans, write.delta.sold_count ?? 0]);
  }
  return (await query.update(set)) === 1;
}

/** What the stock left of a ticket reads in the database now (after a refused write). */
export async function remainingInDatabase(trx: Knex, ticketGuid: string): Promise<number> {
  const row = (await trx('tickets').where('guid', ticketGuid).first(trx.raw('available_stock - availability_margin - sold_count - reserved_count - pending_count as remaining'))) as Raw | undefined;
  return Math.max(0, Number(row?.remaining ?? 0));
}

/** Moves the lines still in `from` to `to` (expires_at set when given); how many moved. */
export async function changeStates(trx: Knex, guids: readonly string[], from: ReservationState, to: ReservationState, expiresAt: Date | null | undefined, now: Date): Promise<number> {
  return trx('reservations')
    .whereIn('guid', [...guids])
    .where('state', from)
    .update(reservationRow({ state: to, ...(expiresAt === undefined ? {} : { expires_at: expiresAt }), updated_at: now }));
}

/** Tables a batch inserts into, in the order it writes them (an order before its lines, a line before its barcodes). */
export const INSERT_ORDER = ['orders', 'reservations', 'barcodes', 'cancellations', 'webhook_events', 'idempotency_keys'] as const;
export type BatchTable = (typeof INSERT_ORDER)[number];

/** Rows per multi-row INSERT (MySQL's packet and SQLite's bound-variable limits stay far off). */
const ROWS_PER_INSERT = 200;

export async function insertRows(trx: Knex, table: BatchTable, rows: readonly Raw[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    // SQLite runs each statement on the event loop: a turn between statements lets other requests through.
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    await trx(table).insert(rows.slice(i, i + ROWS_PER_INSERT));
  }
}

/** Admits barcodes once: scanned_at is set only while it is unset; how many were admitted. */
export async function markScanned(trx: Knex, ids: readonly number[], now: Date): Promise<number> {
  return trx('barcodes').whereIn('id', [...ids]).whereNull('scanned_at').whereNull('cancelled_at').update({ scanned_at: dbTime(now) });
}

/** Cancels barcodes of a line: only those neither scanned nor cancelled; how many were cancelled. */
export async function markCancelled(trx: Knex, reservationGuid: string, barcodes: readonly string[], cancellationGuid: string, now: Date): Promise<number> {
  let cancelled = 0;
  for (let i = 0; i < barcodes.length; i += ROWS_PER_INSERT) {
    cancelled += await trx('barcodes')
      .where('reservation_id', reservationGuid)
      .whereIn('barcode', barcodes.slice(i, i + ROWS_PER_INSERT))
      .whereNull('scanned_at')
      .whereNull('cancelled_at')
      .update({ cancelled_at: dbTime(now), cancellation_id: cancellationGuid });
  }
  return cancelled;
}

/** Counts units of a line as cancelled, only while it stays within the line's amount; whether it did. */
export async function addCancelledUnits(trx: Knex, reservationGuid: string, units: number): Promise<boolean> {
  return (await trx('reservations').where('guid', reservationGuid).whereRaw('cancelled_amount + ? <= amount', [units]).update({ cancelled_amount: trx.raw('cancelled_amount + ?', [units]) })) === 1;
}

export async function writeHolder(trx: Knex, reservationGuid: string, barcode: string, holder: Holder | null): Promise<void> {
  await trx('barcodes').where('reservation_id', reservationGuid).where('barcode', barcode).update(holderColumns(holder));
}

/** Lines changed without a move (a holder named): their updated_at. */
export async function touchLines(trx: Knex, guids: readonly string[], now: Date): Promise<void> {
  await trx('reservations').whereIn('guid', [...guids]).update(reservationRow({ updated_at: now }));
}
