import type { Knex } from '../../../lib/db.js';
import { holdsStock } from '../../../lib/fields/ticket.js';
import { sumDeltas, type Counter, type CounterDelta } from '../../../lib/stock-moves.js';
import { outboxRows, type Change } from '../store/outbox-store.js';
import {
  barcodeRows,
  codesInUse,
  currenciesOf,
  changeStates,
  dueOf,
  INSERT_ORDER,
  insertRows,
  lineRow,
  lockTicket,
  addCancelledUnits,
  cancellationRow,
  markCancelled,
  markScanned,
  moveCouponUses,
  readCouponCode,
  orderRow,
  readBarcodes,
  readLines,
  readOrders,
  remainingInDatabase,
  touchLines,
  writeHolder,
  writeTicket,
  type BarcodeRow,
  type BatchTable,
} from '../store/stock-store.js';
import { changedMeanwhile } from '../common/write-conflicts.js';
import { insufficientStock, stockConflict } from '../../../lib/stock-conflicts.js';
import { StockDraft, type StateChange, type StockState } from './stock-draft.js';
import type { CouponCodeRecord, LineRecord, OrderRecord, Sale, StockTicket } from './sale.js';
import { linesOf } from './sale.js';

type Row = Record<string, unknown>;

const codeKey = (eventGuid: string, code: string) => `${eventGuid}\u0000${code}`;

/** What the moves of one transaction read besides their tickets (read once for all, after the locks). */
export interface StockReads {
  reservations?: readonly string[];
  orders?: readonly string[];
  barcodes?: readonly number[];
  /** Codes a confirmation sends: whether each is in use within its ticket's event. */
  codes?: readonly string[];
  /** The currency of the tickets' events (a move that prices a sale). */
  currencies?: boolean;
  /** Coupon codes a new order names: its event and the code's key. */
  coupons?: ReadonlyArray<{ event: string; key: string }>;
}

interface TicketChange {
  deltas: CounterDelta[];
  scans: number;
  versionBumps: number;
  placesGone: number;
}

/**
 * The engine's view of one transaction (docs/stock-moves.md "One engine"): it locks the moves'
 * tickets, always in the order of their guids, expires what is due on each (as moves, through
 * the same StockDraft), and reads what the moves name in one query per kind. Each move is then
 * checked in memory against what the moves before it left, and when accepted its writes join
 * the view's; `flush` writes them all: one guarded counter UPDATE per ticket, one conditional
 * UPDATE per kind of state change, one multi-row INSERT per table. The row locks, held to the
 * commit, keep the view exact.
 */
export class StockView implements StockState {
  private readonly tickets = new Map<string, StockTicket>();
  private readonly lines = new Map<string, LineRecord>();
  private readonly orders = new Map<string, OrderRecord>();
  private readonly barcodes = new Map<number, BarcodeRow>();
  /** Codes in use, as `event guid + NUL + code`: those read for `reads.codes`, and those issued since. */
  private readonly codes = new Set<string>();
  /** The currency of each locked ticket's event, read after the locks (a currency change locks the event's tickets too). */
  private readonly currencies = new Map<string, string>();
  /** Coupon codes read, by `event guid + NUL + key` (null: none such). */
  private readonly coupons = new Map<string, CouponCodeRecord | null>();
  /** Per coupon code, the uses the accepted moves took (+) or gave back (-), written by flush. */
  private couponUses = new Map<number, number>();
  /** The same, since the code was read (not reset by flush: the read is not repeated). */
  private readonly couponUsesSinceRead = new Map<number, number>();
  expired = 0;

  private ticketChanges = new Map<string, TicketChange>();
  private states = new Map<string, StateChange>();
  private inserts = new Map<BatchTable, Row[]>();
  private scans: BarcodeRow[] = [];
  private holders: StockDraft['holders'] = [];
  private cancelled: StockDraft['cancelled'] = [];
  private touched = new Set<string>();
  private changes: Change[] = [];

  private constructor(
    private readonly trx: Knex,
    readonly now: Date,
  ) {}

  static async open(trx: Knex, ticketGuids: readonly string[], reads: StockReads, now: Date): Promise<StockView> {
    const view = new StockView(trx, now);
    for (const guid of [...new Set(ticketGuids)].sort()) {
      const ticket = await lockTicket(trx, guid);
      if (!ticket) continue;
      view.tickets.set(guid, ticket);
      await view.expireDue(ticket);
    }
    await view.read(reads);
    return view;
  }

  ticket(guid: string): StockTicket | undefined {
    return this.tickets.get(guid);
  }

  line(guid: string): LineRecord | undefined {
    return this.lines.get(guid);
  }

  order(guid: string): OrderRecord | undefined {
    return this.orders.get(guid);
  }

