import { isUniqueViolation, type Knex } from '../../lib/db.js';
import { RpcError } from '../../lib/grpc/errors.js';
import { moveBatchSize } from '../../lib/metrics.js';

/** What a move does inside its transaction (the ticket's lock is taken by the move itself). */
export type MoveWork<T> = (trx: Knex.Transaction) => Promise<T>;

/** The most moves one batch applies in one transaction (docs/stock-moves.md "Hot tickets: batched moves"). */
export const MOVES_PER_BATCH = 64;

interface QueuedMove {
  work: MoveWork<unknown>;
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
 * MOVES_PER_BATCH queued moves and runs them in ONE transaction, each move in a savepoint
 * of its own (its refusal undoes its writes only), then commits once and answers each. A
 * batch whose transaction fails as a whole runs each of its moves again alone, in a
 * transaction of its own, as without batching. One move waiting alone runs exactly as
 * without batching. Each process batches its own moves; the ticket's row lock, taken by the
 * first move of a batch and held to its commit, still orders batches of several processes.
 */
export class TicketBatcher {
  /** Per ticket, the moves waiting for the next batch; a ticket is present while its batches run. */
  private readonly waiting = new Map<string, QueuedMove[]>();
  /** Test seam: runs inside a batch's transaction before it commits (a throw fails the batch). */
  beforeCommit?: (moves: number) => Promise<void> | void;

  constructor(
    private readonly db: Knex,
    private readonly maxBatch = MOVES_PER_BATCH,
  ) {}

  /** Runs `work` in a transaction: batched with the other moves of `ticketGuid`, or alone without one. */
  transaction<T>(ticketGuid: string | undefined, work: MoveWork<T>): Promise<T> {
    if (ticketGuid === undefined) return this.db.transaction(work);
    return new Promise<T>((resolve, reject) => {
      const move: QueuedMove = { work, resolve: resolve as (value: unknown) => void, reject };
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

  /** Moves waiting for a batch of this ticket (not those of the batch running). */
  queued(ticketGuid: string): number {
    return this.waiting.get(ticketGuid)?.length ?? 0;
  }

  private async drain(ticketGuid: string): Promise<void> {
    const queue = this.waiting.get(ticketGuid)!;
    while (queue.length > 0) await this.runBatch(queue.splice(0, this.maxBatch));
    this.waiting.delete(ticketGuid);
  }

  private async runBatch(batch: QueuedMove[]): Promise<void> {
    moveBatchSize.observe(batch.length);
    if (batch.length === 1 && !this.beforeCommit) return this.alone(batch[0]!);
    let outcomes: Outcome[];
    try {
      outcomes = await this.db.transaction(async (trx) => {
        const done: Outcome[] = [];
        for (const move of batch) {
          try {
            done.push({ ok: true, value: await trx.transaction((savepoint) => move.work(savepoint)) });
          } catch (error) {
            if (!isRefusal(error)) throw error;
            done.push({ ok: false, error });
          }
        }
        await this.beforeCommit?.(batch.length);
        return done;
      });
    } catch {
      // Nothing of the batch is kept: each move runs again alone, as it would have unbatched.
      await Promise.all(batch.map((move) => this.alone(move)));
      return;
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));
  }

  private async alone(move: QueuedMove): Promise<void> {
    try {
      move.resolve(await this.db.transaction(move.work));
    } catch (err) {
      move.reject(err);
    }
  }
}

const batchers = new WeakMap<Knex, TicketBatcher>();

/** The one batcher of a database pool in this process (every service object of the pool shares it). */
export function batcherOf(db: Knex): TicketBatcher {
  let batcher = batchers.get(db);
  if (!batcher) batchers.set(db, (batcher = new TicketBatcher(db)));
  return batcher;
}
