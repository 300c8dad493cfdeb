import { creationFields, tableEntries, type FieldTable } from './kinds.js';
import { fromMessageField } from './messages.js';
import { formatTimestamp } from '../time.js';

/**
 * A resource message as its JSON object, by its field table, in the table's order: unset is
 * null, decimals (exact strings) leave as JSON numbers ("21" -> 21, "9.99" -> 9.99),
 * timestamps as YYYY-MM-DDTHH:MM:SS+00:00, enums as their lowercase names.
 */
export function resourceJson(table: FieldTable, message: object): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [field, def] of tableEntries(table)) {
    if (def.notInJson) continue;
    const value = fromMessageField(def, (message as Record<string, unknown>)[field]);
    if (value === null) json[field] = null;
    else if (def.kind.type === 'decimal') json[field] = Number(value);
    else if (value instanceof Date) json[field] = formatTimestamp(value);
    else json[field] = value;
  }
  return json;
}

/** The creation response: the fields marked for it, in their order; computed fields are null there (spec section 3). */
export function creationJson(table: FieldTable, message: object): Record<string, unknown> {
  const full = resourceJson(table, message);
  return Object.fromEntries(creationFields(table).map((field) => [field, table[field]!.role === 'computed' ? null : full[field]]));
}
