import { performance } from 'node:perf_hooks';
import { systemClock, type Clock } from '../../../lib/clock.js';
import { isUniqueViolation, type Knex } from '../../../lib/db.js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { ticketBusy } from '../../../lib/stock-conflicts.js';
import { moveBatchSize } from '../../../lib/metrics.js';
import { callDeadline } from '../access/call-deadline.js';
import type { StockDraft } from './stock-draft.js';
import { StockView, type StockReads } from './stock-view.js';

/**
 * A stock move (docs/stock-moves.md "One engine"): the tickets it locks, what it reads besides,
 * and its plan: checks in memory against the engine's view and changes through the draft.
 */
export interface StockMove<T> {
  /** The tickets whose stock it moves or reads under their locks. One: batched with that ticket's other moves; several: run alone. */
  tickets: readonly string[];
  /** The reservations, orders and barcodes it reads under the locks. */
  reads?: StockReads;
  /** A move that takes new stock (a reservation, an order): refused at once when its ticket's queue is full. */
  takesStock?: boolean;
  /** Checks the move and stages its changes; throws its refusal (an RpcError). Synchronous: no other move runs meanwhile. */
  plan(draft: StockDraft): T;
  /** What a unique violation of its writes means when it ran alone (a barcode it sent is taken); without it the violation is passed on. */
  onTaken?: () => Error;
  /** Runs in a transaction of its own, never batched (a cancellation: rare, and it changes lines and barcodes that other moves of the batch read). */
  alone?: boolean;
}

/** The most moves one batch applies in one transaction (docs/stock-moves.md "Hot tickets: batched moves"). */
export const MOVES_PER_BATCH = 512;

/** Default of STOCK_MOVE_QUEUE_MAX. */
export const MOVE_QUEUE_MAX = 2000;

interface QueuedMove {
  move: StockMove<unknown>;
  /** Its call's deadline: past it the caller has gone, and the move is not run. */
  deadline: number;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface EngineOptions {
  /** Moves of one ticket that may wait; past it a new reservation is refused at once (STOCK_MOVE_QUEUE_MAX). */
  queueMax?: number;
  maxBatch?: number;
  /** Where a move reads "now" (what is due, what it stamps); deadlines stay on real time. */
  clock?: Clock;
}

/**
 * The one stock engine: every move of stock (reserve, order, pending, confirm, release, expire,
 * scan, a holder change) enters by `run`. A move of one ticket queues in memory (holding no
 * connection); while no batch of that ticket runs, one takes up to MOVES_PER_BATCH queued
 * moves and runs them in ONE transaction (group commit): one lock, one expiry, one read of
 * what they name, each move checked in memory after the ones before it, all written together,
 * one commit. A batch whose transaction fails as a whole runs each of its moves again alone. A
 * move of several tickets (an order of several) runs alone, locking its tickets in guid
 * order: a batch holds one ticket's lock, and taking another's inside it could deadlock with
 * that ticket's batch. Each process batches its own moves; the ticket's row lock, taken first
 * and held to the commit, still orders the batches of several processes.
 */
export class StockEngine {
  /** Per ticket, the moves waiting for the next batch; a ticket is present while its batches run. */
  private readonly waiting = new Map<string, QueuedMove[]>();
  /** Test seam: runs inside a batch's transaction before it commits (a throw fails the batch). */
  beforeCommit?: (moves: number) => Promise<void> | void;

  /** Milliseconds one move of a batch took lately (a moving average), to tell how long a queue takes. */
  private msPerMove = 0;
  private readonly queueMax: number;
  private readonly maxBatch: number;
  private readonly clock: Clock;

  constructor(
    private readonly db: Knex,
    options: EngineOptions = {},
  ) {
    this.queueMax = options.queueMax ?? MOVE_QUEUE_MAX;
    this.maxBatch = options.maxBatch ?? MOVES_PER_BATCH;
    this.clock = options.clock ?? systemClock;
  }

  /** Runs a move: in its ticket's next batch, or alone when it locks several tickets. */
  run<T>(move: StockMove<T>): Promise<T> {
    const deadline = callDeadline();
    const tickets = [...new Set(move.tickets)];
    if (tickets.length !== 1 || move.alone) return this.alone(tickets, { move: move as StockMove<unknown>, deadline, resolve: () => {}, reject: () => {} }) as Promise<T>;
    const ticketGuid = tickets[0]!;
    if (move.takesStock && (this.queued(ticketGuid) >= this.queueMax || this.expectedWaitMs(ticketGuid) >= deadline - Date.now())) {
      return Promise.reject(this.busy(ticketGuid));
    }
    return new Promise((resolve, reject) => {
      const queued: QueuedMove = { move: move as StockMove<unknown>, deadline, resolve: resolve as (value: unknown) => void, reject };
      const queue = this.waiting.get(ticketGuid);
      if (queue) {
        queue.push(queued);
        return;
      }
      this.waiting.set(ticketGuid, [queued]);
      // One turn of the event loop lets the moves that arrive together start together.
      setImmediate(() => void this.drain(ticketGuid));
    });
  }

  /** Expires what is due on a ticket (a move of nothing else); whether anything expired. */
  settle(ticketGuid: string): Promise<boolean> {
    return this.run({ tickets: [ticketGuid], plan: (draft) => draft.expired > 0 });
  }

