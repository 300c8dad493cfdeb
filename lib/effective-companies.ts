import { status } from '@grpc/grpc-js';
import { isGuid } from './ids.js';
import { RpcError } from './grpc/errors.js';

/**
 * The effective company set of a request (PRODUCT.md section 4): the token's companies,
 * narrowed by the Company header values. Comma lists and repeated headers are the same
 * thing, whitespace is ignored, `*` means all of the token's companies. A malformed value
 * is INVALID_ARGUMENT (400); a GUID the token does not cover is UNAUTHENTICATED (401),
 * whether the company is foreign or does not exist.
 *
 * Shared: the auth service answers Authenticate with it, and the ticket service applies it to
 * the token companies it keeps locally, so both give the same answer and the same error.
 */
export function effectiveCompanies(tokenCompanies: string[], headerValues: string[]): string[] {
  if (headerValues.length === 0) return [...tokenCompanies];
  const requested = headerValues.flatMap((value) => value.split(',')).map((value) => value.trim());
  const result = new Set<string>();
  for (const value of requested) {
    if (value === '*') {
      tokenCompanies.forEach((guid) => result.add(guid));
    } else if (!isGuid(value)) {
      // Malformed syntax (400), not a validation failure: no field violations.
      throw new RpcError(status.INVALID_ARGUMENT, `The Company header must be a comma-separated list of company GUIDs or *; got ${JSON.stringify(value.slice(0, 64))}.`, {
        reason: 'invalid_company_header',
      });
    } else {
      const guid = value.toLowerCase();
      if (!tokenCompanies.includes(guid)) {
        throw RpcError.unauthenticated(`The access token does not authorize company ${guid}.`, 'company_not_authorized');
      }
      result.add(guid);
    }
  }
  return tokenCompanies.filter((guid) => result.has(guid));
}
