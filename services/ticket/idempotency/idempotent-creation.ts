import { isUniqueViolation, type Knex } from '../../../lib/db.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { checkIdempotencyKey, IDEMPOTENCY_TTL_MS, keyReused, requestHash } from './idempotency-keys.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';

/** Encodes and decodes a response message (the ts-proto MessageFns of it). */
export interface Codec<M> {
  encode(message: M): { finish(): Uint8Array };
  decode(bytes: Uint8Array): M;
}

/**
 * A checked creation, ready to be written: statement by statement in a transaction of its own
 * (`write`), or committed by the creation itself (`commit`: a stock move, in the stock engine),
 * which then writes the remembered row with its own writes.
 */
export type PreparedCreation<M> =
  | {
      result: M;
      write(trx: Knex): Promise<void>;
    }
  | {
      result: M;
      /** Commits the creation and, when given, `remembered()` (its idempotency row, known once the result is) in the same transaction. */
      commit(remembered?: () => Record<string, unknown>): Promise<void>;
    };

export interface CreationRequest<M> {
  caller: AuthenticatedCaller;
  /** The method, e.g. "CreateTicket". */
  scope: string;
  /** The request id (Idempotency-Key); '' for none. */
  requestId: string;
  /** What makes two requests the same request (besides the caller's companies). */
  request: Array<string | Uint8Array>;
  codec: Codec<M>;
}

/** The request of a move run once per request id (a confirm, a scan, ...): the same request is every field but its request id. */
export function moveRequest<M>(caller: AuthenticatedCaller, scope: string, request: { request_id?: string }, codec: Codec<M>): CreationRequest<M> {
  return { caller, scope, requestId: request.request_id ?? '', request: [JSON.stringify({ ...request, request_id: undefined })], codec };
}

/**
 * Runs a creation once per request id: a retry with the same key and the same request,
 * by the same user, gets the first result back and writes nothing; the same key with a
 * different request is a violation on `Idempotency-Key`. The creation and the remembered
 * result are written in one transaction, so two concurrent retries cannot both create.
 */
export class IdempotentCreation {
  constructor(
    private readonly db: Knex,
    private readonly store: IdempotencyStore,
  ) {}

  /** Writes the creation and, with a request id, its remembered result, in one transaction. */
  private write(prepared: PreparedCreation<unknown>, remembered?: () => Record<string, unknown>): Promise<void> {
    if ('commit' in prepared) return prepared.commit(remembered);
    return this.db.transaction(async (trx) => {
      await prepared.write(trx);
      if (remembered) await this.store.insertRow(trx, remembered());
    });
  }

  /**
   * A move run once per request id (a confirm, a scan, ...): `move(keep)` runs it, and inside
   * its transaction hands its answer to `keep`, which gives the row that remembers it (to write
   * with the move's own writes), or undefined without a request id.
   */
  once<M>(request: CreationRequest<M>, move: (keep: (answer: M) => Record<string, unknown> | undefined) => Promise<unknown>): Promise<M> {
    let answer: M | undefined;
    return this.run(request, async () => ({
      get result() {
        return answer as M;
      },
      commit: async (remembered?: () => Record<string, unknown>) => {
        await move((value) => {
          answer = value;
          return remembered?.();
        });
      },
    }));
  }

  async run<M>(request: CreationRequest<M>, prepare: () => Promise<PreparedCreation<M>>): Promise<M> {
    if (request.requestId === '') {
      const prepared = await prepare();
      await this.write(prepared);
      return prepared.result;
    }
    checkIdempotencyKey(request.requestId);
    const id = { userId: request.caller.userId, scope: request.scope, key: request.requestId };
    const hash = requestHash([request.scope, [...request.caller.companyIds].sort().join(','), ...request.request]);
    const notBefore = () => new Date(Date.now() - IDEMPOTENCY_TTL_MS);
    const replay = (stored: { requestHash: string; response: Uint8Array }): M => {
      if (stored.requestHash !== hash) throw keyReused();
      return request.codec.decode(stored.response);
    };

    const stored = await this.store.find(id, notBefore());
    if (stored) return replay(stored);
    const prepared = await prepare();
    try {
      // The result is read after the write: a creation may know it only then.
      await this.write(prepared, () => this.store.row(id, hash, request.codec.encode(prepared.result).finish(), new Date()));
      return prepared.result;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // A concurrent request with the same key won the race: answer as a retry would be answered.
      const winner = await this.store.find(id, notBefore());
      if (!winner) throw err;
      return replay(winner);
    }
  }
}
