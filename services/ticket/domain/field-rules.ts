import { checkDecimal, type DecimalRange } from './decimal.js';
import { checkEnum, checkInteger, checkText, checkTimestamp } from './field-checks.js';

/**
 * The value rule of one writable field, as data: validation runs on it, and the gateway's
 * OpenAPI document is generated from the same tables, so the two cannot drift.
 */
export type FieldRule =
  | { kind: 'text'; nullable: boolean; max: number; notBlank?: boolean }
  | { kind: 'decimal'; nullable: boolean; range: DecimalRange }
  | { kind: 'integer'; min: number }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'timestamp'; nullable: boolean };

export type CheckedValue = { value: string | number | boolean | Date | null } | { error: string };

export function isNullable(rule: FieldRule): boolean {
  return (rule.kind === 'text' || rule.kind === 'decimal' || rule.kind === 'timestamp') && rule.nullable;
}

/** `raw` is the message's value: undefined means null. */
export function checkValue(rule: FieldRule, raw: unknown): CheckedValue {
  if (raw === undefined || raw === null) return isNullable(rule) ? { value: null } : { error: 'must not be null' };
  const problem = (error: string | undefined, value: string | number | boolean | Date): CheckedValue => (error ? { error } : { value });
  switch (rule.kind) {
    case 'text':
      return problem(checkText(raw as string, rule), raw as string);
    case 'decimal':
      return checkDecimal(raw as string, rule.range);
    case 'integer':
      return problem(checkInteger(raw as number, rule.min), raw as number);
    case 'boolean':
      return { value: raw as boolean };
    case 'enum':
      return problem(checkEnum(raw as string, rule.values), raw as string);
    case 'timestamp':
      return problem(checkTimestamp(raw as Date), raw as Date);
  }
}
