import { isMysql, toDbTime, type Knex } from '../../../lib/db.js';
import { columnOf, type FieldTable } from '../../../lib/fields/kinds.js';
import { toColumn } from '../../../lib/fields/rows.js';
import type { ColumnGuard } from '../catalogue/field-order-rules.js';
import { updatedAtBounds } from '../catalogue/updated-at.js';

/** SQL fragments shared by the stores. */

export const dbTime = (value: Date | null): string | null => (value ? toDbTime(value) : null);

/**
 * The new updated_at of an UPDATE (rule in domain/updated-at.ts), computed from the row's
 * own previous value inside the statement, so that it also holds under concurrent updates.
 * Both backends store 'YYYY-MM-DD HH:MM:SS.mmm' (DATETIME(3) on MySQL; text on SQLite,
 * where strftime's %f gives the same form), so the comparisons are exact on both.
 */
export function bumpedUpdatedAt(db: Knex, now: Date): Knex.Raw {
  const plusOneSecond = isMysql(db) ? 'DATE_ADD(updated_at, INTERVAL 1 SECOND)' : "strftime('%Y-%m-%d %H:%M:%f', updated_at, '+1 second')";
  const bounds = updatedAtBounds(now);
  return db.raw(
    `CASE WHEN updated_at < ? THEN ? WHEN updated_at <= ? THEN ${plusOneSecond} WHEN updated_at < ? THEN ? ELSE updated_at END`,
    [
      toDbTime(bounds.visibleFrom),
      toDbTime(bounds.now),
      toDbTime(bounds.now),
      toDbTime(bounds.aheadFrom),
      toDbTime(bounds.nowPlusOneSecond),
    ],
  );
}

/** Confines a query to live rows of the caller's companies. */
export function visibleTo<T extends Knex.QueryBuilder>(query: T, companyIds: readonly string[]): T {
  return query.whereIn('company_id', [...companyIds]).whereNull('deleted_at') as T;
}

/** Adds the guards of an update (domain/order-rules.ts): conditions on the stored row that must still hold. */
export function guarded<T extends Knex.QueryBuilder>(query: T, table: FieldTable, guards: readonly ColumnGuard[] = []): T {
  for (const guard of guards) {
    const column = columnOf(table, guard.field);
    const value = toColumn(guard.value) as string | number;
    if (guard.orNull) query.where((q) => q.whereNull(column).orWhere(column, guard.op, value));
    else query.where(column, guard.op, value);
  }
  return query;
}
