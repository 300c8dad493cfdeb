import { performance } from 'node:perf_hooks';
import { isUniqueViolation, type Knex } from '../../../lib/db.js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { ticketBusy } from '../../../lib/stock-conflicts.js';
import { moveBatchSize } from '../../../lib/metrics.js';
import { callDeadline } from '../access/call-deadline.js';
import { ReservationStore } from '../store/reservation-store.js';
import { StockBatch, type MoveDraft } from './stock-batch.js';

/** What a move does inside its transaction, statement by statement (the ticket's lock is taken by the move itself). */
export type MoveWork<T> = (trx: Knex.Transaction) => Promise<T>;

/**
 * A move written with its batch (docs/stock-moves.md "Hot tickets: batched moves"): checked in
 * memory against the batch's view of the locked ticket and of the reservations it names, its
 * writes staged in `draft` and written with the other moves' in a few statements.
 */
export interface PlannedMove<T> {
  /** The reservations the move reads under the ticket's lock (the batch reads them in one query). */
  reads?: readonly string[];
  /** Checks the move and stages its writes; throws its refusal (an RpcError). Synchronous: no other move runs meanwhile. */
  plan(draft: MoveDraft): T;
  /** What a unique violation of its writes means when it ran alone (a barcode it sent is taken); without it the violation is passed on. */
  onTaken?: () => Error;
}

/** The most moves one batch applies in one transaction (docs/stock-moves.md "Hot tickets: batched moves"). */
export const MOVES_PER_BATCH = 512;

/** A batch takes no further statement-by-statement move once it has run this long, so that a move waits for at most about this much of others' work. */
export const BATCH_MS = 50;

interface QueuedMove {
  move: { work: MoveWork<unknown> } | { planned: PlannedMove<unknown> };
  /** Its call's deadline: past it the caller has gone, and the move is not run. */
  deadline: number;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * A refusal answers its own move and leaves the batch's transaction usable: the move's own
 * errors (a 409/422/404 RpcError) and a unique violation (a barcode or an idempotency key
 * taken), each undone by the move's savepoint. Anything else (deadlock, lost connection) may
 * have ended the transaction: the batch fails.
 */
function isRefusal(err: unknown): boolean {
  return err instanceof RpcError || isUniqueViolation(err);
}

/**
 * Group commit of the stock moves of one ticket. Moves of a ticket queue here in memory
 * (holding no connection); while no batch of that ticket runs, one takes up to
 * MOVES_PER_BATCH queued moves and runs them in ONE transaction, commits once and answers
 * each. Planned moves (reserve, pending, confirm, release) are checked in memory one after
 * the other against a StockBatch (one lock, one expiry, one read of their reservations) and
 * written together; a move written statement by statement (scan, an order) runs after them in a
 * savepoint of its own, so its refusal undoes its writes only. A batch whose transaction fails
 * as a whole runs each of its moves again alone, in a transaction of its own. One move waiting
 * alone runs alone. Each process batches its own moves; the ticket's row lock, taken first
 * and held to the commit, still orders the batches of several processes.
 */
export interface BatcherOptions {
  /** Moves of one ticket that may wait; past it a new reservation is refused at once (STOCK_MOVE_QUEUE_MAX). */
  queueMax?: number;
  maxBatch?: number;
  maxBatchMs?: number;
  /** Where planned moves read and write (default: a ReservationStore on the batcher's database). */
  store?: ReservationStore;
}

/** Default of STOCK_MOVE_QUEUE_MAX. */
export const MOVE_QUEUE_MAX = 2000;

export class TicketBatcher {
  /** Per ticket, the moves waiting for the next batch; a ticket is present while its batches run. */
  private readonly waiting = new Map<string, QueuedMove[]>();
  /** Test seam: runs inside a batch's transaction before it commits (a throw fails the batch). */
  beforeCommit?: (moves: number) => Promise<void> | void;

  /** Milliseconds one move of a batch took lately (a moving average), to tell how long a queue takes. */
  private msPerMove = 0;
  private readonly queueMax: number;
  private readonly maxBatch: number;
  private readonly maxBatchMs: number;
  private readonly store: ReservationStore;

  constructor(
    private readonly db: Knex,
    options: BatcherOptions = {},
  ) {
    this.queueMax = options.queueMax ?? MOVE_QUEUE_MAX;
    this.maxBatch = options.maxBatch ?? MOVES_PER_BATCH;
    this.maxBatchMs = options.maxBatchMs ?? BATCH_MS;
    this.store = options.store ?? new ReservationStore(db);
  }

  /**
   * Runs `work` in a transaction: batched with the other moves of `ticketGuid`, or alone
   * without one. A move that takes new stock (`takesStock`: a reservation, an order) is refused
   * at once, before it waits, when the ticket's queue is full; the other moves (confirm,
   * release, ...) always queue.
   */
  transaction<T>(ticketGuid: string | undefined, work: MoveWork<T>, options: { takesStock?: boolean } = {}): Promise<T> {
    if (ticketGuid === undefined) return this.db.transaction(work);
    return this.enqueue(ticketGuid, { work }, options) as Promise<T>;
  }

