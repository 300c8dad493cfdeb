import { isUniqueViolation, type Knex } from '../../../lib/db.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { checkIdempotencyKey, IDEMPOTENCY_TTL_MS, keyReused, requestHash } from './idempotency-keys.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';
import type { TicketBatcher } from '../stock/ticket-batcher.js';
import type { MoveDraft } from '../stock/stock-batch.js';

/** Encodes and decodes a response message (the ts-proto MessageFns of it). */
export interface Codec<M> {
  encode(message: M): { finish(): Uint8Array };
  decode(bytes: Uint8Array): M;
}

/** A checked creation, ready to be written: statement by statement, or (a stock move of one ticket) planned with that ticket's batch. */
export type PreparedCreation<M> =
  | {
      result: M;
      write(trx: Knex): Promise<void>;
      /** The one ticket whose stock the creation moves, if one: it is batched with that ticket's other moves. */
      ticketGuid?: string;
    }
  | {
      result: M;
      /** The ticket whose stock the creation takes: it is batched with that ticket's other moves. */
      ticketGuid: string;
      /** Checks the creation under the ticket's lock and stages its writes (ticket-batcher.ts PlannedMove). */
      plan(draft: MoveDraft): void;
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
    private readonly batcher?: TicketBatcher,
  ) {}

  /** Writes the creation and, with a request id, its remembered result: a stock move in its ticket's batch, anything else in a transaction of its own. */
  private write(prepared: PreparedCreation<unknown>, remembered?: () => Record<string, unknown>): Promise<void> {
    if ('plan' in prepared) {
      if (!this.batcher) throw new Error('a planned creation needs the ticket batcher');
      const plan = (draft: MoveDraft) => {
        prepared.plan(draft);
        if (remembered) draft.insert('idempotency_keys', remembered());
      };
      return this.batcher.plan(prepared.ticketGuid, { plan }, { takesStock: true });
    }
    const work = async (trx: Knex) => {
      await prepared.write(trx);
      if (remembered) await this.store.insertRow(trx, remembered());
    };
    if (this.batcher && prepared.ticketGuid) return this.batcher.transaction(prepared.ticketGuid, work, { takesStock: true });
    return this.db.transaction(work);
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
