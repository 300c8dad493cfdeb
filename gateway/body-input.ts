import { status } from '@grpc/grpc-js';
import type { Response } from 'express';
import { isServiceError, readErrorDetails, type FieldViolation } from '../lib/grpc/errors.js';
import type { BodyKind } from './body.js';
import { coerce, type FieldType, type InputValue } from './field-input.js';
import { sendProblem } from './problem.js';

export interface TranslatedBody {
  /** Field -> value, null meaning "set to null" (unset in the message). */
  values: Map<string, InputValue>;
  /** Every key sent, in order: the update mask (AIP-134, as grpc-gateway derives it). */
  mask: string[];
  /** Values that could not be turned into their field's type. */
  violations: FieldViolation[];
}

/**
 * Body -> field values. A key that names no field goes into the mask (`unknownKeys:
 * 'mask'`, so the service refuses it on update) or is refused here at creation, where no
 * mask exists (`'refuse'`).
 */
export function translateBody(
  body: Record<string, unknown>,
  kind: BodyKind,
  fields: ReadonlyMap<string, FieldType>,
  options: { unknownKeys: 'mask' | 'refuse'; noun: string },
): TranslatedBody {
  const result: TranslatedBody = { values: new Map(), mask: [], violations: [] };
  for (const [key, raw] of Object.entries(body)) {
    const type = fields.get(key);
    if (type === undefined) {
      if (options.unknownKeys === 'mask') result.mask.push(key);
      else result.violations.push({ field: key, description: `is not a field of the ${options.noun}` });
    } else if (type === 'ignored') {
      result.mask.push(key);
    } else {
      const coerced = coerce(type, raw, kind);
      if ('error' in coerced) {
        result.violations.push({ field: key, description: coerced.error });
      } else {
        result.values.set(key, coerced.value);
        result.mask.push(key);
      }
    }
  }
  return result;
}

/** The values as a partial message (the field table gives each its message type): null becomes unset. */
export function messageFields<M>(values: ReadonlyMap<string, InputValue>): Partial<M> {
  const fields: Record<string, string | number | boolean | Date> = {};
  for (const [key, value] of values) if (value !== null) fields[key] = value;
  return fields as Partial<M>;
}

/**
 * Calls the service. When the body had type errors, the service is asked to validate the
 * rest only (writing nothing), and one 422 lists both kinds of errors; any other answer of
 * the service (404, 401, ...) wins. Returns undefined when the 422 has been sent.
 */
export async function callWithTypeErrors<Res>(
  res: Response,
  typeViolations: FieldViolation[],
  send: (validateOnly: boolean) => Promise<Res>,
): Promise<Res | undefined> {
  if (typeViolations.length === 0) return send(false);
  let serviceViolations: FieldViolation[] = [];
  try {
    await send(true);
  } catch (err) {
    const details = isServiceError(err) && err.code === status.INVALID_ARGUMENT ? readErrorDetails(err) : {};
    if (!details.fieldViolations?.length) throw err;
    serviceViolations = details.fieldViolations;
  }
  const reported = new Set(typeViolations.map((v) => v.field));
  const errors = [...typeViolations, ...serviceViolations.filter((v) => !reported.has(v.field))];
  sendProblem(res, { status: 422, detail: 'The request has invalid fields.', errors });
  return undefined;
}
