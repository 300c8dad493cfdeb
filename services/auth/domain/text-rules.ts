import type { FieldKind } from '../../../lib/fields/kinds.js';
import { NAME_KIND } from '../../../lib/fields/user.js';
import { isEmail } from '../../../lib/fields/email.js';
import { codePoints } from '../../../lib/fields/text-length.js';
import { RpcError } from '../../../lib/grpc/errors.js';


/** The problem of a text value under its kind (lengths in code points, lib/fields/text-length.ts), or undefined when it is fine. */
export function textProblem(kind: FieldKind, value: string): string | undefined {
  if (kind.type !== 'text') return undefined;
  const length = codePoints(value);
  if (kind.format === 'email') return isEmail(value) && length <= kind.max ? undefined : 'must be an e-mail address';
  if (kind.notBlank) return length < 1 || length > kind.max ? `must be 1 to ${kind.max} characters` : undefined;
  if (kind.min !== undefined && length < kind.min) return `must be at least ${kind.min} characters`;
  return length > kind.max ? `must be at most ${kind.max} characters` : undefined;
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
