import type { FieldKind } from '../../../lib/fields/kinds.js';
import { NAME_KIND } from '../../../lib/fields/user.js';
import { isEmail } from '../../../lib/fields/email.js';
import { codePoints, longerThan, tooLong } from '../../../lib/fields/text-length.js';
import { RpcError } from '../../../lib/grpc/errors.js';


/** The problem of a text value under its kind (lengths in code points, lib/fields/text-length.ts), or undefined when it is fine. */
export function textProblem(kind: FieldKind, value: string): string | undefined {
  if (kind.type !== 'text') return undefined;
  // The length first: no pattern ever runs over a text longer than its limit (issue 32, item 1).
  const overLong = longerThan(value, kind.max);
  if (kind.format === 'email') return !overLong && isEmail(value) ? undefined : 'must be an e-mail address';
  if (kind.notBlank) return overLong || value.length === 0 ? `must be 1 to ${kind.max} characters` : undefined;
  if (kind.min !== undefined && codePoints(value) < kind.min) return `must be at least ${kind.min} characters`;
  return overLong ? tooLong(kind.max) : undefined;
}

/** The problem of a company or API client name (NAME_KIND, trimmed first), or undefined. */
export function nameProblem(name: string): string | undefined {
  return textProblem(NAME_KIND, name.trim());
}

/** A company or API client name, trimmed; INVALID_ARGUMENT naming `name` when it breaks NAME_KIND. */
export function checkedName(name: string): string {
  const problem = nameProblem(name);
  if (problem) throw RpcError.invalidArgument([{ field: 'name', description: problem }]);
  return name.trim();
}
