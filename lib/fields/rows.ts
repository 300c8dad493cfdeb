import { fromDbBool, fromDbTime, toDbTime } from '../db.js';
import { canonicalDecimal } from './decimal.js';
import { columnOf, fieldDef, storedFields, type FieldDef, type FieldTable, type ValueOfAny } from './kinds.js';

/** Field values <-> database rows, for every stored field of a table (column names from the table). */

type Row = Record<string, unknown>;

function fromColumn(def: FieldDef, value: unknown): ValueOfAny {
  if (value === null || value === undefined) return null;
  switch (def.kind.type) {
    case 'decimal':
      // MySQL returns DECIMAL as "21.00", SQLite as 21.
      return canonicalDecimal(value as string | number);
    case 'boolean':
      return fromDbBool(value);
    case 'integer':
      return Number(value);
    case 'timestamp':
      return fromDbTime(value as string | Date) ?? null;
    default:
      return value as string;
  }
}

/** A value as its column takes it: UTC timestamps as text, booleans as 0/1 (better-sqlite3 binds no booleans). */
export function toColumn(value: unknown): unknown {
  if (value instanceof Date) return toDbTime(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** A row -> the values of every stored field. */
export function valuesFromRow<V>(table: FieldTable, row: Row): V {
  const values: Record<string, unknown> = {};
  for (const field of storedFields(table)) values[field] = fromColumn(table[field]!, row[columnOf(table, field)]);
  return values as V;
}

/** Some values -> their columns (only the fields given). */
export function rowFromValues(table: FieldTable, values: Readonly<Record<string, unknown>>): Row {
  const row: Row = {};
  for (const [field, value] of Object.entries(values)) if (fieldDef(table, field)) row[columnOf(table, field)] = toColumn(value);
  return row;
}
