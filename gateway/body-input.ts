import { status } from '@grpc/grpc-js';
import type { Request, Response } from 'express';
import { isServiceError, readErrorDetails, violationCount, type FieldViolation } from '../lib/grpc/errors.js';
import type { BodyKind } from './body.js';
import { fieldDef, type FieldTable, type Resource } from '../lib/fields/kinds.js';
import { toMessageFields } from '../lib/fields/messages.js';
import { coerce, type InputValue } from './field-input.js';
import { invalidFields } from './problem.js';

export interface ResourceInput {
  /** The partial message (null values unset), for the message type's fromPartial. */
  fields: Record<string, unknown>;
  /** Every key sent, in order: the update mask (AIP-134, as grpc-gateway derives it). */
  updateMask: string[];
  /** Values that could not be turned into their field's type, found before the service is asked. */
  violations: FieldViolation[];
}

/**
 * A body -> a resource message, by the resource's field table. A key that names no field
 * goes into the mask (`unknownKeys: 'mask'`, so the service refuses it on update) or is
 * refused here at creation, where no mask exists (`'refuse'`). Ignored and computed fields
 * go into the mask without a value (the service ignores them).
 */
export function resourceInput(resource: Resource, body: Record<string, unknown>, kind: BodyKind, unknownKeys: 'mask' | 'refuse'): ResourceInput {
  const values: Record<string, InputValue> = {};
  const result: ResourceInput = { fields: {}, updateMask: [], violations: [] };
  for (const [key, raw] of Object.entries(body)) {
    const def = fieldDef(resource.fields, key);
    if (def === undefined || def.notInJson) {
      if (unknownKeys === 'mask') result.updateMask.push(key);
      else result.violations.push({ field: key, description: `is not a field of the ${resource.noun}` });
    } else if (def.role === 'ignored' || def.role === 'computed') {
      result.updateMask.push(key);
    } else {
      const coerced = coerce(def, raw, kind);
      if ('error' in coerced) {
        result.violations.push({ field: `${key}${coerced.member ?? ''}`, description: coerced.error });
      } else {
        values[key] = coerced.value;
        result.updateMask.push(key);
      }
    }
  }
  result.fields = toMessageFields(resource.fields, values);
  return result;
}

/**
 * A body that only sets fields (a move's, a holder's) as its request fields, by its table:
 * unknown keys and type errors are refused with one 422. Lists not sent are empty (a message's
 * repeated field is never unset).
 */
export function bodyFields(resource: Resource, req: Request, res: Response): Record<string, unknown> {
  const input = resourceInput(resource, req.body as Record<string, unknown>, res.locals.bodyKind as BodyKind, 'refuse');
  if (input.violations.length) throw invalidFields(input.violations);
  const lists = Object.entries(resource.fields as FieldTable).filter(([, def]) => def.kind.type === 'text-list' || def.kind.type === 'object-list');
  return { ...Object.fromEntries(lists.map(([name]) => [name, []])), ...input.fields };
}

/**
 * Calls the service. When the body had type errors, the service is asked to validate the
 * rest only (writing nothing), and one 422 lists both kinds of errors; any other answer of
 * the service (404, 401, ...) wins.
 */
export async function callWithTypeErrors<Res>(typeViolations: FieldViolation[], send: (validateOnly: boolean) => Promise<Res>): Promise<Res> {
  if (typeViolations.length === 0) return send(false);
  let serviceViolations: FieldViolation[] = [];
  let serviceCount = 0;
  try {
    await send(true);
  } catch (err) {
    const details = isServiceError(err) && err.code === status.INVALID_ARGUMENT ? readErrorDetails(err) : {};
    if (!details.fieldViolations?.length) throw err;
    serviceViolations = details.fieldViolations;
    serviceCount = violationCount(details);
  }
  const reported = new Set(typeViolations.map((v) => v.field));
  const others = serviceViolations.filter((v) => !reported.has(v.field));
  // The service's count beyond those it listed cannot be told apart from the type errors: counted as others.
  throw invalidFields([...typeViolations, ...others], undefined, typeViolations.length + others.length + (serviceCount - serviceViolations.length));
}
