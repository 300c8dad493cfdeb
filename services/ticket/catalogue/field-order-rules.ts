import type { FieldDef, OrderRule, Resource } from '../../../lib/fields/kinds.js';
import type { FieldViolation } from '../../../lib/grpc/errors.js';

/** The order rules of a resource (lib/fields): their violations, and the guards that keep them under concurrent updates. */

type Ordered = number | Date;

const comparable = (value: Ordered) => (value instanceof Date ? value.getTime() : value);

function inOrder(rule: OrderRule, lower: Ordered, upper: Ordered): boolean {
  return rule.allowEqual ? comparable(lower) <= comparable(upper) : comparable(lower) < comparable(upper);
}

function message(template: string, rule: OrderRule, values: Readonly<Record<string, unknown>>): string {
  const shown = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));
  return template
    .replace('{lowerValue}', shown(values[rule.lower]))
    .replace('{upperValue}', shown(values[rule.upper]))
    .replace('{lower}', rule.lower)
    .replace('{upper}', rule.upper);
}

/** `values`: the resource as it would be; `changed`: the fields this request sets (validly). Only changed fields are named. */
export function orderViolations(resource: Resource, values: Readonly<Record<string, unknown>>, changed: ReadonlySet<string>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const rule of resource.orderRules) {
    const lower = values[rule.lower] as Ordered | null;
    const upper = values[rule.upper] as Ordered | null;
    if (lower === null || upper === null || lower === undefined || upper === undefined || inOrder(rule, lower, upper)) continue;
    if (changed.has(rule.lower)) violations.push({ field: rule.lower, description: message(rule.lowerMessage, rule, values) });
    if (changed.has(rule.upper)) violations.push({ field: rule.upper, description: message(rule.upperMessage, rule, values) });
  }
  return violations;
}

/** A condition the UPDATE re-checks against the row it changes. */
export interface ColumnGuard {
  /** The field (the store maps it to its column). */
  field: string;
  op: '<' | '<=' | '>' | '>=';
  value: Ordered;
  /** The condition also holds when the column is null. */
  orNull: boolean;
}

/** When an update sets one field of a rule but not the other, the stored other one must still be in order when the row is written. */
export function orderGuards(resource: Resource, changes: Readonly<Record<string, unknown>>): ColumnGuard[] {
  const guards: ColumnGuard[] = [];
  const fields = resource.fields as Readonly<Record<string, FieldDef>>;
  for (const rule of resource.orderRules) {
    const lower = changes[rule.lower] as Ordered | null | undefined;
    const upper = changes[rule.upper] as Ordered | null | undefined;
    const setsLower = lower !== undefined && lower !== null && !Object.hasOwn(changes, rule.upper);
    const setsUpper = upper !== undefined && upper !== null && !Object.hasOwn(changes, rule.lower);
    if (setsLower) guards.push({ field: rule.upper, op: rule.allowEqual ? '>=' : '>', value: lower, orNull: fields[rule.upper]!.nullable });
    if (setsUpper) guards.push({ field: rule.lower, op: rule.allowEqual ? '<=' : '<', value: upper, orNull: fields[rule.lower]!.nullable });
  }
  return guards;
}