  /** Inside another transaction (an event's deletion): locks the tickets in guid order, expires what is due, and gives them as they now are. */
  static async lockAndSettle(trx: Knex, ticketGuids: readonly string[], now: Date) {
    const view = await StockView.open(trx, ticketGuids, {}, now);
    return ticketGuids.map((guid) => view.ticket(guid)).filter((ticket) => ticket !== undefined);
  }

  /**
   * How long a move queued now would wait for its batch: the moves ahead of it at the recent
   * time per move (batches write in bulk, so that time moves slowly). A reservation that
   * would still wait when its caller's deadline passes is refused before it waits.
   */
  private expectedWaitMs(ticketGuid: string): number {
    return this.queued(ticketGuid) * this.msPerMove;
  }

  /** The refusal of a new reservation on a full queue; Retry-After: about how long the queue takes. */
  private busy(ticketGuid: string): RpcError {
    return ticketBusy(Math.max(1, Math.ceil(this.expectedWaitMs(ticketGuid) / 1000)));
  }

  /** Moves waiting for a batch of this ticket (not those of the batch running). */
  queued(ticketGuid: string): number {
    return this.waiting.get(ticketGuid)?.length ?? 0;
  }

  private async drain(ticketGuid: string): Promise<void> {
    const queue = this.waiting.get(ticketGuid)!;
    while (queue.length > 0) await this.runBatch(ticketGuid, queue);
    this.waiting.delete(ticketGuid);
  }

  /** Runs the next batch of the queue. */
  private async runBatch(ticketGuid: string, queue: QueuedMove[]): Promise<void> {
    const batch = this.takeLive(queue);
    if (batch.length === 0) return;
    if (batch.length === 1 && !this.beforeCommit) {
      moveBatchSize.observe(1);
      await this.alone([ticketGuid], batch[0]!).then(batch[0]!.resolve, batch[0]!.reject);
      return;
    }
    let outcomes: Outcome[];
    const batchStarted = performance.now();
    try {
      outcomes = await this.db.transaction(async (trx) => {
        const done = await this.apply(trx, [ticketGuid], batch);
        await this.beforeCommit?.(batch.length);
        return done;
      });
    } catch {
      // Nothing of the batch is kept: each move runs again alone, as it would have unbatched.
      moveBatchSize.observe(1);
      await Promise.all(batch.map((move) => this.alone([ticketGuid], move).then(move.resolve, move.reject)));
      return;
    }
    moveBatchSize.observe(batch.length);
    this.msPerMove = 0.8 * this.msPerMove + 0.2 * ((performance.now() - batchStarted) / batch.length);
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));
  }

  /**
   * Applies moves in `trx`: the tickets locked and what is due expired (StockView.open), each
   * move checked against the view in turn, and the accepted ones written together. An outcome
   * per move; throws (failing the whole transaction) on anything but a move's own refusal.
   */
  private async apply(trx: Knex.Transaction, tickets: readonly string[], moves: QueuedMove[]): Promise<Outcome[]> {
    const reads = {
      reservations: moves.flatMap((queued) => queued.move.reads?.reservations ?? []),
      orders: moves.flatMap((queued) => queued.move.reads?.orders ?? []),
      barcodes: moves.flatMap((queued) => queued.move.reads?.barcodes ?? []),
      codes: moves.flatMap((queued) => queued.move.reads?.codes ?? []),
      currencies: moves.some((queued) => queued.move.reads?.currencies),
      coupons: moves.flatMap((queued) => queued.move.reads?.coupons ?? []),
    };
    const view = await StockView.open(trx, tickets, reads, this.clock.now());
    const outcomes = moves.map((queued): Outcome => {
      if (queued.deadline <= Date.now()) return { ok: false, error: tooLate() };
      const draft = view.draft();
      try {
        const value = queued.move.plan(draft);
        view.accept(draft);
        return { ok: true, value };
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        return { ok: false, error };
      }
    });
    await view.flush();
    return outcomes;
  }

  /**
   * The next moves of the queue whose callers still wait: a move whose call deadline has
   * passed is answered UNAVAILABLE without running (its caller was told DEADLINE_EXCEEDED and
   * may retry), as a move waiting for a connection past its deadline would have been.
   */
  private takeLive(queue: QueuedMove[]): QueuedMove[] {
    const now = Date.now();
    const batch: QueuedMove[] = [];
    while (queue.length > 0 && batch.length < this.maxBatch) {
      const move = queue.shift()!;
      if (move.deadline > now) batch.push(move);
      else move.reject(tooLate());
    }
    return batch;
  }

  /** One move in a transaction of its own (a batch of one). */
  private async alone(tickets: readonly string[], queued: QueuedMove): Promise<unknown> {
    try {
      const [outcome] = await this.db.transaction((trx) => this.apply(trx, tickets, [queued]));
      if (outcome!.ok) return outcome!.value;
      throw outcome!.error;
    } catch (err) {
      throw queued.move.onTaken && isUniqueViolation(err) ? queued.move.onTaken() : err;
    }
  }
}

const tooLate = () => RpcError.unavailable('The move waited past its deadline behind other moves of the ticket; try again shortly.');
