import { toDbTime, type Knex } from '../../../lib/db.js';

export interface StoredResult {
  requestHash: string;
  /** The encoded first response. */
  response: Uint8Array;
}

export interface IdempotencyKey {
  userId: string;
  scope: string;
  key: string;
}

/** The remembered first results of creations made with a request id (Idempotency-Key). */
export class IdempotencyStore {
  constructor(private readonly db: Knex) {}

  /** The live entry of a key. The user's entries older than `notBefore` are forgotten first. */
  async find(id: IdempotencyKey, notBefore: Date): Promise<StoredResult | undefined> {
    await this.db('idempotency_keys').where('user_id', id.userId).where('created_at', '<', toDbTime(notBefore)).delete();
    const where = { user_id: id.userId, scope: id.scope, idempotency_key: id.key };
    const row = await this.db('idempotency_keys').where(where).first('request_hash', 'response');
    if (!row) return undefined;
    return {
      requestHash: row.request_hash as string,
      response: Buffer.from(row.response as string, 'base64'),
    };
  }

  /** The stored form of a first result (written in the creation's transaction, or with its stock batch). */
  row(id: IdempotencyKey, requestHash: string, response: Uint8Array, now: Date): Record<string, unknown> {
    return {
      user_id: id.userId,
      scope: id.scope,
      idempotency_key: id.key,
      request_hash: requestHash,
      response: Buffer.from(response).toString('base64'),
      created_at: toDbTime(now),
    };
  }

  /** Inside the creation's transaction: a unique violation means another request with the same key won. */
  async insertRow(trx: Knex, row: Record<string, unknown>): Promise<void> {
    await trx('idempotency_keys').insert(row);
  }
}
