import { fieldNames, type FieldDef, type ValuesOf } from '../../../lib/fields/kinds.js';
import { SIGN_UP_FIELDS } from '../../../lib/fields/user.js';
import type { FieldViolation } from '../../../lib/grpc/errors.js';
import type { SignUpRequest } from '../../../lib/gen/auth/v1/auth.js';

export type SignUpValues = ValuesOf<typeof SIGN_UP_FIELDS, 'writable'>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A sent value as the service keeps it: trimmed (a write-only secret verbatim), an e-mail
 * address lower-cased, a blank optional value null.
 */
function normalized(def: FieldDef, raw: string | undefined): string | null {
  const text = def.writeOnly ? (raw ?? '') : (raw ?? '').trim();
  if (!def.required && text === '') return null;
  return def.kind.type === 'text' && def.kind.format === 'email' ? text.toLowerCase() : text;
}

/** The value rule of a sign-up text field, from its kind (lengths in UTF-16 units, as sign-up has always counted). */
function textProblem(def: FieldDef, value: string): string | undefined {
  const kind = def.kind;
  if (kind.type !== 'text') return undefined;
  if (kind.format === 'email') return EMAIL.test(value) && value.length <= kind.max ? undefined : 'must be an e-mail address';
  if (kind.notBlank) return value.length < 1 || value.length > kind.max ? `must be 1 to ${kind.max} characters` : undefined;
  if (kind.min !== undefined && value.length < kind.min) return `must be at least ${kind.min} characters`;
  return value.length > kind.max ? `must be at most ${kind.max} characters` : undefined;
}

/** A sign-up request, normalized and checked field by field against lib/fields/user.ts (SIGN_UP_FIELDS). */
export function signUpValues(input: SignUpRequest): { values: SignUpValues; violations: FieldViolation[] } {
  const values: Record<string, string | null> = {};
  const violations: FieldViolation[] = [];
  for (const field of fieldNames(SIGN_UP_FIELDS)) {
    const def: FieldDef = SIGN_UP_FIELDS[field];
    const value = normalized(def, input[field]);
    const problem = value === null ? undefined : textProblem(def, value);
    if (problem) violations.push({ field, description: problem });
    values[field] = value;
  }
  return { values: values as SignUpValues, violations };
}
