import { status } from '@grpc/grpc-js';
import { isGuid } from '../../../lib/ids.js';
import { RpcError } from '../../../lib/grpc/errors.js';

/**
 * The effective company set of a request (PRODUCT.md section 4): the token's companies,
 * narrowed by the Company header values. Comma lists and repeated headers are the same
 * thing, whitespace is ignored, `*` means all of the token's companies. A malformed value
 * is INVALID_ARGUMENT (400); a GUID the token does not cover is UNAUTHENTICATED (401),
 * whether the company is foreign or does not exist.
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

/** The company_id value that asks for a token covering no company (empty cannot: RFC 6749 3.2 treats it as omitted). */
const NO_COMPANIES = 'none';

/**
 * The companies a token is issued for, from the token request's company_id: empty = the
 * user's default company, `*` = all of the user's companies, `none` = no company at all,
 * else a GUID or a comma list. Returns the unknown values separately so the caller can
 * refuse them (`none` combined with anything else is one of them).
 */
export function requestedTokenCompanies(
  companyParameter: string,
  memberOf: string[],
  defaultCompanyId: string,
): { companies: string[]; refused: string[] } {
  const trimmed = companyParameter.trim();
  if (trimmed === '') return { companies: memberOf.includes(defaultCompanyId) ? [defaultCompanyId] : [], refused: [] };
  if (trimmed.toLowerCase() === NO_COMPANIES) return { companies: [], refused: [] };
  const values = trimmed.split(',').map((v) => v.trim());
  if (values.includes('*')) return { companies: [...memberOf], refused: values.filter((v) => v !== '*' && !memberOf.includes(v.toLowerCase())) };
  const refused = values.filter((v) => !isGuid(v) || !memberOf.includes(v.toLowerCase()));
  const companies = memberOf.filter((guid) => values.some((v) => v.toLowerCase() === guid));
  return { companies, refused };
}

/**
 * True when everything `companyIds` covers lies inside the effective company set: the test
 * for what a request may see or change of something spanning companies (an API client), so
 * that a request narrowed to one company never reaches what also acts for another.
 */
export function withinCompanies(companyIds: string[], effective: string[]): boolean {
  return companyIds.every((guid) => effective.includes(guid));
}
