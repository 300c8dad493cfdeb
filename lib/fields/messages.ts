import { tableEntries, type FieldDef, type FieldTable, type ValueOfAny } from './kinds.js';

/**
 * Field values <-> protobuf message fields. Proto field names are the table's names; null
 * is an unset field; an enum value is its proto number (position in the table's list + 1,
 * 0 being UNSPECIFIED).
 */

/** The enum number of a value; 0 (UNSPECIFIED, refused by the service) for a value the enum lacks. */
function enumNumber(values: readonly string[], value: string): number {
  return values.indexOf(value) + 1;
}

/** A field's value (not null) as its message field holds it. */
export function toMessageValue(def: FieldDef, value: unknown): unknown {
  const kind = def.kind;
  if (kind.type === 'enum' && typeof value === 'string') return enumNumber(kind.values, value);
  if (kind.type === 'object') return toMessageFields(kind.fields, value as Record<string, unknown>);
  if (kind.type === 'object-list') return (value as Array<Record<string, unknown>>).map((item) => toMessageFields(kind.fields, item));
  return value;
}

/** Values -> a partial message (wrap it in the message type's fromPartial). Fields the table lacks are left out. */
export function toMessageFields(table: FieldTable, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const [field, def] of tableEntries(table)) {
    const value = values[field];
    if (value === null || value === undefined) continue;
    message[field] = toMessageValue(def, value);
  }
  return message;
}

/** A message field's value as the table's value: null when unset (a nullable list: when empty); an enum number as its name (null for UNSPECIFIED or unknown numbers). */
export function fromMessageField(def: FieldDef, raw: unknown): ValueOfAny {
  if (raw === undefined || raw === null) return null;
  if (def.kind.type === 'enum') return typeof raw === 'number' ? (def.kind.values[raw - 1] ?? null) : null;
  // A repeated field is never unset: a nullable list's null is the empty list (its kind refuses an empty one).
  if (def.kind.type === 'text-list' && def.nullable && Array.isArray(raw) && raw.length === 0) return null;
  return raw as ValueOfAny;
}
