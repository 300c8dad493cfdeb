import type { FieldViolation } from '../../../lib/grpc/errors.js';

export interface FieldRoles<W extends string, S extends string> {
  writable: readonly W[];
  serverManaged: readonly S[];
  ignored: readonly string[];
  /** "ticket", "event": for the message about unknown fields. */
  noun: string;
}

export interface ClassifiedMask<W extends string, S extends string> {
  writable: W[];
  serverManaged: S[];
  /** One violation per path that names no field. */
  unknown: FieldViolation[];
}

/**
 * Sorts update-mask paths by role. An empty mask means "the writable fields that are set in
 * the message" (AIP-134), which is what `isSet` answers.
 */
export function classifyMask<W extends string, S extends string>(
  paths: readonly string[] | undefined,
  roles: FieldRoles<W, S>,
  isSet: (field: W) => boolean,
): ClassifiedMask<W, S> {
  if (!paths || paths.length === 0) {
    return { writable: roles.writable.filter(isSet), serverManaged: [], unknown: [] };
  }
  const result: ClassifiedMask<W, S> = { writable: [], serverManaged: [], unknown: [] };
  for (const path of new Set(paths)) {
    if ((roles.writable as readonly string[]).includes(path)) result.writable.push(path as W);
    else if ((roles.serverManaged as readonly string[]).includes(path)) result.serverManaged.push(path as S);
    else if (!roles.ignored.includes(path)) result.unknown.push({ field: path, description: `is not a field of the ${roles.noun}` });
  }
  return result;
}
