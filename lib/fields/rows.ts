import { fromDbBool, fromDbTime, toDbTime } from '../db.js';
import { canonicalDecimal } from './decimal.js';
import { columnOf, fieldDef, storedFields, type FieldDef, type FieldKind, type FieldTable, type NestedValue, type ValueOfAny } from './kinds.js';

/** Field values <-> database rows, for every stored field of a table (column names from the table). */

export type Row = Record<string, unknown>;

/** How each kind is read from its column (never null there): one function per kind, so a converter built once per table can hold it. */
const READ_COLUMN: Record<FieldKind['type'], (value: unknown) => ValueOfAny> = {
  // MySQL returns DECIMAL as "21.00", SQLite as 21.
  decimal: (value) => canonicalDecimal(value as string | number),
  boolean: fromDbBool,
  integer: Number,
  timestamp: (value) => fromDbTime(value as string | Date) ?? null,
  // Stored as a JSON array in a text column.
  'text-list': (value) => (typeof value === 'string' ? (JSON.parse(value) as string[]) : (value as string[])),
  object: (value) => (typeof value === 'string' ? (JSON.parse(value) as NestedValue) : (value as NestedValue)),
  'object-list': (value) => (typeof value === 'string' ? (JSON.parse(value) as NestedValue[]) : (value as NestedValue[])),
  guid: (value) => value as string,
  text: (value) => value as string,
  enum: (value) => value as string,
};

/** The reader of a field's column values other than null (null reads as null). */
export const columnReader = (def: FieldDef): ((value: unknown) => ValueOfAny) => READ_COLUMN[def.kind.type];

function fromColumn(def: FieldDef, value: unknown): ValueOfAny {
  return value === null || value === undefined ? null : columnReader(def)(value);
}

/** A value as its column takes it: UTC timestamps as text, booleans as 0/1 (better-sqlite3 binds no booleans), lists as JSON. */
export function toColumn(value: unknown): unknown {
  if (value instanceof Date) return toDbTime(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) return JSON.stringify(value);
  return value;
}

/** Each stored field with its definition and column, listed once per table (not for every row of a long list). */
const storedOfTable = new WeakMap<FieldTable, ReadonlyArray<{ field: string; def: FieldDef; column: string }>>();
export function storedColumns(table: FieldTable): ReadonlyArray<{ field: string; def: FieldDef; column: string }> {
  let stored = storedOfTable.get(table);
  if (!stored) storedOfTable.set(table, (stored = storedFields(table).map((field) => ({ field, def: table[field]!, column: columnOf(table, field) }))));
  return stored;
}

/** A row -> the values of every stored field. */
export function valuesFromRow<V>(table: FieldTable, row: Row): V {
  const values: Record<string, unknown> = {};
  for (const { field, def, column } of storedColumns(table)) values[field] = fromColumn(def, row[column]);
  return values as V;
}

/** Some values -> their columns (only the fields given). */
export function rowFromValues(table: FieldTable, values: Readonly<Record<string, unknown>>): Row {
  const row: Row = {};
  for (const [field, value] of Object.entries(values)) if (fieldDef(table, field)) row[columnOf(table, field)] = toColumn(value);
  return row;
}
