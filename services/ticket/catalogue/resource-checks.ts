import type { FieldViolation } from '../../../lib/grpc/errors.js';
import {
  defaultsOf,
  fieldDef,
  fieldsWithRole,
  requiredFields,
  type FieldDef,
  type FieldsWithRole,
  type FieldTable,
  type Resource,
  type ValuesOf,
} from '../../../lib/fields/kinds.js';
import { sameGuid, sameSecond } from '../common/field-checks.js';
import { checkValue } from './field-rules.js';
import { orderGuards, orderViolations, type ColumnGuard } from './field-order-rules.js';

/**
 * The checks of a creation and of an update, for any resource of lib/fields: value rules of
 * the writable fields, server-managed fields sent back, the update mask (AIP-134). The
 * order rules between two fields are the resource's too (lib/fields, order-rules.ts).
 */

const SERVER_MANAGED_MESSAGE = 'is managed by the service and cannot be changed';

type Writable<T extends FieldTable> = FieldsWithRole<T, 'writable'>;
type ServerManaged<T extends FieldTable> = FieldsWithRole<T, 'server-managed'>;
export type ServerManagedValues<T extends FieldTable> = ValuesOf<T, 'server-managed'>;

/** The message's value of a field (proto field names are the table's names). */
function sent(message: object, field: string): unknown {
  return (message as Record<string, unknown>)[field];
}

/** True when a server-managed field of the message carries the value the service holds (timestamps at second precision). */
function sameAsServer(def: FieldDef, value: unknown, stored: unknown): boolean {
  if (value === undefined || value === '') return stored === null;
  if (stored === null) return false;
  if (def.kind.type === 'guid') return sameGuid(value as string, stored as string);
  if (def.kind.type === 'timestamp') return sameSecond(value as Date, stored as Date);
  return value === stored;
}

/**
 * Creation: required fields must be set, every set writable field is checked and overrides
 * its default. Server-managed fields may only carry the value the service is about to give
 * them (`prospective`; creation has no mask).
 */
export function checkNew<T extends FieldTable>(
  resource: Resource<T>,
  message: object,
  prospective: ServerManagedValues<T>,
): { values: ValuesOf<T, 'writable'>; violations: FieldViolation[] } {
  const table = resource.fields;
  const violations: FieldViolation[] = [];
  const values: Record<string, unknown> = { ...defaultsOf(table) };
  const changed = new Set<string>();
  const required: readonly string[] = requiredFields(table);
  for (const field of fieldsWithRole(table, 'writable')) {
    const raw = sent(message, field);
    if (raw === undefined) {
      if (required.includes(field)) violations.push({ field, description: 'is required' });
      continue;
    }
    const checked = checkValue(table[field]!, raw);
    if ('error' in checked) {
      violations.push({ field, description: checked.error });
    } else {
      values[field] = checked.value;
      changed.add(field);
    }
  }
  for (const field of fieldsWithRole(table, 'server-managed')) {
    const raw = sent(message, field);
    const carried = raw !== undefined && raw !== '';
    if (carried && !sameAsServer(table[field]!, raw, prospective[field])) violations.push({ field, description: SERVER_MANAGED_MESSAGE });
  }
  violations.push(...orderViolations(resource, values, changed));
  return { values: values as ValuesOf<T, 'writable'>, violations };
}

interface ClassifiedMask<T extends FieldTable> {
  writable: Array<Writable<T>>;
  serverManaged: Array<ServerManaged<T>>;
  /** One violation per path that names no field. */
  unknown: FieldViolation[];
}

/**
 * Sorts update-mask paths by role. An empty mask means "the writable fields that are set in
 * the message" (AIP-134). Ignored and computed fields are accepted and ignored; a field
 * that is not part of the object (the etag) is unknown.
 */
function classifyMask<T extends FieldTable>(resource: Resource<T>, paths: readonly string[] | undefined, message: object): ClassifiedMask<T> {
  const table = resource.fields;
  if (!paths || paths.length === 0) {
    return { writable: fieldsWithRole(table, 'writable').filter((field) => sent(message, field) !== undefined), serverManaged: [], unknown: [] };
  }
  const result: ClassifiedMask<T> = { writable: [], serverManaged: [], unknown: [] };
  for (const path of new Set(paths)) {
    const def = fieldDef(table, path);
    if (!def || def.notInJson) result.unknown.push({ field: path, description: `is not a field of the ${resource.noun}` });
    else if (def.role === 'writable') result.writable.push(path as Writable<T>);
    else if (def.role === 'server-managed') result.serverManaged.push(path as ServerManaged<T>);
  }
  return result;
}

/**
 * Update: the mask names the fields to change; a masked field that is unset in the message
 * becomes null. The guards let the UPDATE re-check the order rules against the row it
 * changes, so that they also hold under concurrent updates. Server-managed fields must match the stored values (`guid` names the
 * resource, so a different one is refused here too); anything else is unknown.
 */
export function checkChanges<T extends FieldTable>(
  resource: Resource<T>,
  message: object,
  mask: readonly string[] | undefined,
  current: ValuesOf<T, 'writable' | 'server-managed'>,
): { changes: Partial<ValuesOf<T, 'writable'>>; guards: ColumnGuard[]; violations: FieldViolation[] } {
  const table = resource.fields;
  const paths = classifyMask(resource, mask, message);
  const violations: FieldViolation[] = [...paths.unknown];
  const changes: Record<string, unknown> = {};
  for (const field of paths.writable) {
    const checked = checkValue(table[field]!, sent(message, field));
    if ('error' in checked) violations.push({ field, description: checked.error });
    else changes[field] = checked.value;
  }
  const stored = current as Record<string, unknown>;
  for (const field of paths.serverManaged) {
    if (!sameAsServer(table[field]!, sent(message, field), stored[field])) violations.push({ field, description: SERVER_MANAGED_MESSAGE });
  }
  violations.push(...orderViolations(resource, { ...stored, ...changes }, new Set(Object.keys(changes))));
  return { changes: changes as Partial<ValuesOf<T, 'writable'>>, guards: orderGuards(resource, changes), violations };
}
