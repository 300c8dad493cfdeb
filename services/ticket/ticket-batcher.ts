import { performance } from 'node:perf_hooks';
import { isUniqueViolation, type Knex } from '../../lib/db.js';
import { RpcError } from '../../lib/grpc/errors.js';
import { ticketBusy } from '../../lib/stock-conflicts.js';
import { moveBatchSize } from '../../lib/metrics.js';
import { callDeadline } from './call-deadline.js';

/** What a move does inside its transaction (the ticket's lock is taken by the move itself). */
export type MoveWork<T> = (trx: Knex.Transaction) => Promise<T>;

/** The most moves one batch applies in one transaction (docs/stock-moves.md "Hot tickets: batched moves"). */
export const MOVES_PER_BATCH = 64;

/** A batch takes no further move once it has run this long, so that a move waits for at most about this much of others' work. */
export const BATCH_MS = 50;

interface QueuedMove {
  work: MoveWork<unknown>;
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
 * MOVES_PER_BATCH queued moves (as many as it can run within BATCH_MS) and runs them in ONE transaction, each move in a savepoint
 * of its own (its refusal undoes its writes only), then commits once and answers each. A
 * batch whose transaction fails as a whole runs each of its moves again alone, in a
 * transaction of its own, as without batching. One move waiting alone runs exactly as
 * without batching. Each process batches its own moves; the ticket's row lock, taken by the
 * first move of a batch and held to its commit, still orders batches of several processes.
 */
export interface BatcherOptions {
  /** Moves of one ticket that may wait; past it a new reservation is refused at once (STOCK_MOVE_QUEUE_MAX). */
  queueMax?: number;
  maxBatch?: number;
  maxBatchMs?: number;
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

  constructor(
    private readonly db: Knex,
    options: BatcherOptions = {},
  ) {
    this.queueMax = options.queueMax ?? MOVE_QUEUE_MAX;
    this.maxBatch = options.maxBatch ?? MOVES_PER_BATCH;
    this.maxBatchMs = options.maxBatchMs ?? BATCH_MS;
  }

  /**
   * Runs `work` in a transaction: batched with the other moves of `ticketGuid`, or alone
   * without one. A move that takes new stock (`takesStock`: a reservation, an order) is refused
   * at once, before it waits, when the ticket's queue is full; the other moves (confirm,
   * release, ...) always queue.
   */
  transaction<T>(ticketGuid: string | undefined, work: MoveWork<T>, options: { takesStock?: boolean } = {}): Promise<T> {
    if (ticketGuid === undefined) return this.db.transaction(work);
    if (options.takesStock && this.queued(ticketGuid) >= this.queueMax) return Promise.reject(this.busy(ticketGuid));
    return new Promise<T>((resolve, reject) => {
      const move: QueuedMove = { work, deadline: callDeadline(), resolve: resolve as (value: unknown) => void, reject };
      const queue = this.waiting.get(ticketGuid);
      if (queue) {
        queue.push(move);
        return;
      }
      this.waiting.set(ticketGuid, [move]);
      // One turn of the event loop lets the moves that arrive together start together.
      setImmediate(() => void this.drain(ticketGuid));
    });
  }

  /** The refusal of a new reservation on a full queue; Retry-After: about how long the queue takes. */
  private busy(ticketGuid: string): RpcError {
    return ticketBusy(Math.max(1, Math.ceil((this.queued(ticketGuid) * this.msPerMove) / 1000)));
  }

  /** Moves waiting for a batch of this ticket (not those of the batch running). */
  queued(ticketGuid: string): number {
    return this.waiting.get(ticketGuid)?.length ?? 0;
  }

  private async drain(ticketGuid: string): Promise<void> {
    const queue = this.waiting.get(ticketGuid)!;
    while (queue.length > 0) await this.runBatch(queue);
    this.waiting.delete(ticketGuid);
  }

  /** Runs the next batch of the queue; the moves it had no time for go back to the queue's front. */
  private async runBatch(queue: QueuedMove[]): Promise<void> {
    const batch = this.takeLive(queue);
    if (batch.length === 0) return;
    if (batch.length === 1 && !this.beforeCommit) {
      moveBatchSize.observe(1);
      return this.alone(batch[0]!);
    }
    let outcomes: Outcome[];
    const batchStarted = performance.now();
    try {
      outcomes = await this.db.transaction(async (trx) => {
        const started = performance.now();
        const done: Outcome[] = [];
        for (const move of batch) {
          if (done.length > 0 && performance.now() - started > this.maxBatchMs) break;
          if (move.deadline <= Date.now()) {
            done.push({ ok: false, error: tooLate() });
            continue;
          }
          try {
            done.push({ ok: true, value: await trx.transaction((savepoint) => move.work(savepoint)) });
          } catch (error) {
            if (!isRefusal(error)) throw error;
            done.push({ ok: false, error });
          }
        }
        await this.beforeCommit?.(done.length);
        return done;
      });
    } catch {
      // Nothing of the batch is kept: each move runs again alone, as it would have unbatched.
      moveBatchSize.observe(1);
      await Promise.all(batch.map((move) => this.alone(move)));
      return;
    }
    const elapsedMs = performance.now() - batchStarted;
    moveBatchSize.observe(outcomes.length);
    this.msPerMove = 0.8 * this.msPerMove + 0.2 * (elapsedMs / outcomes.length);
    queue.unshift(...batch.slice(outcomes.length));
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));
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

  private async alone(move: QueuedMove): Promise<void> {
    try {
      move.resolve(await this.db.transaction(move.work));
    } catch (err) {
      move.reject(err);
    }
  }
}

const tooLate = () => RpcError.unavailable('The move waited past its deadline behind other moves of the ticket; try again shortly.');
