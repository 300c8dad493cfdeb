import { checkDecimal } from '../../../lib/fields/decimal.js';
import type { FieldDef, FieldTable, NestedValue, ValueOfAny } from '../../../lib/fields/kinds.js';
import type { FieldViolation } from '../../../lib/grpc/errors.js';
import { fromMessageField } from '../../../lib/fields/messages.js';
import { checkInteger, checkText, checkTimestamp, notInEnum } from '../common/field-checks.js';

export type CheckedValue = { value: ValueOfAny } | { error: string };

/**
 * The value rule of a field, from its row in the field table. `raw` is the message's value:
 * undefined means null; an enum arrives as its proto number.
 */
export function checkValue(def: FieldDef, raw: unknown): CheckedValue {
  if (raw === undefined || raw === null) return def.nullable ? { value: null } : { error: 'must not be null' };
  const problem = (error: string | undefined, value: ValueOfAny): CheckedValue => (error ? { error } : { value });
  const kind = def.kind;
  switch (kind.type) {
    case 'guid':
      return problem(checkText(raw as string, {}), raw as string);
    case 'text':
      return problem(checkText(raw as string, kind), raw as string);
    case 'decimal':
      return checkDecimal(raw as string, kind);
    case 'integer':
      return problem(checkInteger(raw as number, kind.min, kind.max), raw as number);
    case 'boolean':
      return { value: raw as boolean };
    case 'enum': {
      const value = fromMessageField(def, raw) as string | null;
      return value === null ? { error: notInEnum(kind.values) } : { value };
    }
    case 'timestamp':
      return problem(checkTimestamp(raw as Date), raw as Date);
    case 'text-list':
      // A repeated field cannot be unset: a nullable list's null is the empty list (its kind refuses an empty one over REST).
      return def.nullable && (raw as string[]).length === 0 ? { value: null } : { value: raw as string[] };
    case 'object': {
      const [first] = nestedViolations(kind.fields, raw as NestedValue);
      return first ? { error: `${first.field} ${first.description}` } : { value: raw as NestedValue };
    }
    case 'object-list': {
      const items = raw as NestedValue[];
      if (kind.maxItems !== undefined && items.length > kind.maxItems) return { error: `must hold at most ${kind.maxItems} items` };
      const [first] = items.flatMap((item, i) => nestedViolations(kind.fields, item).map((v) => ({ ...v, field: `[${i}].${v.field}` })));
      return first ? { error: `${first.field} ${first.description}` } : { value: items };
    }
  }
}

/** The problems of a nested object's members by their rows, each named by its member (`email`); a required member that is unset is one. */
export function nestedViolations(fields: FieldTable, value: NestedValue): FieldViolation[] {
  return Object.entries(fields).flatMap(([field, def]) => {
    const raw = value[field];
    if ((raw === undefined || raw === null) && def.required) return [{ field, description: 'is required' }];
    const checked = checkValue(def, raw);
    return 'error' in checked ? [{ field, description: checked.error }] : [];
  });
}
