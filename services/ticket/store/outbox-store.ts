import type { Knex } from '../../../lib/db.js';
import { newGuid } from '../../../lib/ids.js';
import { dbTime } from './sql.js';

/** A committed change as a webhook event (docs/webhooks.md): its type, its company and the object as REST reads it. */
export interface Change {
  type: string;
  companyId: string;
  data: unknown;
  /** Only for webhook.test: the one endpoint that gets it (no fan-out by subscription). */
  endpointId?: string;
}

/**
 * The transactional outbox: the event rows of a change, written inside the change's own
 * transaction (`trx`), so a committed change always has its events and a rolled-back one
 * never does. The delivery worker (services/webhooks) fans them out and sends them.
 * `created_at` is taken here, as late as the outbox can: the change's locks are held and its
 * writes done, only the commit is left (not when the request began, before it waited for a
 * connection and the row lock; docs/webhooks.md).
 */
export async function recordChanges(trx: Knex, changes: readonly Change[]): Promise<string[]> {
  if (changes.length === 0) return [];
  const rows = outboxRows(changes, new Date());
  for (let i = 0; i < rows.length; i += 200) await trx('webhook_events').insert(rows.slice(i, i + 200));
  return rows.map((row) => row.guid);
}

/** The outbox rows of changes committed at `now` (a batch of stock moves writes them with its own inserts). */
export function outboxRows(changes: readonly Change[], now: Date) {
  return changes.map((change) => ({
    guid: newGuid(),
    company_id: change.companyId,
    type: change.type,
    data: JSON.stringify(change.data),
    created_at: dbTime(now),
    fanned_out: 0,
    endpoint_id: change.endpointId ?? null,
  }));
}

/** One change; its event id. */
export const recordChange = async (trx: Knex, change: Change): Promise<string> => (await recordChanges(trx, [change]))[0]!;
