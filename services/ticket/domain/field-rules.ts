import { checkDecimal } from '../../../lib/fields/decimal.js';
import type { FieldDef, ValueOfAny } from '../../../lib/fields/kinds.js';
import { fromMessageField } from '../../../lib/fields/messages.js';
import { checkInteger, checkText, checkTimestamp, notInEnum } from './field-checks.js';

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
      return { value: raw as string[] };
  }
}