  /** Runs a planned move of `ticketGuid`'s stock in that ticket's next batch (refused at once like `transaction` when it takes stock and the queue is full). */
  plan<T>(ticketGuid: string, planned: PlannedMove<T>, options: { takesStock?: boolean } = {}): Promise<T> {
    return this.enqueue(ticketGuid, { planned }, options) as Promise<T>;
  }

  private enqueue(ticketGuid: string, move: QueuedMove['move'], options: { takesStock?: boolean }): Promise<unknown> {
    const deadline = callDeadline();
    if (options.takesStock && (this.queued(ticketGuid) >= this.queueMax || this.expectedWaitMs(ticketGuid) >= deadline - Date.now())) {
      return Promise.reject(this.busy(ticketGuid));
    }
    return new Promise((resolve, reject) => {
      const queued: QueuedMove = { move, deadline, resolve, reject };
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

  /** Runs the next batch of the queue; the moves it had no time for go back to the queue's front. */
  private async runBatch(ticketGuid: string, queue: QueuedMove[]): Promise<void> {
    const batch = this.takeLive(queue);
    if (batch.length === 0) return;
    if (batch.length === 1 && !this.beforeCommit) {
      moveBatchSize.observe(1);
      return this.alone(ticketGuid, batch[0]!);
    }
    let outcomes: Array<Outcome | undefined>;
    const batchStarted = performance.now();
    try {
      outcomes = await this.db.transaction(async (trx) => {
        const done = await this.apply(trx, ticketGuid, batch);
        await this.beforeCommit?.(done.filter(Boolean).length);
        return done;
      });
    } catch {
      // Nothing of the batch is kept: each move runs again alone, as it would have unbatched.
      moveBatchSize.observe(1);
      await Promise.all(batch.map((move) => this.alone(ticketGuid, move)));
      return;
    }
    const ran = outcomes.filter(Boolean).length;
    moveBatchSize.observe(ran);
    this.msPerMove = 0.8 * this.msPerMove + 0.2 * ((performance.now() - batchStarted) / ran);
    queue.unshift(...batch.filter((_, i) => outcomes[i] === undefined));
    outcomes.forEach((outcome, i) => {
      if (outcome) return outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error);
    });
  }

  /**
   * Applies moves in `trx`: first the planned ones, checked one by one against one StockBatch
   * and written together, then the others, each in a savepoint, while the batch is within
   * maxBatchMs. An outcome per move that ran; undefined for one left for the next batch.
   * Throws (failing the whole transaction) on anything but a move's own refusal.
   */
  private async apply(trx: Knex.Transaction, ticketGuid: string, moves: QueuedMove[]): Promise<Array<Outcome | undefined>> {
    const started = performance.now();
    const outcomes: Array<Outcome | undefined> = new Array(moves.length).fill(undefined);
    const planned = moves.flatMap((queued, i) => ('planned' in queued.move ? [{ i, planned: queued.move.planned, deadline: queued.deadline }] : []));
    if (planned.length > 0) {
      const stock = await StockBatch.open(trx, this.store, ticketGuid, planned.flatMap((p) => p.planned.reads ?? []), new Date());
      for (const { i, planned: move, deadline } of planned) {
        if (deadline <= Date.now()) {
          outcomes[i] = { ok: false, error: tooLate() };
          continue;
        }
        const draft = stock.draft();
        try {
          outcomes[i] = { ok: true, value: move.plan(draft) };
          stock.accept(draft);
        } catch (error) {
          if (!(error instanceof RpcError)) throw error;
          outcomes[i] = { ok: false, error };
        }
      }
      await stock.flush();
    }
    let ran = planned.length;
    for (const [i, queued] of moves.entries()) {
      if (!('work' in queued.move)) continue;
      if (ran > 0 && performance.now() - started > this.maxBatchMs) break;
      ran++;
      if (queued.deadline <= Date.now()) {
        outcomes[i] = { ok: false, error: tooLate() };
        continue;
      }
      const work = queued.move.work;
      try {
        outcomes[i] = { ok: true, value: await trx.transaction((savepoint) => work(savepoint)) };
      } catch (error) {
        if (!isRefusal(error)) throw error;
        outcomes[i] = { ok: false, error };
      }
    }
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

  /** One move in a transaction of its own: a move statement by statement runs as it would unbatched, a planned one as a batch of one. */
  private async alone(ticketGuid: string, queued: QueuedMove): Promise<void> {
    const { move } = queued;
    try {
      if ('work' in move) return queued.resolve(await this.db.transaction(move.work));
      const [outcome] = await this.db.transaction((trx) => this.apply(trx, ticketGuid, [queued]));
      if (outcome!.ok) queued.resolve(outcome!.value);
      else queued.reject(outcome!.error);
    } catch (err) {
      queued.reject('planned' in move && move.planned.onTaken && isUniqueViolation(err) ? move.planned.onTaken() : err);
    }
  }
}

const tooLate = () => RpcError.unavailable('The move waited past its deadline behind other moves of the ticket; try again shortly.');
