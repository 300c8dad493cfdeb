import type { Knex } from '../../../../lib/db.js';

/**
 * The per-event list within a company (`company_id IN (...) AND event_id = ? AND id > ?
 * ORDER BY id`): with only `(event_id, id)` and `(company_id, id)`, MySQL picked the
 * company's index and walked the company's tickets in id order to find one event's
 * (docs/PERFORMANCE.md, "EXPLAIN"). `(company_id, event_id, id)` matches all three
 * conditions and the order, so the optimizer has nothing better to choose; it serves both
 * backends. `(event_id, id)` stays for the event's cascade on delete.
 */
export const listIndexMigration: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('tickets', (t) => {
      t.index(['company_id', 'event_id', 'id'], 'tickets_company_id_event_id_id_index');
    });
  },
  async down(db) {
    await db.schema.alterTable('tickets', (t) => {
      t.dropIndex(['company_id', 'event_id', 'id'], 'tickets_company_id_event_id_id_index');
    });
  },
};