  barcode(id: number): BarcodeRow | undefined {
    return this.barcodes.get(id);
  }

  draft(): StockDraft {
    return new StockDraft(this);
  }

  /**
   * Expires the ticket's due reservations and orders, written at once so that the tickets
   * locked after it read their counters as they are. An order expires whole (its lines on other
   * tickets too; their rows are locked by the counter update, after this ticket's: a MySQL
   * deadlock with a move on them is retried, store/deadlocks.ts).
   */
  private async expireDue(ticket: StockTicket): Promise<void> {
    // The counters equal the sums of the live reservations: none held, none to expire.
    if (!holdsStock(ticket)) return;
    const due = await dueOf(this.trx, ticket.guid, this.now);
    const sales: Sale[] = [
      ...(await readLines(this.trx, due.alone)).map((line): Sale => ({ kind: 'reservation', line })),
      ...(await readOrders(this.trx, due.orders)).map((order): Sale => ({ kind: 'order', order })),
    ];
    if (sales.length === 0) return;
    const draft = this.draft();
    for (const sale of sales) draft.move(sale, 'expire');
    this.accept(draft);
    await this.flush();
    this.expired += sales.length;
  }

  private async read(reads: StockReads): Promise<void> {
    // What the expiries of the open took or gave back is written already: the codes read now include it.
    this.couponUsesSinceRead.clear();
    const fresh = (guids: readonly string[] | undefined, known: Map<string, unknown>) => [...new Set(guids ?? [])].filter((guid) => !known.has(guid));
    for (const line of await readLines(this.trx, fresh(reads.reservations, this.lines))) this.lines.set(line.guid, line);
    for (const order of await readOrders(this.trx, fresh(reads.orders, this.orders))) this.remember({ kind: 'order', order });
    for (const barcode of await readBarcodes(this.trx, [...new Set(reads.barcodes ?? [])])) this.barcodes.set(barcode.id, barcode);
    const events = [...new Set([...this.tickets.values()].map((ticket) => ticket.event_id))];
    if (reads.currencies) for (const [event, currency] of await currenciesOf(this.trx, events)) this.currencies.set(event, currency);
    for (const taken of await codesInUse(this.trx, events, [...new Set(reads.codes ?? [])])) this.codes.add(codeKey(taken.event_id, taken.barcode));
    for (const { event, key } of reads.coupons ?? []) {
      const id = codeKey(event, key);
      if (!this.coupons.has(id)) this.coupons.set(id, (await readCouponCode(this.trx, event, key)) ?? null);
    }
  }

  couponCode(eventGuid: string, key: string): CouponCodeRecord | undefined {
    return this.coupons.get(codeKey(eventGuid, key)) ?? undefined;
  }

  couponUsesMoved(codeId: number): number {
    return this.couponUsesSinceRead.get(codeId) ?? 0;
  }

  currency(eventGuid: string): string | undefined {
    return this.currencies.get(eventGuid);
  }

  codeTaken(eventGuid: string, code: string): boolean {
    return this.codes.has(codeKey(eventGuid, code));
  }

  private remember(sale: Sale): void {
    if (sale.kind === 'order') this.orders.set(sale.order.guid, sale.order);
    for (const line of linesOf(sale)) this.lines.set(line.guid, line);
  }

  private ticketChange(guid: string): TicketChange {
    let change = this.ticketChanges.get(guid);
    if (!change) this.ticketChanges.set(guid, (change = { deltas: [], scans: 0, versionBumps: 0, placesGone: 0 }));
    return change;
  }

