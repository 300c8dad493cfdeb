import { creationFields, tableEntries, type FieldKind, type FieldTable } from './kinds.js';
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
    const raw = (message as Record<string, unknown>)[field];
    if (def.kind.type === 'object' || def.kind.type === 'object-list') {
      json[field] = nestedJson(def.kind, raw);
      continue;
    }
    const value = fromMessageField(def, raw);
    if (value === null) json[field] = null;
    else if (def.kind.type === 'decimal') json[field] = Number(value);
    else if (value instanceof Date) json[field] = formatTimestamp(value);
    else json[field] = value;
  }
  return json;
}

/** A nested message (or a list of them) as JSON objects by its own table; unset is null. */
function nestedJson(kind: Extract<FieldKind, { type: 'object' | 'object-list' }>, raw: unknown): unknown {
  if (raw === undefined || raw === null) return kind.type === 'object-list' ? [] : null;
  if (kind.type === 'object') return resourceJson(kind.fields, raw as object);
  return (raw as object[]).map((item) => resourceJson(kind.fields, item));
}

/** The creation response: the fields marked for it, in their order; computed fields are null there (spec section 3). */
export function creationJson(table: FieldTable, message: object): Record<string, unknown> {
  const full = resourceJson(table, message);
  return Object.fromEntries(creationFields(table).map((field) => [field, table[field]!.role === 'computed' ? null : full[field]]));
}
