import type { ColumnGuard } from '../catalogue/field-order-rules.js';
import type { Knex } from '../../../lib/db.js';
import type { Change } from './outbox-store.js';

/** How a store writes a change of an event or a ticket. */

export interface WriteOptions {
  now: Date;
  /** Only change the row while it still has this version (If-Match). */
  version?: number;
}

export interface UpdateOptions<R> extends WriteOptions {
  /** Conditions on the stored row that must still hold (order rules). */
  guards?: readonly ColumnGuard[];
  /** The webhook event of the change, recorded in its transaction (the service decides it). */
  change: (updated: R) => Change;
  /** Runs in the change's transaction before the write; throws to refuse it (the service decides). */
  check?: (trx: Knex) => Promise<void>;
}