  /** The move passed its checks: its writes join the view's, and the next moves see its effect. */
  accept(draft: StockDraft): void {
    const byTicket = new Map<string, CounterDelta[]>();
    for (const { ticket, delta } of draft.counters) byTicket.set(ticket, [...(byTicket.get(ticket) ?? []), delta]);
    for (const scan of draft.scans) byTicket.set(scan.ticket_id, byTicket.get(scan.ticket_id) ?? []);
    for (const [guid, deltas] of byTicket) {
      const delta = sumDeltas(deltas);
      const scans = draft.scans.filter((scan) => scan.ticket_id === guid).length;
      const placesGone = draft.placesGone.filter((gone) => gone.ticket === guid).reduce((sum, gone) => sum + gone.units, 0);
      const change = this.ticketChange(guid);
      change.deltas.push(delta);
      change.scans += scans;
      change.placesGone += placesGone;
      change.versionBumps++;
      const ticket = this.tickets.get(guid);
      if (ticket) {
        for (const [counter, by] of Object.entries(delta) as Array<[Counter, number]>) ticket[counter] += by;
        ticket.scanned_count += scans;
        ticket.available_stock = Math.max(0, ticket.available_stock - placesGone);
        ticket.version++;
      }
    }
    for (const change of draft.states) {
      const earlier = this.states.get(change.guid);
      this.states.set(change.guid, { ...change, from: earlier?.from ?? change.from, expiresAt: change.expiresAt === undefined ? earlier?.expiresAt : change.expiresAt });
    }
    for (const insert of draft.inserts) {
      const rows =
        insert.table === 'orders'
          ? [orderRow(insert.order)]
          : insert.table === 'reservations'
            ? [lineRow(insert.line)]
            : insert.table === 'barcodes'
              ? barcodeRows(insert.line, insert.barcodes, this.now, insert.holders)
              : insert.table === 'cancellations'
                ? [cancellationRow(insert.cancellation)]
                : [insert.row];
      if (insert.table === 'barcodes') for (const code of insert.barcodes) this.codes.add(codeKey(insert.line.event_id, code));
      this.inserts.set(insert.table, [...(this.inserts.get(insert.table) ?? []), ...rows]);
    }
    for (const scan of draft.scans) this.barcodes.set(scan.id, scan);
    this.scans.push(...draft.scans);
    this.holders.push(...draft.holders);
    this.cancelled.push(...draft.cancelled);
    for (const { codeId, by } of draft.couponUses) {
      this.couponUses.set(codeId, (this.couponUses.get(codeId) ?? 0) + by);
      this.couponUsesSinceRead.set(codeId, (this.couponUsesSinceRead.get(codeId) ?? 0) + by);
    }
    for (const guid of draft.touched) this.touched.add(guid);
    for (const sale of draft.sales) this.remember(sale);
    this.changes.push(...draft.changes);
  }

  /**
   * Writes what the accepted moves did. The counters are guarded by the database (a write that
   * would hold more than the stock left is refused insufficient_stock however the check in
   * memory went). A state change is conditional on the state the view read: a row changed
   * meanwhile (only an order expiring from another ticket can) fails the write, as does a
   * unique violation (a barcode or an idempotency key taken).
   */
  async flush(): Promise<void> {
    const trx = this.trx;
    for (const [guid, change] of this.ticketChanges) {
      const delta = sumDeltas(change.deltas);
      if (!(await writeTicket(trx, guid, { delta, scans: change.scans, versionBumps: change.versionBumps, placesGone: change.placesGone }))) {
        if (change.scans > 0) throw new Error('scanned_count would exceed sold_count');
        throw insufficientStock(await remainingInDatabase(trx, guid));
      }
    }
    const groups = new Map<string, StateChange[]>();
    for (const change of this.states.values()) {
      const key = `${change.from}>${change.to}@${change.expiresAt === undefined ? 'kept' : (change.expiresAt?.getTime() ?? '')}`;
      groups.set(key, [...(groups.get(key) ?? []), change]);
    }
    for (const changes of groups.values()) {
      const { from, to, expiresAt } = changes[0]!;
      const guids = changes.map((change) => change.guid);
      if ((await changeStates(trx, guids, from, to, expiresAt, this.now)) !== guids.length) throw changedMeanwhile('reservation');
    }
    // A use taken is guarded by the database too: never more than the code's usage_count, whatever another transaction took meanwhile.
    for (const [codeId, by] of this.couponUses) if (by !== 0 && !(await moveCouponUses(trx, codeId, by))) throw stockConflict('coupon_exhausted');
    const rows = new Map(this.inserts);
    if (this.changes.length > 0) rows.set('webhook_events', [...(rows.get('webhook_events') ?? []), ...outboxRows(this.changes, new Date())]);
    for (const table of INSERT_ORDER) await insertRows(trx, table, rows.get(table) ?? []);
    if (this.scans.length > 0 && (await markScanned(trx, this.scans.map((scan) => scan.id), this.now)) !== this.scans.length) throw changedMeanwhile('barcode');
    // A barcode is cancelled only while neither scanned nor cancelled, and a line never counts more units cancelled than it has.
    for (const { reservationGuid, barcodes, units, cancellationGuid } of this.cancelled) {
      if ((await markCancelled(trx, reservationGuid, barcodes, cancellationGuid, this.now)) !== barcodes.length) throw changedMeanwhile('barcode');
      if (!(await addCancelledUnits(trx, reservationGuid, units))) throw changedMeanwhile('reservation');
    }
    for (const { reservationGuid, barcode, holder } of this.holders) await writeHolder(trx, reservationGuid, barcode, holder);
    if (this.touched.size > 0) await touchLines(trx, [...this.touched], this.now);
    this.ticketChanges = new Map();
    this.states = new Map();
    this.inserts = new Map();
    this.scans = [];
    this.holders = [];
    this.cancelled = [];
    this.couponUses = new Map();
    this.touched = new Set();
    this.changes = [];
  }
}
