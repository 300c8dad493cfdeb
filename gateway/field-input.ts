import { fieldDef, INT32_MAX, type FieldDef, type FieldTable, type NestedValue } from '../lib/fields/kinds.js';
import { parseTimestamp } from '../lib/time.js';
import { longerThan, tooLong } from '../lib/fields/text-length.js';
import type { BodyKind } from './body.js';

export type InputValue = string | number | boolean | Date | string[] | NestedValue | NestedValue[] | null;

/** A value, or its error; `member` names the nested member in the wrong (`[0].name`), appended to the field's name. */
export type Coerced = { value: InputValue } | { error: string; member?: string };

const INT32_MIN = -2_147_483_648;
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const TIMESTAMP_HINT = 'must be a date-time with a UTC offset, such as 2030-01-31T20:00:00+01:00';

/**
 * Type coercion of one body value into what its protobuf field carries (from the field's
 * kind in lib/fields): form values are all strings, JSON values may be the real type or its
 * string form. Only types are checked here, and a text's length against its field's limit (so
 * no hostile length travels on); value rules (ranges, enumerations, patterns) are the service's.
 */
export function coerce(def: FieldDef, raw: unknown, kind: BodyKind): Coerced {
  if (Array.isArray(raw) && kind === 'form' && def.kind.type !== 'text-list') return { error: 'must be sent only once' };
  // A form cannot carry an object: not even its empty value stands for null.
  if (kind === 'form' && (def.kind.type === 'object' || def.kind.type === 'object-list')) return { error: 'must be sent in a JSON body' };
  const nullable = def.nullable;
  // A form cannot send null: its empty string is null for a nullable field.
  if (raw === null || (nullable && kind === 'form' && raw === '')) return nullable ? { value: null } : { error: 'must not be null' };
  switch (def.kind.type) {
    case 'text':
      // Capped here too, from the table (issue 32, item 1): no text longer than its field's limit
      // travels further than the gateway.
      if (typeof raw === 'string' && longerThan(raw, def.kind.max)) return { error: tooLong(def.kind.max) };
      return typeof raw === 'string' ? { value: raw } : { error: 'must be a string' };
    case 'guid':
    case 'enum':
      return typeof raw === 'string' ? { value: raw } : { error: 'must be a string' };
    case 'decimal':
      // The service checks the number itself, exactly, from its text.
      if (typeof raw === 'number' && Number.isFinite(raw)) return { value: String(raw) };
      return typeof raw === 'string' ? { value: raw } : { error: 'must be a number' };
    case 'integer':
      return integer(raw);
    case 'boolean':
      return boolean(raw);
    case 'text-list': {
      // A form sends one value as a string and several as repeated keys.
      const list = Array.isArray(raw) ? raw : kind === 'form' && typeof raw === 'string' ? [raw] : undefined;
      // A list past its limit is refused before it is walked.
      if (list && def.kind.maxItems !== undefined && list.length > def.kind.maxItems) return { error: `must hold at most ${def.kind.maxItems} items` };
      // A repeated field cannot tell an empty list from none: an empty list is refused here, where it can be told.
      if (list && def.kind.minItems !== undefined && list.length < def.kind.minItems) return { error: `must hold at least ${def.kind.minItems} item${def.kind.minItems === 1 ? '' : 's'}` };
      return list?.every((item) => typeof item === 'string') ? { value: list as string[] } : { error: 'must be an array of strings' };
    }
    case 'timestamp': {
      const date = typeof raw === 'string' ? parseTimestamp(raw) : undefined;
      return date ? { value: date } : { error: TIMESTAMP_HINT };
    }
    case 'object':
      return kind === 'json' ? nested(def.kind.fields, raw) : { error: 'must be sent in a JSON body' };
    case 'object-list': {
      if (kind !== 'json') return { error: 'must be sent in a JSON body' };
      if (!Array.isArray(raw)) return { error: 'must be an array of objects' };
      if (def.kind.maxItems !== undefined && raw.length > def.kind.maxItems) return { error: `must hold at most ${def.kind.maxItems} items` };
      const items: NestedValue[] = [];
      for (const [i, item] of raw.entries()) {
        const coerced = nested(def.kind.fields, item);
        if ('error' in coerced) return { error: coerced.error, member: `[${i}]${coerced.member ?? ''}` };
        items.push(coerced.value as NestedValue);
      }
      return { value: items };
    }
  }
}

/** A nested object by its table (types only, as at the top); an error names the member in the wrong (`.name`). */
function nested(fields: FieldTable, raw: unknown): Coerced {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'must be an object' };
  const value: NestedValue = {};
  for (const [key, member] of Object.entries(raw)) {
    const def = fieldDef(fields, key);
    if (!def || def.notInJson) return { error: 'is not a member', member: `.${key}` };
    const coerced = coerce(def, member, 'json');
    if ('error' in coerced) return { error: coerced.error, member: `.${key}${coerced.member ?? ''}` };
    value[key] = coerced.value;
  }
  return { value };
}

function integer(raw: unknown): Coerced {
  let value: number;
  if (typeof raw === 'number') value = raw;
  else if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) value = Number(raw);
  else return { error: 'must be a whole number' };
  if (!Number.isInteger(value)) return { error: 'must be a whole number' };
  if (value < INT32_MIN || value > INT32_MAX) return { error: `must be a whole number no greater than ${INT32_MAX}` };
  return { value };
}

function boolean(raw: unknown): Coerced {
  if (typeof raw === 'boolean') return { value: raw };
  if (raw === 1 || raw === 0) return { value: raw === 1 };
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase();
    if (text === 'true' || text === '1') return { value: true };
    if (text === 'false' || text === '0') return { value: false };
  }
  return { error: 'must be true or false' };
}
