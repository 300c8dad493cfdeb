import { toMessageValue } from './messages.js';
import { columnReader, storedColumns, type Row } from './rows.js';
import type { FieldTable } from './kinds.js';

/**
 * Database rows straight to protobuf messages, for the long lists: the message that
 * `fromPartial(toMessageFields(table, valuesFromRow(table, row)))` gives, without the values
 * and the partial in between. The converter is built once per table from its stored fields;
 * computed fields keep the empty message's defaults (the caller sets them).
 */
export function rowToMessage<M extends object>(table: FieldTable, emptyMessage: () => M): (row: Row) => M {
  const fields = storedColumns(table).map(({ field, def, column }) => {
    const read = columnReader(def);
    return { field, column, convert: (raw: unknown) => toMessageValue(def, read(raw)) };
  });
  return (row) => {
    const message = emptyMessage() as Record<string, unknown>;
    for (const { field, column, convert } of fields) {
      const raw = row[column];
      if (raw === null || raw === undefined) continue;
      const value = convert(raw);
      if (value !== null && value !== undefined) message[field] = value;
    }
    return message as M;
  };
}
