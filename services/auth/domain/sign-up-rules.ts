import { fieldNames, type FieldDef, type ValuesOf } from '../../../lib/fields/kinds.js';
import { SIGN_UP_FIELDS } from '../../../lib/fields/user.js';
import type { FieldViolation } from '../../../lib/grpc/errors.js';
import type { SignUpRequest } from '../../../lib/gen/auth/v1/auth.js';
import { textProblem } from './text-rules.js';

export type SignUpValues = ValuesOf<typeof SIGN_UP_FIELDS, 'writable'>;

/**
 * A sent value as the service keeps it: trimmed (a write-only secret verbatim), an e-mail
 * address lower-cased, a blank optional value null.
 */
function normalized(def: FieldDef, raw: string | undefined): string | null {
  const text = def.writeOnly ? (raw ?? '') : (raw ?? '').trim();
  if (!def.required && text === '') return null;
  return def.kind.type === 'text' && def.kind.format === 'email' ? text.toLowerCase() : text;
}

/** A sign-up request, normalized and checked field by field against lib/fields/user.ts (SIGN_UP_FIELDS). */
export function signUpValues(input: SignUpRequest): { values: SignUpValues; violations: FieldViolation[] } {
  const values: Record<string, string | null> = {};
  const violations: FieldViolation[] = [];
  for (const field of fieldNames(SIGN_UP_FIELDS)) {
    const def: FieldDef = SIGN_UP_FIELDS[field];
    const value = normalized(def, input[field]);
    const problem = value === null ? undefined : textProblem(def.kind, value);
    if (problem) violations.push({ field, description: problem });
    values[field] = value;
  }
  return { values: values as SignUpValues, violations };
}
